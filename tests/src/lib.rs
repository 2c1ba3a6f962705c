//! # Layout
//!
//! `ulias-tests` holds the end-to-end tests (`tests/`) and what they share
//! (this library): a fresh database on each backend ([`db`]), a scripted
//! OpenAI-compatible server on loopback ([`fake_llm`]), a fake Telegram Bot
//! API on loopback ([`fake_telegram`]), and the agent runtime wired to the
//! first two ([`harness`]), and the chain, market and explorer stand-in of
//! `ulias simulate` ([`fake_chain`]), and what the infra and research tools
//! reach: Docker, Loki, Proxmox, SearXNG, connectors, GPU jobs ([`fake_infra`]),
//! and Cloudflare's Pages and DNS API ([`fake_cloudflare`]).

// Test support: a failed setup step should stop the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod db;
pub mod fake_chain;
pub mod fake_cloudflare;
pub mod fake_infra;
pub mod fake_llm;
pub mod fake_ntfy;
pub mod fake_service;
pub mod fake_telegram;
pub mod fake_x;
pub mod harness;
pub mod repo;
