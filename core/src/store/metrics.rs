//! One metrics row per finished task, and seed 003's success figures
//! computed from the store over a window of time.

use chrono::{DateTime, Utc};

use super::time::{count, stored, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{DecisionStatus, ObjectiveSource, ProposalStatus, Task, TaskStatus};
use crate::playbook::SYSTEM_AGENT;

/// What the store counts in a window (the rates are computed from these).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counts {
    /// Agent tasks that finished (completed or failed for good).
    pub tasks_finished: u64,
    /// Of those, completed with no CEO decision answered about them.
    pub tasks_autonomous: u64,
    /// Of those, failed for good.
    pub tasks_failed: u64,
    /// Checks that found something wrong before anyone noticed.
    pub alarms: u64,
    /// Objectives the organisation gave itself.
    pub objectives_generated: u64,
    /// Decisions the CEO answered (not timed out).
    pub decisions_answered: u64,
    /// CEO messages read by the Interpreter.
    pub interpreted: u64,
    /// Of those, readings the CEO corrected.
    pub corrected: u64,
    /// The Anticipator's proposals that became objectives.
    pub anticipated: u64,
}

impl Store {
    /// Finished tasks (completed or failed) that have no metrics row yet,
    /// oldest first, at most `limit`.
    pub async fn unmeasured_tasks(&self, limit: u32) -> Result<Vec<Task>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT t.id FROM tasks t WHERE t.status IN ($1, $2) \
                 AND NOT EXISTS (SELECT 1 FROM task_metrics m WHERE m.task_id = t.id) \
                 ORDER BY t.id LIMIT $3",
            )
            .bind(TaskStatus::Completed.as_str())
            .bind(TaskStatus::Failed.as_str())
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await
        })?;
        self.tasks_with_ids(ids).await
    }

    /// Writes the metrics row of a finished task, once (a second call for
    /// the same task changes nothing). Whether the CEO intervened or was
    /// asked comes from the task's decisions; `alarm` says the task was a
    /// check that found something wrong.
    pub async fn record_task_metrics(
        &self,
        task: &Task,
        alarm: bool,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let finished = task.completed_at.unwrap_or(now);
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO task_metrics (task_id, objective_id, agent, team, model, succeeded, \
                 intervened, escalated, alarm, confidence, tokens, duration_ms, retries, finished_at) \
                 SELECT $1, $2, $3, $4, $5, $6, \
                 EXISTS (SELECT 1 FROM decisions d WHERE d.task_id = $1 AND d.status = $7), \
                 EXISTS (SELECT 1 FROM decisions d WHERE d.task_id = $1), \
                 $8, $9, $10, $11, $12, $13 \
                 ON CONFLICT (task_id) DO NOTHING",
            )
            .bind(task.id.get())
            .bind(task.objective_id.map(|o| o.get()))
            .bind(task.agent.as_str())
            .bind(task.team.as_str())
            .bind(task.model.as_deref())
            .bind(task.status == TaskStatus::Completed)
            .bind(DecisionStatus::Answered.as_str())
            .bind(alarm)
            .bind(task.confidence)
            .bind(stored(task.tokens_in.saturating_add(task.tokens_out)))
            .bind(stored(task.duration_ms))
            .bind(stored(task.attempts.saturating_sub(1)))
            .bind(to_ms(finished))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// What happened in `[from, to)`.
    pub async fn counts(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<Counts, StoreError> {
        let (from, to) = (to_ms(from), to_ms(to));
        let tasks =
            "FROM task_metrics WHERE finished_at >= $1 AND finished_at < $2 AND agent <> $3";
        let generated = [
            ObjectiveSource::Strategist,
            ObjectiveSource::Anticipator,
            ObjectiveSource::Incident,
            ObjectiveSource::Scheduler,
        ]
        .map(|s| format!("'{}'", s.as_str()))
        .join(",");
        let accepted = [ProposalStatus::Accepted, ProposalStatus::Automatic]
            .map(|s| format!("'{}'", s.as_str()))
            .join(",");
        let mut counts = Counts::default();
        let queries = [
            (
                &mut counts.tasks_finished,
                format!("SELECT COUNT(*) {tasks}"),
            ),
            (
                &mut counts.tasks_autonomous,
                format!("SELECT COUNT(*) {tasks} AND succeeded = TRUE AND intervened = FALSE"),
            ),
            (
                &mut counts.tasks_failed,
                format!("SELECT COUNT(*) {tasks} AND succeeded = FALSE"),
            ),
            (
                &mut counts.alarms,
                format!("SELECT COUNT(*) {tasks} AND alarm = TRUE"),
            ),
            (
                &mut counts.objectives_generated,
                format!(
                    "SELECT COUNT(*) FROM objectives WHERE created_at >= $1 AND created_at < $2 \
                     AND source IN ({generated})"
                ),
            ),
            (
                &mut counts.decisions_answered,
                format!(
                    "SELECT COUNT(*) FROM decisions WHERE responded_at >= $1 \
                     AND responded_at < $2 AND status = '{}'",
                    DecisionStatus::Answered.as_str()
                ),
            ),
            (
                &mut counts.interpreted,
                "SELECT COUNT(*) FROM ceo_interactions WHERE created_at >= $1 \
                 AND created_at < $2 AND interpreted_as IS NOT NULL"
                    .to_owned(),
            ),
            (
                &mut counts.corrected,
                "SELECT COUNT(*) FROM ceo_interactions WHERE created_at >= $1 \
                 AND created_at < $2 AND interpreted_as IS NOT NULL AND corrected = TRUE"
                    .to_owned(),
            ),
            (
                &mut counts.anticipated,
                format!(
                    "SELECT COUNT(*) FROM proposals WHERE decided_at >= $1 AND decided_at < $2 \
                     AND proposer = 'anticipator' AND status IN ({accepted})"
                ),
            ),
        ];
        for (slot, sql) in queries {
            // Only the task queries name a third parameter (the agent left out).
            let agent = sql.contains("$3").then_some(SYSTEM_AGENT);
            let n: i64 = with_pool!(self, |pool| {
                let query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()))
                    .bind(from)
                    .bind(to);
                match agent {
                    Some(agent) => query.bind(agent).fetch_one(pool).await,
                    None => query.fetch_one(pool).await,
                }
            })?;
            *slot = count("count", n)?;
        }
        Ok(counts)
    }
}
