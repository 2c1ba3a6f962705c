//! What the engine learns from examples: a classifier over spam and ham
//! samples ([`logistic`] regression over hashed words and pieces of words,
//! see [`features`]), and an [`index`] of known spam for near-duplicates.

pub mod features;
pub mod index;
pub mod logistic;

use features::features;
use index::SpamIndex;
pub use index::tokens;
use logistic::Logistic;

use crate::content::{is_emoji, is_link};
use crate::language::{Language, detect};
use crate::learning::{is_distinctive, ordinary_words};
use crate::normalize::{Normalized, normalize};
use crate::verdict::{Rule, Verdict};

/// The classifier's spam probability from which it deletes on its own.
const SPAM_PROBABILITY: f32 = 0.5;
/// The probability from which its vote counts, short of deciding alone.
const LIKELY_SPAM: f32 = 0.3;
/// Samples of each kind the classifier needs before it judges.
pub const MIN_SAMPLES: usize = 50;
/// Words (links and mentions aside) a message needs to be classified.
const MIN_WORDS: usize = 3;
/// Jaccard similarity to a known spam from which a message is a near-duplicate.
const SIMILARITY: f64 = 0.5;
/// Ham samples of a message's language from which the classifier decides
/// alone at [`SPAM_PROBABILITY`]: a corpus without ordinary talk in a
/// language teaches that the language itself is spam.
pub const MIN_LANGUAGE_HAM: usize = 10;
/// The probability a language with some ham, short of [`MIN_LANGUAGE_HAM`],
/// asks of a message that carries no sign readable in any language (a
/// link, a mention, an emoji, a disguised word): its words alone say
/// "this language" as much as "spam", so they need a margin.
const SCARCE_LANGUAGE_PROBABILITY: f32 = 0.6;

/// How much ordinary talk the model saw in a message's language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// At least [`MIN_LANGUAGE_HAM`] ham samples: judged like any message.
    Known,
    /// Some ham, short of [`MIN_LANGUAGE_HAM`]: decides alone with a margin,
    /// or when a sign readable in any language agrees.
    Scarce,
    /// No ham at all: the classifier votes, another rule must agree.
    Unseen,
}

/// A trained model.
#[derive(Debug, Clone, Default)]
pub struct SpamModel {
    classifier: Logistic,
    trained: bool,
    index: SpamIndex,
    /// Ham samples per language (indexed by [`Language::index`]).
    ham_by_language: [usize; Language::ALL.len()],
}

impl SpamModel {
    /// Trains on spam and ham samples. With fewer than [`MIN_SAMPLES`] of
    /// either, the classifier stays silent (a dozen examples teach it
    /// words, not spam); the index still knows the spam.
    pub fn train(spam: &[String], ham: &[String]) -> Self {
        let ham: Vec<Normalized> = ham.iter().map(|s| normalize(s)).collect();
        // A spam sample made of ordinary talk (a ban's "good morning
        // everyone") would teach that ordinary talk is spam: not learned.
        let ordinary = ordinary_words(&ham);
        let spam: Vec<Normalized> = spam
            .iter()
            .map(|s| normalize(s))
            .filter(|text| is_distinctive(text, &ordinary))
            .collect();
        let mut ham_by_language = [0; Language::ALL.len()];
        for text in &ham {
            ham_by_language[detect(&text.text).index()] += 1;
        }
        let trained = spam.len() >= MIN_SAMPLES && ham.len() >= MIN_SAMPLES;
        let classifier = if trained {
            let samples: Vec<_> = spam
                .iter()
                .map(|text| (features(text), true))
                .chain(ham.iter().map(|text| (features(text), false)))
                .collect();
            let languages: Vec<usize> = spam
                .iter()
                .chain(&ham)
                .map(|text| detect(&text.text).index())
                .collect();
            Logistic::train(&samples, &languages)
        } else {
            Logistic::default()
        };
        Self {
            classifier,
            trained,
            index: SpamIndex::build(&spam.iter().map(tokens).collect::<Vec<_>>()),
            ham_by_language,
        }
    }

    /// The probability that `text` is spam, once trained.
    pub fn spam_probability(&self, text: &Normalized) -> Option<f32> {
        self.trained
            .then(|| self.classifier.probability(&features(text)))
    }

    /// How much ham the model saw in the language of `text`.
    pub fn standing_of(&self, text: &Normalized) -> Standing {
        match self.ham_by_language[detect(&text.text).index()] {
            0 => Standing::Unseen,
            n if n < MIN_LANGUAGE_HAM => Standing::Scarce,
            _ => Standing::Known,
        }
    }

    /// The probabilities from which the classifier deletes `text` on its
    /// own (if it may) and from which its vote counts.
    ///
    /// In a language with little or no ham, it learned the language mostly
    /// from spam, and any talk in it sits near one half: a vote there needs
    /// [`SPAM_PROBABILITY`], unless a sign readable in any language (a
    /// link, a mention, an emoji, a disguised word) agrees. Measured on our
    /// crypto ham with a model trained on the shared corpus: English
    /// questions and requests with "DM me" scored 0.3–0.48 and were
    /// deleted with the "DM me" phrase; no held-out English spam of the
    /// shared corpus without such a sign scored in between.
    fn thresholds(&self, text: &Normalized) -> (Option<f32>, f32) {
        let standing = self.standing_of(text);
        if standing == Standing::Known {
            return (Some(SPAM_PROBABILITY), LIKELY_SPAM);
        }
        let sign = has_universal_sign(text);
        let deciding = match standing {
            Standing::Scarce if sign => Some(SPAM_PROBABILITY),
            Standing::Scarce => Some(SCARCE_LANGUAGE_PROBABILITY),
            _ => None,
        };
        let voting = if sign { LIKELY_SPAM } else { SPAM_PROBABILITY };
        (deciding, voting)
    }

    /// The best similarity of `text` to a known spam.
    pub fn nearest_spam(&self, text: &Normalized) -> Option<f64> {
        self.index.nearest(&tokens(text))
    }

    /// Adds the model's hits to a verdict.
    pub fn judge(&self, text: &Normalized, verdict: &mut Verdict) {
        let words = text
            .text
            .split_whitespace()
            .filter(|word| !word.starts_with('@') && !is_link(word))
            .take(MIN_WORDS)
            .count();
        // A message of a word or two says too little for the classifier.
        let probability = (words >= MIN_WORDS)
            .then(|| self.spam_probability(text))
            .flatten();
        // Under the lowest threshold, the language need not be read.
        if let Some(p) = probability.filter(|p| *p >= LIKELY_SPAM) {
            // Decisive when sure, in a language it saw enough ham in;
            // otherwise it needs another rule to agree.
            let (deciding, voting) = self.thresholds(text);
            let (score, why) = match deciding {
                Some(at) if p >= at => (2.0, format!("from {at:.2}")),
                _ if p >= voting => (
                    1.0,
                    match deciding {
                        Some(at) => format!("a vote under {at:.2}"),
                        None => "a vote: no ham seen in its language".to_owned(),
                    },
                ),
                _ => (0.0, String::new()),
            };
            if score > 0.0 {
                verdict.hit(
                    Rule::Classifier,
                    score,
                    format!("spam probability {p:.3} ({why})"),
                );
            }
        }
        if let Some(similarity) = self.nearest_spam(text).filter(|s| *s >= SIMILARITY) {
            verdict.hit(
                Rule::SimilarSpam,
                2.5,
                format!("{similarity:.2} similar to known spam"),
            );
        }
    }
}

/// A sign of spam that reads the same in every language: a link (not to
/// an explorer's, a wallet's or a news site's own page), a mention, an
/// emoji, a word disguised in another alphabet.
fn has_universal_sign(text: &Normalized) -> bool {
    !text.mixed_script_words.is_empty()
        || text.text.chars().any(is_emoji)
        || text.text.split_whitespace().enumerate().any(|(i, word)| {
            // A link to an explorer or a wallet's site is no sign, nor the
            // member a message replies to ("@tom the guide is …").
            let replied_to = i == 0 && text.text.matches('@').count() == 1;
            (is_link(word) && !crate::scam::is_well_known_link(word))
                || (word.starts_with('@') && word.len() > 1 && !replied_to)
        })
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
        let near = normalize("EARN money fast from home with our crypto platform, register now!!");
        assert!(model.nearest_spam(&near).unwrap() >= SIMILARITY);
        let unrelated = normalize("did anyone try the new compiler release on arm yet");
        assert!(
            model
                .nearest_spam(&unrelated)
                .is_none_or(|s| s < SIMILARITY)
        );
    }

    #[test]
    fn the_classifier_separates_what_it_was_taught() {
        let model = SpamModel::train(&spam(), &ham());
        let spammy = normalize("daily payouts for remote work, write me in private");
        let hammy = normalize("thanks for the review, the patch fixed the build");
        assert!(model.spam_probability(&spammy).unwrap() > 0.9);
        assert!(model.spam_probability(&hammy).unwrap() < 0.1);
        let untrained = SpamModel::train(&spam(), &[]);
        assert_eq!(untrained.spam_probability(&spammy), None);
    }

    #[test]
    fn a_model_taught_on_a_dozen_samples_stays_silent_but_knows_its_spam() {
        let (spam, ham) = (&spam()[..12], &ham()[..12]);
        let model = SpamModel::train(spam, ham);
        let copy = normalize(&spam[3]);
        assert_eq!(model.spam_probability(&copy), None);
        let mut verdict = Verdict::default();
        model.judge(&copy, &mut verdict);
        assert_eq!(verdict.rules(), ["similar_spam"]);
    }

    #[test]
    fn a_message_of_two_words_is_not_classified() {
        let model = SpamModel::train(&spam(), &ham());
        let mut verdict = Verdict::default();
        model.judge(&normalize("daily payouts"), &mut verdict);
        assert!(verdict.hits.is_empty(), "{verdict:?}");
        model.judge(
            &normalize("daily payouts for remote work, write me in private"),
            &mut verdict,
        );
        assert!(verdict.rules().contains(&"classifier"), "{verdict:?}");
    }

    #[test]
    fn a_language_is_known_scarce_or_unseen_by_its_ham() {
        let mut ham: Vec<String> = (0..75)
            .map(|i| format!("привет всем, кто идёт завтра на встречу {i}"))
            .collect();
        ham.extend((0..5).map(|i| format!("the release {i} fixed the build on arm")));
        let model = SpamModel::train(&spam(), &ham);
        let table = [
            ("кто знает, когда выйдет обновление", Standing::Known),
            ("did anyone try the new compiler", Standing::Scarce),
            (
                "hat jemand die neue version schon getestet",
                Standing::Unseen,
            ),
        ];
        for (text, standing) in table {
            assert_eq!(model.standing_of(&normalize(text)), standing, "{text}");
        }
    }

    #[test]
    fn a_vote_in_a_language_with_scarce_ham_needs_one_half_unless_a_sign_agrees() {
        let mut ham: Vec<String> = (0..75)
            .map(|i| format!("привет всем, кто идёт завтра на встречу {i}"))
            .collect();
        ham.extend((0..5).map(|i| format!("the release {i} fixed the build on arm")));
        let model = SpamModel::train(&spam(), &ham);
        let table = [
            ("кто знает, когда выйдет обновление", LIKELY_SPAM),
            ("can someone dm me about the bug bounty", SPAM_PROBABILITY),
            ("can someone dm me about it, @helper", LIKELY_SPAM),
            ("all details on https://x.io today", LIKELY_SPAM),
            (
                "hat jemand die neue version schon getestet",
                SPAM_PROBABILITY,
            ),
        ];
        for (text, at) in table {
            assert_eq!(model.thresholds(&normalize(text)).1, at, "{text}");
        }
    }

    #[test]
    fn links_mentions_emoji_and_disguised_words_read_in_any_language() {
        let table = [
            ("write to @helper for the details", true),
            ("all details on https://x.io today", true),
            ("great news for everyone 🚀", true),
            ("official p\u{0430}ypal support", true),
            ("great news for everyone in this group", false),
            ("send me an email at noon", false),
            ("the hash is on https://etherscan.io/tx/0x1", false),
            ("@tom the guide covers it, read the slippage part", false),
        ];
        for (text, sign) in table {
            assert_eq!(has_universal_sign(&normalize(text)), sign, "{text}");
        }
    }

    #[test]
    fn a_poisoned_sample_of_ordinary_words_cannot_flag_ordinary_talk() {
        // Bans of ordinary messages, learned as spam 40 times over.
        let mut spam = spam();
        spam.extend((0..40).map(|_| "thanks for the review, the build on arm is fixed".to_owned()));
        let model = SpamModel::train(&spam, &ham());
        let mut verdict = Verdict::default();
        model.judge(
            &normalize("thanks for the review, the build on arm is fixed now"),
            &mut verdict,
        );
        assert!(verdict.hits.is_empty(), "{verdict:?}");
        // The real spam is still learned.
        model.judge(
            &normalize("daily payouts for remote work, write me in private"),
            &mut verdict,
        );
        assert!(verdict.rules().contains(&"classifier"), "{verdict:?}");
    }
}
