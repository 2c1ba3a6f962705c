//! `ulias replay` on a task recorded by a real run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::process::Command;

use serde_json::json;
use ulias_tests::fake_llm::FakeLlm;
use ulias_tests::harness::{Harness, prompts_dir};

#[tokio::test(flavor = "multi_thread")]
async fn replay_reruns_a_recorded_task_and_finds_the_same_output() {
    let h = Harness::new(FakeLlm::fixture("three_turn_loop")).await;
    let task = h.claimed_task("scanner", json!({})).await;
    h.engine().execute(&task).await.unwrap();
    let rows_before = h.db.scalar("SELECT COUNT(*) FROM log_entries").await;

    let out = Command::new(env!("CARGO_BIN_EXE_ulias"))
        .args(["replay", &task.id.to_string()])
        .env_clear()
        .env("ULIAS_DATABASE__URL", &h.db.url)
        .env("ULIAS_PROMPTS_DIR", prompts_dir())
        .output()
        .unwrap();

    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("3 of 3 recorded answers replayed"),
        "{stdout}"
    );
    assert!(stdout.contains("output     same as recorded"), "{stdout}");
    assert_eq!(
        h.db.scalar("SELECT COUNT(*) FROM log_entries").await,
        rows_before,
        "nothing written"
    );
}
