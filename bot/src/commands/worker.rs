//! `ulias worker`: the task engine without Telegram. With PostgreSQL,
//! several workers share the queue; leases keep a task to one of them.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use ulias_agents::alerts::LogAlerter;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::ledger::Ledger;
use ulias_agents::pools::Pools;
use ulias_agents::runner::{Runner, RunnerConfig};
use ulias_agents::schemas::OutputSchemas;
use ulias_agents::tools::ToolRegistry;
use ulias_core::clock::{SharedClock, SystemClock};
use ulias_core::settings::Settings;

use super::check::load_catalogue;
use super::{Outcome, open_store};
use crate::cli::WorkerArgs;

/// How long a model call may take before the pool counts as failing.
const MODEL_TIMEOUT: Duration = Duration::from_secs(300);

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
    let pools = Pools::from_settings(&settings.models, MODEL_TIMEOUT)?;
    let embedder = pools
        .all()
        .first()
        .map(|pool| pool.client.clone())
        .context("No model pool is configured")?;
    let clock: SharedClock = Arc::new(SystemClock);
    let alerter = Arc::new(LogAlerter);
    let runner = Runner {
        store: store.clone(),
        clock: clock.clone(),
        catalogue: Arc::new(load_catalogue(settings)?),
        tools: Arc::new(ToolRegistry::standard()),
        schemas: Arc::new(OutputSchemas::build()?),
        pools,
        ledger: Ledger::new(
            store.clone(),
            clock,
            alerter.clone(),
            settings.budgets.clone(),
        ),
        alerter,
        embedder,
        config: RunnerConfig {
            language: settings.locale.language().to_owned(),
            ..RunnerConfig::default()
        },
    };
    let worker = args
        .name
        .clone()
        .unwrap_or_else(|| format!("worker-{}", std::process::id()));
    let engine = Engine {
        runner,
        config: EngineConfig {
            worker: worker.clone(),
            ..EngineConfig::default()
        },
    };
    tracing::info!(%worker, interval = args.interval, "worker started");
    loop {
        let report = engine.tick().await.context("The tick failed")?;
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
