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
//! - [`telegram`]: the bot (teloxide): roles, the CEO's chat and commands,
//!   validations and decisions as buttons, progress, the public log; and
//!   [`telegram::run`], the whole long-running process.
//! - [`i18n`]: every text the bot sends, from `locales/`.
//! - [`standins`]: loopback stand-ins (the chain, market and explorer)
//!   for tests and `ulias simulate`.
//!
//! - [`site`], [`cloudflare`]: approved sites put online (Cloudflare Pages
//!   and DNS); [`public_api`]: the read-only figures their widgets show.
//!
//! ntfy and the publishers arrive here with their issues; `core`, `agents`
//! and `antispam` never depend on this crate.

pub mod cli;
pub mod cloudflare;
pub mod commands;
pub mod decision_text;
pub mod http;
pub mod i18n;
pub mod logging;
pub mod ntfy;
pub mod public_api;
pub mod report;
pub mod site;
pub mod standins;
pub mod stats;
pub mod telegram;
pub mod x;
