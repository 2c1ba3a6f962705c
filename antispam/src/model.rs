//! What the engine learns from examples: a naive Bayes classifier over
//! spam and ham samples, and an index of known spam for near-duplicates
//! (looked up through shared rare words, never by scanning every sample).

use std::collections::HashMap;

use crate::normalize::{Normalized, normalize};
use crate::verdict::{Rule, Verdict};

/// Words a message needs, among those seen in training, to be classified.
const MIN_KNOWN_TOKENS: usize = 3;
/// How many of a message's most telling words the classifier combines.
const TELLING_WORDS: usize = 15;
/// The classifier's spam probability from which it fires.
const SPAM_PROBABILITY: f64 = 0.9999;
/// The probability from which the classifier's vote counts, short of decisive.
const LIKELY_SPAM: f64 = 0.99;
/// Messages shorter than this are not classified.
const MIN_CLASSIFIED_CHARS: usize = 50;
/// Jaccard similarity to a known spam from which a message is a near-duplicate.
const SIMILARITY: f64 = 0.5;
/// Samples kept per word in the index: bounds the work per message
/// whatever the number of samples (common words still point somewhere).
const MAX_POSTINGS: usize = 64;

/// The words of a normalised text, as the model sees them (unique, sorted).
pub fn tokens(text: &Normalized) -> Vec<String> {
    let mut tokens: Vec<String> = text
        .skeleton
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 2)
        .map(str::to_owned)
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

/// A trained model.
#[derive(Debug, Clone, Default)]
pub struct SpamModel {
    spam: HashMap<String, u32>,
    ham: HashMap<String, u32>,
    spam_docs: u32,
    ham_docs: u32,
    index: HashMap<String, Vec<u32>>,
    sample_sizes: Vec<u32>,
}

impl SpamModel {
    /// Trains on spam and ham samples.
    pub fn train(spam: &[String], ham: &[String]) -> Self {
        let mut model = Self::default();
        let spam_tokens: Vec<Vec<String>> = spam.iter().map(|s| tokens(&normalize(s))).collect();
        for words in &spam_tokens {
            model.spam_docs += 1;
            for word in words {
                *model.spam.entry(word.clone()).or_default() += 1;
            }
        }
        for sample in ham {
            model.ham_docs += 1;
            for word in tokens(&normalize(sample)) {
                *model.ham.entry(word).or_default() += 1;
            }
        }
        model.build_index(&spam_tokens);
        model
    }

    fn build_index(&mut self, samples: &[Vec<String>]) {
        for (id, words) in samples.iter().enumerate() {
            self.sample_sizes.push(words.len() as u32);
            for word in words.iter().filter(|w| w.chars().count() >= 3) {
                self.index.entry(word.clone()).or_default().push(id as u32);
            }
        }
        for postings in self.index.values_mut() {
            postings.truncate(MAX_POSTINGS);
        }
    }

    /// The spam probability of a text, when it has enough known words:
    /// Graham's combination of the most telling words (those whose own
    /// spam probability is furthest from one half), so a long message is
    /// not judged on the sheer number of its words.
    pub fn spam_probability(&self, words: &[String]) -> Option<f64> {
        if self.spam_docs == 0 || self.ham_docs == 0 {
            return None;
        }
        let (spam_docs, ham_docs) = (f64::from(self.spam_docs), f64::from(self.ham_docs));
        let mut telling: Vec<f64> = words
            .iter()
            .filter_map(|word| {
                let in_spam = f64::from(self.spam.get(word).copied().unwrap_or(0));
                let in_ham = f64::from(self.ham.get(word).copied().unwrap_or(0));
                if in_spam + in_ham < 2.0 {
                    return None;
                }
                let spamminess = (in_spam / spam_docs) / (in_spam / spam_docs + in_ham / ham_docs);
                Some(spamminess.clamp(0.01, 0.99))
            })
            .collect();
        if telling.len() < MIN_KNOWN_TOKENS {
            return None;
        }
        telling.sort_by(|a, b| (b - 0.5).abs().total_cmp(&(a - 0.5).abs()));
        telling.truncate(TELLING_WORDS);
        let spam: f64 = telling.iter().map(|p| p.ln()).sum();
        let ham: f64 = telling.iter().map(|p| (1.0 - p).ln()).sum();
        Some(1.0 / (1.0 + (ham - spam).exp()))
    }

    /// The best Jaccard similarity to a known spam, through the index.
    pub fn nearest_spam(&self, words: &[String]) -> Option<f64> {
        let mut shared: HashMap<u32, u32> = HashMap::new();
        for word in words {
            for id in self.index.get(word).into_iter().flatten() {
                *shared.entry(*id).or_default() += 1;
            }
        }
        shared
            .into_iter()
            .filter(|(_, count)| *count >= 3)
            .map(|(id, count)| {
                let size = self.sample_sizes.get(id as usize).copied().unwrap_or(0);
                f64::from(count) / (words.len() as f64 + f64::from(size) - f64::from(count))
            })
            .max_by(f64::total_cmp)
    }

    /// Adds the model's hits to a verdict.
    pub fn judge(&self, text: &Normalized, verdict: &mut Verdict) {
        let words = tokens(text);
        // Short messages say too little for the classifier (tg-spam skips them too).
        let probability = (text.text.chars().count() >= MIN_CLASSIFIED_CHARS)
            .then(|| self.spam_probability(&words))
            .flatten();
        if let Some(p) = probability {
            // Decisive when certain; otherwise it needs another rule to agree.
            let score = if p >= SPAM_PROBABILITY {
                2.0
            } else if p >= LIKELY_SPAM {
                1.0
            } else {
                0.0
            };
            if score > 0.0 {
                verdict.hit(Rule::Classifier, score, format!("spam probability {p:.6}"));
            }
        }
        if let Some(similarity) = self.nearest_spam(&words).filter(|s| *s >= SIMILARITY) {
            verdict.hit(
                Rule::SimilarSpam,
                2.5,
                format!("{similarity:.2} similar to known spam"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spam() -> Vec<String> {
        (0..40)
            .map(|i| {
                format!("earn money fast from home with our crypto platform bonus {i} register now")
            })
            .chain(
                (0..40).map(|i| {
                    format!("remote work income daily payouts write me private channel {i}")
                }),
            )
            .collect()
    }

    fn ham() -> Vec<String> {
        (0..80)
            .map(|i| {
                format!(
                    "the release {i} fixed the build on arm, thanks for the review of the patch"
                )
            })
            .collect()
    }

    #[test]
    fn a_near_duplicate_of_known_spam_is_found_through_the_index() {
        let model = SpamModel::train(&spam(), &ham());
        let words = tokens(&normalize(
            "EARN money fast from home with our crypto platform, register now!!",
        ));
        assert!(model.nearest_spam(&words).unwrap() >= SIMILARITY);
        let unrelated = tokens(&normalize(
            "did anyone try the new compiler release on arm yet",
        ));
        assert!(
            model
                .nearest_spam(&unrelated)
                .is_none_or(|s| s < SIMILARITY)
        );
    }

    #[test]
    fn the_classifier_separates_what_it_was_taught() {
        let model = SpamModel::train(&spam(), &ham());
        let spammy = tokens(&normalize(
            "daily payouts for remote work, write me in private",
        ));
        let hammy = tokens(&normalize(
            "thanks for the review, the patch fixed the build",
        ));
        assert!(model.spam_probability(&spammy).unwrap() > 0.99);
        assert!(model.spam_probability(&hammy).unwrap() < 0.01);
        assert_eq!(
            model.spam_probability(&tokens(&normalize("hi"))),
            None,
            "too few known words"
        );
    }
}
