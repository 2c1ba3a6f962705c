//! The log and the cost ledger: every model and tool call is a row; sums of
//! those rows are what a run, an objective and the month have spent.

use chrono::{DateTime, Utc};

use super::time::{count, from_ms, parse_text, stored, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    LogEntry, LogKind, LogScope, NewLogEntry, ObjectiveId, OperationId, RoutingRule, TaskId,
};
use crate::money::Usd;

macro_rules! log_columns {
    () => {
        "id, operation_id, objective_id, task_id, agent, kind, summary, model, pool, cloud, \
         tokens_in, tokens_out, usage_estimated, cost_micros, cloud_equiv_micros, is_public, \
         created_at"
    };
}

#[derive(sqlx::FromRow)]
struct LogRow {
    id: i64,
    operation_id: Option<i64>,
    objective_id: Option<i64>,
    task_id: Option<i64>,
    agent: Option<String>,
    kind: String,
    summary: String,
    model: Option<String>,
    pool: Option<String>,
    cloud: bool,
    tokens_in: i64,
    tokens_out: i64,
    usage_estimated: bool,
    cost_micros: i64,
    cloud_equiv_micros: i64,
    is_public: bool,
    created_at: i64,
}

impl TryFrom<LogRow> for LogEntry {
    type Error = StoreError;

    fn try_from(row: LogRow) -> Result<Self, StoreError> {
        Ok(LogEntry {
            id: row.id,
            entry: NewLogEntry {
                scope: LogScope {
                    operation_id: row.operation_id.map(OperationId::new),
                    objective_id: row.objective_id.map(ObjectiveId::new),
                    task_id: row.task_id.map(TaskId::new),
                    agent: row.agent,
                },
                kind: parse_text("log kind", &row.kind)?,
                summary: row.summary,
                model: row.model,
                pool: row.pool,
                cloud: row.cloud,
                tokens_in: count("log tokens_in", row.tokens_in)?,
                tokens_out: count("log tokens_out", row.tokens_out)?,
                usage_estimated: row.usage_estimated,
                cost: Usd::from_micros(row.cost_micros),
                cloud_equivalent_cost: Usd::from_micros(row.cloud_equiv_micros),
                public: row.is_public,
            },
            created_at: from_ms(row.created_at)?,
        })
    }
}

impl Store {
    /// Appends a log row.
    pub async fn append_log(
        &self,
        entry: &NewLogEntry,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let scope = &entry.scope;
        let id = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO log_entries (operation_id, objective_id, task_id, agent, kind, \
                 summary, model, pool, cloud, tokens_in, tokens_out, usage_estimated, \
                 cost_micros, cloud_equiv_micros, is_public, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
                 RETURNING id",
            )
            .bind(scope.operation_id.map(OperationId::get))
            .bind(scope.objective_id.map(ObjectiveId::get))
            .bind(scope.task_id.map(TaskId::get))
            .bind(scope.agent.as_deref())
            .bind(entry.kind.as_str())
            .bind(entry.summary.as_str())
            .bind(entry.model.as_deref())
            .bind(entry.pool.as_deref())
            .bind(entry.cloud)
            .bind(stored(entry.tokens_in))
            .bind(stored(entry.tokens_out))
            .bind(entry.usage_estimated)
            .bind(entry.cost.micros())
            .bind(entry.cloud_equivalent_cost.micros())
            .bind(entry.public)
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(id)
    }

    /// A task's log rows, oldest first.
    pub async fn log_of_task(&self, task: TaskId) -> Result<Vec<LogEntry>, StoreError> {
        let rows: Vec<LogRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                log_columns!(),
                " FROM log_entries WHERE task_id = $1 ORDER BY id"
            ))
            .bind(task.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(LogEntry::try_from).collect()
    }

    /// The public log rows of an operation (what the log channel shows),
    /// oldest first.
    pub async fn public_log_of_operation(
        &self,
        operation: OperationId,
    ) -> Result<Vec<LogEntry>, StoreError> {
        let rows: Vec<LogRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                log_columns!(),
                " FROM log_entries WHERE operation_id = $1 AND is_public = $2 ORDER BY id"
            ))
            .bind(operation.get())
            .bind(true)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(LogEntry::try_from).collect()
    }

    /// The log rows of one kind, oldest first.
    pub async fn log_of_kind(&self, kind: LogKind) -> Result<Vec<LogEntry>, StoreError> {
        let rows: Vec<LogRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                log_columns!(),
                " FROM log_entries WHERE kind = $1 ORDER BY id"
            ))
            .bind(kind.as_str())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(LogEntry::try_from).collect()
    }

    /// Public log rows not yet posted to the log channel, oldest first.
    pub async fn unposted_public_log(&self, limit: i64) -> Result<Vec<LogEntry>, StoreError> {
        let rows: Vec<LogRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                log_columns!(),
                " FROM log_entries WHERE is_public = $1 AND posted_at IS NULL ORDER BY id LIMIT $2"
            ))
            .bind(true)
            .bind(limit)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(LogEntry::try_from).collect()
    }

    /// Marks log rows as posted to the log channel.
    pub async fn mark_log_posted(&self, ids: &[i64], now: DateTime<Utc>) -> Result<(), StoreError> {
        for id in ids {
            with_pool!(self, |pool| {
                sqlx::query("UPDATE log_entries SET posted_at = $1 WHERE id = $2")
                    .bind(to_ms(now))
                    .bind(id)
                    .execute(pool)
                    .await
                    .map(|done| done.rows_affected())
            })?;
        }
        Ok(())
    }

    /// What every log row has cost since `since`.
    pub async fn spend_since(&self, since: DateTime<Utc>) -> Result<Usd, StoreError> {
        let micros: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT) FROM log_entries \
                 WHERE created_at >= $1",
            )
            .bind(to_ms(since))
            .fetch_one(pool)
            .await
        })?;
        Ok(Usd::from_micros(micros))
    }

    /// What every log row has cost, all time: the real cost, and what a
    /// cloud API would have charged for the same calls.
    pub async fn total_spend(&self) -> Result<(Usd, Usd), StoreError> {
        let (real, cloud): (i64, i64) = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT), \
                 CAST(COALESCE(SUM(cloud_equiv_micros), 0) AS BIGINT) FROM log_entries",
            )
            .fetch_one(pool)
            .await
        })?;
        Ok((Usd::from_micros(real), Usd::from_micros(cloud)))
    }

    /// What an objective's log rows have cost so far.
    pub async fn objective_spend(&self, objective: ObjectiveId) -> Result<Usd, StoreError> {
        self.sum_costs(
            "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT) FROM log_entries \
             WHERE objective_id = $1",
            objective.get(),
        )
        .await
    }

    /// What an operation's log rows have cost so far.
    pub async fn operation_spend(&self, operation: OperationId) -> Result<Usd, StoreError> {
        self.sum_costs(
            "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT) FROM log_entries \
             WHERE operation_id = $1",
            operation.get(),
        )
        .await
    }

    /// What the cloud pool has cost since `since` (the month's start).
    pub async fn cloud_spend_since(&self, since: DateTime<Utc>) -> Result<Usd, StoreError> {
        let micros: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT CAST(COALESCE(SUM(cost_micros), 0) AS BIGINT) FROM log_entries \
                 WHERE cloud = $1 AND created_at >= $2",
            )
            .bind(true)
            .bind(to_ms(since))
            .fetch_one(pool)
            .await
        })?;
        Ok(Usd::from_micros(micros))
    }

    /// Records that the alert `(scope, key)` was sent. Returns `true` the
    /// first time only, whichever process asks first.
    pub async fn mark_alert_sent(
        &self,
        scope: &str,
        key: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let inserted = with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO sent_alerts (scope, alert_key, created_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (scope, alert_key) DO NOTHING",
            )
            .bind(scope)
            .bind(key)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(inserted == 1)
    }

    /// The active routing rules.
    pub async fn routing_rules(&self) -> Result<Vec<RoutingRule>, StoreError> {
        let rows: Vec<(String, String, String)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT agent, task_pattern, pool FROM routing_rules WHERE is_active = $1 ORDER BY id",
            )
            .bind(true)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(agent, task_pattern, pool)| RoutingRule {
                agent,
                task_pattern,
                pool,
            })
            .collect())
    }

    /// Adds an active routing rule.
    pub async fn add_routing_rule(
        &self,
        rule: &RoutingRule,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO routing_rules (agent, task_pattern, pool, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $4)",
            )
            .bind(rule.agent.as_str())
            .bind(rule.task_pattern.as_str())
            .bind(rule.pool.as_str())
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|_| ())
        })?;
        Ok(())
    }

    /// Runs a `SELECT CAST(SUM(…) AS BIGINT)` (PostgreSQL sums BIGINT as NUMERIC).
    async fn sum_costs(&self, sql: &'static str, id: i64) -> Result<Usd, StoreError> {
        let micros: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(sql).bind(id).fetch_one(pool).await
        })?;
        Ok(Usd::from_micros(micros))
    }
}
