//! The store suite, written once and run on both backends: on SQLite
//! always, on PostgreSQL when `ULIAS_TEST_POSTGRES_URL` is set. Each test
//! gets a fresh database (SQLite) or schema (PostgreSQL).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::collections::HashSet;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde_json::json;
use ulias_core::domain::{
    DecisionAnswer, DecisionKind, DecisionOption, DecisionStatus, NewDecision, NewObjective,
    NewTask, NewValidation, ObjectiveStatus, Priority, ProfileKind, ProposalStatus,
    PublicationTarget, Status, Task, TaskId, TaskOutcome, TaskStatus, Team, Urgency,
    ValidationKind, ValidationStatus,
};
use ulias_core::money::Usd;
use ulias_core::store::{ObjectiveUpdate, Store, StoreError};
use ulias_tests::db::TestDb;

use ulias_tests::on_both_backends;

on_both_backends!(
    migrations_apply_to_an_empty_database_and_a_second_run_changes_nothing,
    a_group_member_is_remembered_per_group_and_saved_again_in_place,
    an_open_captcha_is_kept_per_group_updated_in_place_and_forgotten,
    a_service_has_at_most_one_open_incident_and_a_resolved_one_stays_resolved,
    an_event_is_claimed_by_one_worker_and_taken_again_after_a_stale_claim,
    importing_a_corpus_twice_keeps_each_sample_once,
    learned_ham_is_capped_per_member_and_day_kept_once_and_withdrawn_with_its_message,
    every_status_the_code_knows_is_accepted_by_the_schema_and_no_other,
    claiming_a_task_writes_its_lease_its_attempt_and_its_start,
    completing_a_task_records_its_outcome_and_releases_the_lease,
    a_worker_that_lost_its_lease_cannot_finish_the_task,
    illegal_task_transitions_are_refused_and_change_nothing,
    objective_transitions_stamp_their_times_and_refuse_to_leave_a_final_status,
    a_failed_run_is_retried_until_its_attempts_are_spent,
    an_expired_lease_returns_the_task_to_the_queue_with_its_attempt_counted,
    a_task_is_queued_only_once_due_and_once_its_dependencies_are_completed,
    a_dependency_on_a_missing_task_is_refused,
    the_highest_priority_is_claimed_first,
    two_concurrent_claimers_never_get_the_same_task,
    a_blocked_task_goes_back_to_the_queue_with_its_new_input,
    a_decision_is_answered_once_and_times_out_to_its_automatic_choice,
    a_decision_stored_before_kinds_keeps_its_words,
    approving_twice_queues_one_publication,
    concurrent_approvals_queue_one_publication,
    rejecting_keeps_the_reason_and_queues_nothing,
    a_task_claimed_at_creation_never_enters_the_queue,
    a_stopped_operation_cancels_its_open_steps_and_withdraws_its_validations,
    a_publication_is_claimed_once_and_an_interrupted_one_waits_for_a_person,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 9, 0, 0).unwrap()
}

fn minutes(n: i64) -> TimeDelta {
    TimeDelta::minutes(n)
}

async fn queued_task(store: &Store, title: &str) -> Task {
    let task = store
        .create_task(&new_task(title, t0()), t0())
        .await
        .unwrap();
    store.promote_ready_tasks(t0()).await.unwrap();
    store.task(task.id).await.unwrap()
}

fn new_task(title: &str, due: DateTime<Utc>) -> NewTask {
    NewTask::new("coder".parse().unwrap(), Team::Engineering, title, due)
}

fn outcome() -> TaskOutcome {
    TaskOutcome {
        result: json!({"summary": "done"}),
        confidence: Some(0.82),
        model: Some("devstral-small-2".into()),
        tokens_in: 1200,
        tokens_out: 300,
        cost: Usd::from_micros(0),
        cloud_equivalent_cost: Usd::from_micros(8_100),
        iterations: 3,
        duration_ms: 4_500,
    }
}

fn is_illegal(error: &StoreError, from: &str, to: &str) -> bool {
    matches!(error, StoreError::IllegalTransition { from: f, to: t, .. } if f == from && t == to)
}

async fn a_group_member_is_remembered_per_group_and_saved_again_in_place(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let now = chrono::DateTime::from_timestamp(1_764_666_000, 0).unwrap();
    let mut member = ulias_core::store::GroupMember {
        user_id: 42,
        clean: 3,
        strikes_ever: 0,
        first_seen: Some(now),
    };
    store.save_group_member(-100, &member, now).await.unwrap();
    member.clean = 4;
    member.strikes_ever = 1;
    store.save_group_member(-100, &member, now).await.unwrap();
    assert_eq!(store.group_members(-100).await.unwrap(), [member]);
    assert!(store.group_members(-200).await.unwrap().is_empty());
}

async fn an_open_captcha_is_kept_per_group_updated_in_place_and_forgotten(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let mut open = ulias_core::store::OpenCaptcha {
        user_id: 42,
        answer: 9,
        deadline: 1_764_666_120,
        failed: false,
        message_id: Some(7),
    };
    store.save_captcha(-100, &open).await.unwrap();
    open.failed = true;
    store.save_captcha(-100, &open).await.unwrap();
    assert_eq!(store.open_captchas(-100).await.unwrap(), [open]);
    assert!(store.open_captchas(-200).await.unwrap().is_empty());

    store.forget_captcha(-100, 42).await.unwrap();

    assert!(store.open_captchas(-100).await.unwrap().is_empty());
}

async fn importing_a_corpus_twice_keeps_each_sample_once(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let now = chrono::DateTime::from_timestamp(1_764_666_000, 0).unwrap();
    let samples = [
        (true, "DM me for the presale whitelist".to_owned()),
        (true, "DM me for the presale whitelist".to_owned()),
        (false, "when is the next community call?".to_owned()),
        (false, "  ".to_owned()),
    ];
    assert_eq!(
        store
            .import_spam_samples(-100, &samples, "import", now)
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        store
            .import_spam_samples(-100, &samples, "import", now)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        store
            .import_spam_samples(-200, &samples[..1], "import", now)
            .await
            .unwrap(),
        1
    );
    let (spam, ham) = store.spam_corpus().await.unwrap();
    assert_eq!(spam.len(), 2, "once per group: {spam:?}");
    assert_eq!(ham, ["when is the next community call?"]);
}

async fn learned_ham_is_capped_per_member_and_day_kept_once_and_withdrawn_with_its_message(
    db: &TestDb,
) {
    use ulias_core::store::{Learned, LearnedHam};
    db.migrated().await;
    let store = &db.store;
    let texts = [
        "the bridge took twenty minutes but my tokens arrived",
        "staking rewards showed up after the epoch ended",
        "the audit report is linked in the pinned message",
    ];
    let ham = |message_id: i64, text: &'static str| LearnedHam {
        chat_id: -100,
        user_id: 7,
        message_id,
        text,
    };
    let tomorrow = t0() + TimeDelta::hours(25);
    // The fourth comes a day later, when the member's share is open again.
    let table = [
        (1, texts[0], t0(), Learned::Added),
        (2, texts[0], t0(), Learned::Duplicate),
        (3, texts[1], t0(), Learned::Added),
        (4, texts[2], t0(), Learned::OverCap),
        (4, texts[2], tomorrow, Learned::Added),
    ];
    for (message_id, text, at, expected) in table {
        let learned = store
            .learn_ham(&ham(message_id, text), 2, at)
            .await
            .unwrap();
        assert_eq!(learned, expected, "message {message_id} at {at}");
    }
    let (_, ham_texts) = store.spam_corpus().await.unwrap();
    assert_eq!(ham_texts, texts);

    // Message 3 is deleted (or reported) later: its sample goes, once.
    assert!(store.withdraw_learned_ham(-100, 3).await.unwrap());
    assert!(!store.withdraw_learned_ham(-100, 3).await.unwrap());
    assert!(
        !store.withdraw_learned_ham(-200, 1).await.unwrap(),
        "another group's message"
    );
    let (_, ham_texts) = store.spam_corpus().await.unwrap();
    assert_eq!(ham_texts, [texts[0], texts[2]]);
}

async fn migrations_apply_to_an_empty_database_and_a_second_run_changes_nothing(db: &TestDb) {
    assert!(
        db.tables().await.is_empty(),
        "a fresh database has no tables"
    );

    let first = db.store.migrate().await.unwrap();
    assert_eq!(first.applied_now.len(), first.total);
    assert!(first.total >= 1);
    let tables = db.tables().await;
    for expected in [
        "objectives",
        "tasks",
        "task_dependencies",
        "messages",
        "decisions",
        "validations",
        "publications",
        "log_entries",
        "operations",
        "operation_files",
        "assets",
        "metrics",
        "lessons",
        "ceo_profile",
        "ceo_interactions",
        "prompt_versions",
        "routing_rules",
        "schedules",
        "admin_audit",
        "dialogues",
        "group_members",
    ] {
        assert!(
            tables.contains(&expected.to_owned()),
            "missing table {expected}"
        );
    }

    let second = db.store.migrate().await.unwrap();
    assert!(
        second.applied_now.is_empty(),
        "second run applied {:?}",
        second.applied_now
    );
    assert_eq!(db.tables().await, tables);
}

async fn every_status_the_code_knows_is_accepted_by_the_schema_and_no_other(db: &TestDb) {
    db.migrated().await;
    for status in ObjectiveStatus::ALL {
        let sql = format!(
            "INSERT INTO objectives (title, status, created_at) VALUES ('x', '{status}', 0)"
        );
        assert_eq!(
            db.execute(&sql).await.unwrap(),
            1,
            "objective status {status}"
        );
    }
    for status in TaskStatus::ALL {
        let lease = if *status == TaskStatus::Running {
            "'w', 1"
        } else {
            "NULL, NULL"
        };
        let sql = format!(
            "INSERT INTO tasks (agent, team, title, status, due_at, lease_owner, \
             lease_expires_at, created_at) VALUES ('coder', 'ops', 'x', '{status}', 0, {lease}, 0)"
        );
        assert_eq!(db.execute(&sql).await.unwrap(), 1, "task status {status}");
    }
    for status in DecisionStatus::ALL {
        let sql = format!(
            "INSERT INTO decisions (question, status, created_at) VALUES ('q', '{status}', 0)"
        );
        assert_eq!(
            db.execute(&sql).await.unwrap(),
            1,
            "decision status {status}"
        );
    }
    for status in ValidationStatus::ALL {
        let sql = format!(
            "INSERT INTO validations (kind, target, payload, status, created_at) \
             VALUES ('post', 'x', '{{}}', '{status}', 0)"
        );
        assert_eq!(
            db.execute(&sql).await.unwrap(),
            1,
            "validation status {status}"
        );
    }
    for status in ProposalStatus::ALL {
        let sql = format!(
            "INSERT INTO proposals (proposer, title, status, created_at) \
             VALUES ('strategist', 't', '{status}', 0)"
        );
        assert_eq!(
            db.execute(&sql).await.unwrap(),
            1,
            "proposal status {status}"
        );
    }
    for kind in ProfileKind::ALL {
        let sql = format!(
            "INSERT INTO ceo_profile (profile_type, key, value, created_at, updated_at) \
             VALUES ('{kind}', 'k', '\"v\"', 0, 0)"
        );
        assert_eq!(db.execute(&sql).await.unwrap(), 1, "profile kind {kind}");
    }

    let refused = [
        "INSERT INTO proposals (proposer, title, status, created_at) \
         VALUES ('strategist', 't', 'maybe', 0)",
        "INSERT INTO objectives (title, status, created_at) VALUES ('x', 'done', 0)",
        "INSERT INTO tasks (agent, team, title, status, due_at, created_at) \
         VALUES ('coder', 'ops', 'x', 'finished', 0, 0)",
        // A running task always holds a lease.
        "INSERT INTO tasks (agent, team, title, status, due_at, created_at) \
         VALUES ('coder', 'ops', 'x', 'running', 0, 0)",
        "INSERT INTO decisions (question, status, created_at) VALUES ('q', 'maybe', 0)",
        "INSERT INTO validations (kind, target, payload, status, created_at) \
         VALUES ('tweet', 'x', '{}', 'pending', 0)",
        "INSERT INTO objectives (title, priority, created_at) VALUES ('x', 11, 0)",
    ];
    for sql in refused {
        assert!(db.execute(sql).await.is_err(), "accepted: {sql}");
    }
}

async fn claiming_a_task_writes_its_lease_its_attempt_and_its_start(db: &TestDb) {
    let store = db.migrated().await;
    let task = queued_task(store, "write the endpoint").await;
    assert_eq!(task.status, TaskStatus::Queued);
    assert_eq!(
        (task.attempts, task.lease.as_ref(), task.started_at),
        (0, None, None)
    );

    let now = t0() + minutes(1);
    let claimed = store
        .claim_next_task("worker-a", now, minutes(10))
        .await
        .unwrap()
        .unwrap();

    assert_eq!(claimed.id, task.id);
    assert_eq!(claimed.status, TaskStatus::Running);
    assert_eq!(claimed.attempts, 1);
    let lease = claimed.lease.clone().unwrap();
    assert_eq!(
        (lease.owner.as_str(), lease.expires_at),
        ("worker-a", now + minutes(10))
    );
    assert_eq!(claimed.started_at, Some(now));
    assert_eq!(
        store.task(task.id).await.unwrap(),
        claimed,
        "what is returned is what is stored"
    );
    assert!(
        store
            .claim_next_task("worker-b", now, minutes(10))
            .await
            .unwrap()
            .is_none()
    );
}

async fn completing_a_task_records_its_outcome_and_releases_the_lease(db: &TestDb) {
    let store = db.migrated().await;
    queued_task(store, "review").await;
    let claimed = store
        .claim_next_task("w", t0(), minutes(10))
        .await
        .unwrap()
        .unwrap();

    let done_at = t0() + minutes(4);
    let done = store
        .complete_task(claimed.id, "w", &outcome(), done_at)
        .await
        .unwrap();

    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.lease, None);
    assert_eq!(done.result, Some(json!({"summary": "done"})));
    assert_eq!(done.confidence, Some(0.82));
    assert_eq!(done.model.as_deref(), Some("devstral-small-2"));
    assert_eq!(
        (done.tokens_in, done.tokens_out, done.iterations),
        (1200, 300, 3)
    );
    assert_eq!(done.cloud_equivalent_cost, Usd::from_micros(8_100));
    assert_eq!(done.duration_ms, 4_500);
    assert_eq!(done.completed_at, Some(done_at));
}

async fn a_worker_that_lost_its_lease_cannot_finish_the_task(db: &TestDb) {
    let store = db.migrated().await;
    queued_task(store, "deploy").await;
    let task = store
        .claim_next_task("slow", t0(), minutes(10))
        .await
        .unwrap()
        .unwrap();
    // The lease expires, the task is requeued and another worker takes it.
    store
        .requeue_expired_leases(t0() + minutes(11))
        .await
        .unwrap();
    let retaken = store
        .claim_next_task("fast", t0() + minutes(12), minutes(10))
        .await
        .unwrap();
    assert_eq!(retaken.map(|t| t.id), Some(task.id));

    let late = store
        .complete_task(task.id, "slow", &outcome(), t0() + minutes(13))
        .await;

    assert!(matches!(late, Err(StoreError::LeaseLost { ref worker, .. }) if worker == "slow"));
    let stored = store.task(task.id).await.unwrap();
    assert_eq!(stored.status, TaskStatus::Running);
    assert_eq!(stored.lease.map(|l| l.owner).as_deref(), Some("fast"));
    assert_eq!(stored.result, None);
}

async fn illegal_task_transitions_are_refused_and_change_nothing(db: &TestDb) {
    let store = db.migrated().await;
    let pending = store
        .create_task(&new_task("later", t0() + minutes(60)), t0())
        .await
        .unwrap();

    // Only a blocked task can be unblocked.
    let error = store
        .unblock_task(pending.id, TaskStatus::Queued, None, t0())
        .await
        .unwrap_err();
    assert!(is_illegal(&error, "pending", "queued"), "{error}");
    // Blocked never goes back to pending.
    let error = store
        .unblock_task(pending.id, TaskStatus::Pending, None, t0())
        .await
        .unwrap_err();
    assert!(is_illegal(&error, "blocked", "pending"), "{error}");

    store.cancel_task(pending.id, t0()).await.unwrap();
    let error = store.cancel_task(pending.id, t0()).await.unwrap_err();
    assert!(is_illegal(&error, "cancelled", "cancelled"), "{error}");
    let stored = store.task(pending.id).await.unwrap();
    assert_eq!(stored.status, TaskStatus::Cancelled);
    assert_eq!(stored.completed_at, Some(t0()));

    let missing = store
        .cancel_task(TaskId::new(9_999), t0())
        .await
        .unwrap_err();
    assert!(matches!(
        missing,
        StoreError::NotFound {
            kind: "task",
            id: 9_999
        }
    ));
}

async fn objective_transitions_stamp_their_times_and_refuse_to_leave_a_final_status(db: &TestDb) {
    let store = db.migrated().await;
    let objective = store
        .create_objective(
            &NewObjective::from_ceo("Back up o2switch", "rsync the configs"),
            t0(),
        )
        .await
        .unwrap();
    assert_eq!(objective.status, ObjectiveStatus::Pending);

    let started = store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            Default::default(),
            t0() + minutes(1),
        )
        .await
        .unwrap();
    assert_eq!(started.started_at, Some(t0() + minutes(1)));
    assert_eq!(started.completed_at, None);

    let update = ObjectiveUpdate {
        result: Some(json!({"copied": 3})),
        error: None,
    };
    let done = store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::Completed,
            update,
            t0() + minutes(9),
        )
        .await
        .unwrap();
    assert_eq!(done.completed_at, Some(t0() + minutes(9)));
    assert_eq!(
        done.started_at,
        Some(t0() + minutes(1)),
        "the start is kept"
    );
    assert_eq!(done.result, Some(json!({"copied": 3})));

    let error = store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            Default::default(),
            t0(),
        )
        .await
        .unwrap_err();
    assert!(is_illegal(&error, "completed", "in_progress"), "{error}");
    assert_eq!(store.objective(objective.id).await.unwrap(), done);
    assert!(ObjectiveStatus::Completed.is_terminal());
}

async fn a_failed_run_is_retried_until_its_attempts_are_spent(db: &TestDb) {
    let store = db.migrated().await;
    let mut new = new_task("flaky", t0());
    new.max_attempts = 2;
    let task = store.create_task(&new, t0()).await.unwrap();
    store.promote_ready_tasks(t0()).await.unwrap();

    store
        .claim_next_task("w", t0(), minutes(5))
        .await
        .unwrap()
        .unwrap();
    let first = store
        .retry_task(task.id, "w", "model timed out", t0(), t0() + minutes(2))
        .await
        .unwrap();
    assert_eq!(first, TaskStatus::Pending, "it waits for its backoff");
    let requeued = store.task(task.id).await.unwrap();
    assert_eq!(
        (requeued.attempts, requeued.error.as_deref()),
        (1, Some("model timed out"))
    );
    assert_eq!((requeued.lease, requeued.due_at), (None, t0() + minutes(2)));
    assert!(
        store
            .promote_ready_tasks(t0() + minutes(1))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        store.promote_ready_tasks(t0() + minutes(2)).await.unwrap(),
        vec![task.id]
    );

    store
        .claim_next_task("w", t0() + minutes(2), minutes(5))
        .await
        .unwrap()
        .unwrap();
    let second = store
        .retry_task(
            task.id,
            "w",
            "model timed out again",
            t0() + minutes(2),
            t0() + minutes(6),
        )
        .await
        .unwrap();
    assert_eq!(second, TaskStatus::Failed);
    let failed = store.task(task.id).await.unwrap();
    assert_eq!(failed.attempts, 2);
    assert_eq!(failed.completed_at, Some(t0() + minutes(2)));
    assert!(
        store
            .claim_next_task("w", t0() + minutes(3), minutes(5))
            .await
            .unwrap()
            .is_none()
    );
}

async fn an_expired_lease_returns_the_task_to_the_queue_with_its_attempt_counted(db: &TestDb) {
    let store = db.migrated().await;
    let task = queued_task(store, "crashes mid-run").await;
    store
        .claim_next_task("crashed", t0(), minutes(10))
        .await
        .unwrap()
        .unwrap();

    let early = store
        .requeue_expired_leases(t0() + minutes(9))
        .await
        .unwrap();
    assert!(early.requeued.is_empty(), "a live lease is left alone");

    let expired = store
        .requeue_expired_leases(t0() + minutes(11))
        .await
        .unwrap();
    assert_eq!(expired.requeued, vec![task.id]);
    assert!(expired.failed.is_empty());
    let back = store.task(task.id).await.unwrap();
    assert_eq!(back.status, TaskStatus::Queued);
    assert_eq!(back.attempts, 1, "the crashed attempt counts");
    assert_eq!(back.lease, None);
    assert!(back.error.unwrap().contains("lease expired"));

    let again = store
        .claim_next_task("healthy", t0() + minutes(12), minutes(10))
        .await
        .unwrap();
    assert_eq!(again.map(|t| (t.id, t.attempts)), Some((task.id, 2)));
}

async fn a_task_is_queued_only_once_due_and_once_its_dependencies_are_completed(db: &TestDb) {
    let store = db.migrated().await;
    let first = store
        .create_task(&new_task("scan", t0()), t0())
        .await
        .unwrap();
    let mut second = new_task("report", t0() + minutes(30));
    second.depends_on = vec![first.id];
    let second = store.create_task(&second, t0()).await.unwrap();
    assert_eq!(second.depends_on, vec![first.id]);

    assert_eq!(
        store.promote_ready_tasks(t0()).await.unwrap(),
        vec![first.id]
    );
    store
        .claim_next_task("w", t0(), minutes(10))
        .await
        .unwrap()
        .unwrap();

    // Due, but its dependency is still running.
    assert!(
        store
            .promote_ready_tasks(t0() + minutes(31))
            .await
            .unwrap()
            .is_empty()
    );
    store
        .complete_task(first.id, "w", &outcome(), t0() + minutes(32))
        .await
        .unwrap();
    assert_eq!(
        store.promote_ready_tasks(t0() + minutes(32)).await.unwrap(),
        vec![second.id]
    );
    assert!(
        store
            .promote_ready_tasks(t0() + minutes(33))
            .await
            .unwrap()
            .is_empty(),
        "queued once"
    );
}

async fn a_dependency_on_a_missing_task_is_refused(db: &TestDb) {
    let store = db.migrated().await;
    let mut orphan = new_task("orphan", t0());
    orphan.depends_on = vec![TaskId::new(4_242)];
    let error = store.create_task(&orphan, t0()).await.unwrap_err();
    assert!(
        matches!(&error, StoreError::Invalid(m) if m.contains("#4242")),
        "{error}"
    );
    assert_eq!(
        db.scalar("SELECT COUNT(*) FROM tasks").await,
        0,
        "nothing half-created"
    );
}

async fn the_highest_priority_is_claimed_first(db: &TestDb) {
    let store = db.migrated().await;
    for (title, priority) in [("low", 2), ("urgent", 9), ("normal", 5)] {
        let mut task = new_task(title, t0());
        task.priority = Priority::new(priority).unwrap();
        store.create_task(&task, t0()).await.unwrap();
    }
    store.promote_ready_tasks(t0()).await.unwrap();
    let mut order = Vec::new();
    while let Some(task) = store.claim_next_task("w", t0(), minutes(5)).await.unwrap() {
        order.push(task.title);
    }
    assert_eq!(order, ["urgent", "normal", "low"]);
}

async fn two_concurrent_claimers_never_get_the_same_task(db: &TestDb) {
    let store = db.migrated().await;
    const TASKS: usize = 60;
    for i in 0..TASKS {
        store
            .create_task(&new_task(&format!("task {i}"), t0()), t0())
            .await
            .unwrap();
    }
    store.promote_ready_tasks(t0()).await.unwrap();

    let mut claimers = Vec::new();
    for worker in ["worker-a", "worker-b"] {
        // Each claimer has its own pool, as a separate process would.
        let store = db.another_store().await;
        claimers.push(tokio::spawn(async move {
            let mut claimed = Vec::new();
            while let Some(task) = store
                .claim_next_task(worker, t0(), minutes(10))
                .await
                .unwrap()
            {
                store
                    .complete_task(task.id, worker, &outcome(), t0())
                    .await
                    .unwrap();
                claimed.push(task.id);
                tokio::task::yield_now().await;
            }
            claimed
        }));
    }
    let mut per_worker = Vec::new();
    for claimer in claimers {
        per_worker.push(claimer.await.unwrap());
    }

    let all: Vec<TaskId> = per_worker.concat();
    let unique: HashSet<TaskId> = all.iter().copied().collect();
    assert_eq!(
        all.len(),
        TASKS,
        "every task claimed exactly once: {per_worker:?}"
    );
    assert_eq!(unique.len(), TASKS, "no task claimed twice");
    assert!(
        per_worker.iter().all(|claimed| !claimed.is_empty()),
        "both claimers worked"
    );
    assert_eq!(db.scalar("SELECT MAX(attempts) FROM tasks").await, 1);
}

async fn a_blocked_task_goes_back_to_the_queue_with_its_new_input(db: &TestDb) {
    let store = db.migrated().await;
    let task = queued_task(store, "draft the thread").await;
    store
        .claim_next_task("w", t0(), minutes(5))
        .await
        .unwrap()
        .unwrap();
    let blocked = store
        .block_task(task.id, "w", &outcome(), t0() + minutes(1))
        .await
        .unwrap();
    assert_eq!(blocked.status, TaskStatus::Blocked);
    assert_eq!(blocked.lease, None);

    let input = json!({"rejection_reason": "too long"});
    let again = store
        .unblock_task(task.id, TaskStatus::Queued, Some(&input), t0() + minutes(2))
        .await
        .unwrap();
    assert_eq!(again.status, TaskStatus::Queued);
    assert_eq!(again.input, input);
    assert_eq!(again.completed_at, None);
}

async fn a_decision_is_answered_once_and_times_out_to_its_automatic_choice(db: &TestDb) {
    let store = db.migrated().await;
    let ask = |tool: &str| NewDecision {
        context_summary: "3 deploys failed on Friday".into(),
        recommended: Some(DecisionOption::Refuse),
        urgency: Urgency::Normal,
        timeout_at: Some(t0() + minutes(60)),
        auto_decision: Some(DecisionOption::Refuse),
        ..NewDecision::new(DecisionKind::Confirmation {
            tool: tool.into(),
            arguments: json!({"service": "web"}),
        })
    };
    let answered = store.create_decision(&ask("deploy"), t0()).await.unwrap();
    let silent = store
        .create_decision(&ask("purge_logs"), t0())
        .await
        .unwrap();
    assert_eq!(
        store.decision(silent.id).await.unwrap().kind,
        DecisionKind::Confirmation {
            tool: "purge_logs".into(),
            arguments: json!({"service": "web"}),
        },
        "the kind and its values come back as stored"
    );

    let answer = DecisionAnswer {
        option: 0,
        by: "1001".into(),
    };
    let done = store
        .answer_decision(answered.id, &answer, t0() + minutes(5))
        .await
        .unwrap();
    assert_eq!(
        (done.status, done.response),
        (DecisionStatus::Answered, Some(0))
    );
    assert_eq!(done.responded_by.as_deref(), Some("1001"));
    let twice = store
        .answer_decision(answered.id, &answer, t0() + minutes(6))
        .await
        .unwrap_err();
    assert!(is_illegal(&twice, "answered", "answered"), "{twice}");
    let beyond = DecisionAnswer {
        option: 2,
        by: "1001".into(),
    };
    assert!(matches!(
        store.answer_decision(silent.id, &beyond, t0()).await,
        Err(StoreError::Invalid(_))
    ));

    assert!(
        store
            .time_out_due_decisions(t0() + minutes(59))
            .await
            .unwrap()
            .is_empty()
    );
    let timed_out = store
        .time_out_due_decisions(t0() + minutes(60))
        .await
        .unwrap();
    assert_eq!(timed_out.len(), 1);
    assert_eq!(timed_out[0].id, silent.id);
    assert_eq!(
        (timed_out[0].status, timed_out[0].response),
        (DecisionStatus::TimedOut, Some(1))
    );
    assert_eq!(
        store.decision(answered.id).await.unwrap(),
        done,
        "an answered decision never times out"
    );
    assert_eq!(timed_out[0].chosen(), Some(DecisionOption::Refuse));

    let unapplied: Vec<_> = store
        .unapplied_decisions()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(
        unapplied,
        [answered.id, silent.id],
        "both wait to be carried out"
    );
    assert!(
        store
            .mark_decision_applied(answered.id, t0() + minutes(61))
            .await
            .unwrap()
    );
    assert!(
        !store
            .mark_decision_applied(answered.id, t0() + minutes(62))
            .await
            .unwrap(),
        "carried out once"
    );
    let left: Vec<_> = store
        .unapplied_decisions()
        .await
        .unwrap()
        .into_iter()
        .map(|d| d.id)
        .collect();
    assert_eq!(left, [silent.id]);
}

async fn a_decision_stored_before_kinds_keeps_its_words(db: &TestDb) {
    let store = db.migrated().await;
    db.execute(
        "INSERT INTO decisions (question, options, status, created_at) \
         VALUES ('Free disk space?', '[\"Yes\",\"No\"]', 'pending', 0)",
    )
    .await
    .unwrap();
    let decision = store.pending_decisions().await.unwrap().remove(0);
    assert_eq!(
        decision.kind,
        DecisionKind::Legacy {
            question: "Free disk space?".into(),
            options: vec!["Yes".into(), "No".into()],
        }
    );
    assert_eq!(decision.kind.option_count(), 2);
    let answer = DecisionAnswer {
        option: 1,
        by: "1001".into(),
    };
    let answered = store
        .answer_decision(decision.id, &answer, t0())
        .await
        .unwrap();
    assert_eq!(answered.chosen(), None, "no typed option to carry out");
}

fn new_post() -> NewValidation {
    NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Post,
        target: PublicationTarget::X,
        payload: json!({"text": "We are back."}),
    }
}

async fn approving_twice_queues_one_publication(db: &TestDb) {
    let store = db.migrated().await;
    let validation = store.create_validation(&new_post(), t0()).await.unwrap();

    store
        .approve_validation(validation.id, "2001", t0() + minutes(1))
        .await
        .unwrap();
    let second = store
        .approve_validation(validation.id, "2002", t0() + minutes(2))
        .await
        .unwrap_err();

    assert!(is_illegal(&second, "approved", "approved"), "{second}");
    let approved = store.validation(validation.id).await.unwrap();
    assert_eq!(approved.status, ValidationStatus::Approved);
    assert_eq!(approved.decided_by.as_deref(), Some("2001"));
    assert_eq!(db.scalar("SELECT COUNT(*) FROM publications").await, 1);
}

async fn concurrent_approvals_queue_one_publication(db: &TestDb) {
    let store = db.migrated().await;
    let validation = store.create_validation(&new_post(), t0()).await.unwrap();
    let mut taps = Vec::new();
    for member in ["2001", "2002", "2003"] {
        let store = db.another_store().await;
        taps.push(tokio::spawn(async move {
            store.approve_validation(validation.id, member, t0()).await
        }));
    }
    let mut approvals = 0;
    for tap in taps {
        match tap.await.unwrap() {
            Ok(_) => approvals += 1,
            Err(error) => assert!(is_illegal(&error, "approved", "approved"), "{error}"),
        }
    }
    assert_eq!(approvals, 1);
    assert_eq!(db.scalar("SELECT COUNT(*) FROM publications").await, 1);
}

async fn rejecting_keeps_the_reason_and_queues_nothing(db: &TestDb) {
    let store = db.migrated().await;
    let validation = store.create_validation(&new_post(), t0()).await.unwrap();
    let rejected = store
        .reject_validation(validation.id, "2001", "wrong ticker", t0() + minutes(3))
        .await
        .unwrap();
    assert_eq!(rejected.status, ValidationStatus::Rejected);
    assert_eq!(rejected.rejection_reason.as_deref(), Some("wrong ticker"));
    assert_eq!(rejected.decided_at, Some(t0() + minutes(3)));
    let approve = store
        .approve_validation(validation.id, "2002", t0())
        .await
        .unwrap_err();
    assert!(is_illegal(&approve, "rejected", "approved"), "{approve}");
    assert_eq!(db.scalar("SELECT COUNT(*) FROM publications").await, 0);
}

/// The bug where the engine took the Interpreter's task between its
/// creation and its claim (the CEO then got a decision instead of an
/// objective).
async fn a_task_claimed_at_creation_never_enters_the_queue(db: &TestDb) {
    let store = db.migrated().await;
    let task = store
        .create_claimed_task(&new_task("interpret", t0()), "bot", t0(), minutes(5))
        .await
        .unwrap();
    assert_eq!(task.status, TaskStatus::Running);
    assert_eq!(task.attempts, 1);
    assert_eq!(task.lease.as_ref().unwrap().owner, "bot");
    store.promote_ready_tasks(t0()).await.unwrap();
    let other = store
        .claim_next_task("engine", t0(), minutes(5))
        .await
        .unwrap();
    assert!(other.is_none(), "nothing for another worker to take");
    let done = store
        .complete_task(task.id, "bot", &TaskOutcome::default(), t0())
        .await
        .unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
}

async fn a_stopped_operation_cancels_its_open_steps_and_withdraws_its_validations(db: &TestDb) {
    use ulias_core::domain::{
        NewOperation, NewValidation, OperationStatus, ValidationKind, ValidationStatus,
    };
    let store = db.migrated().await;
    let operation = store
        .create_operation(
            &NewOperation {
                name: "PEPE2".into(),
                token_symbol: None,
                chain: None,
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: t0(),
            },
            t0(),
        )
        .await
        .unwrap();
    store
        .set_operation_status(operation.id, OperationStatus::Running, t0())
        .await
        .unwrap();
    let mut step = new_task("step", t0());
    step.operation_id = Some(operation.id);
    let step = store.create_task(&step, t0()).await.unwrap();
    let validation = NewValidation {
        task_id: Some(step.id),
        operation_id: Some(operation.id),
        kind: ValidationKind::Post,
        target: PublicationTarget::X,
        payload: serde_json::json!({"text": "gm"}),
    };
    let validation = store.create_validation(&validation, t0()).await.unwrap();

    let stopped = store.stop_operation(operation.id, t0()).await.unwrap();

    assert_eq!(
        (stopped.tasks_cancelled, stopped.validations_withdrawn),
        (1, 1)
    );
    assert_eq!(
        store.task(step.id).await.unwrap().status,
        TaskStatus::Cancelled
    );
    assert_eq!(
        store.validation(validation.id).await.unwrap().status,
        ValidationStatus::Cancelled
    );
    assert!(
        store.stop_operation(operation.id, t0()).await.is_err(),
        "stopped once"
    );
}

async fn a_publication_is_claimed_once_and_an_interrupted_one_waits_for_a_person(db: &TestDb) {
    use ulias_core::domain::{NewValidation, PublicationStatus, ValidationKind};
    let store = db.migrated().await;
    let validation = NewValidation {
        task_id: None,
        operation_id: None,
        kind: ValidationKind::Post,
        target: PublicationTarget::Telegram,
        payload: serde_json::json!({"args": {"text": "gm"}}),
    };
    let validation = store.create_validation(&validation, t0()).await.unwrap();
    let id = store
        .approve_validation(validation.id, "bob", t0())
        .await
        .unwrap();

    let first = store
        .claim_publication("worker-a", t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (first.id, first.status, first.attempts),
        (id, PublicationStatus::Sending, 1)
    );
    assert!(
        store
            .claim_publication("worker-b", t0())
            .await
            .unwrap()
            .is_none(),
        "claimed once"
    );

    let expired = t0() - minutes(15);
    assert!(
        store
            .mark_interrupted_publications("worker-b", expired)
            .await
            .unwrap()
            .is_empty(),
        "another live process's send in flight is left alone"
    );
    let interrupted = store
        .mark_interrupted_publications("worker-b", t0() + minutes(1))
        .await
        .unwrap();
    assert_eq!(interrupted.len(), 1);
    assert_eq!(interrupted[0].status, PublicationStatus::Unknown);
    assert!(
        store
            .claim_publication("worker-b", t0())
            .await
            .unwrap()
            .is_none(),
        "unknown is never sent again by itself"
    );
    assert!(
        store.mark_publication_sent(id, "late", t0()).await.is_err(),
        "a late acknowledgement of an interrupted send changes nothing"
    );

    store.resend_publication(id, t0()).await.unwrap();
    assert!(
        store.resend_publication(id, t0()).await.is_err(),
        "a second Send again while it is queued is refused"
    );
    let again = store
        .claim_publication("worker-b", t0())
        .await
        .unwrap()
        .unwrap();
    store.record_sent_part(id, 0, "-100:7", t0()).await.unwrap();
    store.record_sent_part(id, 1, "-100:8", t0()).await.unwrap();
    store.record_sent_part(id, 1, "-100:9", t0()).await.unwrap();
    assert_eq!(
        store.sent_parts(id).await.unwrap(),
        [(0, "-100:7".to_owned()), (1, "-100:8".to_owned())],
        "each part recorded once, the first record kept"
    );
    assert!(
        store
            .mark_interrupted_publications("worker-a", t0() - minutes(15))
            .await
            .unwrap()
            .is_empty(),
        "its owner's claim is fresh"
    );
    assert!(
        store.resend_publication(id, t0()).await.is_err(),
        "nor while it is being sent (it would post twice)"
    );
    store
        .mark_publication_sent(again.id, "-100:7", t0())
        .await
        .unwrap();
    let sent = store.publication(id).await.unwrap();
    assert_eq!(
        (sent.status, sent.external_id.as_deref(), sent.attempts),
        (PublicationStatus::Sent, Some("-100:7"), 2)
    );
    assert!(
        store.resend_publication(id, t0()).await.is_err(),
        "a sent job is not sent again"
    );
}

async fn a_service_has_at_most_one_open_incident_and_a_resolved_one_stays_resolved(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let task = store
        .create_task(
            &NewTask::new(
                "monitor".parse().unwrap(),
                Team::Ops,
                "check".to_owned(),
                t0(),
            ),
            t0(),
        )
        .await
        .unwrap();
    for (service, ok) in [("web", false), ("api", true), ("web", true)] {
        let check = ulias_core::store::ServiceCheck {
            service: service.into(),
            task_id: Some(task.id),
            ok,
            detail: if ok {
                String::new()
            } else {
                "answered 503".into()
            },
        };
        store.record_service_check(&check, t0()).await.unwrap();
    }
    let last: Vec<(String, bool)> = store
        .checks_of_task(task.id)
        .await
        .unwrap()
        .into_iter()
        .map(|c| (c.service, c.ok))
        .collect();
    assert_eq!(
        last,
        [("api".to_owned(), true), ("web".to_owned(), true)],
        "the last check of each"
    );

    let opened = store
        .open_incident("web", "answered 503", t0())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        store
            .open_incident("web", "again", t0() + minutes(5))
            .await
            .unwrap(),
        None
    );
    assert_eq!(
        store.open_incident_of("web").await.unwrap().unwrap().id,
        opened.id
    );
    let resolved = store
        .resolve_incident(opened.id, t0() + minutes(10))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resolved.resolved_at, Some(t0() + minutes(10)));
    assert_eq!(
        store
            .resolve_incident(opened.id, t0() + minutes(11))
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.open_incident_of("web").await.unwrap(), None);
    let second = store
        .open_incident("web", "down again", t0() + minutes(20))
        .await
        .unwrap()
        .unwrap();
    assert_ne!(second.id, opened.id);
    store.set_incident_task(second.id, task.id).await.unwrap();
    assert_eq!(
        store.incident_of_task(task.id).await.unwrap().unwrap().id,
        second.id
    );
    assert_eq!(store.incidents(10).await.unwrap().len(), 2);
}

async fn an_event_is_claimed_by_one_worker_and_taken_again_after_a_stale_claim(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    store
        .emit_event("deploy", &serde_json::json!({"service": "api"}), t0())
        .await
        .unwrap();

    let claimed = store.claim_event(t0()).await.unwrap().unwrap();
    assert_eq!(claimed.name, "deploy");
    assert_eq!(claimed.payload["service"], "api");
    assert_eq!(
        store.claim_event(t0() + minutes(1)).await.unwrap(),
        None,
        "claimed by another"
    );
    let again = store.claim_event(t0() + minutes(6)).await.unwrap().unwrap();
    assert_eq!(
        again.id, claimed.id,
        "a claim left by a crash is taken again"
    );
    store
        .mark_event_dispatched(again.id, t0() + minutes(6))
        .await
        .unwrap();
    assert_eq!(store.claim_event(t0() + minutes(30)).await.unwrap(), None);
}
