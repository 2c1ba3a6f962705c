//! Each recurring job's next run, kept in the store: a restart reads it
//! back, and advancing it is a conditional update, so two processes (or a
//! restarted one) never both run the same occurrence.

use chrono::{DateTime, Utc};

use super::time::{from_ms, to_ms};
use super::{Store, StoreError, with_pool};

impl Store {
    /// Records a job. A new job, or one whose cron or time zone changed,
    /// gets `next_run`; otherwise the stored next run is kept.
    pub async fn upsert_schedule(
        &self,
        name: &str,
        cron: &str,
        timezone: &str,
        agent: &str,
        next_run: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO schedules (name, cron, timezone, agent, next_run_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (name) DO UPDATE SET agent = excluded.agent, \
                 next_run_at = CASE WHEN schedules.cron <> excluded.cron \
                     OR schedules.timezone <> excluded.timezone \
                     THEN excluded.next_run_at ELSE schedules.next_run_at END, \
                 cron = excluded.cron, timezone = excluded.timezone, updated_at = excluded.updated_at",
            )
            .bind(name)
            .bind(cron)
            .bind(timezone)
            .bind(agent)
            .bind(to_ms(next_run))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|_| ())
        })?;
        Ok(())
    }

    /// Enabled jobs whose next run is due at `now`, with that run's time.
    pub async fn due_schedules(
        &self,
        now: DateTime<Utc>,
    ) -> Result<Vec<(String, DateTime<Utc>)>, StoreError> {
        let rows: Vec<(String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT name, next_run_at FROM schedules WHERE enabled = $1 AND next_run_at <= $2 \
                 ORDER BY next_run_at, name",
            )
            .bind(true)
            .bind(to_ms(now))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|(name, at)| Ok((name, from_ms(at)?)))
            .collect()
    }

    /// Moves a job from the run due at `due` to `next`. Returns `true` for
    /// the one caller that did it; anyone else (another process, a second
    /// tick) gets `false` and must not run the job.
    pub async fn advance_schedule(
        &self,
        name: &str,
        due: DateTime<Utc>,
        next: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE schedules SET next_run_at = $1, last_run_at = $2, updated_at = $2 \
                 WHERE name = $3 AND next_run_at = $4",
            )
            .bind(to_ms(next))
            .bind(to_ms(now))
            .bind(name)
            .bind(to_ms(due))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
    }
}
