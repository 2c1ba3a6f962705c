//! The CEO-intelligence team's reads: the CEO's recent messages
//! (`user_history`), their profile (`user_patterns`), the organisation's
//! objectives (`all_objectives`) and its figures (`all_metrics`). All read
//! the store only.

use async_trait::async_trait;
use chrono::TimeDelta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// The CEO's recent messages.
pub struct UserHistory;

/// Arguments of `user_history`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryArgs {
    /// How many messages, newest first, 1–100 (default 20).
    #[serde(default = "default_history")]
    pub limit: u32,
}

fn default_history() -> u32 {
    20
}

/// The messages, newest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct History {
    pub messages: Vec<PastMessage>,
}

/// One message and what became of it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PastMessage {
    pub message: String,
    /// The Interpreter's reading (title, description…), if any.
    pub understood_as: Option<Value>,
    /// The CEO corrected that reading.
    pub corrected: bool,
    /// The CEO's words when correcting, or the guess they chose.
    pub feedback: Option<String>,
    pub objective: Option<i64>,
    /// RFC 3339.
    pub at: String,
}

#[async_trait]
impl TypedTool for UserHistory {
    const NAME: &'static str = "user_history";
    const DESCRIPTION: &'static str =
        "Read the CEO's recent messages, how each was understood and whether they corrected it.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["interpreter", "profiler", "anticipator"]);
    type Args = HistoryArgs;
    type Output = History;

    async fn call(&self, ctx: &ToolContext, args: HistoryArgs) -> Result<History, ToolError> {
        let limit = i64::from(args.limit.clamp(1, 100));
        let messages = ctx
            .store
            .recent_interactions(limit)
            .await?
            .into_iter()
            .map(|i| PastMessage {
                message: i.raw_message,
                understood_as: i.interpreted_as,
                corrected: i.corrected,
                feedback: i.feedback,
                objective: i.objective_id.map(|o| o.get()),
                at: i.created_at.to_rfc3339(),
            })
            .collect();
        Ok(History { messages })
    }
}

/// The CEO's profile.
pub struct UserPatterns;

/// Arguments of `user_patterns`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PatternArgs {
    /// Only entries held with at least this confidence, 0–1 (default 0).
    #[serde(default)]
    pub min_confidence: f64,
}

/// The profile entries, by kind then key.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Patterns {
    pub entries: Vec<Pattern>,
}

/// One entry.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Pattern {
    /// vocabulary, preference, pattern, habit, style or priority.
    pub profile_type: String,
    pub key: String,
    pub value: Value,
    pub confidence: f64,
}

#[async_trait]
impl TypedTool for UserPatterns {
    const NAME: &'static str = "user_patterns";
    const DESCRIPTION: &'static str =
        "Read the CEO's profile: vocabulary, preferences, habits, with their confidence.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed =
        AgentsAllowed::Only(&["interpreter", "profiler", "anticipator", "simplifier"]);
    type Args = PatternArgs;
    type Output = Patterns;

    async fn call(&self, ctx: &ToolContext, args: PatternArgs) -> Result<Patterns, ToolError> {
        let entries = ctx
            .store
            .profile_entries()
            .await?
            .into_iter()
            .filter(|e| e.confidence >= args.min_confidence)
            .map(|e| Pattern {
                profile_type: e.kind.to_string(),
                key: e.key,
                value: e.value,
                confidence: e.confidence,
            })
            .collect();
        Ok(Patterns { entries })
    }
}

/// The organisation's recent objectives.
pub struct AllObjectives;

/// Arguments of `all_objectives`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectivesArgs {
    /// Objectives created in the last this many days, 1–90 (default 30).
    #[serde(default = "default_days")]
    pub days: u32,
}

fn default_days() -> u32 {
    30
}

/// The objectives, newest first (at most 200).
#[derive(Debug, Serialize, JsonSchema)]
pub struct Objectives {
    pub objectives: Vec<ObjectiveSeen>,
}

/// One objective.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ObjectiveSeen {
    pub id: i64,
    pub title: String,
    /// ceo, strategist, scheduler, incident, anticipator or playbook.
    pub source: String,
    pub status: String,
    /// RFC 3339, with the weekday.
    pub created_at: String,
    pub weekday: String,
}

#[async_trait]
impl TypedTool for AllObjectives {
    const NAME: &'static str = "all_objectives";
    const DESCRIPTION: &'static str =
        "List the objectives of the last days: who asked, when, how they ended.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["anticipator", "strategist", "director"]);
    type Args = ObjectivesArgs;
    type Output = Objectives;

    async fn call(&self, ctx: &ToolContext, args: ObjectivesArgs) -> Result<Objectives, ToolError> {
        let since = ctx.clock.now() - TimeDelta::days(i64::from(args.days.clamp(1, 90)));
        let objectives = ctx
            .store
            .objectives_since(since, 200)
            .await?
            .into_iter()
            .map(|o| ObjectiveSeen {
                id: o.id.get(),
                title: o.title,
                source: o.source.to_string(),
                status: o.status.to_string(),
                created_at: o.created_at.to_rfc3339(),
                weekday: o.created_at.format("%A").to_string(),
            })
            .collect();
        Ok(Objectives { objectives })
    }
}

/// The organisation's figures.
pub struct AllMetrics;

/// Arguments of `all_metrics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetricsArgs {
    /// The window, in days, 1–90 (default 7).
    #[serde(default = "default_week")]
    pub days: u32,
}

fn default_week() -> u32 {
    7
}

/// What happened in the window, and each proposer's record.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Metrics {
    pub days: u32,
    pub tasks_finished: u64,
    /// Completed with no CEO decision about them.
    pub tasks_autonomous: u64,
    pub tasks_failed: u64,
    /// Checks that found something wrong.
    pub alarms: u64,
    pub objectives_generated: u64,
    pub ceo_decisions_answered: u64,
    pub ceo_messages_read: u64,
    pub ceo_corrections: u64,
    /// Per proposer: accepted and declined proposals, ever.
    pub proposals: Vec<ProposerRecord>,
}

/// One proposer's record.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProposerRecord {
    pub proposer: String,
    pub accepted: u32,
    pub declined: u32,
}

#[async_trait]
impl TypedTool for AllMetrics {
    const NAME: &'static str = "all_metrics";
    const DESCRIPTION: &'static str = "Read the organisation's figures over a window: tasks, failures, alarms, CEO interventions.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["strategist", "optimizer"]);
    type Args = MetricsArgs;
    type Output = Metrics;

    async fn call(&self, ctx: &ToolContext, args: MetricsArgs) -> Result<Metrics, ToolError> {
        let days = args.days.clamp(1, 90);
        let now = ctx.clock.now();
        let counts = ctx
            .store
            .counts(now - TimeDelta::days(i64::from(days)), now)
            .await?;
        let proposals = ctx
            .store
            .acceptances()
            .await?
            .into_iter()
            .map(|a| ProposerRecord {
                proposer: a.proposer,
                accepted: a.accepted,
                declined: a.declined,
            })
            .collect();
        Ok(Metrics {
            days,
            tasks_finished: counts.tasks_finished,
            tasks_autonomous: counts.tasks_autonomous,
            tasks_failed: counts.tasks_failed,
            alarms: counts.alarms,
            objectives_generated: counts.objectives_generated,
            ceo_decisions_answered: counts.decisions_answered,
            ceo_messages_read: counts.interpreted,
            ceo_corrections: counts.corrected,
            proposals,
        })
    }
}
