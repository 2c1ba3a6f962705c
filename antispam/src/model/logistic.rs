//! A logistic regression over hashed features, trained by stochastic
//! gradient descent with a fixed shuffle: the same samples always give the
//! same weights. Spam and ham weigh the same in total whatever their
//! numbers, so a corpus with twice as much ham does not tilt the model; and
//! within each language that has both, they weigh the same too, so a
//! language mostly seen in spam does not make its common words spam.

use super::features::{DIMENSIONS, Features};
use crate::shuffle::shuffled;

/// Passes over the samples.
const EPOCHS: usize = 30;
/// The first pass's learning rate; it decays with each pass.
const LEARNING_RATE: f32 = 0.5;
/// L2 regularisation: keeps a word seen once from deciding alone.
const L2: f32 = 1e-5;

/// Trained weights.
/// Each sample's weight: spam and ham weigh the same in total, and the
/// same within each group that has both (a group with one class only
/// keeps the overall balance). Empty when either class is missing.
fn balanced_weights(samples: &[(Features, bool)], groups: &[usize]) -> Vec<f32> {
    let spam = samples.iter().filter(|(_, is_spam)| *is_spam).count();
    let ham = samples.len() - spam;
    if spam == 0 || ham == 0 {
        return Vec::new();
    }
    let total = samples.len() as f32;
    let overall = |is_spam: bool| total / (2.0 * if is_spam { spam } else { ham } as f32);
    let mut counts: std::collections::HashMap<usize, (usize, usize)> = Default::default();
    for ((_, is_spam), group) in samples.iter().zip(groups) {
        let count = counts.entry(*group).or_default();
        if *is_spam { count.0 += 1 } else { count.1 += 1 }
    }
    samples
        .iter()
        .zip(groups)
        .map(|((_, is_spam), group)| match counts.get(group) {
            // The group keeps its weight in the whole, split evenly.
            Some(&(s, h)) if s > 0 && h > 0 => {
                (s + h) as f32 / (2.0 * if *is_spam { s } else { h } as f32)
            }
            _ => overall(*is_spam),
        })
        .collect()
}

#[derive(Debug, Clone)]
pub struct Logistic {
    weights: Vec<f32>,
}

impl Default for Logistic {
    fn default() -> Self {
        Self {
            weights: vec![0.0; DIMENSIONS],
        }
    }
}

impl Logistic {
    /// Trains on labelled samples (`true` for spam), each in a group (its
    /// language) within which spam and ham are balanced.
    pub fn train(samples: &[(Features, bool)], groups: &[usize]) -> Self {
        let mut model = Self::default();
        let weights = balanced_weights(samples, groups);
        if weights.is_empty() {
            return model;
        }
        for epoch in 0..EPOCHS {
            let order = shuffled(samples.len(), epoch as u64);
            let rate = LEARNING_RATE / (1.0 + epoch as f32 * 0.1);
            for i in order {
                let (features, is_spam) = &samples[i];
                let (target, weight) = (if *is_spam { 1.0 } else { 0.0 }, weights[i]);
                let gradient = (model.probability(features) - target) * weight * features.value;
                for index in &features.indices {
                    let w = &mut model.weights[*index as usize];
                    *w -= rate * (gradient + L2 * *w);
                }
            }
        }
        model
    }

    /// The probability that a message with these features is spam.
    pub fn probability(&self, features: &Features) -> f32 {
        let z: f32 = features
            .indices
            .iter()
            .map(|i| self.weights[*i as usize])
            .sum::<f32>()
            * features.value;
        1.0 / (1.0 + (-z).exp())
    }
}
