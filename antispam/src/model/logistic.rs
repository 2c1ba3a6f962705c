//! A logistic regression over hashed features, trained by stochastic
//! gradient descent with a fixed shuffle: the same samples always give the
//! same weights. Spam and ham weigh the same in total whatever their
//! numbers, so a corpus with twice as much ham does not tilt the model.

use super::features::{DIMENSIONS, Features};
use crate::shuffle::shuffled;

/// Passes over the samples.
const EPOCHS: usize = 30;
/// The first pass's learning rate; it decays with each pass.
const LEARNING_RATE: f32 = 0.5;
/// L2 regularisation: keeps a word seen once from deciding alone.
const L2: f32 = 1e-5;

/// Trained weights.
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
    /// Trains on labelled samples (`true` for spam).
    pub fn train(samples: &[(Features, bool)]) -> Self {
        let mut model = Self::default();
        let spam = samples.iter().filter(|(_, is_spam)| *is_spam).count();
        let ham = samples.len() - spam;
        if spam == 0 || ham == 0 {
            return model;
        }
        let total = samples.len() as f32;
        let (spam_weight, ham_weight) = (total / (2.0 * spam as f32), total / (2.0 * ham as f32));
        for epoch in 0..EPOCHS {
            let order = shuffled(samples.len(), epoch as u64);
            let rate = LEARNING_RATE / (1.0 + epoch as f32 * 0.1);
            for (features, is_spam) in order.iter().map(|i| &samples[*i]) {
                let (target, weight) = if *is_spam {
                    (1.0, spam_weight)
                } else {
                    (0.0, ham_weight)
                };
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
