//! The process never hangs on a dead peer: a Bot API that stops answering
//! does not keep a stopping process alive past its grace period, and an
//! ntfy server that accepts connections and never answers holds up neither
//! the decisions nor the validations behind them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::time::{Duration, Instant};

use serde_json::json;
use ulias_core::domain::{
    DecisionKind, NewDecision, NewValidation, PublicationTarget, Urgency, ValidationKind,
};
use ulias_core::settings::Locale;
use ulias_tests::db::TestDb;

use surface::*;

/// A server that accepts every connection and never answers.
async fn silent_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    format!("http://{address}/")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stop_with_the_bot_api_gone_ends_within_the_grace_period() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |settings| {
        settings.engine.stop_grace_seconds = 2;
    })
    .await;
    s.tg.wait_for("getUpdates", |_| true, WAIT).await.unwrap();
    s.tg.hang();
    tokio::time::sleep(Duration::from_millis(500)).await;

    let asked = Instant::now();
    s.stop().await;

    assert!(
        asked.elapsed() < Duration::from_secs(6),
        "stopped after {:?}",
        asked.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ntfy_server_that_never_answers_holds_up_no_decision_and_no_validation() {
    let ntfy = silent_server().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |settings| {
        settings.ntfy.server = ntfy.parse().unwrap();
        settings.ntfy.topic = "ulias-alerts".into();
        settings.http.request_timeout_seconds = 120;
    })
    .await;
    let now = start_time();
    let decision = NewDecision {
        urgency: Urgency::High,
        ..NewDecision::new(DecisionKind::Confirmation {
            tool: "docker_restart".into(),
            arguments: serde_json::json!({"container": "proxy"}),
        })
    };
    s.store().create_decision(&decision, now).await.unwrap();
    s.message_containing(CEO, "docker_restart").await;

    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Post,
        target: PublicationTarget::Telegram,
        payload: json!({"step": "cm.daily_post", "args": {"text": "GM holders"}}),
    };
    s.store()
        .create_validation(&validation, start_time())
        .await
        .unwrap();
    let shown = Instant::now();
    s.message_containing(TEAM_CHAT, "GM holders").await;
    assert!(
        shown.elapsed() < Duration::from_secs(5),
        "the validation waited {:?} behind the push",
        shown.elapsed()
    );
    s.stop().await;
}
