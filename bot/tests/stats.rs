//! Seed 003's figures from a fixture database, in French and English, and
//! the week's chart.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ulias_bot::i18n::Texts;
use ulias_bot::stats::{Stats, help, weekly};
use ulias_core::domain::{
    DecisionAnswer, DecisionKind, NewDecision, NewObjective, NewProposal, NewTask, ObjectiveSource,
    Priority, ProposalStatus, TaskOutcome, Team,
};
use ulias_core::settings::Locale;
use ulias_core::store::{NewInteraction, Store};
use ulias_tests::db::TestDb;

/// The instant the figures are asked for.
fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 12, 0, 0).unwrap()
}

fn hours_ago(hours: i64) -> DateTime<Utc> {
    now() - TimeDelta::hours(hours)
}

/// A task finished `hours` ago: completed (with a CEO decision answered
/// about it when `intervened`) or failed; `alarm` for a check that found
/// something wrong. Its metrics row is written as the engine writes it.
async fn finished(store: &Store, agent: &str, hours: i64, ok: bool, intervened: bool, alarm: bool) {
    let at = hours_ago(hours);
    let new = NewTask {
        max_attempts: 1,
        ..NewTask::new(
            agent.parse().unwrap(),
            Team::Ops,
            format!("{agent} work"),
            at,
        )
    };
    let task = store
        .create_claimed_task(&new, "w", at, TimeDelta::hours(1))
        .await
        .unwrap();
    if intervened {
        let decision = NewDecision {
            task_id: Some(task.id),
            ..NewDecision::new(DecisionKind::Doubt {
                agent: agent.to_owned(),
                title: task.title.clone(),
                confidence_pct: 40,
            })
        };
        let decision = store.create_decision(&decision, at).await.unwrap();
        let answer = DecisionAnswer {
            option: 0,
            by: "alice".into(),
        };
        store
            .answer_decision(decision.id, &answer, at)
            .await
            .unwrap();
    }
    if ok {
        let outcome = TaskOutcome {
            confidence: Some(0.8),
            ..TaskOutcome::default()
        };
        store
            .complete_task(task.id, "w", &outcome, at)
            .await
            .unwrap();
    } else {
        store.fail_task(task.id, "w", "boom", at).await.unwrap();
    }
    let task = store.task(task.id).await.unwrap();
    store.record_task_metrics(&task, alarm, at).await.unwrap();
}

async fn generated(store: &Store, source: ObjectiveSource, hours: i64) {
    let mut new = NewObjective::from_ceo("Self-given", "");
    new.source = source;
    store
        .create_objective(&new, hours_ago(hours))
        .await
        .unwrap();
}

async fn message(store: &Store, hours: i64, corrected: bool) {
    let new = NewInteraction {
        raw_message: "verifie les backups".into(),
        interpreted_as: Some(serde_json::json!({"title": "Check the backups"})),
        confidence: Some(0.9),
        ..NewInteraction::default()
    };
    let id = store
        .record_interaction(&new, hours_ago(hours))
        .await
        .unwrap();
    if corrected {
        store.mark_interaction_corrected(id).await.unwrap();
    }
}

async fn proposal(store: &Store, proposer: &str, to: ProposalStatus, hours: i64) {
    let new = NewProposal {
        proposer: proposer.parse().unwrap(),
        task_id: None,
        title: "Prepare the weekend log summary".into(),
        description: String::new(),
        team: None,
        priority: Priority::DEFAULT,
        rationale: String::new(),
    };
    let created = store
        .create_proposal(&new, None, hours_ago(hours + 1))
        .await
        .unwrap();
    store
        .decide_proposal(created.id, to, None, hours_ago(hours))
        .await
        .unwrap();
}

/// A day, a week and a month of work.
async fn fixture() -> TestDb {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    // Today: 3 autonomous, 1 with an intervention, 1 failed; 1 alarm among them.
    finished(store, "backup", 2, true, false, false).await;
    finished(store, "monitor", 3, true, false, true).await;
    finished(store, "coder", 4, true, false, false).await;
    finished(store, "deployer", 5, true, true, false).await;
    finished(store, "tester", 6, false, false, false).await;
    // Earlier this week: 3 autonomous, 1 failed.
    finished(store, "analyst", 50, true, false, false).await;
    finished(store, "analyst", 80, true, false, false).await;
    finished(store, "analyst", 75, true, false, false).await;
    finished(store, "coder", 100, false, false, false).await;
    // Earlier this month: 1 alarm, 1 with an intervention.
    finished(store, "monitor", 300, true, false, true).await;
    finished(store, "deployer", 400, true, true, false).await;
    // A non-AI playbook action does not count.
    finished(store, "system", 2, true, false, false).await;
    generated(store, ObjectiveSource::Strategist, 1).await;
    generated(store, ObjectiveSource::Anticipator, 30).await;
    generated(store, ObjectiveSource::Incident, 200).await;
    generated(store, ObjectiveSource::Ceo, 1).await;
    for (hours, corrected) in [(1, false), (2, true), (30, false), (40, false), (300, true)] {
        message(store, hours, corrected).await;
    }
    proposal(store, "anticipator", ProposalStatus::Accepted, 20).await;
    proposal(store, "strategist", ProposalStatus::Accepted, 3).await;
    proposal(store, "strategist", ProposalStatus::Declined, 200).await;
    proposal(store, "strategist", ProposalStatus::Later, 1).await;
    db
}

#[tokio::test(flavor = "multi_thread")]
async fn stats_show_the_six_figures_of_a_fixture_database_in_french_and_english() {
    let db = fixture().await;
    let stats = Stats::at(&db.store, now()).await.unwrap();

    let [day, week, month] = stats.windows;
    assert_eq!(day.autonomy, Some(0.6), "3 of 5 agent tasks");
    assert_eq!(week.autonomy, Some(6.0 / 9.0));
    assert_eq!(month.autonomy, Some(7.0 / 11.0));
    assert_eq!(day.caught_before_impact, Some(0.5), "1 alarm, 1 failure");
    assert_eq!(week.interpretation_accuracy, Some(0.75));
    assert_eq!(
        day.interventions_per_day, 2.0,
        "one decision, one correction"
    );
    insta::assert_snapshot!("stats_fr", stats.render(&Texts::new(Locale::Fr)));
    insta::assert_snapshot!("stats_en", stats.render(&Texts::new(Locale::En)));
    insta::assert_snapshot!("stats_help_en", help(&Texts::new(Locale::En)));
    insta::assert_snapshot!("stats_help_fr", help(&Texts::new(Locale::Fr)));
}

#[tokio::test(flavor = "multi_thread")]
async fn the_weekly_summary_has_the_weeks_figures_and_a_png_chart() {
    let db = fixture().await;
    let (text, chart) = weekly(&db.store, &Texts::new(Locale::En), now())
        .await
        .unwrap();
    assert!(text.starts_with("📅 The organisation's week"), "{text}");
    assert!(text.contains("Autonomy rate: 67 %"), "{text}");
    assert!(text.contains("Needs anticipated: 1"), "{text}");
    assert_eq!(&chart[..8], b"\x89PNG\r\n\x1a\n");
}
