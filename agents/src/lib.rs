//! # Layout
//!
//! `ulias-agents` is the agent runtime. It depends on `ulias-core` only.
//!
//! - [`spec`]: agents as files (`prompts/agents/<name>.md`: front matter,
//!   then the prompt), loaded and linted into a [`spec::Catalogue`].
//! - [`schemas`]: output schemas as Rust types (schemars) with validators.
//! - [`model`]: the [`model::ModelClient`] port, the real async-openai
//!   client with a lenient reader of local servers' quirks, a replay client.
//! - [`pools`]: model pools as GPUs: slots granted by priority, routing,
//!   the cloud fallback.
//! - [`ledger`]: prices, cost per call, budget caps and their alerts.
//! - [`tools`]: the tool catalogue, effects, and the built tools.
//! - [`runner`]: the loop — model, allowed tools, results — until `finish`.
//! - [`scheduler`]: the recurring schedule turned into tasks.
//! - [`director`]: objectives into checked plans of tasks, or a CEO decision.
//! - [`pipelines`]: direct, verification chain, horse race, CISC and cross
//!   validation; the weighted vote.
//! - [`operations`]: a playbook laid out as an operation's tasks.
//! - [`engine`]: a worker's tick: leases, decisions and validations due,
//!   the ready queue, runs, non-AI steps, and the verification gate
//!   (complete, wait for the team, ask the CEO, retry, report an incident).
//! - [`chain`]: chain, market and explorer data, read-only; the Scanner's
//!   deterministic pre-check and day-7 arithmetic.
//! - [`brand`]: the brand kit drawn as PNG images (templates, memes).
//! - [`site`]: the Webdev's site templates, built into static bundles and
//!   checked (links, HTML, the official address) before publication.
//! - [`alerts`], [`untrusted`], [`tokens`]: small shared pieces.

pub mod alerts;
pub mod answer;
pub mod brand;
pub mod ceo_intel;
pub mod chain;
pub mod director;
pub mod engine;
pub mod interpreter;
pub mod ledger;
pub mod model;
pub mod operations;
pub mod pipelines;
pub mod pools;
pub mod publications;
pub mod runner;
pub mod sandbox;
pub mod scheduler;
pub mod schemas;
pub mod simulation;
pub mod site;
pub mod spec;
pub mod tokens;
pub mod tools;
pub mod untrusted;
pub mod x_text;
