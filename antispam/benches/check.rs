//! One message through `check` with a model trained on 10,000 spam samples
//! (and as many ham): the engine's cost per message on the bot's hot path —
//! two short messages, and every message of the shared corpus in turn
//! (`../shared/corpus/tg-spam`, read where it exists), the longest included,
//! with a model trained on 10,000 samples of each kind made from it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // benchmarks fail loudly
#![allow(clippy::print_stdout)] // the percentiles are the bench's report

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/traffic.rs"]
mod traffic;
use ulias_antispam::model::SpamModel;
use ulias_antispam::{CompiledPolicy, Event, GroupState, Mode, Policy, check};

const SPAM: &str = include_str!("../../fixtures/spam/crypto-spam.txt");
const HAM: &str = include_str!("../../fixtures/spam/crypto-ham.txt");

/// The non-empty lines of a fixture.
fn lines(source: &str) -> Vec<String> {
    source
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

fn bench(c: &mut Criterion) {
    let model = SpamModel::train(
        &traffic::varied(&lines(SPAM), traffic::SAMPLES),
        &traffic::varied(&lines(HAM), traffic::SAMPLES),
    );
    let policy = Policy {
        mode: Mode::Normal,
        official_addresses: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()],
        allowed_domains: vec!["example.org".into()],
        ..Policy::default()
    };
    let compiled = CompiledPolicy::with_model(policy, Arc::new(model)).unwrap();
    let spam = traffic::message(
        "Hello, support team here. Please connect your wallet at https://wallet-rectify.app to fix the sync error",
    );
    let ham = traffic::message(
        "Can someone explain how the buyback works? I read the FAQ on https://docs.example.org but I am not sure",
    );
    c.bench_function("check_spam_with_10k_samples", |b| {
        b.iter(|| check(&compiled, &mut GroupState::default(), &spam, traffic::NOW))
    });
    c.bench_function("check_ham_with_10k_samples", |b| {
        b.iter(|| check(&compiled, &mut GroupState::default(), &ham, traffic::NOW))
    });
    print_percentiles(&compiled, &spam, &ham);
    let (shared_spam, shared_ham) = (
        traffic::corpus_file("spam-samples.txt"),
        traffic::corpus_file("ham-samples.txt"),
    );
    if shared_spam.is_empty() {
        println!(
            "no shared corpus at {}: its bench is skipped",
            traffic::SHARED
        );
        return;
    }
    // Real traffic: 10,000 samples of each kind made from the shared
    // corpus, and each of its messages checked in turn.
    let real = traffic::compiled(&shared_spam, &shared_ham);
    let events: Vec<Event> = shared_spam
        .iter()
        .chain(&shared_ham)
        .map(|text| traffic::message(text))
        .collect();
    c.bench_function(
        "check_every_shared_corpus_message_with_10k_shared_samples",
        |b| {
            b.iter(|| {
                for event in &events {
                    black_box(check(
                        &real,
                        &mut GroupState::default(),
                        event,
                        traffic::NOW,
                    ));
                }
            })
        },
    );
    let took = traffic::timings(&real, &events, 20);
    println!(
        "shared corpus ({} messages) x 20, single calls: p50 {:?}, p99 {:?}, slowest {:?}",
        events.len(),
        traffic::percentile(&took, 0.50),
        traffic::percentile(&took, 0.99),
        took[took.len() - 1]
    );
}

/// Criterion reports means and medians; the goal is on the 99th
/// percentile, so this times 20,000 single calls (half spam, half ham) and
/// prints p50, p99 and the slowest.
fn print_percentiles(compiled: &CompiledPolicy, spam: &Event, ham: &Event) {
    let took = traffic::timings(compiled, &[spam.clone(), ham.clone()], 10_000);
    println!(
        "check with 10k samples, 20,000 single calls: p50 {:?}, p99 {:?}, slowest {:?}",
        traffic::percentile(&took, 0.50),
        traffic::percentile(&took, 0.99),
        took[took.len() - 1]
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
