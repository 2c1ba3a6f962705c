//! # Layout
//!
//! `ulias-bot` is the process: the `ulias` binary and its wiring.
//!
//! - [`cli`]: the command line (clap), parsed into [`cli::Cli`].
//! - [`commands`]: one module per subcommand (`check`, `migrate`,
//!   `simulate`, `run`). A subcommand whose capability is not built yet
//!   says so and exits non-zero.
//! - [`logging`]: tracing to stderr, human-readable or JSON lines (Loki).
//!
//! Telegram (teloxide), ntfy and the publishers arrive here with their
//! issues; `core`, `agents` and `antispam` never depend on this crate.

pub mod cli;
pub mod commands;
pub mod logging;
