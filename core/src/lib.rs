//! # Layout
//!
//! `ulias-core` holds what every other part of Ulias agrees on, and nothing
//! that talks to Telegram, a model server or the network:
//!
//! - [`domain`]: ids, statuses and the records of the organisation
//!   (objectives, tasks, decisions, validations). Statuses are enums whose
//!   legal transitions are spelled out in one place.
//! - [`settings`]: the typed [`Settings`](settings::Settings), read once from
//!   `ulias.toml` plus `ULIAS_…` overrides and validated at load.
//! - [`clock`]: the [`Clock`](clock::Clock) port. Nothing else in the
//!   workspace reads the wall clock (clippy's `disallowed-methods` enforces it).
//! - [`store`]: the one store API over SQLite (embedded default) and
//!   PostgreSQL (scale-out), with migrations for the whole schema.
//! - [`money`]: amounts in micro-dollars, so costs add up exactly.
//! - [`schedule`]: the recurring jobs (cron in a time zone), pure.
//! - [`playbook`]: an operation's fixed table of steps from J0, pure.

#[macro_use]
mod text_enum;

pub mod clock;
pub mod domain;
pub mod money;
pub mod playbook;
pub mod schedule;
pub mod settings;
pub mod store;
