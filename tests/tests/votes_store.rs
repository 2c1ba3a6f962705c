//! Votes and X tokens in the store, on both backends: a poll is recorded
//! once and its counts follow the platform; a tie is settled once, among
//! the tied options only; a refreshed token replaces the stored one only
//! if nobody refreshed first; an account is paused once.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeZone, Utc};
use ulias_core::domain::{
    DecidedBy, NewOperation, NewValidation, PollPlatform, PublicationTarget, ValidationKind,
};
use ulias_core::store::{NewPoll, NewVoteOutcome, Sealed, Store, XAccount, XPause};
use ulias_tests::db::TestDb;
use ulias_tests::on_both_backends;

on_both_backends!(
    a_poll_is_recorded_once_and_its_counts_follow_the_platform,
    a_tie_is_settled_once_and_only_among_the_tied_options,
    a_refreshed_token_replaces_the_stored_one_only_if_nobody_refreshed_first,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap()
}

fn options() -> Vec<String> {
    vec!["Neon".into(), "Retro".into(), "Zen".into()]
}

async fn operation_with_publication(
    store: &Store,
) -> (
    ulias_core::domain::OperationId,
    ulias_core::domain::PublicationId,
) {
    let op = store
        .create_operation(
            &NewOperation {
                name: "Pepe Two".into(),
                token_symbol: Some("PEP2".into()),
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: t0(),
            },
            t0(),
        )
        .await
        .unwrap();
    let validation = store
        .create_validation(
            &NewValidation {
                task_id: None,
                operation_id: Some(op.id),
                kind: ValidationKind::Poll,
                target: PublicationTarget::Telegram,
                payload: serde_json::json!({"content": {"kind": "poll", "question": "Which?", "options": options()}}),
            },
            t0(),
        )
        .await
        .unwrap();
    let publication = store
        .approve_validation(validation.id, "bob", t0())
        .await
        .unwrap();
    (op.id, publication)
}

async fn a_poll_is_recorded_once_and_its_counts_follow_the_platform(db: &TestDb) {
    let store = db.migrated().await;
    let (op, publication) = operation_with_publication(store).await;
    let poll = NewPoll {
        operation_id: Some(op),
        publication_id: publication,
        platform: PollPlatform::Telegram,
        external_id: "5000000001".into(),
        question: "Which?".into(),
        options: options(),
    };
    store.record_poll(&poll, t0()).await.unwrap();
    store.record_poll(&poll, t0()).await.unwrap();
    let polls = store.polls_of_operation(op).await.unwrap();
    assert_eq!(polls.len(), 1, "sent again, recorded once");
    assert_eq!(polls[0].counts, [0, 0, 0]);
    assert!(
        store
            .set_poll_counts(PollPlatform::Telegram, "5000000001", &[3, 1, 0], 12, t0())
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_poll_counts(PollPlatform::Telegram, "5000000001", &[1, 0, 0], 11, t0())
            .await
            .unwrap(),
        "an update older than the counts stored is ignored"
    );
    assert!(
        !store
            .set_poll_counts(PollPlatform::X, "5000000001", &[9, 9, 9], 13, t0())
            .await
            .unwrap(),
        "the same id on another platform is another poll"
    );
    assert!(
        store
            .set_poll_counts(PollPlatform::Telegram, "5000000001", &[3, 1, 0], 12, t0())
            .await
            .unwrap(),
        "a state as new as the stored one is kept (X read twice in a millisecond)"
    );
    assert!(
        !store
            .set_poll_counts(PollPlatform::Telegram, "someone-elses", &[1], 14, t0())
            .await
            .unwrap()
    );
    assert_eq!(
        store.polls_of_operation(op).await.unwrap()[0].counts,
        [3, 1, 0]
    );
    assert_eq!(
        store
            .recent_polls(PollPlatform::Telegram, t0())
            .await
            .unwrap()
            .len(),
        1
    );
}

async fn a_tie_is_settled_once_and_only_among_the_tied_options(db: &TestDb) {
    let store = db.migrated().await;
    let (op, _) = operation_with_publication(store).await;
    let tie = store
        .record_vote_outcome(
            &NewVoteOutcome {
                operation_id: op,
                task_id: None,
                question: "Which?".into(),
                options: options(),
                totals: vec![4, 4, 1],
                x_totals: vec![1, 1, 0],
                decided: None,
                tied: vec![0, 1],
            },
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(tie.winner, None);
    assert_eq!(store.unannounced_ties().await.unwrap().len(), 1);
    store.mark_tie_announced(tie.id, t0()).await.unwrap();
    assert!(
        store.unannounced_ties().await.unwrap().is_empty(),
        "asked once"
    );
    assert!(
        store.decide_tie(tie.id, 2, "bob", t0()).await.is_err(),
        "Zen was not tied"
    );
    let decided = store.decide_tie(tie.id, 1, "bob", t0()).await.unwrap();
    assert_eq!(
        (
            decided.winner_label(),
            decided.decided_by,
            decided.decided_by_user.as_deref()
        ),
        (Some("Retro"), Some(DecidedBy::Team), Some("bob"))
    );
    assert!(
        store.decide_tie(tie.id, 0, "carol", t0()).await.is_err(),
        "a second press changes nothing"
    );
    let latest = store.latest_vote_outcome(op).await.unwrap().unwrap();
    assert_eq!(latest.winner_label(), Some("Retro"));
}

fn sealed(text: &str) -> Sealed {
    Sealed {
        nonce: vec![7; 24],
        ciphertext: text.as_bytes().to_vec(),
    }
}

async fn a_refreshed_token_replaces_the_stored_one_only_if_nobody_refreshed_first(db: &TestDb) {
    let store = db.migrated().await;
    let account = XAccount {
        name: "pepe2".into(),
        user_id: "42".into(),
        token: sealed("access-1"),
        refresh: Some(sealed("refresh-1")),
        expires_at: Some(t0()),
        paused: None,
        last_mention_id: None,
    };
    store.save_x_account(&account, t0()).await.unwrap();
    let later = t0() + chrono::TimeDelta::hours(2);
    assert!(
        store
            .replace_x_tokens(
                "pepe2",
                &sealed("refresh-1"),
                &sealed("access-2"),
                &sealed("refresh-2"),
                later,
                t0()
            )
            .await
            .unwrap()
    );
    assert!(
        !store
            .replace_x_tokens(
                "pepe2",
                &sealed("refresh-1"),
                &sealed("access-3"),
                &sealed("refresh-3"),
                later,
                t0()
            )
            .await
            .unwrap(),
        "a worker holding the old refresh token writes nothing"
    );
    let stored = store.x_account("pepe2").await.unwrap().unwrap();
    assert_eq!(stored.token, sealed("access-2"));
    assert_eq!(stored.refresh, Some(sealed("refresh-2")));
    assert_eq!(stored.expires_at, Some(later));
    assert!(
        store
            .pause_x_account("pepe2", XPause::RefreshFailed)
            .await
            .unwrap()
    );
    assert!(
        !store
            .pause_x_account("pepe2", XPause::RefreshFailed)
            .await
            .unwrap(),
        "paused once"
    );
    assert_eq!(
        store.x_account("pepe2").await.unwrap().unwrap().paused,
        Some(XPause::RefreshFailed)
    );
    store.save_x_account(&account, t0()).await.unwrap();
    assert_eq!(
        store.x_account("pepe2").await.unwrap().unwrap().paused,
        None,
        "connected again: its posts go out"
    );
}
