//! What the runner records: log rows, model exchanges, lessons, operation files.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::{MessageRole, ObjectiveId, OperationId, TaskId};
use crate::money::Usd;

text_enum! {
    /// What a log row records.
    pub enum LogKind as "log kind" {
        /// One call to a model.
        ModelCall => "model_call",
        /// One tool call an agent made.
        ToolCall => "tool_call",
        /// A tool call refused (not allowed for this agent).
        ToolRefused => "tool_refused",
        /// Something published.
        Publication => "publication",
        /// A moderation action in a group.
        Moderation => "moderation",
        /// An alert sent to people.
        Alert => "alert",
        /// Anything else the process wants on the record.
        System => "system",
    }
}

text_enum! {
    /// The kind of a lesson the Learner keeps.
    pub enum LessonCategory as "lesson category" {
        /// A bug met.
        Bug => "bug",
        /// A pattern that works.
        Pattern => "pattern",
        /// A convention of the codebase or the team.
        Convention => "convention",
        /// A trap to avoid.
        Pitfall => "pitfall",
        /// A way to do it cheaper or faster.
        Optimization => "optimization",
    }
}

/// Who a log row is about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogScope {
    pub operation_id: Option<OperationId>,
    pub objective_id: Option<ObjectiveId>,
    pub task_id: Option<TaskId>,
    pub agent: Option<String>,
}

/// A log row to append.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLogEntry {
    pub scope: LogScope,
    pub kind: LogKind,
    /// One line, written by the runner.
    pub summary: String,
    pub model: Option<String>,
    pub pool: Option<String>,
    /// Whether the pool is the paid cloud one (counts toward the monthly cap).
    pub cloud: bool,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub usage_estimated: bool,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
    /// Shown in the public log channel.
    pub public: bool,
}

impl NewLogEntry {
    /// A row with no model usage.
    pub fn event(scope: LogScope, kind: LogKind, summary: impl Into<String>) -> Self {
        Self {
            scope,
            kind,
            summary: summary.into(),
            model: None,
            pool: None,
            cloud: false,
            tokens_in: 0,
            tokens_out: 0,
            usage_estimated: false,
            cost: Usd::ZERO,
            cloud_equivalent_cost: Usd::ZERO,
            public: false,
        }
    }
}

/// A stored log row.
#[derive(Debug, Clone, PartialEq)]
pub struct LogEntry {
    pub id: i64,
    pub entry: NewLogEntry,
    pub created_at: DateTime<Utc>,
}

/// One message of a model exchange, as stored for replay.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    pub task_id: TaskId,
    pub turn: u32,
    pub role: MessageRole,
    pub content: Option<String>,
    /// The tool calls an assistant message carried, as JSON.
    pub tool_calls: Option<Value>,
    pub tool_call_id: Option<String>,
    pub model: Option<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub usage_estimated: bool,
}

/// A lesson to keep.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLesson {
    pub objective_id: Option<ObjectiveId>,
    pub task_id: Option<TaskId>,
    pub agent: Option<String>,
    pub team: Option<String>,
    pub category: LessonCategory,
    pub lesson: String,
    pub services: Vec<String>,
    pub embedding: Option<Vec<f32>>,
    pub importance: f64,
}

/// A stored lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct Lesson {
    pub id: i64,
    pub lesson: NewLesson,
    pub created_at: DateTime<Utc>,
}

/// One version of one section of an operation's file.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationFile {
    pub operation_id: Option<OperationId>,
    pub section: String,
    pub version: u32,
    pub content: Value,
    pub author_agent: String,
    pub task_id: Option<TaskId>,
    pub created_at: DateTime<Utc>,
}

/// A routing rule: send an agent's tasks of some kind to another pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutingRule {
    pub agent: String,
    /// A task kind, or `*` for all of the agent's tasks.
    pub task_pattern: String,
    pub pool: String,
}
