//! The CEO loop's records on both backends: answers found by their
//! message, the profile's confidence, proposals settled once, one metrics
//! row per finished task and the counts behind `/stats`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde_json::json;
use ulias_core::domain::{
    NewObjective, NewProposal, NewTask, ObjectiveSource, ObjectiveStatus, Observation, Priority,
    ProfileKind, ProposalStatus, TaskOutcome, Team,
};
use ulias_core::store::{ObjectiveUpdate, ProfileObservation, StoreError};
use ulias_tests::db::TestDb;
use ulias_tests::on_both_backends;

on_both_backends!(
    a_reply_to_the_confirmation_or_to_the_answer_finds_its_objective,
    a_finished_objective_is_answered_once,
    profile_confidence_rises_with_confirmations_and_falls_with_a_correction,
    a_proposal_is_settled_once_and_counted_per_proposer,
    a_finished_task_gets_one_metrics_row_and_counts_follow_the_window,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 2, 9, 0, 0).unwrap()
}

async fn a_reply_to_the_confirmation_or_to_the_answer_finds_its_objective(db: &TestDb) {
    let store = db.migrated().await;
    let objective = store
        .create_objective(&NewObjective::from_ceo("Check the backups", ""), t0())
        .await
        .unwrap();
    store
        .set_progress_message(objective.id, 42, 7)
        .await
        .unwrap();
    store.record_answer(objective.id, 9, t0()).await.unwrap();

    assert_eq!(
        store.objective_at_message(42, 7).await.unwrap(),
        Some(objective.id)
    );
    assert_eq!(
        store.objective_at_message(42, 9).await.unwrap(),
        Some(objective.id)
    );
    assert_eq!(
        store.objective_at_message(43, 9).await.unwrap(),
        None,
        "another chat"
    );
    assert_eq!(store.objective_at_message(42, 8).await.unwrap(), None);
    let last = store
        .last_answered_since(t0() - TimeDelta::minutes(1))
        .await
        .unwrap();
    assert_eq!(last.map(|(id, _)| id), Some(objective.id));
    assert!(
        store
            .last_answered_since(t0() + TimeDelta::minutes(1))
            .await
            .unwrap()
            .is_none()
    );
}

async fn a_finished_objective_is_answered_once(db: &TestDb) {
    let store = db.migrated().await;
    let new = NewObjective::from_ceo("Check the backups", "");
    let objective = store.create_objective(&new, t0()).await.unwrap();
    let follow_up = store
        .create_objective(&new.clone().following(objective.id), t0())
        .await
        .unwrap();
    assert_eq!(
        store.objective(follow_up.id).await.unwrap().parent,
        Some(objective.id)
    );
    store
        .set_progress_message(objective.id, 42, 7)
        .await
        .unwrap();
    assert!(
        store.unanswered_objectives(t0()).await.unwrap().is_empty(),
        "not finished"
    );
    for to in [ObjectiveStatus::InProgress, ObjectiveStatus::Completed] {
        store
            .set_objective_status(objective.id, to, ObjectiveUpdate::default(), t0())
            .await
            .unwrap();
    }
    let waiting = store.unanswered_objectives(t0()).await.unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].message_id, 7);
    store.record_answer(objective.id, 8, t0()).await.unwrap();
    assert!(store.unanswered_objectives(t0()).await.unwrap().is_empty());
}

fn la_prod(observation: Observation) -> ProfileObservation {
    ProfileObservation {
        kind: ProfileKind::Vocabulary,
        key: "La prod".into(),
        value: json!("prod-portainer"),
        observation,
        confidence: 0.9,
        learned_from: None,
    }
}

async fn profile_confidence_rises_with_confirmations_and_falls_with_a_correction(db: &TestDb) {
    let store = db.migrated().await;
    let missing = store
        .observe_profile(&la_prod(Observation::Corrected), t0())
        .await
        .unwrap();
    assert_eq!(missing, None, "nothing to correct yet");

    let first = store
        .observe_profile(&la_prod(Observation::Confirmed), t0())
        .await
        .unwrap()
        .unwrap();
    let second = store
        .observe_profile(&la_prod(Observation::Confirmed), t0())
        .await
        .unwrap()
        .unwrap();
    let corrected = store
        .observe_profile(&la_prod(Observation::Corrected), t0())
        .await
        .unwrap()
        .unwrap();

    assert_eq!(first.key, "la prod", "keys are kept lowercase");
    assert_eq!(first.id, second.id, "one row per kind and key");
    assert!((first.confidence - 0.5).abs() < 1e-9);
    assert!((second.confidence - 0.65).abs() < 1e-9);
    assert!((corrected.confidence - 0.325).abs() < 1e-9);
    assert_eq!(
        corrected.value,
        json!("prod-portainer"),
        "a correction keeps the meaning held"
    );
    assert_eq!(store.profile_entries().await.unwrap().len(), 1);
    assert!(store.delete_profile_entry(first.id).await.unwrap());
    assert!(!store.delete_profile_entry(first.id).await.unwrap());
    assert!(store.profile_entries().await.unwrap().is_empty());
}

fn proposal(proposer: &str) -> NewProposal {
    NewProposal {
        proposer: proposer.parse().unwrap(),
        task_id: None,
        title: "Cache the Docker layers".into(),
        description: "Multi-stage build".into(),
        team: Some(Team::Engineering),
        priority: Priority::DEFAULT,
        rationale: "200 MB per build".into(),
    }
}

async fn a_proposal_is_settled_once_and_counted_per_proposer(db: &TestDb) {
    let store = db.migrated().await;
    let accepted = store
        .create_proposal(&proposal("strategist"), None, t0())
        .await
        .unwrap();
    let later = store
        .create_proposal(&proposal("strategist"), None, t0())
        .await
        .unwrap();
    let declined = store
        .create_proposal(&proposal("connector"), None, t0())
        .await
        .unwrap();
    assert_eq!(store.proposals_to_show(t0()).await.unwrap().len(), 3);
    for p in [&accepted, &later, &declined] {
        store
            .set_proposal_message(p.id, 42, p.id.get())
            .await
            .unwrap();
    }
    assert!(
        store.proposals_to_show(t0()).await.unwrap().is_empty(),
        "shown once"
    );

    store
        .decide_proposal(accepted.id, ProposalStatus::Accepted, None, t0())
        .await
        .unwrap();
    let again = store
        .decide_proposal(accepted.id, ProposalStatus::Declined, None, t0())
        .await;
    assert!(
        matches!(again, Err(StoreError::IllegalTransition { .. })),
        "{again:?}"
    );
    let remind = t0() + TimeDelta::hours(24);
    store
        .decide_proposal(later.id, ProposalStatus::Later, Some(remind), t0())
        .await
        .unwrap();
    store
        .decide_proposal(declined.id, ProposalStatus::Declined, None, t0())
        .await
        .unwrap();

    assert!(store.proposals_to_show(t0()).await.unwrap().is_empty());
    let back = store.proposals_to_show(remind).await.unwrap();
    assert_eq!(
        back.iter().map(|p| p.id).collect::<Vec<_>>(),
        [later.id],
        "Later comes back"
    );
    let records = store.acceptances().await.unwrap();
    let rate = |who: &str| {
        records
            .iter()
            .find(|a| a.proposer == who)
            .and_then(|a| a.rate())
    };
    assert_eq!(rate("strategist"), Some(1.0), "the postponed one waits");
    assert_eq!(rate("connector"), Some(0.0));
    assert_eq!(
        store.first_proposal_at("strategist").await.unwrap(),
        Some(t0())
    );
    assert_eq!(store.first_proposal_at("anticipator").await.unwrap(), None);
}

async fn a_finished_task_gets_one_metrics_row_and_counts_follow_the_window(db: &TestDb) {
    let store = db.migrated().await;
    let new = NewTask::new("monitor".parse().unwrap(), Team::Ops, "Healthcheck", t0());
    let task = store
        .create_claimed_task(&new, "w", t0(), TimeDelta::hours(1))
        .await
        .unwrap();
    assert!(
        store.unmeasured_tasks(10).await.unwrap().is_empty(),
        "running: not finished"
    );
    let outcome = TaskOutcome {
        confidence: Some(0.9),
        ..TaskOutcome::default()
    };
    store
        .complete_task(task.id, "w", &outcome, t0())
        .await
        .unwrap();
    let mut generated = NewObjective::from_ceo("Self-given", "");
    generated.source = ObjectiveSource::Strategist;
    store.create_objective(&generated, t0()).await.unwrap();

    let unmeasured = store.unmeasured_tasks(10).await.unwrap();
    assert_eq!(unmeasured.len(), 1);
    store
        .record_task_metrics(&unmeasured[0], true, t0())
        .await
        .unwrap();
    store
        .record_task_metrics(&unmeasured[0], true, t0())
        .await
        .unwrap();
    assert!(store.unmeasured_tasks(10).await.unwrap().is_empty());

    let window = store
        .counts(t0() - TimeDelta::hours(1), t0() + TimeDelta::hours(1))
        .await
        .unwrap();
    assert_eq!(window.tasks_finished, 1, "written once");
    assert_eq!(window.tasks_autonomous, 1);
    assert_eq!(window.alarms, 1);
    assert_eq!(window.objectives_generated, 1);
    let before = store
        .counts(t0() - TimeDelta::hours(2), t0() - TimeDelta::hours(1))
        .await
        .unwrap();
    assert_eq!(before.tasks_finished, 0);
}
