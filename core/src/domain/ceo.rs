//! What the organisation knows of its CEO (the profile the Profiler keeps)
//! and what it proposes to them. The confidence arithmetic is pure: a
//! confirmation moves an entry a fixed share of the way to certainty, a
//! correction halves it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ids::{ObjectiveId, ProfileEntryId, ProposalId, TaskId};
use super::kinds::{AgentName, ObjectiveSource, Priority, Team};
use super::status::Status;

text_enum! {
    /// What a profile entry describes (seed 003's `ceo_profile.profile_type`).
    pub enum ProfileKind as "profile kind" {
        /// A word of theirs and what it means ("la prod" → a host).
        Vocabulary => "vocabulary",
        /// How they like things (report length, language, hours).
        Preference => "preference",
        /// Something they ask again and again.
        Pattern => "pattern",
        /// When they check what.
        Habit => "habit",
        /// How they write.
        Style => "style",
        /// What matters to them now.
        Priority => "priority",
    }
}

/// What the Profiler saw about an entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Observation {
    /// The CEO's messages use it this way (again).
    #[default]
    Confirmed,
    /// The CEO corrected a reading that relied on it.
    Corrected,
}

/// The most a single, first observation is worth.
pub const FIRST_OBSERVATION_CAP: f64 = 0.5;
/// The share of the remaining doubt one confirmation removes.
const CONFIRMATION_STEP: f64 = 0.3;
/// A correction keeps this share of the confidence.
const CORRECTION_KEEPS: f64 = 0.5;

/// An entry's confidence after an observation. `current` is the entry as
/// stored (value and confidence), `value` and `proposed` what was observed.
/// A new entry, or a changed meaning, starts at most at
/// [`FIRST_OBSERVATION_CAP`]; the same meaning confirmed gains; a
/// correction halves it.
pub fn next_confidence(
    current: Option<(&Value, f64)>,
    value: &Value,
    observation: Observation,
    proposed: f64,
) -> f64 {
    let proposed = proposed.clamp(0.0, 1.0);
    let next = match (current, observation) {
        (Some((_, confidence)), Observation::Corrected) => confidence * CORRECTION_KEEPS,
        (None, Observation::Corrected) => 0.0,
        (Some((stored, confidence)), Observation::Confirmed) if stored == value => {
            confidence + (1.0 - confidence) * CONFIRMATION_STEP
        }
        (_, Observation::Confirmed) => proposed.min(FIRST_OBSERVATION_CAP),
    };
    next.clamp(0.0, 1.0)
}

/// One thing the organisation knows of its CEO.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileEntry {
    pub id: ProfileEntryId,
    pub kind: ProfileKind,
    pub key: String,
    pub value: Value,
    pub confidence: f64,
    pub learned_from: Option<ObjectiveId>,
    pub updated_at: DateTime<Utc>,
}

impl ProfileEntry {
    /// The value as one line: a JSON string without its quotes.
    pub fn value_text(&self) -> String {
        match &self.value {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

text_enum! {
    /// Where a proposal stands.
    pub enum ProposalStatus as "proposal status" {
        /// Waiting for the CEO's buttons.
        Pending => "pending",
        /// The CEO accepted it: an objective exists.
        Accepted => "accepted",
        /// The CEO declined it.
        Declined => "declined",
        /// The CEO will look again later (it comes back).
        Later => "later",
        /// A trusted proposer's: an objective was created without asking.
        Automatic => "automatic",
    }
}

impl Status for ProposalStatus {
    const ALL: &'static [Self] = ProposalStatus::ALL;

    fn can_become(self, next: Self) -> bool {
        use ProposalStatus::*;
        matches!((self, next), (Pending | Later, Accepted | Declined | Later))
    }
}

/// An objective the organisation suggests.
#[derive(Debug, Clone, PartialEq)]
pub struct NewProposal {
    pub proposer: AgentName,
    pub task_id: Option<TaskId>,
    pub title: String,
    pub description: String,
    pub team: Option<Team>,
    pub priority: Priority,
    pub rationale: String,
}

/// A proposal as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    pub id: ProposalId,
    pub proposer: AgentName,
    pub task_id: Option<TaskId>,
    pub title: String,
    pub description: String,
    pub team: Option<Team>,
    pub priority: Priority,
    pub rationale: String,
    pub status: ProposalStatus,
    pub objective_id: Option<ObjectiveId>,
    pub created_at: DateTime<Utc>,
}

/// The source of the objective a proposal becomes: the Anticipator's are
/// anticipations, every other proposer's (Strategist, Connector) the
/// improvement loop's.
fn source_of(proposer: &AgentName) -> ObjectiveSource {
    if proposer.as_str() == "anticipator" {
        ObjectiveSource::Anticipator
    } else {
        ObjectiveSource::Strategist
    }
}

impl NewProposal {
    /// The source of the objective it becomes.
    pub fn source(&self) -> ObjectiveSource {
        source_of(&self.proposer)
    }
}

impl Proposal {
    /// The source of the objective it becomes.
    pub fn source(&self) -> ObjectiveSource {
        source_of(&self.proposer)
    }
}

/// How often the CEO said yes to one proposer.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    pub proposer: String,
    pub accepted: u32,
    pub declined: u32,
}

impl Acceptance {
    /// Accepted over answered (postponed ones wait), `None` before any answer.
    pub fn rate(&self) -> Option<f64> {
        let answered = self.accepted + self.declined;
        (answered > 0).then(|| f64::from(self.accepted) / f64::from(answered))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn confirmations_raise_an_entry_and_a_correction_lowers_it() {
        let host = json!("prod-portainer");
        let first = next_confidence(None, &host, Observation::Confirmed, 0.9);
        assert!(
            (first - 0.5).abs() < 1e-9,
            "one observation is worth 0.5 at most"
        );
        let second = next_confidence(Some((&host, first)), &host, Observation::Confirmed, 0.9);
        assert!((second - 0.65).abs() < 1e-9);
        let corrected = next_confidence(Some((&host, second)), &host, Observation::Corrected, 0.9);
        assert!((corrected - 0.325).abs() < 1e-9);
        let changed = next_confidence(
            Some((&host, second)),
            &json!("prod-backup"),
            Observation::Confirmed,
            0.3,
        );
        assert!((changed - 0.3).abs() < 1e-9, "a new meaning starts over");
    }

    #[test]
    fn the_acceptance_rate_counts_answered_proposals_only() {
        let none = Acceptance {
            proposer: "strategist".into(),
            accepted: 0,
            declined: 0,
        };
        assert_eq!(none.rate(), None);
        let some = Acceptance {
            proposer: "strategist".into(),
            accepted: 3,
            declined: 1,
        };
        assert_eq!(some.rate(), Some(0.75));
    }
}
