//! # Layout
//!
//! `ulias-agents` will hold the agent runtime: model clients (any
//! OpenAI-compatible server), model pools as GPU slots, the runner loop,
//! tools, pipelines, the Director and the learning loop. It depends on
//! `ulias-core` only.
//!
//! Nothing is built here yet: the runtime is its own piece of work.
