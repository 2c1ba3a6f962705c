//! # Layout
//!
//! `ulias-tests` holds the end-to-end tests (`tests/`) and what they share
//! (this library): how to get a fresh database on each backend. Loopback
//! fakes of Telegram, ntfy and model servers will live here too.

pub mod db;
