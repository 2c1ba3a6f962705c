//! Every figure of the README's anti-spam table in one run, in release
//! mode, without the bot: `cargo run --release -p ulias-antispam --example
//! figures` (reads `../shared/corpus/tg-spam` and `fixtures/spam`).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // a tool that fails loudly
#![allow(clippy::print_stdout)] // the figures are its output

use ulias_antispam::eval::{Report, Setup, cross_validate, rules_only, train_and_test};

const OFFICIAL: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
/// The fixtures' operation's own site (fixtures/spam/README.md).
const ALLOWED: &str = "example.org";

fn lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

fn show(name: &str, report: &Report, details: bool) {
    println!(
        "{name}: recall {:.3} ({}/{}), false positives {}/{} ({:.2} %)",
        report.recall(),
        report.caught,
        report.spam,
        report.false_positives,
        report.ham,
        report.false_positive_rate() * 100.0
    );
    if details {
        for (text, rules) in &report.false_positive_details {
            println!(
                "   FP [{}] {}",
                rules.join(","),
                text.chars().take(110).collect::<String>()
            );
        }
        for (text, rules) in &report.missed {
            println!(
                "   MISS [{}] {}",
                rules.join(","),
                text.chars().take(110).collect::<String>()
            );
        }
    }
}

fn main() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let c = format!("{root}/../shared/corpus/tg-spam");
    let f = format!("{root}/fixtures/spam");
    let details = std::env::args().any(|a| a == "-v");
    let only = std::env::args().nth(1).filter(|a| a != "-v");
    let want = |what: &str| only.as_deref().is_none_or(|o| what.starts_with(o));
    let setup = Setup {
        official: vec![OFFICIAL.into()],
        allowed_domains: vec![ALLOWED.into()],
        ..Setup::default()
    };
    let (cs, ch) = (
        lines(&format!("{c}/spam-samples.txt")),
        lines(&format!("{c}/ham-samples.txt")),
    );
    if want("cv") {
        show(
            "cv shared 5-fold seed 42",
            &cross_validate(&cs, &ch, 5, 42, &Setup::default()).unwrap(),
            details,
        );
    }
    if want("half") {
        let (s1, s2) = cs.split_at(91);
        let (h1, h2) = ch.split_at(219);
        show(
            "half: train 2nd, test 1st",
            &train_and_test(s2, h2, s1, h1, &Setup::default()).unwrap(),
            details,
        );
        show(
            "half: train 1st, test 2nd",
            &train_and_test(s1, h1, s2, h2, &Setup::default()).unwrap(),
            details,
        );
    }
    // Every crypto fixture, as the README's `cat $F/crypto-spam*.txt`.
    let fixtures = |prefix: &str| {
        let mut names: Vec<String> = std::fs::read_dir(&f)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.starts_with(prefix) && name.ends_with(".txt"))
            .collect();
        names.sort();
        names
            .iter()
            .flat_map(|name| lines(&format!("{f}/{name}")))
            .collect::<Vec<_>>()
    };
    let (fs, fh) = (fixtures("crypto-spam"), fixtures("crypto-ham"));
    if want("shared") {
        show(
            "fixtures trained on shared",
            &train_and_test(&cs, &ch, &fs, &fh, &setup).unwrap(),
            details,
        );
    }
    if want("probs") {
        probs(&cs, &ch, &fs, &fh);
    }
    if want("rules-shared") {
        // Real-world spam and chat written by nobody who saw the rules.
        show(
            "rules only, shared corpus",
            &rules_only(&cs, &ch, &setup).unwrap(),
            details,
        );
    }
    if want("rules") {
        for (s, h) in [
            ("crypto-spam.txt", "crypto-ham.txt"),
            ("crypto-spam-holdout.txt", "crypto-ham-holdout.txt"),
            ("crypto-spam-holdout2.txt", "crypto-ham-holdout2.txt"),
            ("crypto-spam-families.txt", "crypto-ham-hard.txt"),
            ("crypto-spam-holdout3.txt", "crypto-ham-holdout3.txt"),
            ("crypto-spam-holdout4.txt", "crypto-ham-holdout4.txt"),
            ("crypto-spam-holdout5.txt", "crypto-ham-holdout5.txt"),
            ("crypto-spam-tuning6.txt", "crypto-ham-tuning6.txt"),
            ("crypto-spam-holdout6.txt", "crypto-ham-holdout6.txt"),
            ("crypto-spam-holdout7.txt", "crypto-ham-holdout7.txt"),
            ("crypto-spam-holdout8.txt", "crypto-ham-holdout8.txt"),
            ("crypto-spam-holdout9.txt", "crypto-ham-holdout9.txt"),
            ("crypto-spam-holdout10.txt", "crypto-ham-holdout10.txt"),
            ("crypto-spam-holdout11.txt", "crypto-ham-holdout11.txt"),
            ("crypto-spam-holdout12.txt", "crypto-ham-holdout12.txt"),
            ("crypto-spam-holdout13.txt", "crypto-ham-holdout13.txt"),
            ("crypto-spam-holdout14.txt", "crypto-ham-holdout14.txt"),
            ("crypto-spam-holdout15.txt", "crypto-ham-holdout15.txt"),
            ("crypto-spam-holdout16.txt", "crypto-ham-holdout16.txt"),
            ("crypto-spam-holdout17.txt", "crypto-ham-holdout17.txt"),
            ("crypto-spam-holdout18.txt", "crypto-ham-holdout18.txt"),
            ("crypto-spam-holdout19.txt", "crypto-ham-holdout19.txt"),
            ("crypto-spam-holdout20.txt", "crypto-ham-holdout20.txt"),
            ("crypto-spam-holdout21.txt", "crypto-ham-holdout21.txt"),
            ("crypto-spam-holdout22.txt", "crypto-ham-holdout22.txt"),
            ("crypto-spam-holdout23.txt", "crypto-ham-holdout23.txt"),
            ("crypto-spam-holdout24.txt", "crypto-ham-holdout24.txt"),
            ("crypto-spam-holdout25.txt", "crypto-ham-holdout25.txt"),
            ("crypto-spam-holdout26.txt", "crypto-ham-holdout26.txt"),
            ("crypto-spam-holdout27.txt", "crypto-ham-holdout27.txt"),
            ("crypto-spam-holdout28.txt", "crypto-ham-holdout28.txt"),
            ("crypto-spam-holdout29.txt", "crypto-ham-holdout29.txt"),
            ("crypto-spam-holdout30.txt", "crypto-ham-holdout30.txt"),
            ("crypto-spam-holdout31.txt", "crypto-ham-holdout31.txt"),
            ("crypto-spam-holdout32.txt", "crypto-ham-holdout32.txt"),
            ("crypto-spam-holdout33.txt", "crypto-ham-holdout33.txt"),
            ("crypto-spam-holdout34.txt", "crypto-ham-holdout34.txt"),
            ("crypto-spam-holdout35.txt", "crypto-ham-holdout35.txt"),
            ("crypto-spam-holdout36.txt", "crypto-ham-holdout36.txt"),
            ("crypto-spam-holdout37.txt", "crypto-ham-holdout37.txt"),
            ("crypto-spam-holdout38.txt", "crypto-ham-holdout38.txt"),
            ("crypto-spam-holdout39.txt", "crypto-ham-holdout39.txt"),
            ("crypto-spam-holdout40.txt", "crypto-ham-holdout40.txt"),
            ("crypto-spam-holdout41.txt", "crypto-ham-holdout41.txt"),
            ("crypto-spam-holdout42.txt", "crypto-ham-holdout42.txt"),
            ("crypto-spam-holdout43.txt", "crypto-ham-holdout43.txt"),
            ("crypto-spam-holdout44.txt", "crypto-ham-holdout44.txt"),
            ("crypto-spam-holdout45.txt", "crypto-ham-holdout45.txt"),
            ("crypto-spam-holdout46.txt", "crypto-ham-holdout46.txt"),
            ("crypto-spam-holdout47.txt", "crypto-ham-holdout47.txt"),
            ("crypto-spam-holdout48.txt", "crypto-ham-holdout48.txt"),
            ("crypto-spam-holdout49.txt", "crypto-ham-holdout49.txt"),
            ("crypto-spam-holdout50.txt", "crypto-ham-holdout50.txt"),
            ("crypto-spam-holdout51.txt", "crypto-ham-holdout51.txt"),
            ("crypto-spam-holdout54.txt", "crypto-ham-holdout54.txt"),
            ("crypto-spam-holdout55.txt", "crypto-ham-holdout55.txt"),
            ("crypto-spam-holdout56.txt", "crypto-ham-holdout56.txt"),
            ("crypto-spam-holdout57.txt", "crypto-ham-holdout57.txt"),
            ("crypto-spam-holdout58.txt", "crypto-ham-holdout58.txt"),
            ("crypto-spam-holdout59.txt", "crypto-ham-holdout59.txt"),
            ("crypto-spam-holdout60.txt", "crypto-ham-holdout60.txt"),
            ("crypto-spam-holdout61.txt", "crypto-ham-holdout61.txt"),
            ("crypto-spam-holdout62.txt", "crypto-ham-holdout62.txt"),
            ("crypto-spam-holdout63.txt", "crypto-ham-holdout63.txt"),
            ("crypto-spam-holdout64.txt", "crypto-ham-holdout64.txt"),
            ("crypto-spam-holdout65.txt", "crypto-ham-holdout65.txt"),
        ] {
            let path = format!("{f}/{s}");
            if std::path::Path::new(&path).exists() {
                let r = rules_only(&lines(&path), &lines(&format!("{f}/{h}")), &setup).unwrap();
                show(&format!("rules only {s}"), &r, details);
            }
        }
    }
}

fn probs(cs: &[String], ch: &[String], fs: &[String], fh: &[String]) {
    use ulias_antispam::language::detect;
    use ulias_antispam::model::SpamModel;
    use ulias_antispam::normalize::normalize;
    let summary = |name: &str, model: &SpamModel, texts: &[String]| {
        let mut ps: Vec<(f32, String, bool)> = texts
            .iter()
            .map(|t| {
                let n = normalize(t);
                (
                    model.spam_probability(&n).unwrap_or(-1.0),
                    format!(
                        "{:?} {}",
                        detect(&n.text),
                        t.chars().take(70).collect::<String>()
                    ),
                    model.standing_of(&n) == ulias_antispam::model::Standing::Known,
                )
            })
            .collect();
        ps.sort_by(|a, b| b.0.total_cmp(&a.0));
        println!("== {name}");
        for (p, t, k) in ps.iter().take(30) {
            println!("  {p:.3} {} {t}", if *k { "known" } else { "scarce" });
        }
    };
    let model = SpamModel::train(cs, ch);
    summary("our ham, trained on shared", &model, fh);
    // CV-like: English spam of the shared corpus, trained without it (5 folds)
    let mut eng: Vec<(f32, String)> = Vec::new();
    for fold in 0..5 {
        let train: Vec<String> = cs
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 5 != fold)
            .map(|(_, t)| t.clone())
            .collect();
        let trainh: Vec<String> = ch
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 5 != fold)
            .map(|(_, t)| t.clone())
            .collect();
        let m = SpamModel::train(&train, &trainh);
        for (i, t) in cs.iter().enumerate().filter(|(i, _)| i % 5 == fold) {
            let _ = i;
            let n = normalize(t);
            if m.standing_of(&n) != ulias_antispam::model::Standing::Known {
                eng.push((
                    m.spam_probability(&n).unwrap_or(-1.0),
                    format!(
                        "{:?} {}",
                        detect(&n.text),
                        t.chars().take(60).collect::<String>()
                    ),
                ));
            }
        }
    }
    eng.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "== shared spam in scarce languages, held out ({}), lowest first",
        eng.len()
    );
    for (p, t) in eng.iter().take(25) {
        println!("  {p:.3} {t}");
    }
    let _ = fs;
}
