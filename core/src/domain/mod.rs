//! The organisation's records and the words it uses for them.
//!
//! Every status is an enum stored as text (the migrations hold the matching
//! `CHECK` constraints, and a store test checks they agree); every id is a
//! newtype, so a task id is never passed where a decision id is expected.

mod ceo;
mod decision;
mod ids;
mod kinds;
mod ledger;
mod records;
mod status;
mod vote;

pub use crate::text_enum::UnknownVariant;
pub use ceo::{
    Acceptance, FIRST_OBSERVATION_CAP, NewProposal, Observation, ProfileEntry, ProfileKind,
    Proposal, ProposalStatus, next_confidence,
};
pub use decision::{DecisionKind, DecisionOption};
pub use ids::{
    DecisionId, ObjectiveId, OperationId, ProfileEntryId, ProposalId, PublicationId, TaskId,
    ValidationId,
};
pub use kinds::{
    AgentName, InvalidAgentName, MessageRole, ObjectiveSource, Pipeline, Priority,
    PublicationTarget, Team, Urgency, ValidationKind,
};
pub use ledger::{
    Lesson, LessonCategory, LogEntry, LogKind, LogScope, NewLesson, NewLogEntry, OperationFile,
    RoutingRule, StoredMessage,
};
pub use records::{
    Decision, DecisionAnswer, Lease, NewDecision, NewObjective, NewOperation, NewTask,
    NewValidation, Objective, Operation, Publication, Task, TaskOutcome, Validation, retry_backoff,
};
pub use status::{
    DecisionStatus, ObjectiveStatus, OperationStatus, PublicationStatus, Status, TaskStatus,
    ValidationStatus,
};
pub use vote::{DecidedBy, PollCount, PollPlatform, Tally, VoteResult, tally};
