//! An index of known spam for near-duplicates: looked up through the
//! words a message shares with each sample, never by scanning them all.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::normalize::Normalized;

/// Samples kept per word: bounds the work per message whatever the number
/// of samples (common words still point somewhere).
const MAX_POSTINGS: usize = 32;
/// Indexed words of a message whose samples are looked up.
const MAX_LOOKED_UP: usize = 64;
/// Words a message must share with a sample to be compared with it.
const MIN_SHARED: u32 = 3;

/// A word as the index keeps it: its hash, with whether it is long
/// enough (three letters or more) to point to samples in the low bit.
pub type Token = u64;

/// The words of a normalised text, as the index sees them (unique, sorted
/// hashes: no string is kept or compared).
pub fn tokens(text: &Normalized) -> Vec<Token> {
    let mut tokens: Vec<Token> = text
        .skeleton
        .split(|c: char| !crate::normalize::is_letter_or_digit(c))
        .filter_map(|word| {
            let letters = word.chars().take(3).count();
            (letters >= 2).then(|| token(word, letters >= 3))
        })
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

/// FNV-1a of a word, its low bit saying whether it is indexed.
fn token(word: &str, indexed: bool) -> Token {
    let hash = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |state, byte| {
        (state ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    (hash & !1) | u64::from(indexed)
}

/// Tokens are hashes already: they are mixed once more (their low bit is
/// a flag) rather than hashed again.
#[derive(Default)]
struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn write_u64(&mut self, token: u64) {
        self.0 = token.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Known spam, by word.
#[derive(Debug, Clone, Default)]
pub struct SpamIndex {
    postings: HashMap<Token, Vec<u32>, BuildHasherDefault<TokenHasher>>,
    sample_sizes: Vec<u32>,
}

impl SpamIndex {
    /// Indexes each sample's words (of three letters or more).
    pub fn build(samples: &[Vec<Token>]) -> Self {
        let mut index = Self::default();
        for (id, words) in samples.iter().enumerate() {
            index.sample_sizes.push(words.len() as u32);
            for word in words.iter().filter(|w| *w & 1 == 1) {
                index.postings.entry(*word).or_default().push(id as u32);
            }
        }
        for postings in index.postings.values_mut() {
            postings.truncate(MAX_POSTINGS);
        }
        index
    }

    /// The best Jaccard similarity of `words` to a known spam. Shared
    /// words are counted per sample in one array kept per thread (no
    /// sorting, no hashing, nothing to clear but what was counted). Only
    /// the postings of [`MAX_LOOKED_UP`] indexed words are read, a sample
    /// of the message's words (they are sorted by hash), and what they
    /// share is scaled up to the whole message.
    pub fn nearest(&self, words: &[Token]) -> Option<f64> {
        thread_local! {
            static SHARED: RefCell<Vec<u16>> = const { RefCell::new(Vec::new()) };
        }
        let indexed = words.iter().filter(|word| *word & 1 == 1).count();
        let postings = || {
            words
                .iter()
                .filter(|word| *word & 1 == 1)
                .take(MAX_LOOKED_UP)
                .filter_map(|word| self.postings.get(word))
                .flatten()
        };
        let mut close: Vec<(u32, u16)> = Vec::new();
        SHARED.with_borrow_mut(|shared| {
            if shared.len() < self.sample_sizes.len() {
                shared.resize(self.sample_sizes.len(), 0);
            }
            for id in postings() {
                if let Some(count) = shared.get_mut(*id as usize) {
                    *count = count.saturating_add(1);
                }
            }
            for id in postings() {
                if let Some(count) = shared.get_mut(*id as usize) {
                    if u32::from(*count) >= MIN_SHARED {
                        close.push((*id, *count));
                    }
                    *count = 0;
                }
            }
        });
        let scale = indexed.max(MAX_LOOKED_UP) as f64 / MAX_LOOKED_UP as f64;
        let words = words.len() as f64;
        close
            .iter()
            .map(|(id, counted)| {
                let both = (f64::from(*counted) * scale).min(words);
                let size = f64::from(self.sample_sizes.get(*id as usize).copied().unwrap_or(0));
                both / (words + size - both)
            })
            .max_by(f64::total_cmp)
    }
}
