//! The ntfy outbox, on both backends: pushes go out oldest first and only
//! once due, a refused one waits without being overtaken, one left
//! `sending` by a dead sender is sent again, and a decision is pushed once
//! and its outcome once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ulias_core::domain::{DecisionAnswer, DecisionId, DecisionKind, NewDecision, Urgency};
use ulias_core::store::{
    NewPush, PushAction, PushKind, PushPayload, PushStatus, Store, StoreError,
};
use ulias_tests::db::TestDb;
use ulias_tests::on_both_backends;

on_both_backends!(
    pushes_go_out_oldest_first_and_a_refused_one_is_not_overtaken,
    a_push_left_sending_by_a_dead_sender_is_sent_again_once_stale,
    a_decision_is_pushed_once_and_its_outcome_once_after_it_ends,
    a_push_settles_only_from_sending_and_keeps_its_buttons,
    two_senders_never_claim_the_same_push,
    every_push_status_and_kind_the_code_knows_is_accepted_by_the_schema,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap()
}

fn seconds(n: i64) -> TimeDelta {
    TimeDelta::seconds(n)
}

fn alert(title: &str) -> NewPush {
    NewPush {
        kind: PushKind::Alert,
        decision: None,
        payload: PushPayload {
            title: title.into(),
            message: format!("{title}, in detail"),
            urgency: Urgency::High,
            actions: Vec::new(),
        },
    }
}

fn about(decision: DecisionId, kind: PushKind) -> NewPush {
    NewPush {
        decision: Some(decision),
        kind,
        ..alert(&format!("Decision #{decision}"))
    }
}

async fn a_decision(store: &Store) -> DecisionId {
    let ask = NewDecision::new(DecisionKind::Confirmation {
        tool: "deploy".into(),
        arguments: serde_json::json!({}),
    });
    store.create_decision(&ask, t0()).await.unwrap().id
}

/// Claims with sends taking no time and nothing stale.
async fn claim(store: &Store, at: DateTime<Utc>) -> Option<String> {
    store
        .claim_push(at, at - seconds(3600))
        .await
        .unwrap()
        .map(|p| p.payload.title)
}

async fn pushes_go_out_oldest_first_and_a_refused_one_is_not_overtaken(db: &TestDb) {
    let store = db.migrated().await;
    let first = store
        .queue_push(&alert("first"), t0())
        .await
        .unwrap()
        .unwrap();
    store.queue_push(&alert("second"), t0()).await.unwrap();

    assert_eq!(claim(store, t0()).await.as_deref(), Some("first"));
    store
        .retry_push(first, "ntfy answered 429", t0() + seconds(10))
        .await
        .unwrap();
    assert_eq!(
        claim(store, t0() + seconds(5)).await,
        None,
        "the second waits behind the first"
    );
    let again = store
        .claim_push(t0() + seconds(10), t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.attempts), (first, 2));
    assert_eq!(again.error.as_deref(), Some("ntfy answered 429"));
    store
        .mark_push_sent(first, t0() + seconds(10))
        .await
        .unwrap();
    assert_eq!(
        claim(store, t0() + seconds(10)).await.as_deref(),
        Some("second")
    );
    assert_eq!(claim(store, t0() + seconds(10)).await, None);
}

async fn a_push_left_sending_by_a_dead_sender_is_sent_again_once_stale(db: &TestDb) {
    let store = db.migrated().await;
    store.queue_push(&alert("lost"), t0()).await.unwrap();
    let claimed = store.claim_push(t0(), t0()).await.unwrap().unwrap();
    // The sender dies here. A minute later the push is not stale yet.
    let later = t0() + seconds(60);
    assert!(
        store
            .claim_push(later, later - seconds(120))
            .await
            .unwrap()
            .is_none()
    );
    let much_later = t0() + seconds(180);
    let again = store
        .claim_push(much_later, much_later - seconds(120))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.attempts), (claimed.id, 2));
    assert_eq!(again.status, PushStatus::Sending);
}

async fn a_decision_is_pushed_once_and_its_outcome_once_after_it_ends(db: &TestDb) {
    let store = db.migrated().await;
    let decision = a_decision(store).await;
    let silent = a_decision(store).await;
    let push = about(decision, PushKind::Decision);
    assert!(store.queue_push(&push, t0()).await.unwrap().is_some());
    assert_eq!(
        store.queue_push(&push, t0()).await.unwrap(),
        None,
        "a decision's buttons are queued once"
    );
    assert!(
        store
            .decisions_awaiting_outcome_push()
            .await
            .unwrap()
            .is_empty(),
        "still pending"
    );

    let answer = DecisionAnswer {
        option: 0,
        by: "ntfy".into(),
    };
    store
        .answer_decision(decision, &answer, t0())
        .await
        .unwrap();
    store.answer_decision(silent, &answer, t0()).await.unwrap();
    assert_eq!(
        store.decisions_awaiting_outcome_push().await.unwrap(),
        [decision],
        "only a decision whose buttons were pushed"
    );
    let outcome = about(decision, PushKind::Outcome);
    assert!(store.queue_push(&outcome, t0()).await.unwrap().is_some());
    assert_eq!(store.queue_push(&outcome, t0()).await.unwrap(), None);
    assert!(
        store
            .decisions_awaiting_outcome_push()
            .await
            .unwrap()
            .is_empty()
    );
}

async fn a_push_settles_only_from_sending_and_keeps_its_buttons(db: &TestDb) {
    let store = db.migrated().await;
    let decision = a_decision(store).await;
    let mut push = about(decision, PushKind::Decision);
    push.payload.actions = vec![PushAction {
        label: "A: Run it".into(),
        body: "decision:1:A:1:ab".into(),
    }];
    let id = store.queue_push(&push, t0()).await.unwrap().unwrap();
    let refused = store.mark_push_sent(id, t0()).await.unwrap_err();
    assert!(
        matches!(refused, StoreError::IllegalTransition { .. }),
        "{refused:?}"
    );
    let claimed = store.claim_push(t0(), t0()).await.unwrap().unwrap();
    assert_eq!(claimed.payload, push.payload);
    assert_eq!(claimed.decision, Some(decision));
    store
        .mark_push_failed(id, "ntfy answered 400")
        .await
        .unwrap();
    let failed = store.push(id).await.unwrap();
    assert_eq!(failed.status, PushStatus::Failed);
    assert!(store.cancel_push(id, "late").await.is_err());
    assert_eq!(claim(store, t0() + seconds(60)).await, None);
}

async fn two_senders_never_claim_the_same_push(db: &TestDb) {
    let store = db.migrated().await;
    for n in 0..20 {
        store
            .queue_push(&alert(&n.to_string()), t0())
            .await
            .unwrap();
    }
    let other = db.another_store().await;
    let sender = |store: Store| async move {
        let mut got = Vec::new();
        while let Some(push) = store.claim_push(t0(), t0() - seconds(60)).await.unwrap() {
            store.mark_push_sent(push.id, t0()).await.unwrap();
            got.push(push.id);
        }
        got
    };
    let (a, b) = tokio::join!(
        tokio::spawn(sender(store.clone())),
        tokio::spawn(sender(other))
    );
    let mut all: Vec<i64> = a.unwrap().into_iter().chain(b.unwrap()).collect();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 20, "each push once, none twice");
}

async fn every_push_status_and_kind_the_code_knows_is_accepted_by_the_schema(db: &TestDb) {
    let store = db.migrated().await;
    let decision = a_decision(store).await;
    for status in PushStatus::ALL {
        let since = if *status == PushStatus::Sending {
            "1"
        } else {
            "NULL"
        };
        let sql = format!(
            "INSERT INTO ntfy_pushes (kind, payload, status, not_before, sending_since, \
             created_at) VALUES ('alert', '{{}}', '{status}', 0, {since}, 0)"
        );
        assert_eq!(db.execute(&sql).await.unwrap(), 1, "push status {status}");
    }
    for kind in PushKind::ALL {
        let id = if *kind == PushKind::Alert {
            "NULL".to_owned()
        } else {
            decision.to_string()
        };
        let sql = format!(
            "INSERT INTO ntfy_pushes (kind, decision_id, payload, not_before, created_at) \
             VALUES ('{kind}', {id}, '{{}}', 0, 0)"
        );
        assert_eq!(db.execute(&sql).await.unwrap(), 1, "push kind {kind}");
    }
    let bad = "INSERT INTO ntfy_pushes (kind, payload, status, not_before, created_at) \
               VALUES ('alert', '{}', 'lost', 0, 0)";
    assert!(db.execute(bad).await.is_err());
    let alert_about_a_decision = format!(
        "INSERT INTO ntfy_pushes (kind, decision_id, payload, not_before, created_at) \
         VALUES ('alert', {decision}, '{{}}', 0, 0)"
    );
    assert!(db.execute(&alert_about_a_decision).await.is_err());
}
