//! # Layout
//!
//! `ulias-tests` holds the end-to-end tests (`tests/`) and what they share
//! (this library): a fresh database on each backend ([`db`]), a scripted
//! OpenAI-compatible server on loopback ([`fake_llm`]), and the agent
//! runtime wired to both ([`harness`]). Telegram and ntfy fakes come later.

// Test support: a failed setup step should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod db;
pub mod fake_llm;
pub mod harness;
