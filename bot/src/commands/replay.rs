//! `ulias replay <task>`: run a task's agent again against the model answers
//! recorded for it, with the recorded tool results. Nothing is written: it
//! shows whether today's runner reaches the same output.

use std::io::Write;
use std::sync::Arc;

use anyhow::Context;
use ulias_agents::model::{ReplayClient, SharedModelClient};
use ulias_agents::pools::{ModelPool, Pools};
use ulias_agents::runner::{RunMode, recorded_answers, recorded_tool_results};
use ulias_core::domain::TaskId;
use ulias_core::settings::{Settings, ToolProtocol};

use super::{Outcome, build_runner, open_store};

/// Replays `task` and reports whether the output matches the recorded one.
pub async fn run(
    settings: &Settings,
    task: TaskId,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let store = open_store(settings).await?;
    let task = store.task(task).await.context("Failed to read the task")?;
    let answers = recorded_answers(&store, task.id).await?;
    anyhow::ensure!(
        !answers.is_empty(),
        "task #{} has no recorded model answers",
        task.id
    );
    let count = answers.len();
    // Native tool calls were recorded only if the run used the tools protocol.
    let protocol = if answers.iter().any(|a| !a.tool_calls.is_empty()) {
        ToolProtocol::Tools
    } else {
        ToolProtocol::Json
    };
    let replay = Arc::new(ReplayClient::new(answers));
    let client: SharedModelClient = replay.clone();
    let pools = settings
        .models
        .pools
        .iter()
        .map(|pool| {
            let mut pool = pool.clone();
            // A replay spends nothing, and speaks as the recorded run did.
            (pool.price_in_per_1k, pool.price_out_per_1k) = (0.0, 0.0);
            pool.protocol = protocol;
            ModelPool::new(pool, client.clone())
        })
        .collect();
    let runner = build_runner(settings, store.clone(), Pools::new(pools), client)?;
    let results = recorded_tool_results(&store, task.id).await?;
    let replayed = runner.run(&task, RunMode::Replay(results)).await;
    store.close().await;
    writeln!(
        out,
        "task #{} ({}): {} of {count} recorded answers replayed",
        task.id,
        task.agent,
        replay.used()
    )?;
    let output = replayed.context("The replay did not reach an output")?;
    if Some(&output.output) == task.result.as_ref() {
        writeln!(out, "output     same as recorded")?;
        Ok(Outcome::Done)
    } else {
        writeln!(out, "output     {}", output.output)?;
        writeln!(
            out,
            "recorded   {}",
            task.result.map_or("none".to_owned(), |r| r.to_string())
        )?;
        anyhow::bail!("the replayed output differs from the recorded one")
    }
}
