//! Why the rules judge each line of a file as they do: the concepts the
//! scam terms found, the bait, and the rules that fired for a newcomer
//! (no model): `cargo run --release -p ulias-antispam --example explain --
//! FILE`. A tool for writing rules, not a figure.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a tool that fails loudly
#![allow(clippy::print_stdout)] // the explanations are its output

use ulias_antispam::eval::{Setup, rules_only};
use ulias_antispam::normalize::normalize;
use ulias_antispam::scam::{Bait, ScamRules};

fn main() {
    let path = std::env::args().nth(1).expect("a file, one message a line");
    let rules = ScamRules::new().unwrap();
    let setup = Setup {
        official: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()],
        allowed_domains: vec!["example.org".into()],
        ..Setup::default()
    };
    for line in std::fs::read_to_string(&path).unwrap().lines() {
        if line.trim().is_empty() {
            continue;
        }
        let text = normalize(line);
        let found = rules.concepts(&text.skeleton);
        let bait = Bait::of(&text.text, &setup.allowed_domains);
        let report = rules_only(&[], &[line.to_owned()], &setup).unwrap();
        let fired = report.false_positive_details.first().map_or_else(
            || "kept".to_owned(),
            |(_, rules)| format!("DELETED {rules:?}"),
        );
        println!(
            "{line}\n   {fired}\n   {found:?}\n   {bait:?}\n   skeleton: {}",
            text.skeleton
        );
    }
}
