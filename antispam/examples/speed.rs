//! The speed figures on real traffic: a model trained on 10,000 spam and
//! 10,000 ham samples made from the shared corpus, then every message of
//! that corpus (the longest included) checked in turn, 20 rounds, one
//! core: `cargo run --release -p ulias-antispam --example speed`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a tool that fails loudly
#![allow(clippy::print_stdout)] // the figures are its output

#[path = "../benches/support/traffic.rs"]
mod traffic;

use traffic::{compiled, corpus_file, message, percentile, timings};

fn main() {
    let (spam, ham) = (
        corpus_file("spam-samples.txt"),
        corpus_file("ham-samples.txt"),
    );
    assert!(!spam.is_empty(), "no shared corpus at {}", traffic::SHARED);
    let compiled = compiled(&spam, &ham);
    let events: Vec<_> = spam.iter().chain(&ham).map(|t| message(t)).collect();
    let took = timings(&compiled, &events, 20);
    println!(
        "shared corpus ({} messages) x 20, 10k+10k samples loaded, single calls: \
         p50 {:?}, p99 {:?}, slowest {:?}",
        events.len(),
        percentile(&took, 0.50),
        percentile(&took, 0.99),
        took[took.len() - 1]
    );
}
