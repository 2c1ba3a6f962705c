//! `ulias worker`: the task engine without Telegram. With PostgreSQL,
//! several workers share the queue; leases keep a task to one of them.

use std::io::Write;
use std::time::Duration;

use anyhow::Context;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::model::Timeouts;
use ulias_agents::pools::Pools;
use ulias_core::settings::Settings;

use super::{Outcome, build_runner, open_store};
use crate::cli::WorkerArgs;

/// Ticks until interrupted (or once).
pub async fn run(
    settings: &Settings,
    args: &WorkerArgs,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let store = open_store(settings).await?;
    store
        .migrate()
        .await
        .context("Failed to migrate the database")?;
    let pools = Pools::from_settings(
        &settings.models,
        Timeouts::from_settings(&settings.models, &settings.http),
    )?;
    let embedder = pools
        .all()
        .first()
        .map(|pool| pool.client.clone())
        .context("No model pool is configured")?;
    let runner = build_runner(settings, store.clone(), pools, embedder)?;
    let worker = args
        .name
        .clone()
        .unwrap_or_else(|| format!("worker-{}", std::process::id()));
    let engine = Engine {
        runner,
        // The same thresholds and proposal policy as `ulias run`.
        config: EngineConfig {
            worker: worker.clone(),
            ..crate::telegram::engine_config(&settings.engine, &settings.ceo)
        },
    };
    tracing::info!(%worker, interval = args.interval, "worker started");
    loop {
        // Each pass drains the queue as it stands (a tick runs a bounded
        // number of tasks).
        let report = engine.drain().await.context("The tick failed")?;
        tracing::info!(?report, "tick");
        if args.once {
            writeln!(
                out,
                "{worker}: {} queued, {} completed, {} awaiting the CEO, {} retried, {} failed",
                report.queued, report.completed, report.doubtful, report.retried, report.failed
            )?;
            break;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(args.interval)) => {}
            _ = tokio::signal::ctrl_c() => {
                tracing::info!(%worker, "stopping");
                break;
            }
        }
    }
    store.close().await;
    Ok(Outcome::Done)
}
