//! An index of known spam for near-duplicates: looked up through the
//! words a message shares with each sample, never by scanning them all.

use std::collections::HashMap;

use crate::normalize::Normalized;

/// Samples kept per word: bounds the work per message whatever the number
/// of samples (common words still point somewhere).
const MAX_POSTINGS: usize = 32;
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

/// Known spam, by word.
#[derive(Debug, Clone, Default)]
pub struct SpamIndex {
    postings: HashMap<Token, Vec<u32>>,
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

    /// The best Jaccard similarity of `words` to a known spam. The samples
    /// sharing a word are gathered and sorted rather than counted in a
    /// map: a few hundred ids sort faster than they hash.
    pub fn nearest(&self, words: &[Token]) -> Option<f64> {
        let mut candidates: Vec<u32> = words
            .iter()
            .filter(|word| *word & 1 == 1)
            .filter_map(|word| self.postings.get(word))
            .flatten()
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() as u32 >= MIN_SHARED)
            .map(|run| {
                let shared = run.len() as f64;
                let size = self.sample_sizes.get(run[0] as usize).copied().unwrap_or(0);
                shared / (words.len() as f64 + f64::from(size) - shared)
            })
            .max_by(f64::total_cmp)
    }
}
