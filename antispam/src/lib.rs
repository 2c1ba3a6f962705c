//! # Layout
//!
//! `ulias-antispam` is the deterministic anti-spam engine for community
//! groups: pure functions of a group's policy, its state, one event and the
//! time passed in. No I/O, no async, no clock, no model — and no dependency
//! on any other crate of the workspace.
//!
//! The engine itself (normalisation, content rules, crypto addresses,
//! behaviour, join gate, graduated actions) is not built yet; this crate
//! only fixes its place in the dependency graph.
