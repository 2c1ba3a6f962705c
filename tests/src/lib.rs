//! # Layout
//!
//! `ulias-tests` holds the end-to-end tests (`tests/`) and what they share
//! (this library): how to get a fresh database on each backend. Loopback
//! fakes of Telegram, ntfy and model servers will live here too.

// Test support: a failed setup step should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod db;
