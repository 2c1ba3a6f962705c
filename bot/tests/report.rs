//! The daily summary of a fixture database, in French and English, its
//! chart, and /report sending both.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

mod surface;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use ulias_bot::i18n::Texts;
use ulias_bot::report::{CHART_DAYS, Summary};
use ulias_core::domain::{
    DecisionAnswer, DecisionKind, DecisionOption, LogKind, LogScope, NewDecision, NewLogEntry,
    NewObjective, NewTask, ObjectiveSource, ObjectiveStatus, TaskOutcome, Team,
};
use ulias_core::money::Usd;
use ulias_core::settings::Locale;
use ulias_core::store::{ObjectiveUpdate, Store};
use ulias_tests::db::TestDb;

use surface::*;

fn day() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
}

fn at(hours: i64) -> DateTime<Utc> {
    day() + TimeDelta::hours(hours)
}

async fn objective(
    store: &Store,
    title: &str,
    source: ObjectiveSource,
    to: ObjectiveStatus,
    hour: i64,
) -> ulias_core::domain::ObjectiveId {
    let mut new = NewObjective::from_ceo(title, "");
    new.source = source;
    let id = store.create_objective(&new, at(0)).await.unwrap().id;
    store
        .set_objective_status(
            id,
            ObjectiveStatus::InProgress,
            ObjectiveUpdate::default(),
            at(1),
        )
        .await
        .unwrap();
    if to != ObjectiveStatus::InProgress {
        store
            .set_objective_status(id, to, ObjectiveUpdate::default(), at(hour))
            .await
            .unwrap();
    }
    id
}

async fn task(
    store: &Store,
    agent: &str,
    team: Team,
    confidence: f64,
    fail: bool,
    hour: i64,
) -> ulias_core::domain::TaskId {
    let new = NewTask::new(agent.parse().unwrap(), team, format!("{agent} work"), at(0));
    let task = store
        .create_claimed_task(&new, "w", at(hour), TimeDelta::hours(1))
        .await
        .unwrap();
    if fail {
        store
            .fail_task(task.id, "w", "boom", at(hour))
            .await
            .unwrap();
    } else {
        let outcome = TaskOutcome {
            confidence: Some(confidence),
            ..TaskOutcome::default()
        };
        store
            .complete_task(task.id, "w", &outcome, at(hour))
            .await
            .unwrap();
    }
    task.id
}

async fn spend(store: &Store, when: DateTime<Utc>, tokens: u64, micros: i64, cloud_micros: i64) {
    let entry = NewLogEntry {
        tokens_in: tokens,
        cost: Usd::from_micros(micros),
        cloud_equivalent_cost: Usd::from_micros(cloud_micros),
        ..NewLogEntry::event(LogScope::default(), LogKind::ModelCall, "a call")
    };
    store.append_log(&entry, when).await.unwrap();
}

/// A day: 2 objectives completed (one the Strategist's, which needed a CEO
/// decision), 1 failed, 1 in progress, 1 waiting; tasks in two teams; spend
/// today and on two earlier days; one decision still pending.
async fn fixture() -> TestDb {
    let db = TestDb::sqlite().await;
    let store = db.migrated().await;
    objective(
        store,
        "Check the backups",
        ObjectiveSource::Ceo,
        ObjectiveStatus::Completed,
        10,
    )
    .await;
    let strategist = objective(
        store,
        "Cut log volume",
        ObjectiveSource::Strategist,
        ObjectiveStatus::Completed,
        11,
    )
    .await;
    objective(
        store,
        "Fix the export",
        ObjectiveSource::Ceo,
        ObjectiveStatus::Failed,
        12,
    )
    .await;
    objective(
        store,
        "Audit the ports",
        ObjectiveSource::Scheduler,
        ObjectiveStatus::InProgress,
        0,
    )
    .await;
    objective(
        store,
        "Migrate the API",
        ObjectiveSource::Ceo,
        ObjectiveStatus::Blocked,
        13,
    )
    .await;
    for (agent, team, confidence, fail, hour) in [
        ("coder", Team::Engineering, 0.8, false, 9),
        ("reviewer", Team::Engineering, 0.9, false, 9),
        ("tester", Team::Engineering, 0.7, true, 10),
        ("monitor", Team::Ops, 0.95, false, 14),
        ("backup", Team::Ops, 0.85, false, 15),
    ] {
        task(store, agent, team, confidence, fail, hour).await;
    }
    let asked = NewDecision {
        objective_id: Some(strategist),
        recommended: Some(DecisionOption::Confirm),
        ..NewDecision::new(DecisionKind::Confirmation {
            tool: "logs_cleanup".into(),
            arguments: serde_json::json!({"older_than_days": 60}),
        })
    };
    let asked = store.create_decision(&asked, at(8)).await.unwrap();
    store
        .answer_decision(
            asked.id,
            &DecisionAnswer {
                option: 0,
                by: "1001".into(),
            },
            at(9),
        )
        .await
        .unwrap();
    let pending = NewDecision::new(DecisionKind::Confirmation {
        tool: "firewall_open".into(),
        arguments: serde_json::json!({"port": 8443}),
    });
    store.create_decision(&pending, at(16)).await.unwrap();
    spend(store, at(9), 120_000, 0, 360_000).await;
    spend(store, at(15), 30_000, 20_000, 90_000).await;
    spend(store, day() - TimeDelta::days(3), 50_000, 0, 150_000).await;
    spend(store, day() - TimeDelta::days(13), 10_000, 0, 30_000).await;
    db
}

#[tokio::test]
async fn the_daily_summary_of_a_fixture_database_matches_its_snapshot() {
    let db = fixture().await;

    let summary = Summary::of_day(&db.store, day()).await.unwrap();

    insta::assert_snapshot!("summary_fr", summary.render(&Texts::new(Locale::Fr)));
    insta::assert_snapshot!("summary_en", summary.render(&Texts::new(Locale::En)));
    assert_eq!(summary.history.len(), CHART_DAYS as usize);
    assert_eq!(summary.history.last().unwrap().objectives_completed, 2);
}

#[tokio::test]
async fn the_chart_is_a_png_with_a_bar_for_each_day_that_cost_something() {
    let db = fixture().await;
    let summary = Summary::of_day(&db.store, day()).await.unwrap();

    let png = summary.chart_png().unwrap();

    let decoder = png::Decoder::new(std::io::Cursor::new(png));
    let mut reader = decoder.read_info().unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).unwrap();
    assert_eq!((frame.width, frame.height), (840, 420));
    let blue = pixels
        .chunks(3)
        .filter(|p| p[2] > 200 && p[0] < 60 && p[1] < 60)
        .count();
    let green = pixels
        .chunks(3)
        .filter(|p| p[1] > 100 && p[0] < 60 && p[2] < 60)
        .count();
    assert!(blue > 1000, "cost bars are drawn ({blue} blue pixels)");
    assert!(
        green > 1000,
        "completed-objective bars are drawn ({green} green pixels)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn report_sends_the_summary_and_its_chart_now() {
    let s = Surface::start(Locale::En, Vec::new()).await;

    s.tg.send_text(CEO, &ceo(), "/report");

    s.message_containing(CEO, "📊 Ulias summary").await;
    let photo =
        s.tg.wait_for(
            "sendPhoto",
            |p| {
                p["caption"]
                    .as_str()
                    .is_some_and(|c| c.contains("last 14 days"))
            },
            WAIT,
        )
        .await;
    assert!(photo.is_some());
    let uploaded = s.tg.calls_of("sendPhoto")[0].files.clone();
    assert!(
        uploaded.iter().any(|f| f.size > 1000),
        "the PNG was uploaded: {uploaded:?}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_daily_summary_goes_out_by_itself_once_a_day_from_its_hour() {
    let db = TestDb::sqlite().await;
    db.migrated().await;
    let s = Surface::start_with(db, Locale::En, Vec::new(), |all| {
        all.engine.daily_report_hour = 0;
    })
    .await;
    let now = start_time();
    let yesterday = (now - TimeDelta::days(1)).format("%Y-%m-%d");
    s.store()
        .set_cursor(
            ulias_bot::telegram::SUMMARY_CURSOR,
            &yesterday.to_string(),
            now,
        )
        .await
        .unwrap();

    s.message_containing(CEO, "📊 Ulias summary").await;
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let summaries =
        s.tg.sent_texts(CEO)
            .iter()
            .filter(|t| t.contains("📊 Ulias summary"))
            .count();
    assert_eq!(summaries, 1, "once a day, not once a loop");
    let today = now.format("%Y-%m-%d").to_string();
    assert_eq!(
        s.store()
            .cursor(ulias_bot::telegram::SUMMARY_CURSOR)
            .await
            .unwrap(),
        Some(today)
    );
    s.stop().await;
}
