//! `ulias antispam eval`: the engine's figures on a corpus.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use ulias_antispam::eval::{Report, cross_validate, train_and_test};

use super::Outcome;
use crate::cli::{AntispamCommand, EvalArgs};

/// Runs an anti-spam subcommand.
pub fn run(command: &AntispamCommand, out: &mut impl Write) -> anyhow::Result<Outcome> {
    match command {
        AntispamCommand::Eval(args) => eval(args, out),
    }
}

fn eval(args: &EvalArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let spam = read_lines(&args.spam)?;
    let ham = read_lines(&args.ham)?;
    let (report, method) = match (&args.train_spam, &args.train_ham) {
        (Some(train_spam), Some(train_ham)) => {
            let (train_spam_lines, train_ham_lines) =
                (read_lines(train_spam)?, read_lines(train_ham)?);
            let report = train_and_test(
                &train_spam_lines,
                &train_ham_lines,
                &spam,
                &ham,
                &args.official,
            )?;
            (
                report,
                format!(
                    "trained on {} and {}",
                    train_spam.display(),
                    train_ham.display()
                ),
            )
        }
        _ => {
            let report =
                cross_validate(&spam, &ham, args.folds as usize, args.seed, &args.official)?;
            (
                report,
                format!("{}-fold cross-validation, seed {}", args.folds, args.seed),
            )
        }
    };
    print_report(&report, &method, out)?;
    Ok(Outcome::Done)
}

/// The first 80 characters of a sample.
fn preview(text: &str) -> String {
    text.chars().take(80).collect()
}

fn print_report(report: &Report, method: &str, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "corpus          {} spam, {} ham ({method})",
        report.spam, report.ham
    )?;
    writeln!(
        out,
        "recall          {:.3} ({} of {} spam caught)",
        report.recall(),
        report.caught,
        report.spam
    )?;
    writeln!(out, "precision       {:.3}", report.precision())?;
    writeln!(
        out,
        "false positives {:.2}% ({} of {} ham)",
        report.false_positive_rate() * 100.0,
        report.false_positives,
        report.ham
    )?;
    for (text, rules) in &report.false_positive_details {
        writeln!(out, "  - [{}] {}", rules.join(", "), preview(text))?;
    }
    if !report.missed.is_empty() {
        writeln!(out, "missed          {} spam", report.missed.len())?;
    }
    for (text, rules) in &report.missed {
        writeln!(out, "  - [{}] {}", rules.join(", "), preview(text))?;
    }
    Ok(())
}

fn read_lines(path: &Path) -> anyhow::Result<Vec<String>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("Failed to read {}", path.display()))?;
    Ok(text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect())
}
