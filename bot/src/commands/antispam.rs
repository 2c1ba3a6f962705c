//! `ulias antispam eval`: the engine's figures on a corpus;
//! `ulias antispam import`: a corpus into the store.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use ulias_antispam::eval::{Poster, Report, Setup, cross_validate, rules_only, train_and_test};
use ulias_core::settings::Settings;

use super::Outcome;
use crate::cli::{AntispamCommand, EvalArgs, EvalPoster, ImportArgs};

/// Runs an anti-spam subcommand.
pub async fn run(
    settings: &Settings,
    command: &AntispamCommand,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    match command {
        AntispamCommand::Eval(args) => eval(args, out),
        AntispamCommand::Import(args) => import(settings, args, out).await,
    }
}

async fn import(
    settings: &Settings,
    args: &ImportArgs,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let mut samples = Vec::new();
    for (path, spam) in [(&args.spam, true), (&args.ham, false)] {
        if let Some(path) = path {
            samples.extend(read_lines(path)?.into_iter().map(|text| (spam, text)));
        }
    }
    let store = super::open_store(settings).await?;
    let now = ulias_core::clock::Clock::now(&ulias_core::clock::SystemClock);
    let added = store
        .import_spam_samples(args.group, &samples, "import", now)
        .await
        .context("Failed to import the samples")?;
    writeln!(
        out,
        "imported {added} of {} samples into group {} ({} already held)",
        samples.len(),
        args.group,
        samples.len() - added
    )?;
    Ok(Outcome::Done)
}

fn eval(args: &EvalArgs, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let spam = read_lines(&args.spam)?;
    let ham = read_lines(&args.ham)?;
    let setup = Setup {
        official: args.official.clone(),
        allowed_domains: args.allowed_domains.clone(),
        poster: match args.poster {
            EvalPoster::Newcomer => Poster::Newcomer,
            EvalPoster::Member => Poster::Member,
        },
    };
    let poster = format!("{:?}", args.poster).to_lowercase();
    if args.rules_only {
        let report = rules_only(&spam, &ham, &setup)?;
        print_report(&report, &format!("rules alone, as a {poster}"), out)?;
        return Ok(Outcome::Done);
    }
    let (report, method) = match (&args.train_spam, &args.train_ham) {
        (Some(train_spam), Some(train_ham)) => {
            let (train_spam_lines, train_ham_lines) =
                (read_lines(train_spam)?, read_lines(train_ham)?);
            let report = train_and_test(&train_spam_lines, &train_ham_lines, &spam, &ham, &setup)?;
            (
                report,
                format!(
                    "as a {poster}, trained on {} and {}",
                    train_spam.display(),
                    train_ham.display()
                ),
            )
        }
        _ => {
            let report = cross_validate(&spam, &ham, args.folds as usize, args.seed, &setup)?;
            (
                report,
                format!(
                    "as a {poster}, {}-fold cross-validation, seed {}",
                    args.folds, args.seed
                ),
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
    writeln!(out, "per rule        spam fired on, ham deleted with it")?;
    for (rule, count) in &report.rules {
        writeln!(
            out,
            "  {rule:<16} recall {:.3} ({} of {} spam), false positives {}",
            ratio(count.spam, report.spam),
            count.spam,
            report.spam,
            count.false_positives
        )?;
    }
    if !report.missed.is_empty() {
        writeln!(out, "missed          {} spam", report.missed.len())?;
    }
    for (text, rules) in &report.missed {
        writeln!(out, "  - [{}] {}", rules.join(", "), preview(text))?;
    }
    Ok(())
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
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
