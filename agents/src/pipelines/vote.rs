//! Voting between answers to the same task, weighted by each answer's own
//! confidence (CISC), and telling whether two answers agree.

use serde_json::Value;

/// The fields that carry an answer's decision, first found wins. An output
/// with none of them is compared whole, its confidence left out.
const DECISION_FIELDS: [&str; 6] = [
    "verdict", "choice", "answer", "approved", "passed", "status",
];

/// The confidence an answer that gives none is counted with.
const UNSTATED_CONFIDENCE: f64 = 0.5;

/// What an answer decides, for comparing answers.
pub fn decision_of(output: &Value) -> Value {
    if let Some(value) = DECISION_FIELDS.iter().find_map(|f| output.get(f)) {
        return normalised(value);
    }
    let mut whole = output.clone();
    if let Value::Object(fields) = &mut whole {
        fields.remove("confidence");
    }
    whole
}

fn normalised(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(text.trim().to_lowercase()),
        other => other.clone(),
    }
}

/// Whether two answers decide the same thing.
pub fn agree(a: &Value, b: &Value) -> bool {
    decision_of(a) == decision_of(b)
}

/// The outcome of a weighted vote.
#[derive(Debug, Clone, PartialEq)]
pub struct Vote {
    /// The index of the sample that represents the winning answer (its most
    /// confident one).
    pub winner: usize,
    /// The winning answer's share of the total weight, 0–1.
    pub share: f64,
    /// The winning answer's mean confidence times its share: unanimity keeps
    /// the samples' confidence, a split vote lowers it.
    pub confidence: f64,
}

/// Votes between `(output, confidence)` samples: identical decisions pool
/// their confidences, the heaviest decision wins (ties: the one seen first).
/// `None` for no samples.
pub fn weighted_vote(samples: &[(Value, Option<f64>)]) -> Option<Vote> {
    let weight = |c: Option<f64>| c.unwrap_or(UNSTATED_CONFIDENCE).clamp(0.0, 1.0);
    let mut groups: Vec<(Value, f64, Vec<usize>)> = Vec::new();
    for (i, (output, confidence)) in samples.iter().enumerate() {
        let decision = decision_of(output);
        match groups.iter_mut().find(|(d, _, _)| *d == decision) {
            Some((_, total, members)) => {
                *total += weight(*confidence);
                members.push(i);
            }
            None => groups.push((decision, weight(*confidence), vec![i])),
        }
    }
    let total: f64 = groups.iter().map(|(_, w, _)| w).sum();
    let (_, best, members) = groups
        .into_iter()
        .reduce(|best, next| if next.1 > best.1 { next } else { best })?;
    let winner = *members.iter().max_by(|a, b| {
        weight(samples[**a].1)
            .partial_cmp(&weight(samples[**b].1))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(b.cmp(a))
    })?;
    let share = if total > 0.0 { best / total } else { 0.0 };
    let mean = best / members.len() as f64;
    Some(Vote {
        winner,
        share,
        confidence: mean * share,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_confident_minority_outweighs_a_doubtful_majority() {
        let samples = vec![
            (json!({"verdict": "go", "confidence": 0.3}), Some(0.3)),
            (json!({"verdict": "no_go", "confidence": 0.95}), Some(0.95)),
            (json!({"verdict": "go", "confidence": 0.35}), Some(0.35)),
        ];
        let vote = weighted_vote(&samples).unwrap();
        assert_eq!(vote.winner, 1);
        assert!((vote.share - 0.95 / 1.6).abs() < 1e-9);
    }

    #[test]
    fn a_majority_wins_when_its_weights_add_up_to_more() {
        let samples = vec![
            (json!({"verdict": "go"}), Some(0.7)),
            (json!({"verdict": "no_go"}), Some(0.9)),
            (json!({"verdict": "Go "}), Some(0.8)),
        ];
        let vote = weighted_vote(&samples).unwrap();
        assert_eq!(vote.winner, 2, "the most confident of the winning answers");
        assert!(vote.confidence < 0.75, "a split vote lowers the confidence");
    }

    #[test]
    fn unanimity_keeps_the_samples_confidence() {
        let samples = vec![
            (json!({"answer": "42"}), Some(0.9)),
            (json!({"answer": "42"}), Some(0.9)),
        ];
        let vote = weighted_vote(&samples).unwrap();
        assert!((vote.confidence - 0.9).abs() < 1e-9);
        assert!(weighted_vote(&[]).is_none());
    }

    #[test]
    fn answers_without_a_decision_field_are_compared_whole_minus_confidence() {
        assert!(agree(
            &json!({"summary": "ok", "confidence": 0.2}),
            &json!({"summary": "ok", "confidence": 0.9})
        ));
        assert!(!agree(
            &json!({"approved": true}),
            &json!({"approved": false})
        ));
    }
}
