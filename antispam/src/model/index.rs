//! An index of known spam for near-duplicates: looked up through the
//! words a message shares with each sample, never by scanning them all.

use std::collections::HashMap;

use crate::normalize::Normalized;

/// Samples kept per word: bounds the work per message whatever the number
/// of samples (common words still point somewhere).
const MAX_POSTINGS: usize = 32;
/// Words a message must share with a sample to be compared with it.
const MIN_SHARED: u32 = 3;

/// The words of a normalised text, as the index sees them (unique, sorted).
pub fn tokens(text: &Normalized) -> Vec<String> {
    let mut tokens: Vec<String> = text
        .skeleton
        .split(|c: char| !crate::normalize::is_letter_or_digit(c))
        .filter(|word| word.chars().count() >= 2)
        .map(str::to_owned)
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    tokens
}

/// Known spam, by word.
#[derive(Debug, Clone, Default)]
pub struct SpamIndex {
    postings: HashMap<String, Vec<u32>>,
    sample_sizes: Vec<u32>,
}

impl SpamIndex {
    /// Indexes each sample's words (of three letters or more).
    pub fn build(samples: &[Vec<String>]) -> Self {
        let mut index = Self::default();
        for (id, words) in samples.iter().enumerate() {
            index.sample_sizes.push(words.len() as u32);
            for word in words.iter().filter(|w| w.chars().count() >= 3) {
                index
                    .postings
                    .entry(word.clone())
                    .or_default()
                    .push(id as u32);
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
    pub fn nearest(&self, words: &[String]) -> Option<f64> {
        let mut candidates: Vec<u32> = words
            .iter()
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
