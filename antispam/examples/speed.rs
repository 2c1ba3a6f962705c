//! The speed figures on real traffic: a model trained on 10,000 spam and
//! 10,000 ham samples made from the shared corpus, then every message of
//! that corpus (the longest included) checked in turn, 20 rounds, one
//! core: `cargo run --release -p ulias-antispam --example speed`.
//!
//! On a loaded machine, `-- min` prints the percentiles of each message's
//! fastest check over 40 rounds instead: what the code costs, with less of
//! what the other processes cost.

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
    if std::env::args().any(|a| a == "min") {
        let mut fastest: Vec<_> = events
            .iter()
            .map(|event| {
                let took = timings(&compiled, std::slice::from_ref(event), 1);
                (0..39).fold(took[0], |best, _| {
                    best.min(timings(&compiled, std::slice::from_ref(event), 1)[0])
                })
            })
            .collect();
        fastest.sort_unstable();
        println!(
            "shared corpus ({} messages), each one's fastest of 40 checks, 10k+10k samples \
             loaded: p50 {:?}, p99 {:?}, slowest {:?}",
            events.len(),
            percentile(&fastest, 0.50),
            percentile(&fastest, 0.99),
            fastest[fastest.len() - 1]
        );
        return;
    }
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
