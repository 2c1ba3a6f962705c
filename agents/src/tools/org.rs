//! The transversal team's reads of the organisation's own work: recent
//! tasks (`all_tasks`), each agent's figures (`agent_metrics`) and related
//! work across teams (`cross_reference`). All read the store only; what
//! models wrote (titles, results) comes back wrapped as untrusted.

use std::collections::BTreeSet;

use async_trait::async_trait;
use chrono::TimeDelta;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ulias_core::domain::{Task, TaskStatus, UnknownVariant};
use ulias_core::store::TaskFilter;

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The longest summary of a task's result, in characters.
const SUMMARY_CHARS: usize = 300;

/// Recent tasks and what came of them.
pub struct AllTasks;

/// Arguments of `all_tasks`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TasksArgs {
    /// Only this agent's tasks.
    #[serde(default)]
    pub agent: Option<String>,
    /// Only tasks in this status: pending, queued, running, blocked,
    /// completed, failed or cancelled.
    #[serde(default)]
    pub status: Option<String>,
    /// Only tasks created in the last this many hours, 1–720.
    #[serde(default)]
    pub since_hours: Option<u32>,
    /// Only this objective's tasks.
    #[serde(default)]
    pub objective_id: Option<i64>,
    /// How many tasks, newest first, 1–100 (default 20).
    #[serde(default = "default_tasks")]
    pub limit: u32,
}

fn default_tasks() -> u32 {
    20
}

/// The tasks, newest first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Tasks {
    pub tasks: Vec<TaskSeen>,
}

/// One task.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TaskSeen {
    pub id: i64,
    pub objective_id: Option<i64>,
    pub agent: String,
    pub team: String,
    /// Untrusted: written by a model or the CEO.
    pub title: String,
    pub status: String,
    pub pipeline: String,
    pub attempts: u32,
    /// RFC 3339.
    pub created_at: String,
    pub completed_at: Option<String>,
    pub duration_ms: u64,
    pub cost_usd: f64,
    pub confidence: Option<f64>,
    pub model: Option<String>,
    /// The start of its result (or its error), untrusted, at most 300 characters.
    pub summary: Option<String>,
}

#[async_trait]
impl TypedTool for AllTasks {
    const NAME: &'static str = "all_tasks";
    const DESCRIPTION: &'static str = "List recent tasks: agent, status, timings, cost, confidence and a short summary of the result.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["learner", "connector"]);
    type Args = TasksArgs;
    type Output = Tasks;

    async fn call(&self, ctx: &ToolContext, args: TasksArgs) -> Result<Tasks, ToolError> {
        let status = args
            .status
            .as_deref()
            .map(str::parse::<TaskStatus>)
            .transpose()
            .map_err(|e: UnknownVariant| invalid(Self::NAME, e))?;
        let filter = TaskFilter {
            agent: args.agent,
            status,
            since: args
                .since_hours
                .map(|h| ctx.clock.now() - TimeDelta::hours(i64::from(h.clamp(1, 720)))),
            objective_id: args.objective_id,
        };
        let tasks = ctx
            .store
            .recent_tasks(&filter, args.limit.clamp(1, 100))
            .await?
            .iter()
            .map(task_seen)
            .collect();
        Ok(Tasks { tasks })
    }
}

fn task_seen(task: &Task) -> TaskSeen {
    let id = task.id.get();
    TaskSeen {
        id,
        objective_id: task.objective_id.map(|o| o.get()),
        agent: task.agent.to_string(),
        team: task.team.to_string(),
        title: wrap_untrusted(&format!("task:{id}:title"), &task.title),
        status: task.status.to_string(),
        pipeline: task.pipeline.to_string(),
        attempts: task.attempts,
        created_at: task.created_at.to_rfc3339(),
        completed_at: task.completed_at.map(|at| at.to_rfc3339()),
        duration_ms: task.duration_ms,
        cost_usd: task.cost.dollars(),
        confidence: task.confidence,
        model: task.model.clone(),
        summary: summary(task).map(|text| wrap_untrusted(&format!("task:{id}:result"), &text)),
    }
}

/// The result's `summary` field when it has one, else the result as JSON,
/// else the error; cut to [`SUMMARY_CHARS`].
fn summary(task: &Task) -> Option<String> {
    let text = match (&task.result, &task.error) {
        (Some(result), _) => match result.get("summary").and_then(Value::as_str) {
            Some(summary) => summary.to_owned(),
            None => result.to_string(),
        },
        (None, Some(error)) => format!("error: {error}"),
        (None, None) => return None,
    };
    Some(cut(&text, SUMMARY_CHARS))
}

/// `text` cut to `max` characters, with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

fn invalid(tool: &'static str, error: impl ToString) -> ToolError {
    ToolError::InvalidArgs {
        tool,
        message: error.to_string(),
    }
}

/// Each agent's figures over a window.
pub struct AgentMetrics;

/// Arguments of `agent_metrics`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentMetricsArgs {
    /// One agent; every agent with finished tasks when left out.
    #[serde(default)]
    pub agent: Option<String>,
    /// The window, in days, 1–90 (default 7).
    #[serde(default = "default_week")]
    pub days: u32,
}

fn default_week() -> u32 {
    7
}

/// The figures, by agent.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentMetricsReport {
    pub days: u32,
    pub agents: Vec<AgentFiguresSeen>,
}

/// One agent's figures over the window's finished tasks.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentFiguresSeen {
    pub agent: String,
    pub runs: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// succeeded / runs.
    pub success_rate: f64,
    /// Runs the CEO was asked about.
    pub escalated: u64,
    pub mean_confidence: Option<f64>,
    pub tokens: u64,
    pub mean_duration_ms: f64,
    pub retries: u64,
    pub cost_usd: f64,
    /// The active version in `prompt_versions`; null: the prompt of its file.
    pub prompt_version: Option<u32>,
}

#[async_trait]
impl TypedTool for AgentMetrics {
    const NAME: &'static str = "agent_metrics";
    const DESCRIPTION: &'static str = "Read each agent's figures over a window: runs, success rate, confidence, tokens, latency, cost and its prompt version.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["optimizer"]);
    type Args = AgentMetricsArgs;
    type Output = AgentMetricsReport;

    async fn call(
        &self,
        ctx: &ToolContext,
        args: AgentMetricsArgs,
    ) -> Result<AgentMetricsReport, ToolError> {
        let days = args.days.clamp(1, 90);
        let now = ctx.clock.now();
        let from = now - TimeDelta::days(i64::from(days));
        let versions = ctx.store.active_prompt_versions().await?;
        let agents = ctx
            .store
            .agent_figures(args.agent.as_deref(), from, now)
            .await?
            .into_iter()
            .map(|f| {
                #[allow(clippy::cast_precision_loss)] // counts far below 2^52
                let success_rate = if f.runs == 0 {
                    0.0
                } else {
                    f.succeeded as f64 / f.runs as f64
                };
                let prompt_version = versions
                    .iter()
                    .find(|(agent, _)| *agent == f.agent)
                    .map(|(_, version)| *version);
                AgentFiguresSeen {
                    success_rate,
                    prompt_version,
                    cost_usd: ulias_core::money::Usd::from_micros(f.cost_micros).dollars(),
                    agent: f.agent,
                    runs: f.runs,
                    succeeded: f.succeeded,
                    failed: f.failed,
                    escalated: f.escalated,
                    mean_confidence: f.mean_confidence,
                    tokens: f.tokens,
                    mean_duration_ms: f.mean_duration_ms,
                    retries: f.retries,
                }
            })
            .collect();
        Ok(AgentMetricsReport { days, agents })
    }
}

/// Work across teams that shares words with a text.
pub struct CrossReference;

/// Arguments of `cross_reference`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrossArgs {
    /// What to link: a service, host, file, endpoint or a task's summary.
    pub text: String,
    /// Look this many days back, 1–90 (default 14).
    #[serde(default = "default_fortnight")]
    pub days: u32,
    /// How many matches, best first, 1–20 (default 10).
    #[serde(default = "default_matches")]
    pub limit: usize,
}

fn default_fortnight() -> u32 {
    14
}

fn default_matches() -> usize {
    10
}

/// The related work, best first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Related {
    /// The words of the text that were looked for.
    pub keywords: Vec<String>,
    pub matches: Vec<RelatedWork>,
}

/// One related task, objective or lesson.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RelatedWork {
    /// task, objective or lesson.
    pub kind: String,
    pub id: i64,
    /// The agent (tasks, lessons) or the source (objectives).
    pub by: Option<String>,
    pub team: Option<String>,
    pub status: Option<String>,
    /// Untrusted, at most 300 characters.
    pub text: String,
    /// The keywords it shares with the text.
    pub shared: Vec<String>,
}

/// How many tasks and objectives `cross_reference` looks through.
const SCAN: u32 = 500;

#[async_trait]
impl TypedTool for CrossReference {
    const NAME: &'static str = "cross_reference";
    const DESCRIPTION: &'static str = "Find recent tasks, objectives and lessons of any team that share keywords (service, host, file, endpoint) with a text.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["connector"]);
    type Args = CrossArgs;
    type Output = Related;

    async fn call(&self, ctx: &ToolContext, args: CrossArgs) -> Result<Related, ToolError> {
        let wanted = keywords(&args.text);
        if wanted.is_empty() {
            return Err(invalid(
                Self::NAME,
                "the text has no keyword of 3 characters or more",
            ));
        }
        let since = ctx.clock.now() - TimeDelta::days(i64::from(args.days.clamp(1, 90)));
        let mut found: Vec<RelatedWork> = Vec::new();
        let filter = TaskFilter {
            since: Some(since),
            ..TaskFilter::default()
        };
        for task in ctx.store.recent_tasks(&filter, SCAN).await? {
            if task.id == ctx.task.id {
                continue;
            }
            let text = format!("{} {}", task.title, summary(&task).unwrap_or_default());
            push_match(&mut found, &wanted, &text, || RelatedWork {
                kind: "task".into(),
                id: task.id.get(),
                by: Some(task.agent.to_string()),
                team: Some(task.team.to_string()),
                status: Some(task.status.to_string()),
                text: String::new(),
                shared: Vec::new(),
            });
        }
        for objective in ctx.store.objectives_since(since, SCAN).await? {
            let text = format!("{} {}", objective.title, objective.description);
            push_match(&mut found, &wanted, &text, || RelatedWork {
                kind: "objective".into(),
                id: objective.id.get(),
                by: Some(objective.source.to_string()),
                team: objective.team.map(|t| t.to_string()),
                status: Some(objective.status.to_string()),
                text: String::new(),
                shared: Vec::new(),
            });
        }
        for stored in ctx.store.lessons().await? {
            let lesson = &stored.lesson;
            let text = format!("{} {}", lesson.lesson, lesson.services.join(" "));
            push_match(&mut found, &wanted, &text, || RelatedWork {
                kind: "lesson".into(),
                id: stored.id,
                by: lesson.agent.clone(),
                team: lesson.team.clone(),
                status: None,
                text: String::new(),
                shared: Vec::new(),
            });
        }
        // Most shared keywords first; the newest (largest id) among equals.
        found.sort_by(|a, b| b.shared.len().cmp(&a.shared.len()).then(b.id.cmp(&a.id)));
        found.truncate(args.limit.clamp(1, 20));
        Ok(Related {
            keywords: wanted.into_iter().collect(),
            matches: found,
        })
    }
}

/// Adds the work `make` describes when `text` shares keywords with `wanted`.
fn push_match(
    found: &mut Vec<RelatedWork>,
    wanted: &BTreeSet<String>,
    text: &str,
    make: impl FnOnce() -> RelatedWork,
) {
    let shared: Vec<String> = keywords(text).intersection(wanted).cloned().collect();
    if shared.is_empty() {
        return;
    }
    let mut work = make();
    work.text = wrap_untrusted(
        &format!("{}:{}", work.kind, work.id),
        &cut(text, SUMMARY_CHARS),
    );
    work.shared = shared;
    found.push(work);
}

/// Common words that link nothing.
const STOP_WORDS: &[&str] = &[
    "the", "and", "for", "with", "from", "that", "this", "are", "was", "not", "les", "des", "une",
    "pour", "dans", "sur", "avec", "est", "pas", "par", "qui", "que", "aux", "task", "check",
];

/// The lower-cased words of `text` of 3 characters or more, names such as
/// `connectors-api`, `nginx.conf` or `192.168.1.104` kept whole.
pub(crate) fn keywords(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/')))
        .map(|w| w.trim_matches(|c: char| matches!(c, '-' | '_' | '.' | '/')))
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{cut, keywords};

    #[test]
    fn keywords_keep_service_names_and_hosts_whole_and_drop_short_and_common_words() {
        let words = keywords("Deploy connectors-api on 192.168.1.104 (nginx.conf), and the DB.");
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        assert_eq!(
            words,
            ["192.168.1.104", "connectors-api", "deploy", "nginx.conf"]
        );
    }

    #[test]
    fn a_long_text_is_cut_on_a_character_boundary() {
        assert_eq!(cut("déjà vu", 4), "déjà…");
        assert_eq!(cut("court", 10), "court");
    }
}
