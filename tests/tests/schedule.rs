//! The recurring schedule: on time, never twice, restart-safe.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::{DateTime, TimeDelta, Utc};
use ulias_agents::scheduler::Scheduler;
use ulias_core::clock::Clock;
use ulias_tests::harness::{Harness, prompts_dir};

fn scheduler(h: &Harness) -> Scheduler {
    Scheduler::load(prompts_dir(), &h.runner.catalogue).unwrap()
}

async fn count_kind(h: &Harness, kind: &str) -> i64 {
    h.db.scalar(&format!(
        "SELECT COUNT(*) FROM tasks WHERE kind = 'schedule:{kind}'"
    ))
    .await
}

fn later(h: &Harness, minutes: i64) -> DateTime<Utc> {
    h.clock.now() + TimeDelta::minutes(minutes)
}

#[tokio::test]
async fn the_shipped_schedule_holds_seed_003s_table() {
    let h = Harness::new(Vec::new()).await;
    let schedule = scheduler(&h).schedule;
    let table: Vec<(&str, &str)> = schedule
        .jobs
        .iter()
        .map(|job| (job.agent.as_str(), job.cron_text.as_str()))
        .collect();
    assert_eq!(
        table,
        [
            ("monitor", "*/5 * * * *"),
            ("watcher", "0 * * * *"),
            ("analyst", "0 */6 * * *"),
            ("backup", "30 3 * * *"),
            ("strategist", "0 6 * * *"),
            // The CEO's loop: the profile daily, the week ahead on Sunday evening.
            ("profiler", "30 2 * * *"),
            ("anticipator", "0 21 * * 0"),
            ("learner", "0 23 * * *"),
            ("auditor", "0 4 * * 1"),
            ("optimizer", "0 5 * * 1"),
            ("patcher", "0 7 * * 1"),
        ]
    );
    assert_eq!(schedule.timezone.name(), "Europe/Paris");
}

#[tokio::test]
async fn a_job_runs_when_due_and_a_second_tick_does_not_run_it_again() {
    let h = Harness::new(Vec::new()).await;
    let s = scheduler(&h);
    let (store, catalogue) = (&h.db.store, &h.runner.catalogue);
    s.sync(store, h.clock.now()).await.unwrap();

    assert!(
        s.tick(store, catalogue, later(&h, 4))
            .await
            .unwrap()
            .is_empty()
    );
    let due = s.tick(store, catalogue, later(&h, 5)).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(
        (due[0].agent.as_str(), due[0].title.as_str()),
        ("monitor", "Healthcheck every endpoint and container")
    );
    assert!(
        s.tick(store, catalogue, later(&h, 5))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(count_kind(&h, "healthcheck").await, 1);
}

#[tokio::test]
async fn after_a_restart_a_missed_run_happens_once_not_once_per_missed_slot() {
    let h = Harness::new(Vec::new()).await;
    let (store, catalogue) = (&h.db.store, &h.runner.catalogue);
    let before = scheduler(&h);
    before.sync(store, h.clock.now()).await.unwrap();
    before.tick(store, catalogue, later(&h, 5)).await.unwrap();

    // Down for an hour; a new process starts, syncs (keeping next runs) and ticks.
    let after = scheduler(&h);
    after.sync(store, later(&h, 65)).await.unwrap();
    let caught_up = after.tick(store, catalogue, later(&h, 65)).await.unwrap();

    let kinds: Vec<&str> = caught_up
        .iter()
        .map(|t| t.kind.as_deref().unwrap())
        .collect();
    // 09:00 UTC is 10:00 in Paris: the hourly watcher passed 11:00 once.
    assert_eq!(kinds, ["schedule:healthcheck", "schedule:auth_logs"]);
    assert_eq!(count_kind(&h, "healthcheck").await, 2, "not 13");
    assert!(
        after
            .tick(store, catalogue, later(&h, 66))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        after
            .tick(store, catalogue, later(&h, 70))
            .await
            .unwrap()
            .len(),
        1,
        "back on the 5-minute beat"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_processes_ticking_at_the_same_moment_run_a_job_once() {
    let h = Harness::new(Vec::new()).await;
    scheduler(&h)
        .sync(&h.db.store, h.clock.now())
        .await
        .unwrap();
    let at = later(&h, 5);
    let mut ticks = Vec::new();
    for _ in 0..2 {
        let store = h.db.another_store().await;
        let (s, catalogue) = (scheduler(&h), h.runner.catalogue.clone());
        ticks.push(tokio::spawn(async move {
            s.tick(&store, &catalogue, at).await.unwrap().len()
        }));
    }
    let mut created = 0;
    for tick in ticks {
        created += tick.await.unwrap();
    }
    assert_eq!(created, 1);
    assert_eq!(count_kind(&h, "healthcheck").await, 1);
}
