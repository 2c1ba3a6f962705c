//! What the classifier sees of a message: its words, the five-letter
//! pieces of its words (so "заработок" and "заработка", or a word with one
//! letter changed, still share most of their evidence), its emoji, and
//! whether it carries a link, a mention or a disguised word. Each feature
//! is hashed into a fixed number of weights, so the model's size does not
//! grow with the number of samples.

use std::cell::RefCell;

use crate::content::{host_of, is_emoji};
use crate::language::is_common_word;
use crate::normalize::Normalized;

/// Number of weights, a power of two: 2^18 (one MiB of `f32`).
pub const DIMENSIONS: usize = 1 << 18;
/// Words of a message that are read: what a message is about shows in
/// its first sentences, and the work of a long one stays bounded.
const MAX_WORDS: usize = 48;
/// Length of the pieces of words.
const PIECE: usize = 5;

/// A message's features: hashed indices, each with the same weight so that
/// the vector has unit length (long messages do not outweigh short ones).
#[derive(Debug, Clone, PartialEq)]
pub struct Features {
    pub indices: Vec<u32>,
    pub value: f32,
}

/// Kinds of feature, hashed in so that a word and a piece never collide.
#[derive(Clone, Copy)]
enum Kind {
    Word = 1,
    Piece = 2,
    Emoji = 3,
    Flag = 4,
    Host = 5,
}

/// The features of a normalised message.
pub fn features(text: &Normalized) -> Features {
    let mut indices = Vec::with_capacity(text.skeleton.len() + 8);
    indices.push(hash(Kind::Flag, "bias"));
    // Where each character of the word starts, and where the word ends.
    let mut starts: Vec<usize> = Vec::new();
    for word in text
        .skeleton
        .split(|c: char| !crate::normalize::is_letter_or_digit(c))
        .filter(|word| word.chars().nth(1).is_some() && !is_common_word(word))
        .take(MAX_WORDS)
    {
        indices.push(hash(Kind::Word, word));
        starts.clear();
        starts.extend(word.char_indices().map(|(at, _)| at));
        starts.push(word.len());
        pieces(word, &starts, &mut indices);
    }
    for c in text.text.chars().filter(|c| is_emoji(*c)) {
        indices.push(hash(Kind::Emoji, c.encode_utf8(&mut [0; 4])));
    }
    for word in text.text.split_whitespace() {
        if word.starts_with('@') && word.len() > 1 {
            indices.push(hash(Kind::Flag, "mention"));
        }
        if word.contains("://") || word.starts_with("t.me/") || word.starts_with("www.") {
            indices.push(hash(Kind::Flag, "link"));
            indices.push(hash(Kind::Host, &host_of(word)));
        }
    }
    if !text.mixed_script_words.is_empty() {
        indices.push(hash(Kind::Flag, "mixed script"));
    }
    dedup(&mut indices);
    let value = 1.0 / (indices.len() as f32).sqrt();
    Features { indices, value }
}

/// Keeps the first of each index, in order: a bit per weight, set while
/// the message is read and cleared after (cheaper than sorting the
/// hundreds of pieces of a long message).
fn dedup(indices: &mut Vec<u32>) {
    thread_local! {
        static SEEN: RefCell<Vec<u64>> = RefCell::new(vec![0; DIMENSIONS / 64]);
    }
    SEEN.with(|seen| {
        let mut seen = seen.borrow_mut();
        indices.retain(|index| {
            let (word, bit) = (*index as usize / 64, 1u64 << (index % 64));
            seen.get_mut(word).is_some_and(|bits| {
                let new = *bits & bit == 0;
                *bits |= bit;
                new
            })
        });
        for index in indices.iter() {
            if let Some(bits) = seen.get_mut(*index as usize / 64) {
                *bits = 0;
            }
        }
    });
}

/// The pieces of [`PIECE`] characters of a word padded with a space at
/// each end, hashed as their text would be without building it.
/// `starts` holds where each character starts, then the word's length.
fn pieces(word: &str, starts: &[usize], indices: &mut Vec<u32>) {
    let chars = starts.len() - 1;
    let padded = chars + 2;
    let bytes = word.as_bytes();
    for first in 0..padded.saturating_sub(PIECE - 1) {
        let last = first + PIECE; // one past, in padded positions
        let (from, to) = (first.max(1) - 1, last.min(chars + 1) - 1);
        let (Some(from), Some(to)) = (starts.get(from), starts.get(to)) else {
            continue;
        };
        let mut state = start(Kind::Piece);
        if first == 0 {
            state = step(state, b' ');
        }
        state = bytes
            .get(*from..*to)
            .unwrap_or_default()
            .iter()
            .fold(state, |s, b| step(s, *b));
        if last == padded {
            state = step(state, b' ');
        }
        indices.push(fold(state));
    }
}

/// FNV-1a over the kind and the text, folded into [`DIMENSIONS`].
fn hash(kind: Kind, text: &str) -> u32 {
    fold(text.bytes().fold(start(kind), step))
}

fn start(kind: Kind) -> u64 {
    step(0xcbf2_9ce4_8422_2325, kind as u8)
}

fn step(state: u64, byte: u8) -> u64 {
    (state ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
}

fn fold(state: u64) -> u32 {
    (state as usize & (DIMENSIONS - 1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    #[test]
    fn inflected_forms_share_most_of_their_pieces() {
        let a = features(&normalize("заработок"));
        let b = features(&normalize("заработка"));
        let shared = a.indices.iter().filter(|i| b.indices.contains(i)).count();
        assert!(shared >= 4, "{shared} shared features");
        assert_ne!(a, b);
    }

    #[test]
    fn pieces_hash_as_the_padded_text_would() {
        for word in ["ab", "abcd", "abcde", "заработок", "x€yz"] {
            let padded: Vec<char> = format!(" {word} ").chars().collect();
            let expected: Vec<u32> = padded
                .windows(PIECE)
                .map(|w| hash(Kind::Piece, &w.iter().collect::<String>()))
                .collect();
            let mut starts: Vec<usize> = word.char_indices().map(|(at, _)| at).collect();
            starts.push(word.len());
            let mut got = Vec::new();
            pieces(word, &starts, &mut got);
            assert_eq!(got, expected, "{word}");
        }
    }

    #[test]
    fn the_pieces_of_a_word_include_its_padded_ends() {
        let pieces = features(&normalize("заработок")).indices;
        for piece in [" зара", "боток", "оток "] {
            let skeleton = crate::normalize::skeleton_of(piece);
            assert!(pieces.contains(&hash(Kind::Piece, &skeleton)), "{piece}");
        }
    }

    #[test]
    fn features_have_unit_length_and_flag_links_and_mentions() {
        let with = features(&normalize("look https://x.io and ask @bob"));
        let without = features(&normalize("look and ask bob"));
        let norm = with.value * with.value * with.indices.len() as f32;
        assert!((norm - 1.0).abs() < 1e-5);
        assert!(with.indices.contains(&hash(Kind::Flag, "link")));
        assert!(with.indices.contains(&hash(Kind::Flag, "mention")));
        assert!(!without.indices.contains(&hash(Kind::Flag, "link")));
    }
}
