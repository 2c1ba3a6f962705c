//! The command line.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Ulias: a self-hosted AI organisation, operated from Telegram.
#[derive(Debug, Parser)]
#[command(name = "ulias", version, about, long_about = None)]
pub struct Cli {
    /// Settings file (default: ./ulias.toml when present, else built-in defaults).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Log format on stderr.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,

    /// Log filter, e.g. `info` or `ulias_core=debug` (default: RUST_LOG, else `info`).
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_filter: Option<String>,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Readable lines for a terminal or journald.
    Human,
    /// One JSON object per line, for Loki.
    Json,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the organisation: Telegram, engine, scheduler (not built yet).
    Run,
    /// Rehearse on a simulated clock, against a temporary database.
    Simulate(SimulateArgs),
    /// Create or update the database schema.
    Migrate,
    /// Validate the settings and the agent files, and print a summary.
    Check,
    /// Re-run a task against its recorded model answers (nothing is written).
    Replay {
        /// The task's id (`42` or `#42`).
        task: ulias_core::domain::TaskId,
    },
}

/// Options of `ulias simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// Simulated days to run.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=365))]
    pub days: u32,
}
