//! What a decision put to the CEO is about, typed. Each kind has its own
//! options, in a fixed order (answers are stored as an index into them),
//! and the values its text needs. The store keeps the kind's name and its
//! values as JSON, never a sentence: the chat renders them from `locales/`
//! in its own language (`decision-<kind>` and `decision-option-<option>`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::OperationId;

text_enum! {
    /// An answer a decision offers.
    pub enum DecisionOption as "decision option" {
        /// Take the doubtful result as it is.
        Accept => "accept",
        /// Run the task again.
        Rerun => "rerun",
        /// Cancel the task.
        Cancel => "cancel",
        /// Plan the objective again (with the CEO's words, when given).
        Replan => "replan",
        /// Drop it: the objective, or the candidate token.
        Drop => "drop",
        /// Let this exact destructive call run.
        Confirm => "confirm",
        /// Do not run it.
        Refuse => "refuse",
        /// Start the takeover.
        Start => "start",
        /// Stop the operation for good.
        Stop => "stop",
        /// Keep it running.
        Keep => "keep",
        /// Let the incident agent carry out the fix it proposed.
        Act => "act",
        /// Leave things as they are for now.
        Wait => "wait",
    }
}

impl DecisionOption {
    /// Its label's key in `locales/`.
    pub fn locale_key(self) -> String {
        format!("decision-option-{}", self.as_str())
    }
}

/// What a decision is about, with the values its text shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecisionKind {
    /// An agent is not sure enough of its result.
    Doubt {
        agent: String,
        title: String,
        confidence_pct: u32,
    },
    /// The Director could not plan an objective.
    Escalation { title: String },
    /// A destructive tool call waits for the CEO: this tool with these
    /// arguments, and nothing else.
    Confirmation { tool: String, arguments: Value },
    /// A candidate token's pre-report is in: start its takeover or drop it.
    OperationStart {
        chain: String,
        address: String,
        name: String,
        ticker: Option<String>,
    },
    /// Stop an operation for good.
    OperationStop {
        operation: OperationId,
        name: String,
    },
    /// A team member asks to publish an operation's outputs without the
    /// team's validation: only the CEO may allow it.
    ValidationOff {
        operation: OperationId,
        name: String,
        asked_by: String,
    },
    /// A service is down and the incident agent's diagnosis needs the CEO.
    Incident {
        incident: i64,
        service: String,
        summary: String,
        actions: String,
    },
    /// A decision stored before kinds existed: its words as they were.
    #[serde(skip)]
    Legacy {
        question: String,
        options: Vec<String>,
    },
}

impl DecisionKind {
    /// The kind's name, as stored in `decisions.kind`.
    pub const fn name(&self) -> &'static str {
        match self {
            Self::Doubt { .. } => "doubt",
            Self::Escalation { .. } => "escalation",
            Self::Confirmation { .. } => "confirmation",
            Self::OperationStart { .. } => "operation_start",
            Self::OperationStop { .. } => "operation_stop",
            Self::ValidationOff { .. } => "validation_off",
            Self::Incident { .. } => "incident",
            Self::Legacy { .. } => "legacy",
        }
    }

    /// Its question's key in `locales/`.
    pub fn locale_key(&self) -> String {
        format!("decision-{}", self.name().replace('_', "-"))
    }

    /// Its options, in the order answers index them.
    pub const fn options(&self) -> &'static [DecisionOption] {
        use DecisionOption::*;
        match self {
            Self::Doubt { .. } => &[Accept, Rerun, Cancel],
            Self::Escalation { .. } => &[Replan, Drop],
            Self::Confirmation { .. } => &[Confirm, Refuse],
            Self::OperationStart { .. } => &[Start, Drop],
            Self::OperationStop { .. } => &[Stop, Keep],
            Self::ValidationOff { .. } => &[Confirm, Refuse],
            Self::Incident { .. } => &[Act, Wait],
            Self::Legacy { .. } => &[],
        }
    }

    /// How many options it offers.
    pub fn option_count(&self) -> usize {
        match self {
            Self::Legacy { options, .. } => options.len(),
            typed => typed.options().len(),
        }
    }

    /// The index of `option` among its options.
    pub fn index_of(&self, option: DecisionOption) -> Option<usize> {
        self.options().iter().position(|o| *o == option)
    }

    /// The values its text shows, by name (for the locale's placeables).
    pub fn values(&self) -> Vec<(&'static str, String)> {
        match self {
            Self::Doubt {
                agent,
                title,
                confidence_pct,
            } => vec![
                ("agent", agent.clone()),
                ("title", title.clone()),
                ("confidence", confidence_pct.to_string()),
            ],
            Self::Escalation { title } => vec![("title", title.clone())],
            Self::Confirmation { tool, arguments } => {
                vec![("tool", tool.clone()), ("arguments", arguments.to_string())]
            }
            Self::OperationStart {
                chain,
                address,
                name,
                ticker,
            } => vec![
                ("chain", chain.clone()),
                ("address", address.clone()),
                ("name", name.clone()),
                ("ticker", ticker.clone().unwrap_or_default()),
            ],
            Self::OperationStop { operation, name } => {
                vec![("operation", operation.to_string()), ("name", name.clone())]
            }
            Self::ValidationOff {
                operation,
                name,
                asked_by,
            } => vec![
                ("operation", operation.to_string()),
                ("name", name.clone()),
                ("asked_by", asked_by.clone()),
            ],
            Self::Incident {
                incident,
                service,
                summary,
                actions,
            } => vec![
                ("incident", incident.to_string()),
                ("service", service.clone()),
                ("summary", summary.clone()),
                ("actions", actions.clone()),
            ],
            Self::Legacy { question, .. } => vec![("question", question.clone())],
        }
    }

    /// Whether this is the confirmation of exactly this call.
    pub fn confirms(&self, called: &str, called_with: &Value) -> bool {
        matches!(self, Self::Confirmation { tool, arguments }
            if tool == called && arguments == called_with)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_stored_json() {
        let kinds = [
            DecisionKind::Doubt {
                agent: "coder".into(),
                title: "Fix the build".into(),
                confidence_pct: 40,
            },
            DecisionKind::Escalation {
                title: "Do the thing".into(),
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
        ];
        for kind in kinds {
            let stored = serde_json::to_value(&kind).unwrap();
            assert_eq!(stored["kind"], kind.name());
            let back: DecisionKind = serde_json::from_value(stored).unwrap();
            assert_eq!(back, kind);
            assert!(kind.options().len() >= 2, "{} offers a choice", kind.name());
        }
    }

    #[test]
    fn a_confirmation_confirms_its_own_call_only() {
        let kind = DecisionKind::Confirmation {
            tool: "docker_restart".into(),
            arguments: json!({"container": "web"}),
        };
        assert!(kind.confirms("docker_restart", &json!({"container": "web"})));
        assert!(!kind.confirms("docker_stop", &json!({"container": "web"})));
        assert!(!kind.confirms("docker_restart", &json!({"container": "db"})));
    }
}
