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
    /// Run the task engine alone (no Telegram): claim due tasks, run their
    /// agents on the configured model pools, apply the verification gate.
    Worker(WorkerArgs),
    /// Rehearse on a simulated clock, against a temporary database.
    Simulate(SimulateArgs),
    /// Create or update the database schema.
    Migrate,
    /// Validate the settings and the agent files, and print a summary.
    Check,
    /// The anti-spam engine's tools.
    Antispam {
        #[command(subcommand)]
        command: AntispamCommand,
    },
    /// Re-run a task against its recorded model answers (nothing is written).
    Replay {
        /// The task's id (`42` or `#42`).
        task: ulias_core::domain::TaskId,
    },
    /// X accounts.
    X {
        #[command(subcommand)]
        command: XCommand,
    },
}

/// `ulias x …`
#[derive(Debug, Subcommand)]
pub enum XCommand {
    /// Connect an account: its OAuth 2.0 user access token is read from
    /// the first line of standard input, its refresh token (if any) from the
    /// second; both are stored encrypted with `x.token_key`. Connecting
    /// again resumes an account whose posts were paused.
    Connect {
        /// The account's handle, as playbooks and posts name it.
        account: String,
        /// The account's numeric user id (for its mentions).
        #[arg(long)]
        user_id: String,
        /// The operation whose posts go out from this account (its only
        /// account for them: a post cannot name another).
        #[arg(long, value_name = "ID")]
        operation: Option<i64>,
        /// Seconds the access token has left (X's last 7,200); with a
        /// refresh token it is refreshed before then.
        #[arg(long, value_name = "SECONDS", default_value_t = 7200,
              value_parser = clap::value_parser!(u32).range(60..))]
        expires_in: u32,
    },
}

/// Options of `ulias simulate`.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// Run the takeover from J0 to J+UNTIL days.
    #[arg(long, alias = "days", value_name = "DAYS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..=30))]
    pub until: u32,
    /// The database to simulate in (default: a throwaway in-memory one).
    #[arg(long, value_name = "URL", default_value = "sqlite::memory:")]
    pub db: String,
    /// A real OpenAI-compatible server (`http://127.0.0.1:11434/v1`) instead
    /// of the recorded answers; its model is the first pool's.
    #[arg(long, value_name = "BASE_URL")]
    pub model: Option<String>,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
}

/// `ulias antispam …`
#[derive(Debug, Subcommand)]
pub enum AntispamCommand {
    /// Recall, precision and false positives on spam and ham files (one
    /// message per line), overall and per rule: k-fold cross-validation,
    /// train on one set (--train-spam/--train-ham) and test on another, or
    /// the rules alone (--rules-only).
    Eval(EvalArgs),
    /// Load spam and ham samples (one message per line, the format of the
    /// reference bots) into the store, so a deployment starts with a
    /// corpus; texts already held are skipped.
    Import(ImportArgs),
}

/// Options of `ulias antispam import`.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("files").required(true).multiple(true).args(["spam", "ham"])))]
pub struct ImportArgs {
    /// Spam messages (one per line).
    #[arg(long, value_name = "FILE")]
    pub spam: Option<PathBuf>,
    /// Ham messages (one per line).
    #[arg(long, value_name = "FILE")]
    pub ham: Option<PathBuf>,
    /// The group (chat id) the samples come from; 0, the default, for none
    /// in particular. Every group's model learns from every sample.
    #[arg(
        long,
        value_name = "CHAT_ID",
        default_value_t = 0,
        allow_negative_numbers = true
    )]
    pub group: i64,
}

/// Who posts the messages an evaluation tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalPoster {
    /// A member seen for the first time.
    Newcomer,
    /// A member trusted by their clean messages.
    Member,
}

/// Options of `ulias antispam eval`.
#[derive(Debug, Clone, clap::Args)]
pub struct EvalArgs {
    /// Spam messages to test (one per line).
    #[arg(long, value_name = "FILE")]
    pub spam: PathBuf,
    /// Ham messages to test (one per line).
    #[arg(long, value_name = "FILE")]
    pub ham: PathBuf,
    /// Folds of the cross-validation.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=50))]
    pub folds: u32,
    /// Seed of the shuffle.
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// The operation's official address (repeatable): not a scam when posted.
    #[arg(long, value_name = "ADDRESS")]
    pub official: Vec<String>,
    /// The operation's own domain (repeatable): a link there is no stranger's.
    #[arg(long = "allowed-domain", value_name = "DOMAIN")]
    pub allowed_domains: Vec<String>,
    /// Train on these spam messages instead of cross-validating.
    #[arg(long, value_name = "FILE", requires = "train_ham")]
    pub train_spam: Option<PathBuf>,
    /// Train on these ham messages instead of cross-validating.
    #[arg(long, value_name = "FILE", requires = "train_spam")]
    pub train_ham: Option<PathBuf>,
    /// Judge with the rules alone, no trained model (a deployment's first day).
    #[arg(long, conflicts_with_all = ["train_spam", "train_ham"])]
    pub rules_only: bool,
    /// Who posts the tested messages.
    #[arg(long = "as", value_enum, default_value_t = EvalPoster::Newcomer)]
    pub poster: EvalPoster,
}

/// Options of `ulias worker`.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerArgs {
    /// Seconds between ticks.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub interval: u64,
    /// Run one tick and exit.
    #[arg(long)]
    pub once: bool,
    /// This worker's name in task leases (default: worker-<pid>).
    #[arg(long)]
    pub name: Option<String>,
}
