//! `ulias worker --once` runs a queued task on the configured model server.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::process::Command;

use serde_json::json;
use ulias_core::clock::Clock;
use ulias_core::domain::{NewTask, TaskStatus, Team};
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
