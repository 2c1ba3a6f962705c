//! What the organisation's transversal agents read about its own work:
//! recent tasks with filters (`all_tasks`), each agent's figures over a
//! window (`agent_metrics`), and the prompt version each agent runs.

use chrono::{DateTime, Utc};

use super::time::{count, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{Task, TaskStatus};

/// Which tasks [`Store::recent_tasks`] returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Only this agent's.
    pub agent: Option<String>,
    /// Only tasks in this status.
    pub status: Option<TaskStatus>,
    /// Only tasks created at or after this instant.
    pub since: Option<DateTime<Utc>>,
    /// Only this objective's.
    pub objective_id: Option<i64>,
}

/// One agent's figures over a window, from the metrics rows of its
/// finished tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFigures {
    pub agent: String,
    pub runs: u64,
    pub succeeded: u64,
    pub failed: u64,
    /// Runs a CEO decision was asked about.
    pub escalated: u64,
    /// Mean confidence of the runs that gave one.
    pub mean_confidence: Option<f64>,
    pub tokens: u64,
    pub mean_duration_ms: f64,
    pub retries: u64,
    /// What its tasks cost, in micro-dollars.
    pub cost_micros: i64,
}

#[derive(sqlx::FromRow)]
struct FiguresRow {
    agent: String,
    runs: i64,
    succeeded: i64,
    escalated: i64,
    mean_confidence: Option<f64>,
    tokens: i64,
    mean_duration_ms: Option<f64>,
    retries: i64,
    cost_micros: i64,
}

const RECENT_TASKS: &str = "SELECT id FROM tasks \
     WHERE ($1 IS NULL OR agent = $1) AND ($2 IS NULL OR status = $2) \
     AND ($3 IS NULL OR created_at >= $3) AND ($4 IS NULL OR objective_id = $4) \
     ORDER BY created_at DESC, id DESC LIMIT $5";

/// Sums are cast so both backends return a 64-bit integer (PostgreSQL's
/// `SUM(bigint)` is a numeric) and means a double.
const FIGURES: &str = "SELECT m.agent AS agent, COUNT(*) AS runs, \
     CAST(COALESCE(SUM(CASE WHEN m.succeeded THEN 1 ELSE 0 END), 0) AS BIGINT) AS succeeded, \
     CAST(COALESCE(SUM(CASE WHEN m.escalated THEN 1 ELSE 0 END), 0) AS BIGINT) AS escalated, \
     CAST(AVG(m.confidence) AS DOUBLE PRECISION) AS mean_confidence, \
     CAST(COALESCE(SUM(m.tokens), 0) AS BIGINT) AS tokens, \
     CAST(AVG(m.duration_ms) AS DOUBLE PRECISION) AS mean_duration_ms, \
     CAST(COALESCE(SUM(m.retries), 0) AS BIGINT) AS retries, \
     CAST(COALESCE(SUM(t.cost_micros), 0) AS BIGINT) AS cost_micros \
     FROM task_metrics m LEFT JOIN tasks t ON t.id = m.task_id \
     WHERE m.finished_at >= $1 AND m.finished_at < $2 AND ($3 IS NULL OR m.agent = $3) \
     GROUP BY m.agent ORDER BY m.agent";

impl Store {
    /// The newest tasks matching `filter`, newest first, at most `limit`.
    pub async fn recent_tasks(
        &self,
        filter: &TaskFilter,
        limit: u32,
    ) -> Result<Vec<Task>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(RECENT_TASKS)
                .bind(filter.agent.as_deref())
                .bind(filter.status.map(|s| s.as_str()))
                .bind(filter.since.map(to_ms))
                .bind(filter.objective_id)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await
        })?;
        self.tasks_with_ids(ids).await
    }

    /// Each agent's figures (or only `agent`'s) over the tasks that
    /// finished in `[from, to)`, by agent name.
    pub async fn agent_figures(
        &self,
        agent: Option<&str>,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Vec<AgentFigures>, StoreError> {
        let rows: Vec<FiguresRow> = with_pool!(self, |pool| {
            sqlx::query_as(FIGURES)
                .bind(to_ms(from))
                .bind(to_ms(to))
                .bind(agent)
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter()
            .map(|row| {
                let runs: u64 = count("runs", row.runs)?;
                let succeeded: u64 = count("successes", row.succeeded)?;
                Ok(AgentFigures {
                    agent: row.agent,
                    runs,
                    succeeded,
                    failed: runs.saturating_sub(succeeded),
                    escalated: count("escalations", row.escalated)?,
                    mean_confidence: row.mean_confidence,
                    tokens: count("tokens", row.tokens)?,
                    mean_duration_ms: row.mean_duration_ms.unwrap_or_default(),
                    retries: count("retries", row.retries)?,
                    cost_micros: row.cost_micros,
                })
            })
            .collect()
    }

    /// The active prompt version of each agent that has one in
    /// `prompt_versions` (the others run the prompt of their file), by agent.
    pub async fn active_prompt_versions(&self) -> Result<Vec<(String, u32)>, StoreError> {
        let rows: Vec<(String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT agent, version FROM prompt_versions WHERE is_active = $1 ORDER BY agent",
            )
            .bind(true)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|(agent, version)| Ok((agent, count("prompt version", version)?)))
            .collect()
    }
}
