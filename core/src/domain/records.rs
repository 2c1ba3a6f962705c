//! The records the store keeps, as the rest of Ulias sees them.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{
    AgentName, DecisionId, DecisionKind, DecisionOption, DecisionStatus, ObjectiveId,
    ObjectiveSource, ObjectiveStatus, OperationId, OperationStatus, Pipeline, Priority,
    PublicationId, PublicationStatus, PublicationTarget, TaskId, TaskStatus, Team, Urgency,
    ValidationId, ValidationKind, ValidationStatus,
};
use crate::money::Usd;

/// What the organisation is asked to achieve.
#[derive(Debug, Clone, PartialEq)]
pub struct Objective {
    pub id: ObjectiveId,
    pub title: String,
    pub description: String,
    pub priority: Priority,
    pub status: ObjectiveStatus,
    pub source: ObjectiveSource,
    pub team: Option<Team>,
    pub operation_id: Option<OperationId>,
    /// The objective this one follows up or redoes.
    pub parent: Option<ObjectiveId>,
    /// The agent that proposed it, for the organisation's own objectives.
    pub source_agent: Option<String>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub result: Option<Value>,
    pub error: Option<String>,
}

/// An objective to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewObjective {
    pub title: String,
    pub description: String,
    pub priority: Priority,
    pub source: ObjectiveSource,
    pub team: Option<Team>,
    pub operation_id: Option<OperationId>,
    /// The objective this one follows up or redoes.
    pub parent: Option<ObjectiveId>,
    /// The agent that proposed it.
    pub source_agent: Option<String>,
}

impl NewObjective {
    /// A CEO objective with default priority and no team yet.
    pub fn from_ceo(title: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            title: title.into(),
            description: description.into(),
            priority: Priority::DEFAULT,
            source: ObjectiveSource::Ceo,
            team: None,
            operation_id: None,
            parent: None,
            source_agent: None,
        }
    }

    /// The same, following up (or redoing) `parent`.
    pub fn following(mut self, parent: ObjectiveId) -> Self {
        self.parent = Some(parent);
        self
    }
}

/// A job of the outbox: one approved output (or direct publication) to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    pub id: PublicationId,
    pub validation_id: Option<ValidationId>,
    pub operation_id: Option<OperationId>,
    pub target: PublicationTarget,
    pub account: Option<String>,
    pub payload: Value,
    pub status: PublicationStatus,
    pub attempts: u32,
    pub external_id: Option<String>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A playbook operation (a token takeover): its steps are tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Operation {
    pub id: OperationId,
    pub name: String,
    pub token_symbol: Option<String>,
    pub chain: Option<String>,
    /// The token's contract: the operation's own, one live operation each.
    pub official_address: Option<String>,
    /// Every address the operation may show (contract, pair, treasury…):
    /// the group's anti-spam and the FAQ check allow these and no other.
    pub official_addresses: Vec<String>,
    pub site_subdomain: Option<String>,
    pub j0_at: Option<DateTime<Utc>>,
    pub status: OperationStatus,
    pub validation_required: bool,
    pub created_at: DateTime<Utc>,
}

/// An operation to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOperation {
    pub name: String,
    pub token_symbol: Option<String>,
    pub chain: Option<String>,
    pub official_address: Option<String>,
    /// Other official addresses (the contract is added to them).
    pub official_addresses: Vec<String>,
    pub j0_at: DateTime<Utc>,
}

/// A worker's claim on a running task, valid until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    pub owner: String,
    pub expires_at: DateTime<Utc>,
}

/// One unit of agent work.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub id: TaskId,
    pub objective_id: Option<ObjectiveId>,
    pub operation_id: Option<OperationId>,
    pub step_key: Option<String>,
    pub agent: AgentName,
    pub team: Team,
    /// The kind of work, for routing rules (`bug_fix`, `config_nginx`).
    pub kind: Option<String>,
    pub title: String,
    pub input: Value,
    pub status: TaskStatus,
    pub pipeline: Pipeline,
    pub priority: Priority,
    pub due_at: DateTime<Utc>,
    pub depends_on: Vec<TaskId>,
    /// Its public output waits for the team before the task completes.
    pub requires_validation: bool,
    /// A gate: a `no_go` verdict, or a rejection, stops its operation.
    pub gate: bool,
    pub attempts: u32,
    pub max_attempts: u32,
    pub lease: Option<Lease>,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub confidence: Option<f64>,
    pub model: Option<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
    pub iterations: u32,
    pub duration_ms: u64,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
}

/// A task to create. It starts `pending`; the engine queues it once it is
/// due and its dependencies are completed.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    pub objective_id: Option<ObjectiveId>,
    pub operation_id: Option<OperationId>,
    pub step_key: Option<String>,
    pub agent: AgentName,
    pub team: Team,
    /// The kind of work, for routing rules.
    pub kind: Option<String>,
    pub title: String,
    pub input: Value,
    pub pipeline: Pipeline,
    pub priority: Priority,
    pub due_at: DateTime<Utc>,
    pub depends_on: Vec<TaskId>,
    pub max_attempts: u32,
    /// Its public output waits for the team before the task completes.
    pub requires_validation: bool,
    /// A gate: a `no_go` verdict, or a rejection, stops its operation.
    pub gate: bool,
    /// The task whose pipeline made this one (a review, a judge's run).
    pub parent_task_id: Option<TaskId>,
}

impl NewTask {
    /// A direct task for `agent`, due at `due_at`, with default priority,
    /// no dependencies and three attempts.
    pub fn new(
        agent: AgentName,
        team: Team,
        title: impl Into<String>,
        due_at: DateTime<Utc>,
    ) -> Self {
        Self {
            objective_id: None,
            operation_id: None,
            step_key: None,
            agent,
            team,
            kind: None,
            title: title.into(),
            input: Value::Object(Default::default()),
            pipeline: Pipeline::Direct,
            priority: Priority::DEFAULT,
            due_at,
            depends_on: Vec::new(),
            max_attempts: 3,
            requires_validation: false,
            gate: false,
            parent_task_id: None,
        }
    }
}

/// What a finished run hands back to the store.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TaskOutcome {
    pub result: Value,
    pub confidence: Option<f64>,
    pub model: Option<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
    pub iterations: u32,
    pub duration_ms: u64,
}

/// A choice put to the CEO. `recommended`, `auto_decision` and `response`
/// index the kind's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub id: DecisionId,
    pub kind: DecisionKind,
    pub task_id: Option<TaskId>,
    pub objective_id: Option<ObjectiveId>,
    pub operation_id: Option<OperationId>,
    pub context_summary: String,
    pub recommended: Option<usize>,
    pub urgency: Urgency,
    pub status: DecisionStatus,
    pub timeout_at: Option<DateTime<Utc>>,
    pub auto_decision: Option<usize>,
    pub response: Option<usize>,
    pub responded_by: Option<String>,
    pub responded_at: Option<DateTime<Utc>>,
    /// When its answer was carried out (once).
    pub applied_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

impl Decision {
    /// The option at `index`, for a typed kind.
    pub fn option_at(&self, index: usize) -> Option<DecisionOption> {
        self.kind.options().get(index).copied()
    }

    /// The option chosen (by the CEO or at the timeout), once there is one.
    pub fn chosen(&self) -> Option<DecisionOption> {
        match self.status {
            DecisionStatus::Answered | DecisionStatus::TimedOut => {
                self.response.and_then(|i| self.option_at(i))
            }
            DecisionStatus::Pending | DecisionStatus::Cancelled => None,
        }
    }
}

/// A decision to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDecision {
    pub kind: DecisionKind,
    pub task_id: Option<TaskId>,
    pub objective_id: Option<ObjectiveId>,
    pub operation_id: Option<OperationId>,
    /// Facts for the CEO (an output's summary, a planner's reason): data,
    /// shown as it is under the question.
    pub context_summary: String,
    pub recommended: Option<DecisionOption>,
    pub urgency: Urgency,
    /// When the automatic choice applies; needs `auto_decision`.
    pub timeout_at: Option<DateTime<Utc>>,
    pub auto_decision: Option<DecisionOption>,
}

impl NewDecision {
    /// A decision of this kind, normal urgency, no timeout.
    pub fn new(kind: DecisionKind) -> Self {
        Self {
            kind,
            task_id: None,
            objective_id: None,
            operation_id: None,
            context_summary: String::new(),
            recommended: None,
            urgency: Urgency::Normal,
            timeout_at: None,
            auto_decision: None,
        }
    }
}

/// The CEO's answer to a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecisionAnswer {
    /// Index into the decision's options.
    pub option: usize,
    /// Who answered (a Telegram user id, or `ntfy`).
    pub by: String,
}

/// A public output waiting for the team.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub id: ValidationId,
    pub task_id: Option<TaskId>,
    pub operation_id: Option<OperationId>,
    pub kind: ValidationKind,
    pub target: PublicationTarget,
    pub payload: Value,
    pub status: ValidationStatus,
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
    pub rejection_reason: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// A validation to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewValidation {
    pub task_id: Option<TaskId>,
    pub operation_id: Option<OperationId>,
    pub kind: ValidationKind,
    /// Where it will be published once approved.
    pub target: PublicationTarget,
    pub payload: Value,
}

/// How long a failed run waits before its next attempt: 2, 4, 8, 16, then
/// 32 minutes.
pub fn retry_backoff(attempts: u32) -> chrono::TimeDelta {
    chrono::TimeDelta::minutes(2_i64.pow(attempts.clamp(1, 5)))
}
