//! A classifier trained on a corpus whose ham is one language and whose
//! spam another does not take the spam's language for spam.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::Path;

use ulias_antispam::eval::{Setup, train_and_test};
use ulias_antispam::language::{Language, detect};
use ulias_antispam::normalize::normalize;

fn lines(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/spam")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

fn in_language(files: &[&str], language: Language) -> Vec<String> {
    files
        .iter()
        .flat_map(|file| lines(file))
        .filter(|text| detect(&normalize(text).text) == language)
        .collect()
}

#[test]
fn trained_on_russian_ham_and_english_spam_english_ham_stays_under_one_percent_flagged() {
    let spam_files = ["crypto-spam.txt", "crypto-spam-holdout.txt"];
    let ham_files = ["crypto-ham.txt", "crypto-ham-holdout.txt"];
    let english_spam = in_language(&spam_files, Language::English);
    let mut russian_ham = lines("ru-chat-ham.txt");
    russian_ham.extend(in_language(&ham_files, Language::Cyrillic));
    let english_ham = in_language(&ham_files, Language::English);
    assert!(english_spam.len() >= 50 && russian_ham.len() >= 50 && english_ham.len() >= 50);

    let report = train_and_test(
        &english_spam,
        &russian_ham,
        &[],
        &english_ham,
        &Setup {
            official: vec!["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".into()],
            allowed_domains: vec!["example.org".into()],
            ..Setup::default()
        },
    )
    .unwrap();

    assert!(
        report.false_positive_rate() < 0.01,
        "{} of {} English ham flagged: {:?}",
        report.false_positives,
        report.ham,
        report.false_positive_details
    );
}
