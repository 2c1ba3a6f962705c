//! One module per subcommand; [`dispatch`] picks it, [`finish`] turns its
//! outcome into an exit code.

mod antispam;
mod check;
mod migrate;
mod replay;
mod run;
mod simulate;
mod worker;
mod x;

use std::process::ExitCode;

use anyhow::Context;
use ulias_core::settings::{Settings, SettingsSource};

use crate::cli::{Cli, Command};

/// The exit code of a subcommand whose capability is not built yet.
pub const NOT_BUILT_EXIT: u8 = 2;

/// How a subcommand ended, short of an error.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It did what it was asked.
    Done,
    /// What was asked is not built yet; the text says what is missing.
    NotBuilt(String),
}

/// Runs the subcommand `cli` names. `env` is the process environment
/// (passed in so tests can give their own).
pub async fn dispatch(
    cli: &Cli,
    env: impl IntoIterator<Item = (String, String)>,
) -> anyhow::Result<Outcome> {
    let (settings, source) = load_settings(cli, env)?;
    let mut out = std::io::stdout().lock();
    match &cli.command {
        Command::Check => check::run(&settings, &source, &mut out),
        Command::Migrate => migrate::run(&settings, &mut out).await,
        Command::Simulate(args) => simulate::run(&settings, &source, args, &mut out).await,
        Command::Run => run::run(&settings).await,
        Command::Worker(args) => worker::run(&settings, args, &mut out).await,
        Command::Antispam { command } => antispam::run(&settings, command, &mut out).await,
        Command::Replay { task } => replay::run(&settings, *task, &mut out).await,
        Command::X { command } => {
            x::run(&settings, command, &mut std::io::stdin().lock(), &mut out).await
        }
    }
}

/// Reports the outcome on stderr and picks the exit code.
pub fn finish(outcome: anyhow::Result<Outcome>) -> ExitCode {
    match outcome {
        Ok(Outcome::Done) => ExitCode::SUCCESS,
        Ok(Outcome::NotBuilt(what)) => {
            eprintln!("ulias: not built yet: {what}");
            ExitCode::from(NOT_BUILT_EXIT)
        }
        Err(error) => {
            eprintln!("ulias: {}", describe(&error));
            ExitCode::FAILURE
        }
    }
}

/// The error and its causes on one line. Some libraries repeat their cause
/// in their own message; a cause already said is not said twice.
pub fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let cause = cause.to_string();
        if text.ends_with(&cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
}

fn load_settings(
    cli: &Cli,
    env: impl IntoIterator<Item = (String, String)>,
) -> anyhow::Result<(Settings, SettingsSource)> {
    let (mut settings, source) = Settings::load(cli.config.as_deref(), env)?;
    tracing::debug!(%source, "settings loaded");
    // The sandbox's forwarder is this very binary unless the settings name one.
    if settings.sandbox.forwarder.is_none() {
        settings.sandbox.forwarder = std::env::current_exe().ok();
    }
    Ok((settings, source))
}

/// The agent runtime for the subcommands that run agents (worker, replay):
/// the configured prompts and budgets, the system clock, alerts to the log.
fn build_runner(
    settings: &Settings,
    store: ulias_core::store::Store,
    pools: ulias_agents::pools::Pools,
    embedder: ulias_agents::model::SharedModelClient,
) -> anyhow::Result<ulias_agents::runner::Runner> {
    use std::sync::Arc;
    let clock = Arc::new(ulias_core::clock::SystemClock);
    let alerter = Arc::new(ulias_agents::alerts::LogAlerter);
    build_runner_with(settings, store, pools, embedder, clock, alerter)
}

/// [`build_runner`] with a given clock and alerter (a simulation's, the bot's).
pub(crate) fn build_runner_with(
    settings: &Settings,
    store: ulias_core::store::Store,
    pools: ulias_agents::pools::Pools,
    embedder: ulias_agents::model::SharedModelClient,
    clock: ulias_core::clock::SharedClock,
    alerter: ulias_agents::alerts::SharedAlerter,
) -> anyhow::Result<ulias_agents::runner::Runner> {
    use std::sync::Arc;
    use ulias_agents::ledger::Ledger;
    use ulias_agents::runner::{Runner, RunnerConfig};
    use ulias_agents::schemas::OutputSchemas;
    use ulias_agents::tools::{ToolRegistry, Toolbox};

    Ok(Runner {
        store: store.clone(),
        clock: clock.clone(),
        catalogue: Arc::new(check::load_catalogue(settings)?),
        tools: Arc::new(ToolRegistry::standard(&Toolbox::from_settings(settings)?)),
        schemas: Arc::new(OutputSchemas::build()?),
        pools,
        ledger: Ledger::new(store, clock, alerter.clone(), settings.budgets.clone()),
        alerter,
        embedder,
        config: RunnerConfig {
            language: settings.locale.language().to_owned(),
            ..RunnerConfig::default()
        },
    })
}

/// The takeover playbook, under the prompts folder.
pub(crate) const TAKEOVER_PLAYBOOK: &str = "playbooks/takeover.toml";

/// Reads and checks the takeover playbook.
pub(crate) fn load_takeover(settings: &Settings) -> anyhow::Result<ulias_core::playbook::Playbook> {
    let path = settings.prompts_dir.join(TAKEOVER_PLAYBOOK);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("Failed to read the takeover playbook {}", path.display()))?;
    Ok(ulias_core::playbook::Playbook::parse(
        &text,
        &path.display().to_string(),
    )?)
}

/// Opens the configured store, for the subcommands that need one.
async fn open_store(settings: &Settings) -> anyhow::Result<ulias_core::store::Store> {
    use secrecy::ExposeSecret;
    let url = settings.database.url.expose_secret();
    ulias_core::store::Store::connect(url, settings.database.max_connections)
        .await
        .with_context(|| "Failed to open the database")
}
