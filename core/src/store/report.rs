//! The figures of the daily summary: what the organisation did in a window
//! of time, and the last days' costs and completed objectives.

use chrono::{DateTime, TimeDelta, Utc};

use super::time::{count, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{DecisionStatus, ObjectiveSource, ObjectiveStatus, TaskStatus, Team};
use crate::money::Usd;
use crate::store::decisions::TIMEOUT_RESPONDER;

const COMPLETED_BETWEEN: &str = "SELECT COUNT(*) FROM objectives WHERE status = $1 \
     AND completed_at >= $2 AND completed_at < $3";

/// What happened between two instants.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DayFigures {
    pub objectives_completed: u64,
    /// Of those, the ones the organisation gave itself (not the CEO).
    pub objectives_completed_auto: u64,
    /// Of those, the ones no person had to decide anything about.
    pub objectives_completed_alone: u64,
    pub objectives_failed: u64,
    /// Now: planning or in progress.
    pub objectives_in_progress: u64,
    /// Now: waiting for a CEO decision.
    pub objectives_waiting: u64,
    /// Tasks finished in the window, by team: (team, completed, failed).
    pub teams: Vec<(Team, u64, u64)>,
    pub average_confidence: Option<f64>,
    /// Decisions a person answered in the window.
    pub ceo_interventions: u64,
    pub tokens: u64,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
}

/// One day of the recent history.
#[derive(Debug, Clone, PartialEq)]
pub struct DayPoint {
    pub day_start: DateTime<Utc>,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
    pub objectives_completed: u64,
}

impl Store {
    /// The figures of `[from, to)`.
    pub async fn day_figures(
        &self,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<DayFigures, StoreError> {
        let (from_ms, to_ms) = (to_ms(from), to_ms(to));
        let finished = |status: ObjectiveStatus| {
            self.scalar(COMPLETED_BETWEEN, status.as_str(), from_ms, to_ms)
        };
        let objectives_completed = finished(ObjectiveStatus::Completed).await?;
        let objectives_failed = finished(ObjectiveStatus::Failed).await?;
        let objectives_completed_auto = self
            .scalar(
                format!(
                    "SELECT COUNT(*) FROM objectives WHERE status = '{}' AND source <> $1 \
                     AND completed_at >= $2 AND completed_at < $3",
                    ObjectiveStatus::Completed
                ),
                ObjectiveSource::Ceo.as_str(),
                from_ms,
                to_ms,
            )
            .await?;
        let objectives_completed_alone = self
            .scalar(
                format!(
                    "SELECT COUNT(*) FROM objectives o WHERE o.status = '{}' \
                     AND o.completed_at >= $2 AND o.completed_at < $3 AND NOT EXISTS ( \
                       SELECT 1 FROM decisions d LEFT JOIN tasks t ON t.id = d.task_id \
                       WHERE (d.objective_id = o.id OR t.objective_id = o.id) \
                       AND d.responded_by IS NOT NULL AND d.responded_by <> $1)",
                    ObjectiveStatus::Completed
                ),
                TIMEOUT_RESPONDER,
                from_ms,
                to_ms,
            )
            .await?;
        let now_in = |statuses: &[ObjectiveStatus]| {
            let list: Vec<String> = statuses.iter().map(|s| format!("'{s}'")).collect();
            let sql = format!(
                "SELECT COUNT(*) FROM objectives WHERE status IN ({})",
                list.join(",")
            );
            async move {
                let n: i64 = with_pool!(self, |pool| {
                    sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                        .fetch_one(pool)
                        .await
                })?;
                count::<u64>("objective count", n)
            }
        };
        let objectives_in_progress =
            now_in(&[ObjectiveStatus::Planning, ObjectiveStatus::InProgress]).await?;
        let objectives_waiting = now_in(&[ObjectiveStatus::Blocked]).await?;
        let ceo_interventions = self
            .scalar(
                "SELECT COUNT(*) FROM decisions WHERE status = $1 AND responded_at >= $2 \
                 AND responded_at < $3",
                DecisionStatus::Answered.as_str(),
                from_ms,
                to_ms,
            )
            .await?;
        let (teams, average_confidence) = self.task_figures(from_ms, to_ms).await?;
        let (tokens, cost, cloud): (i64, i64, i64) = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT CAST(COALESCE(SUM(tokens_in + tokens_out), 0) AS BIGINT), \
                 CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT), \
                 CAST(COALESCE(SUM(cloud_equiv_micros), 0) AS BIGINT) \
                 FROM log_entries WHERE created_at >= $1 AND created_at < $2",
            )
            .bind(from_ms)
            .bind(to_ms)
            .fetch_one(pool)
            .await
        })?;
        Ok(DayFigures {
            objectives_completed,
            objectives_completed_auto,
            objectives_completed_alone,
            objectives_failed,
            objectives_in_progress,
            objectives_waiting,
            teams,
            average_confidence,
            ceo_interventions,
            tokens: count("tokens", tokens)?,
            cost: Usd::from_micros(cost),
            cloud_equivalent_cost: Usd::from_micros(cloud),
        })
    }

    /// The `days` days ending with the one that starts at `last_day`.
    pub async fn daily_series(
        &self,
        last_day: DateTime<Utc>,
        days: u32,
    ) -> Result<Vec<DayPoint>, StoreError> {
        let mut points = Vec::new();
        for back in (0..days).rev() {
            let day_start = last_day - TimeDelta::days(i64::from(back));
            let (from, to) = (to_ms(day_start), to_ms(day_start + TimeDelta::days(1)));
            let (cost, cloud): (i64, i64) = with_pool!(self, |pool| {
                sqlx::query_as(
                    "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT), \
                     CAST(COALESCE(SUM(cloud_equiv_micros), 0) AS BIGINT) FROM log_entries \
                     WHERE created_at >= $1 AND created_at < $2",
                )
                .bind(from)
                .bind(to)
                .fetch_one(pool)
                .await
            })?;
            let completed = self
                .scalar(
                    COMPLETED_BETWEEN,
                    ObjectiveStatus::Completed.as_str(),
                    from,
                    to,
                )
                .await?;
            points.push(DayPoint {
                day_start,
                cost: Usd::from_micros(cost),
                cloud_equivalent_cost: Usd::from_micros(cloud),
                objectives_completed: completed,
            });
        }
        Ok(points)
    }

    async fn task_figures(
        &self,
        from: i64,
        to: i64,
    ) -> Result<(Vec<(Team, u64, u64)>, Option<f64>), StoreError> {
        let rows: Vec<(String, String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT team, status, COUNT(*) FROM tasks WHERE completed_at >= $1 \
                 AND completed_at < $2 AND status IN ($3, $4) GROUP BY team, status \
                 ORDER BY team, status",
            )
            .bind(from)
            .bind(to)
            .bind(TaskStatus::Completed.as_str())
            .bind(TaskStatus::Failed.as_str())
            .fetch_all(pool)
            .await
        })?;
        let mut teams: Vec<(Team, u64, u64)> = Vec::new();
        for (team, status, n) in rows {
            let team: Team = super::time::parse_text("task team", &team)?;
            let n = count::<u64>("task count", n)?;
            let entry = match teams.iter_mut().find(|(t, _, _)| *t == team) {
                Some(entry) => entry,
                None => {
                    teams.push((team, 0, 0));
                    teams
                        .last_mut()
                        .ok_or_else(|| StoreError::Invalid("no team".into()))?
                }
            };
            if status == TaskStatus::Completed.as_str() {
                entry.1 += n;
            } else {
                entry.2 += n;
            }
        }
        let average: Option<f64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT AVG(confidence) FROM tasks WHERE completed_at >= $1 AND completed_at < $2 \
                 AND status = $3 AND confidence IS NOT NULL",
            )
            .bind(from)
            .bind(to)
            .bind(TaskStatus::Completed.as_str())
            .fetch_one(pool)
            .await
        })?;
        Ok((teams, average))
    }

    /// A count from `sql`, with `$1` = `text`, `$2` = `from`, `$3` = `to`.
    /// The SQL is built from this module's constants and enum texts only.
    async fn scalar(
        &self,
        sql: impl Into<String>,
        text: &str,
        from: i64,
        to: i64,
    ) -> Result<u64, StoreError> {
        let sql: String = sql.into();
        let n: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()))
                .bind(text)
                .bind(from)
                .bind(to)
                .fetch_one(pool)
                .await
        })?;
        count("count", n)
    }
}
