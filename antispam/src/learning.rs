//! Learning from the group itself: which clean messages of trusted members
//! become ham samples (a fixed share, picked by a hash of the message so
//! the same message always gets the same answer), and what a sample needs
//! to be learned at all — enough distinctive words that a ban's text made
//! of ordinary talk cannot teach the classifier that ordinary talk is spam.

use std::collections::HashMap;

use crate::language::is_common_word;
use crate::normalize::{Normalized, is_letter_or_digit};

/// Words of a message (of three characters or more) it needs to be learned
/// as ham: a "thanks" or a "gm" teaches nothing.
pub const MIN_HAM_WORDS: usize = 4;
/// Distinctive words a spam sample needs to be learned: words that are not
/// a language's common words and that ordinary talk (the ham samples) does
/// not use twice or more.
pub const MIN_DISTINCTIVE_WORDS: usize = 3;
/// Ham samples using a word from which it is ordinary talk.
const ORDINARY_FROM: usize = 2;

/// Whether the clean message `message` of `chat` is one of the share
/// (`one_in`) kept as ham samples.
pub fn sampled(chat: i64, message: i64, one_in: u32) -> bool {
    let mut state: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in chat.to_le_bytes().into_iter().chain(message.to_le_bytes()) {
        state = (state ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    one_in <= 1 || state.is_multiple_of(u64::from(one_in))
}

/// Whether a clean message says enough to be learned as ham.
pub fn is_learnable_ham(text: &Normalized) -> bool {
    words(text).filter(|w| !is_common_word(w)).count() >= MIN_HAM_WORDS
}

/// The words ordinary talk uses: those found in at least [`ORDINARY_FROM`]
/// ham samples.
pub fn ordinary_words(ham: &[Normalized]) -> HashMap<&str, usize> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for text in ham {
        let mut mine: Vec<&str> = words(text).collect();
        mine.sort_unstable();
        mine.dedup();
        for word in mine {
            *seen.entry(word).or_default() += 1;
        }
    }
    seen.retain(|_, count| *count >= ORDINARY_FROM);
    seen
}

/// Whether a spam sample holds at least [`MIN_DISTINCTIVE_WORDS`] words
/// that are neither common words nor ordinary talk.
pub fn is_distinctive(text: &Normalized, ordinary: &HashMap<&str, usize>) -> bool {
    let mut distinct: Vec<&str> = words(text)
        .filter(|w| !is_common_word(w) && !ordinary.contains_key(w))
        .collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() >= MIN_DISTINCTIVE_WORDS
}

/// The words (three characters or more) of a normalised text.
fn words(text: &Normalized) -> impl Iterator<Item = &str> {
    text.skeleton
        .split(|c: char| !is_letter_or_digit(c))
        .filter(|w| w.chars().nth(2).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    #[test]
    fn a_fixed_share_of_messages_is_sampled_the_same_way_each_time() {
        let kept = (0..1000).filter(|m| sampled(-100, *m, 4)).count();
        assert!((200..300).contains(&kept), "{kept} of 1000");
        assert_eq!(sampled(-100, 17, 4), sampled(-100, 17, 4));
        assert!((0..50).all(|m| sampled(-100, m, 1)));
    }

    #[test]
    fn a_greeting_is_not_learned_and_a_real_message_is() {
        assert!(!is_learnable_ham(&normalize("gm all")));
        assert!(!is_learnable_ham(&normalize("thanks for the help!")));
        assert!(is_learnable_ham(&normalize(
            "the bridge took twenty minutes but the tokens arrived fine"
        )));
    }

    #[test]
    fn a_spam_sample_of_ordinary_words_is_not_distinctive() {
        let ham: Vec<Normalized> = [
            "good morning everyone, how is the market today",
            "morning everyone, the market looks calm today",
            "how is everyone doing with the new staking",
        ]
        .iter()
        .map(|t| normalize(t))
        .collect();
        let ordinary = ordinary_words(&ham);
        assert!(!is_distinctive(
            &normalize("good morning everyone, how is the market today"),
            &ordinary
        ));
        assert!(is_distinctive(
            &normalize("guaranteed returns with my account manager, whatsapp +1 555 0100"),
            &ordinary
        ));
    }
}
