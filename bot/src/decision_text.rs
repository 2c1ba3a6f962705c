//! A decision in words, in the chat's language: its question from
//! `decision-<kind>` filled with the kind's values, its options from
//! `decision-option-<option>`. Decisions stored before kinds existed keep
//! the words they were stored with.

use ulias_core::domain::{Decision, DecisionKind};

use crate::i18n::{Texts, arg};

/// The question a decision asks.
pub fn question(texts: &Texts, decision: &Decision) -> String {
    if let DecisionKind::Legacy { question, .. } = &decision.kind {
        return question.clone();
    }
    let args: Vec<_> = decision
        .kind
        .values()
        .into_iter()
        .map(|(name, value)| arg(name, value))
        .collect();
    texts.with(&decision.kind.locale_key(), &args)
}

/// Every option's label, in the order answers index them.
pub fn option_labels(texts: &Texts, decision: &Decision) -> Vec<String> {
    match &decision.kind {
        DecisionKind::Legacy { options, .. } => options.clone(),
        typed => typed
            .options()
            .iter()
            .map(|option| texts.get(&option.locale_key()))
            .collect(),
    }
}

/// The label of the option at `index`, or nothing.
pub fn option_label(texts: &Texts, decision: &Decision, index: Option<usize>) -> String {
    index
        .and_then(|i| option_labels(texts, decision).into_iter().nth(i))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use serde_json::json;
    use ulias_core::domain::{DecisionId, DecisionStatus, OperationId, Urgency};
    use ulias_core::settings::Locale;

    use super::*;

    fn decision(kind: DecisionKind) -> Decision {
        Decision {
            id: DecisionId::new(1),
            kind,
            task_id: None,
            objective_id: None,
            operation_id: None,
            context_summary: String::new(),
            recommended: None,
            urgency: Urgency::Normal,
            status: DecisionStatus::Pending,
            timeout_at: None,
            auto_decision: None,
            response: None,
            responded_by: None,
            responded_at: None,
            applied_at: None,
            created_at: Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap(),
        }
    }

    fn every_kind() -> Vec<DecisionKind> {
        vec![
            DecisionKind::Doubt {
                agent: "coder".into(),
                title: "Fix the build".into(),
                confidence_pct: 42,
            },
            DecisionKind::Escalation {
                title: "Launch the newsletter".into(),
            },
            DecisionKind::Confirmation {
                tool: "docker_restart".into(),
                arguments: json!({"container": "web"}),
            },
            DecisionKind::OperationStart {
                chain: "base".into(),
                address: "0xabc".into(),
                name: "Pepe Two".into(),
                ticker: Some("PEP2".into()),
            },
            DecisionKind::OperationStop {
                operation: OperationId::new(3),
                name: "Pepe Two".into(),
            },
            DecisionKind::ValidationOff {
                operation: OperationId::new(3),
                name: "Pepe Two".into(),
                asked_by: "bob".into(),
            },
            DecisionKind::Incident {
                incident: 4,
                service: "api".into(),
                summary: "api is down: the disk is full".into(),
                actions: "clear the old logs".into(),
            },
        ]
    }

    #[test]
    fn every_decision_kind_renders_in_french_and_english_with_its_values() {
        for kind in every_kind() {
            let decision = decision(kind.clone());
            let mut questions = Vec::new();
            for locale in [Locale::Fr, Locale::En] {
                let texts = Texts::new(locale);
                let asked = question(&texts, &decision);
                for (name, value) in kind.values() {
                    if name != "arguments" {
                        assert!(
                            asked.contains(&value),
                            "{locale:?} {}: {asked}",
                            kind.name()
                        );
                    }
                }
                let labels = option_labels(&texts, &decision);
                assert_eq!(labels.len(), kind.options().len());
                for (label, option) in labels.iter().zip(kind.options()) {
                    assert!(
                        !label.is_empty() && !label.contains("decision-option"),
                        "{locale:?} {option}: {label}"
                    );
                }
                questions.push(asked);
            }
            assert_ne!(questions[0], questions[1], "{} is translated", kind.name());
        }
    }
}
