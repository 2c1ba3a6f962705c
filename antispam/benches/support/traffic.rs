//! Real traffic for the speed figures, shared by `benches/check.rs` and
//! `examples/speed.rs`: a model trained on 10,000 spam and 10,000 ham
//! samples made from the shared corpus (each line repeated with its own
//! words mixed in), and every message of that corpus checked in turn.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ulias_antispam::model::SpamModel;
use ulias_antispam::{
    CompiledPolicy, Event, GroupState, Member, Message, Mode, Policy, Sender, check,
};

/// Samples of each kind the model is trained on.
pub const SAMPLES: usize = 10_000;
/// When the messages are checked (Unix seconds).
pub const NOW: i64 = 1_764_666_000;

/// The shared corpus, from the workspace's sibling folder.
pub const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/corpus/tg-spam");

/// The non-empty lines of one file of the shared corpus (none when absent).
pub fn corpus_file(file: &str) -> Vec<String> {
    std::fs::read_to_string(format!("{SHARED}/{file}"))
        .map(|text| {
            text.lines()
                .filter(|line| !line.trim().is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `count` distinct samples from `lines`, each with its own words mixed in.
pub fn varied(lines: &[String], count: usize) -> Vec<String> {
    if lines.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|i| {
            format!(
                "{} token{} batch{} variant{}",
                lines[i % lines.len()],
                i,
                i / 7,
                i % 97
            )
        })
        .collect()
}

/// A message from a newcomer.
pub fn message(text: &str) -> Event {
    Event::Message(Message {
        id: 1,
        sender: Sender {
            member: Member {
                id: 42,
                display_name: "newcomer".into(),
                username: None,
            },
            as_channel: None,
        },
        text: text.into(),
        forwarded: false,
    })
}

/// The test policy with a model trained on [`SAMPLES`] of each kind made
/// from `spam` and `ham`.
pub fn compiled(spam: &[String], ham: &[String]) -> CompiledPolicy {
    let model = SpamModel::train(&varied(spam, SAMPLES), &varied(ham, SAMPLES));
    let policy = Policy {
        mode: Mode::Normal,
        official_addresses: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()],
        allowed_domains: vec!["example.org".into()],
        ..Policy::default()
    };
    CompiledPolicy::with_model(policy, Arc::new(model)).expect("the test policy compiles")
}

/// Single calls of `check`, `rounds` times over `events`, sorted.
pub fn timings(compiled: &CompiledPolicy, events: &[Event], rounds: usize) -> Vec<Duration> {
    let mut took: Vec<Duration> = (0..rounds)
        .flat_map(|_| events.iter())
        .map(|event| {
            let mut state = GroupState::default();
            let start = Instant::now();
            black_box(check(compiled, &mut state, event, NOW));
            start.elapsed()
        })
        .collect();
    took.sort_unstable();
    took
}

/// The `share` percentile of sorted timings.
pub fn percentile(sorted: &[Duration], share: f64) -> Duration {
    let at = (sorted.len() as f64 * share) as usize;
    sorted
        .get(at.min(sorted.len().saturating_sub(1)))
        .copied()
        .unwrap_or_default()
}
