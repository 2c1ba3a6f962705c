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

/// Known spam, by word: each indexed word's samples lie side by side in
/// one array (a lookup reads one entry of the table and one run of ids,
/// not a list of its own somewhere on the heap).
#[derive(Debug, Clone, Default)]
pub struct SpamIndex {
    /// Where each word's samples start in `samples`, and how many.
    postings: HashMap<Token, (u32, u32), BuildHasherDefault<TokenHasher>>,
    samples: Vec<u32>,
    sample_sizes: Vec<u32>,
}

impl SpamIndex {
    /// Indexes each sample's words (of three letters or more).
    pub fn build(samples: &[Vec<Token>]) -> Self {
        let mut by_word: HashMap<Token, Vec<u32>, BuildHasherDefault<TokenHasher>> =
            HashMap::default();
        for (id, words) in samples.iter().enumerate() {
            for word in words.iter().filter(|w| *w & 1 == 1) {
                let ids = by_word.entry(*word).or_default();
                if ids.len() < MAX_POSTINGS {
                    ids.push(id as u32);
                }
            }
        }
        let mut index = Self {
            sample_sizes: samples.iter().map(|words| words.len() as u32).collect(),
            ..Self::default()
        };
        for (word, ids) in by_word {
            let start = index.samples.len() as u32;
            index.samples.extend(&ids);
            index.postings.insert(word, (start, ids.len() as u32));
        }
        index
    }

    /// The samples that hold `word`.
    fn samples_with(&self, word: &Token) -> &[u32] {
        self.postings
            .get(word)
            .and_then(|(start, len)| self.samples.get(*start as usize..(start + len) as usize))
            .unwrap_or_default()
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
        let postings: Vec<&[u32]> = words
            .iter()
            .filter(|word| *word & 1 == 1)
            .take(MAX_LOOKED_UP)
            .map(|word| self.samples_with(word))
            .collect();
        let mut close: Vec<(u32, u16)> = Vec::new();
        SHARED.with_borrow_mut(|shared| {
            if shared.len() < self.sample_sizes.len() {
                shared.resize(self.sample_sizes.len(), 0);
            }
            for id in postings.iter().copied().flatten() {
                if let Some(count) = shared.get_mut(*id as usize) {
                    *count = count.saturating_add(1);
                }
            }
            for id in postings.iter().copied().flatten() {
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
