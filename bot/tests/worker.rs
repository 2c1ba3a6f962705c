//! `ulias worker --once` runs a queued task on the configured model server.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::process::{Command, Stdio};

use chrono::{TimeZone, Utc};
use serde_json::json;
use ulias_core::clock::Clock;
use ulias_core::domain::{NewTask, TaskStatus, Team};
use ulias_tests::db::TestDb;
use ulias_tests::fake_llm::FakeLlm;
use ulias_tests::harness::{Harness, prompts_dir};

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_tick_runs_a_due_task_through_the_configured_pool() {
    let h = Harness::new(Vec::new()).await;
    let llm = FakeLlm::start(vec![
        json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "error rate flat", "findings": [], "confidence": 0.9}}]}),
    ])
    .await;
    let now = h.clock.now();
    let task = NewTask::new(
        "analyst".parse().unwrap(),
        Team::Research,
        "Log trends",
        now,
    );
    let task = h.db.store.create_task(&task, now).await.unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_ulias"))
        .args(["worker", "--once", "--name", "test-worker"])
        .env_clear()
        .env("ULIAS_DATABASE__URL", &h.db.url)
        .env("ULIAS_PROMPTS_DIR", prompts_dir())
        .env("ULIAS_MODELS__POOLS__0__BASE_URL", &llm.base_url)
        .env("ULIAS_MODELS__POOLS__0__PROTOCOL", "tools")
        .output()
        .unwrap();

    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("test-worker: 1 queued, 1 completed"),
        "{stdout}"
    );
    let done = h.db.store.task(task.id).await.unwrap();
    assert_eq!(done.status, TaskStatus::Completed);
    assert_eq!(done.result.unwrap()["summary"], "error rate flat");
    assert_eq!(llm.played(), 1);
    assert_eq!(
        llm.requests()[0]["model"],
        "devstral-small-2",
        "the thinker pool's model"
    );
}

/// Seed 003's scale-out: two worker processes on one PostgreSQL queue.
#[tokio::test(flavor = "multi_thread")]
async fn two_worker_processes_on_postgresql_run_200_tasks_none_twice() {
    let Some(db) = TestDb::postgres().await else {
        eprintln!("skipped: set ULIAS_TEST_POSTGRES_URL to run it");
        return;
    };
    db.migrated().await;
    const TASKS: usize = 200;
    let finish = json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "error rate flat", "findings": [], "confidence": 0.9}}]});
    let llm = FakeLlm::start(vec![finish; TASKS]).await;
    let due = Utc.with_ymd_and_hms(2026, 1, 1, 0, 0, 0).unwrap();
    let mut ids = Vec::new();
    for i in 0..TASKS {
        let task = NewTask::new(
            "analyst".parse().unwrap(),
            Team::Research,
            format!("Log trends {i}"),
            due,
        );
        ids.push(db.store.create_task(&task, due).await.unwrap().id);
    }

    let workers: Vec<_> = ["worker-a", "worker-b"]
        .into_iter()
        .map(|name| {
            Command::new(env!("CARGO_BIN_EXE_ulias"))
                .args(["worker", "--once", "--name", name])
                .env_clear()
                .env("ULIAS_DATABASE__URL", &db.url)
                .env("ULIAS_PROMPTS_DIR", prompts_dir())
                .env("ULIAS_MODELS__POOLS__0__BASE_URL", &llm.base_url)
                .env("ULIAS_MODELS__POOLS__0__PROTOCOL", "tools")
                .env("ULIAS_MODELS__POOLS__0__SLOTS", "4")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut completed_by_worker = Vec::new();
    for worker in workers {
        let out = worker.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        completed_by_worker.push(completed_count(&stdout));
    }

    assert_eq!(
        completed_by_worker.iter().sum::<usize>(),
        TASKS,
        "each task completed by exactly one worker: {completed_by_worker:?}"
    );
    for id in ids {
        let task = db.store.task(id).await.unwrap();
        assert_eq!(task.status, TaskStatus::Completed);
        assert_eq!(task.attempts, 1, "task #{id} was claimed twice");
        let calls = db.store.log_of_task(id).await.unwrap();
        assert_eq!(calls.len(), 1, "task #{id} ran {} model calls", calls.len());
    }
    assert_eq!(llm.played(), TASKS, "no model call beyond one per task");
}

/// `worker-a: 3 queued, 97 completed, …` → 97.
fn completed_count(stdout: &str) -> usize {
    stdout
        .split(", ")
        .find_map(|part| part.strip_suffix(" completed"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no completed count in {stdout:?}"))
}
