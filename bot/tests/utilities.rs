//! The Builder's utilities through the process: an approved quiz is
//! released (its tested `dist/` copied to its command's folder) and
//! announced in the operation's group, then a member's `/quiz` gets one of
//! its questions as a native quiz poll and `/price` the alerts set up; a
//! utility whose latest run did not pass is never released.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use std::path::Path;

use serde_json::{Value, json};
use ulias_core::domain::{
    NewValidation, OperationId, PublicationId, PublicationStatus, PublicationTarget, ValidationKind,
};
use ulias_core::settings::{GroupSettings, Locale, ModerationMode};
use ulias_core::store::{NewUtilityRun, Store, UtilityRunStatus};
use ulias_tests::db::TestDb;
use ulias_tests::fake_telegram::FakeUser;

use surface::*;

fn quiz_config() -> Value {
    json!({"title": "PEP2 quiz", "questions": [
        {"question": "On which chain does PEP2 live?", "options": ["Ethereum", "Base"], "answer": 1,
         "explanation": "PEP2 is on Base."}]})
}

/// What the quiz template's build makes of [`quiz_config`].
fn quiz_dist() -> Value {
    json!({"command": "/quiz", "title": "PEP2 quiz", "polls": [
        {"type": "quiz", "question": "On which chain does PEP2 live?", "options": ["Ethereum", "Base"],
         "correct_option_id": 1, "explanation": "PEP2 is on Base.", "is_anonymous": false}]})
}

/// A running operation bound to the group.
async fn operation(store: &Store) -> OperationId {
    let op = surface::running_operation(store, "PEP2").await;
    store
        .bind_group(GROUP, op, "bob", start_time())
        .await
        .unwrap();
    op
}

/// A run of `template` recorded as the sandbox would, its `dist/` written.
async fn run(
    store: &Store,
    op: OperationId,
    dir: &Path,
    status: UtilityRunStatus,
    dist: &[(&str, Value)],
) {
    std::fs::create_dir_all(dir.join("dist")).unwrap();
    for (name, content) in dist {
        std::fs::write(dir.join("dist").join(name), content.to_string()).unwrap();
    }
    let template = if dist.iter().any(|(n, _)| *n == "alerts.json") {
        "tg-price-alerts"
    } else {
        "tg-quiz-bot"
    };
    let config = if template == "tg-quiz-bot" {
        quiz_config()
    } else {
        alerts_config()
    };
    let run = NewUtilityRun {
        operation_id: op,
        task_id: None,
        template: template.into(),
        config,
        status,
        output_tail: "Ran 3 tests\nOK".into(),
        attempt: 1,
        dir: Some(dir.display().to_string()),
    };
    store.record_utility_run(&run, start_time()).await.unwrap();
}

fn alerts_config() -> Value {
    json!({"token_address": "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "chain": "base",
           "thresholds": [{"direction": "above", "price_usd": 0.5}]})
}

async fn approved(store: &Store, op: OperationId, template: &str, config: Value) -> PublicationId {
    let validation = NewValidation {
        task_id: None,
        operation_id: Some(op),
        kind: ValidationKind::Utility,
        target: PublicationTarget::Telegram,
        payload: json!({"tool": "utility_publish",
                        "content": {"kind": "utility", "template": template, "config": config}}),
    };
    approved_validation(store, &validation).await
}

fn group() -> GroupSettings {
    GroupSettings {
        chat_id: GROUP,
        name: "PEPE2 community".to_owned(),
        mode: ModerationMode::Normal,
        captcha: false,
        official_addresses: Vec::new(),
        operation: None,
        allowed_domains: Vec::new(),
        stop_phrases: Vec::new(),
        raid_joins_per_minute: 50,
        raid_quiet_seconds: 2,
        raid_max_seconds: 3600,
        captcha_seconds: 120,
    }
}

async fn start(db: TestDb, data: &Path) -> Surface {
    let data = data.to_owned();
    Surface::start_with(db, Locale::En, Vec::new(), move |s| {
        s.data_dir = data;
        s.telegram.groups = vec![group()];
    })
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_quiz_is_announced_and_answers_quiz_in_the_group_with_a_quiz_poll() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let data = tempfile::tempdir().unwrap();
    let op = operation(&db.store).await;
    let runs = data.path().join("utilities/operation-1");
    run(
        &db.store,
        op,
        &runs.join("run-1"),
        UtilityRunStatus::Passed,
        &[("quiz.json", quiz_dist())],
    )
    .await;
    run(&db.store, op, &runs.join("run-2"), UtilityRunStatus::Passed,
        &[("alerts.json", json!({"command": "/price", "token_address": "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
                                 "chain": "base", "thresholds": [{"direction": "above", "price_usd": 0.5}]}))]).await;
    approved(&db.store, op, "tg-quiz-bot", quiz_config()).await;
    approved(&db.store, op, "tg-price-alerts", alerts_config()).await;
    let s = start(db, data.path()).await;

    s.message_containing(GROUP, "New in this group: /quiz")
        .await;
    s.message_containing(GROUP, "New in this group: /price")
        .await;
    assert!(
        runs.join("commands/quiz/quiz.json").is_file(),
        "the tested dist/ is released"
    );
    let released = s.store().released_utilities(op).await.unwrap();
    assert_eq!(released.len(), 2);

    let member = FakeUser::new(9100, "Marie");
    s.tg.send_text(GROUP, &member, "/quiz@ulias_bot");
    let poll =
        s.tg.wait_for("sendPoll", |p| p["chat_id"] == json!(GROUP), WAIT)
            .await
            .unwrap();
    assert_eq!(poll["type"], "quiz", "{poll}");
    assert_eq!(poll["question"], "On which chain does PEP2 live?");
    assert_eq!(poll["correct_option_id"], 1);
    s.tg.send_text(GROUP, &member, "/price");
    s.message_containing(
        GROUP,
        "Price alerts for 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed (base): ≥ $0.5",
    )
    .await;
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_utility_whose_latest_run_failed_is_never_released() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let data = tempfile::tempdir().unwrap();
    let op = operation(&db.store).await;
    let runs = data.path().join("utilities/operation-1");
    run(
        &db.store,
        op,
        &runs.join("run-1"),
        UtilityRunStatus::Passed,
        &[("quiz.json", quiz_dist())],
    )
    .await;
    run(
        &db.store,
        op,
        &runs.join("run-2"),
        UtilityRunStatus::Failed,
        &[("quiz.json", quiz_dist())],
    )
    .await;
    let publication = approved(&db.store, op, "tg-quiz-bot", quiz_config()).await;
    let s = start(db, data.path()).await;

    let refused = eventually("the publication is refused", || async {
        let job = s.store().publication(publication).await.unwrap();
        (job.status == PublicationStatus::Failed).then_some(job)
    })
    .await;
    assert!(
        refused
            .error
            .unwrap_or_default()
            .contains("latest run of tg-quiz-bot failed"),
        "the reason is kept"
    );
    assert!(s.store().released_utilities(op).await.unwrap().is_empty());
    assert!(!runs.join("commands/quiz").exists());
    assert!(
        !s.tg.sent_texts(GROUP).iter().any(|t| t.contains("/quiz")),
        "nothing is announced"
    );
    s.stop().await;
}

#[test]
fn ulias_sandbox_forward_runs_the_command_and_exits_with_its_status() {
    let ulias = env!("CARGO_BIN_EXE_ulias");
    let ran = std::process::Command::new(ulias)
        .args([
            "sandbox-forward",
            "--socket",
            "/nonexistent.sock",
            "--",
            "sh",
            "-c",
            "echo inside; exit 3",
        ])
        .output()
        .unwrap();
    let refused = std::process::Command::new(ulias)
        .args(["sandbox-forward", "--socket"])
        .output()
        .unwrap();

    assert_eq!(ran.status.code(), Some(3));
    assert_eq!(String::from_utf8_lossy(&ran.stdout), "inside\n");
    assert_eq!(
        refused.status.code(),
        Some(125),
        "a malformed call runs nothing"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn released_price_alerts_post_in_the_group_when_the_price_crosses_a_threshold_once_per_cooldown()
 {
    use ulias_tests::fake_chain::{PEP2, simulation_chain};
    let chain = simulation_chain().await;
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let data = tempfile::tempdir().unwrap();
    let op = operation(&db.store).await;
    // The fixture's price is 2.853e-8: the alert is for 5e-8 and up.
    let alerts = json!({"command": "/price", "token_address": PEP2.to_lowercase(), "chain": "base",
                        "thresholds": [{"direction": "above", "price_usd": 5e-8}],
                        "cooldown_minutes": 120});
    run(
        &db.store,
        op,
        &data.path().join("run-1"),
        UtilityRunStatus::Passed,
        &[("alerts.json", alerts)],
    )
    .await;
    approved(&db.store, op, "tg-price-alerts", alerts_config()).await;
    let (data_dir, endpoints) = (data.path().to_owned(), chain.endpoints().unwrap());
    let s = Surface::start_with(db, Locale::En, Vec::new(), move |s| {
        s.data_dir = data_dir;
        s.telegram.groups = vec![group()];
        s.engine.price_alert_seconds = 1;
        for settings in s.chains.all_mut() {
            *settings = endpoints.clone();
        }
    })
    .await;
    s.message_containing(GROUP, "/price").await;
    // A reading below the threshold first (the baseline), then a pump.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    chain.update(|world| {
        let token = world.token_mut(PEP2).unwrap();
        token.pairs[0].price_usd = 6e-8;
    });

    let alert = s
        .message_containing(GROUP, "PEP2 is above $0.00000005")
        .await;
    assert!(
        alert["text"].as_str().unwrap().contains("0.00000006"),
        "{alert}"
    );
    // Later readings stay above: no second alert within the cooldown.
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    let alerts_sent =
        s.tg.messages(GROUP)
            .into_iter()
            .filter(|m| m["text"].as_str().unwrap_or_default().contains("is above"))
            .count();
    assert_eq!(alerts_sent, 1);
    s.stop().await;
}
