//! Tasks: creation with dependencies, the ready queue, leases and the
//! transitions a worker makes.
//!
//! A worker claims a queued task with a lease; every later change it makes
//! is conditional on still holding that lease, so a worker whose lease
//! expired (and whose task another worker took) cannot overwrite anything.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{count, from_ms, from_opt_ms, parse_text, predecessor_list, stored, to_ms};
use super::{BackendKind, Store, StoreError, with_pool};
use crate::domain::{
    Lease, NewTask, ObjectiveId, OperationId, OperationStatus, Status, Task, TaskId, TaskOutcome,
    TaskStatus,
};
use crate::money::Usd;

macro_rules! task_columns {
    () => {
        "id, objective_id, operation_id, step_key, agent, team, kind, title, input, status, pipeline, \
         priority, due_at, attempts, max_attempts, lease_owner, lease_expires_at, result, error, \
         confidence, model, tokens_in, tokens_out, cost_micros, cloud_equiv_micros, iterations, \
         duration_ms, created_at, started_at, completed_at, requires_validation, gate"
    };
}

const INSERT_TASK: &str = "INSERT INTO tasks (objective_id, operation_id, step_key, agent, team, \
     title, input, status, pipeline, priority, due_at, max_attempts, created_at, kind, \
     requires_validation, gate, parent_task_id, attempts, lease_owner, lease_expires_at, started_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, \
     $20, $21) RETURNING id";

const SELECT_TASK: &str = concat!("SELECT ", task_columns!(), " FROM tasks WHERE id = $1");

/// SQLite takes the write lock for the whole statement, so the sub-select
/// and the update cannot interleave with another claimer.
const CLAIM_SQLITE: &str = concat!(
    "UPDATE tasks SET status = $1, attempts = attempts + 1, lease_owner = $2, \
     lease_expires_at = $3, started_at = COALESCE(started_at, $4) \
     WHERE id = (SELECT id FROM tasks WHERE status = $5 \
                 ORDER BY priority DESC, due_at, id LIMIT 1) \
     RETURNING ",
    task_columns!()
);

/// On PostgreSQL, claimers skip rows another transaction has locked, and the
/// outer status check stops a row that changed meanwhile from being taken twice.
const CLAIM_POSTGRES: &str = concat!(
    "UPDATE tasks SET status = $1, attempts = attempts + 1, lease_owner = $2, \
     lease_expires_at = $3, started_at = COALESCE(started_at, $4) \
     WHERE status = $5 AND id = (SELECT id FROM tasks WHERE status = $5 \
                 ORDER BY priority DESC, due_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) \
     RETURNING ",
    task_columns!()
);

const CLAIM_ONE: &str = concat!(
    "UPDATE tasks SET status = $1, attempts = attempts + 1, lease_owner = $2, \
     lease_expires_at = $3, started_at = COALESCE(started_at, $4) \
     WHERE id = $6 AND status = $5 RETURNING ",
    task_columns!()
);

/// A task may start only while its operation runs and its objective is not
/// paused.
/// `$running` is the placeholder bound to the running operation status.
macro_rules! startable {
    ($running:literal) => {
        concat!(
            " AND (tasks.operation_id IS NULL OR EXISTS (SELECT 1 FROM operations o \
               WHERE o.id = tasks.operation_id AND o.status = ",
            $running,
            ")) AND (tasks.objective_id IS NULL OR NOT EXISTS (SELECT 1 FROM objectives ob \
               WHERE ob.id = tasks.objective_id AND ob.paused_at IS NOT NULL))"
        )
    };
}

const QUEUE_ONE: &str = concat!(
    "UPDATE tasks SET status = $1 \
     WHERE id = $5 AND status = $2 AND due_at <= $3 AND NOT EXISTS ( \
         SELECT 1 FROM task_dependencies d JOIN tasks dep ON dep.id = d.depends_on_id \
         WHERE d.task_id = tasks.id AND dep.status <> $4)",
    startable!("$6")
);

const PROMOTE_READY: &str = concat!(
    "UPDATE tasks SET status = $1 \
     WHERE status = $2 AND due_at <= $3 AND NOT EXISTS ( \
         SELECT 1 FROM task_dependencies d JOIN tasks dep ON dep.id = d.depends_on_id \
         WHERE d.task_id = tasks.id AND dep.status <> $4)",
    startable!("$5"),
    " RETURNING id"
);

/// Records a finished run; `$1` is the new status (completed, or blocked
/// while a human looks at the result).
const RECORD_OUTCOME: &str = "UPDATE tasks SET status = $1, lease_owner = NULL, \
     lease_expires_at = NULL, result = $2, confidence = $3, model = $4, \
     tokens_in = tokens_in + $5, tokens_out = tokens_out + $6, \
     cost_micros = cost_micros + $7, cloud_equiv_micros = cloud_equiv_micros + $8, \
     iterations = $9, duration_ms = duration_ms + $10, error = NULL, \
     completed_at = $11 WHERE id = $12 AND status = $13 AND lease_owner = $14";

/// Gives a failed run another attempt at `$8` while attempts remain (the
/// task waits, pending, until then), else fails it.
const RETRY_OR_FAIL: &str = "UPDATE tasks SET \
     status = CASE WHEN attempts < max_attempts THEN $1 ELSE $2 END, \
     completed_at = CASE WHEN attempts < max_attempts THEN NULL ELSE $3 END, \
     due_at = CASE WHEN attempts < max_attempts THEN $8 ELSE due_at END, \
     lease_owner = NULL, lease_expires_at = NULL, error = $4 \
     WHERE id = $5 AND status = $6 AND lease_owner = $7 RETURNING status";

const FAIL: &str = "UPDATE tasks SET status = $1, lease_owner = NULL, lease_expires_at = NULL, \
     error = $2, completed_at = $3 WHERE id = $4 AND status = $5 AND lease_owner = $6";

const RENEW_LEASE: &str = "UPDATE tasks SET lease_expires_at = $1 \
     WHERE id = $2 AND status = $3 AND lease_owner = $4";

const EXPIRE_LEASES: &str = "UPDATE tasks SET \
     status = CASE WHEN attempts < max_attempts THEN $1 ELSE $2 END, \
     completed_at = CASE WHEN attempts < max_attempts THEN NULL ELSE $3 END, \
     lease_owner = NULL, lease_expires_at = NULL, error = $4 \
     WHERE status = $5 AND lease_expires_at < $3 RETURNING id, status";

/// The error stored on a task whose worker vanished.
const LEASE_EXPIRED_ERROR: &str = "lease expired: the worker stopped answering";

/// How far a set of tasks is (an objective's, an operation's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Progress {
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
    pub cancelled: u64,
    pub running: u64,
}

impl Progress {
    /// Whether every task reached a final status.
    pub fn is_finished(&self) -> bool {
        self.total > 0 && self.completed + self.failed + self.cancelled == self.total
    }
}

/// What [`Store::requeue_expired_leases`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExpiredLeases {
    /// Tasks put back in the queue for another attempt.
    pub requeued: Vec<TaskId>,
    /// Tasks that had used all their attempts and are now failed.
    pub failed: Vec<TaskId>,
}

#[derive(sqlx::FromRow)]
struct TaskRow {
    id: i64,
    objective_id: Option<i64>,
    operation_id: Option<i64>,
    step_key: Option<String>,
    agent: String,
    team: String,
    kind: Option<String>,
    title: String,
    input: Json<Value>,
    status: String,
    pipeline: String,
    priority: i64,
    due_at: i64,
    attempts: i64,
    max_attempts: i64,
    lease_owner: Option<String>,
    lease_expires_at: Option<i64>,
    result: Option<Json<Value>>,
    error: Option<String>,
    confidence: Option<f64>,
    model: Option<String>,
    tokens_in: i64,
    tokens_out: i64,
    cost_micros: i64,
    cloud_equiv_micros: i64,
    iterations: i64,
    duration_ms: i64,
    created_at: i64,
    started_at: Option<i64>,
    completed_at: Option<i64>,
    requires_validation: bool,
    gate: bool,
}

impl TaskRow {
    fn into_task(self, depends_on: Vec<TaskId>) -> Result<Task, StoreError> {
        let lease = match (self.lease_owner, self.lease_expires_at) {
            (Some(owner), Some(expires)) => Some(Lease {
                owner,
                expires_at: from_ms(expires)?,
            }),
            _ => None,
        };
        Ok(Task {
            id: TaskId::new(self.id),
            objective_id: self.objective_id.map(ObjectiveId::new),
            operation_id: self.operation_id.map(OperationId::new),
            step_key: self.step_key,
            agent: parse_text("task agent", &self.agent)?,
            team: parse_text("task team", &self.team)?,
            kind: self.kind,
            title: self.title,
            input: self.input.0,
            status: parse_text("task status", &self.status)?,
            pipeline: parse_text("task pipeline", &self.pipeline)?,
            priority: crate::domain::Priority::new(self.priority)
                .ok_or_else(|| StoreError::corrupt("task priority", self.priority))?,
            due_at: from_ms(self.due_at)?,
            depends_on,
            requires_validation: self.requires_validation,
            gate: self.gate,
            attempts: count("task attempts", self.attempts)?,
            max_attempts: count("task max_attempts", self.max_attempts)?,
            lease,
            result: self.result.map(|json| json.0),
            error: self.error,
            confidence: self.confidence,
            model: self.model,
            tokens_in: count("task tokens_in", self.tokens_in)?,
            tokens_out: count("task tokens_out", self.tokens_out)?,
            cost: Usd::from_micros(self.cost_micros),
            cloud_equivalent_cost: Usd::from_micros(self.cloud_equiv_micros),
            iterations: count("task iterations", self.iterations)?,
            duration_ms: count("task duration_ms", self.duration_ms)?,
            created_at: from_ms(self.created_at)?,
            started_at: from_opt_ms(self.started_at)?,
            completed_at: from_opt_ms(self.completed_at)?,
        })
    }
}

impl Store {
    /// Creates a `pending` task and its dependency links in one transaction.
    /// A dependency on a task that does not exist is refused.
    pub async fn create_task(&self, new: &NewTask, now: DateTime<Utc>) -> Result<Task, StoreError> {
        self.insert_task(new, now, None).await
    }

    /// Creates a task already claimed by `worker` (running, its first
    /// attempt counted, leased until `now + lease`), for work a caller does
    /// itself at once (the Interpreter's reading, the Director's plan, a
    /// pipeline's child). It never passes through the queue, so no other
    /// worker can take it first.
    pub async fn create_claimed_task(
        &self,
        new: &NewTask,
        worker: &str,
        now: DateTime<Utc>,
        lease: TimeDelta,
    ) -> Result<Task, StoreError> {
        self.insert_task(new, now, Some((worker, now + lease)))
            .await
    }

    async fn insert_task(
        &self,
        new: &NewTask,
        now: DateTime<Utc>,
        claimed: Option<(&str, DateTime<Utc>)>,
    ) -> Result<Task, StoreError> {
        if claimed.is_some() && !new.depends_on.is_empty() {
            return Err(StoreError::Invalid(
                "a task claimed at creation cannot wait for dependencies".into(),
            ));
        }
        let status = match claimed {
            Some(_) => TaskStatus::Running,
            None => TaskStatus::Pending,
        };
        if new.max_attempts == 0 {
            return Err(StoreError::Invalid(
                "a task needs at least one attempt".into(),
            ));
        }
        let id: i64 = with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let id: i64 = sqlx::query_scalar(INSERT_TASK)
                .bind(new.objective_id.map(ObjectiveId::get))
                .bind(new.operation_id.map(OperationId::get))
                .bind(new.step_key.as_deref())
                .bind(new.agent.as_str())
                .bind(new.team.as_str())
                .bind(new.title.as_str())
                .bind(Json(&new.input))
                .bind(status.as_str())
                .bind(new.pipeline.as_str())
                .bind(new.priority.get())
                .bind(to_ms(new.due_at))
                .bind(stored(new.max_attempts))
                .bind(to_ms(now))
                .bind(new.kind.as_deref())
                .bind(new.requires_validation)
                .bind(new.gate)
                .bind(new.parent_task_id.map(TaskId::get))
                .bind(i64::from(claimed.is_some()))
                .bind(claimed.map(|(worker, _)| worker))
                .bind(claimed.map(|(_, expires)| to_ms(expires)))
                .bind(claimed.map(|_| to_ms(now)))
                .fetch_one(&mut *tx)
                .await?;
            for dependency in &new.depends_on {
                sqlx::query(
                    "INSERT INTO task_dependencies (task_id, depends_on_id) VALUES ($1, $2)",
                )
                .bind(id)
                .bind(dependency.get())
                .execute(&mut *tx)
                .await
                .map_err(|e| unknown_dependency(e, *dependency))?;
            }
            tx.commit().await?;
            Ok::<i64, StoreError>(id)
        })?;
        self.task(TaskId::new(id)).await
    }

    /// The task with this id.
    pub async fn task(&self, id: TaskId) -> Result<Task, StoreError> {
        let row: Option<TaskRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_TASK)
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        let row = row.ok_or(StoreError::NotFound {
            kind: "task",
            id: id.get(),
        })?;
        self.hydrate(row).await
    }

    /// The tasks of an objective, oldest first.
    pub async fn tasks_of_objective(
        &self,
        objective: ObjectiveId,
    ) -> Result<Vec<Task>, StoreError> {
        self.tasks_where("objective_id", objective.get()).await
    }

    /// How far an objective's tasks are.
    pub async fn objective_progress(&self, id: ObjectiveId) -> Result<Progress, StoreError> {
        self.progress_where("objective_id", id.get()).await
    }

    /// How far an operation's tasks are.
    pub async fn operation_progress(&self, id: OperationId) -> Result<Progress, StoreError> {
        self.progress_where("operation_id", id.get()).await
    }

    async fn progress_where(&self, column: &'static str, id: i64) -> Result<Progress, StoreError> {
        let sql = format!("SELECT status, COUNT(*) FROM tasks WHERE {column} = $1 GROUP BY status");
        let rows: Vec<(String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .fetch_all(pool)
                .await
        })?;
        let mut progress = Progress::default();
        for (status, n) in rows {
            let n: u64 = count("task count", n)?;
            progress.total += n;
            match parse_text::<TaskStatus>("task status", &status)? {
                TaskStatus::Completed => progress.completed += n,
                TaskStatus::Failed => progress.failed += n,
                TaskStatus::Cancelled => progress.cancelled += n,
                TaskStatus::Running => progress.running += n,
                _ => {}
            }
        }
        Ok(progress)
    }

    /// The tasks whose `column` (a constant of this crate) equals `id`, oldest first.
    /// The task with this step key, if one was created (a playbook step,
    /// or work created once for a decision).
    pub async fn task_with_step_key(&self, key: &str) -> Result<Option<Task>, StoreError> {
        let sql = format!(
            "SELECT {} FROM tasks WHERE step_key = $1 ORDER BY id LIMIT 1",
            task_columns!()
        );
        let row: Option<TaskRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(key)
                .fetch_optional(pool)
                .await
        })?;
        match row {
            Some(row) => Ok(Some(self.hydrate(row).await?)),
            None => Ok(None),
        }
    }

    pub(crate) async fn tasks_where(
        &self,
        column: &'static str,
        id: i64,
    ) -> Result<Vec<Task>, StoreError> {
        let sql = format!(
            "SELECT {} FROM tasks WHERE {column} = $1 ORDER BY id",
            task_columns!()
        );
        let rows: Vec<TaskRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .fetch_all(pool)
                .await
        })?;
        let mut tasks = Vec::with_capacity(rows.len());
        for row in rows {
            tasks.push(self.hydrate(row).await?);
        }
        Ok(tasks)
    }

    /// The tasks with these ids, in the order given.
    pub(crate) async fn tasks_with_ids(&self, ids: Vec<i64>) -> Result<Vec<Task>, StoreError> {
        let mut tasks = Vec::with_capacity(ids.len());
        for id in ids {
            tasks.push(self.task(TaskId::new(id)).await?);
        }
        Ok(tasks)
    }

    /// Queues every pending task that is due at `now` and whose dependencies
    /// are all completed. Returns the tasks queued.
    pub async fn promote_ready_tasks(&self, now: DateTime<Utc>) -> Result<Vec<TaskId>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(PROMOTE_READY)
                .bind(TaskStatus::Queued.as_str())
                .bind(TaskStatus::Pending.as_str())
                .bind(to_ms(now))
                .bind(TaskStatus::Completed.as_str())
                .bind(OperationStatus::Running.as_str())
                .fetch_all(pool)
                .await
        })?;
        Ok(sorted_ids(ids))
    }

    /// Claims the queued task with the highest priority (then the earliest
    /// due, then the oldest) for `worker`, with a lease until `now + lease`.
    /// Counts an attempt. `None` when the queue is empty.
    pub async fn claim_next_task(
        &self,
        worker: &str,
        now: DateTime<Utc>,
        lease: TimeDelta,
    ) -> Result<Option<Task>, StoreError> {
        let sql = match self.backend_kind() {
            BackendKind::Sqlite => CLAIM_SQLITE,
            BackendKind::Postgres => CLAIM_POSTGRES,
        };
        let row: Option<TaskRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .bind(to_ms(now + lease))
                .bind(to_ms(now))
                .bind(TaskStatus::Queued.as_str())
                .fetch_optional(pool)
                .await
        })?;
        match row {
            Some(row) => Ok(Some(self.hydrate(row).await?)),
            None => Ok(None),
        }
    }

    /// Queues one particular pending task now, if it is due and its
    /// dependencies are completed (what [`Store::promote_ready_tasks`] does
    /// for all of them).
    pub async fn queue_task(&self, id: TaskId, now: DateTime<Utc>) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(QUEUE_ONE)
                .bind(TaskStatus::Queued.as_str())
                .bind(TaskStatus::Pending.as_str())
                .bind(to_ms(now))
                .bind(TaskStatus::Completed.as_str())
                .bind(id.get())
                .bind(OperationStatus::Running.as_str())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.task_refusal(id, TaskStatus::Queued).await);
        }
        Ok(())
    }

    /// Claims one particular queued task (the Director's own run, say).
    pub async fn claim_task(
        &self,
        id: TaskId,
        worker: &str,
        now: DateTime<Utc>,
        lease: TimeDelta,
    ) -> Result<Task, StoreError> {
        let row: Option<TaskRow> = with_pool!(self, |pool| {
            sqlx::query_as(CLAIM_ONE)
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .bind(to_ms(now + lease))
                .bind(to_ms(now))
                .bind(TaskStatus::Queued.as_str())
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        match row {
            Some(row) => self.hydrate(row).await,
            None => Err(self.task_refusal(id, TaskStatus::Running).await),
        }
    }

    /// Extends `worker`'s lease on a running task to `now + lease`.
    pub async fn renew_lease(
        &self,
        id: TaskId,
        worker: &str,
        now: DateTime<Utc>,
        lease: TimeDelta,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(RENEW_LEASE)
                .bind(to_ms(now + lease))
                .bind(id.get())
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        self.expect_held(updated, id, worker).await
    }

    /// Records a successful run and marks the task completed.
    pub async fn complete_task(
        &self,
        id: TaskId,
        worker: &str,
        outcome: &TaskOutcome,
        now: DateTime<Utc>,
    ) -> Result<Task, StoreError> {
        self.record_outcome(id, worker, TaskStatus::Completed, outcome, now)
            .await
    }

    /// Records a finished run whose result waits for a human (a validation
    /// or a CEO decision); the task is blocked until [`Store::unblock_task`].
    pub async fn block_task(
        &self,
        id: TaskId,
        worker: &str,
        outcome: &TaskOutcome,
        now: DateTime<Utc>,
    ) -> Result<Task, StoreError> {
        self.record_outcome(id, worker, TaskStatus::Blocked, outcome, now)
            .await
    }

    /// Records a failed run: while attempts remain the task waits (pending)
    /// until `retry_at`, then goes back to the queue; otherwise it fails for
    /// good. Returns its new status.
    pub async fn retry_task(
        &self,
        id: TaskId,
        worker: &str,
        error: &str,
        now: DateTime<Utc>,
        retry_at: DateTime<Utc>,
    ) -> Result<TaskStatus, StoreError> {
        let status: Option<String> = with_pool!(self, |pool| {
            sqlx::query_scalar(RETRY_OR_FAIL)
                .bind(TaskStatus::Pending.as_str())
                .bind(TaskStatus::Failed.as_str())
                .bind(to_ms(now))
                .bind(error)
                .bind(id.get())
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .bind(to_ms(retry_at))
                .fetch_optional(pool)
                .await
        })?;
        match status {
            Some(status) => parse_text("task status", &status),
            None => Err(self.lease_refusal(id, worker).await),
        }
    }

    /// Fails a running task for good, whatever attempts remain.
    pub async fn fail_task(
        &self,
        id: TaskId,
        worker: &str,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(FAIL)
                .bind(TaskStatus::Failed.as_str())
                .bind(error)
                .bind(to_ms(now))
                .bind(id.get())
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        self.expect_held(updated, id, worker).await
    }

    /// Moves a blocked task on once its human answered: back to the queue
    /// (optionally with a new input, e.g. a rejection reason), or to
    /// completed, failed or cancelled.
    pub async fn unblock_task(
        &self,
        id: TaskId,
        to: TaskStatus,
        new_input: Option<&Value>,
        now: DateTime<Utc>,
    ) -> Result<Task, StoreError> {
        if !TaskStatus::Blocked.can_become(to) {
            return Err(self.illegal(id, TaskStatus::Blocked, to));
        }
        let finished = to != TaskStatus::Queued;
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE tasks SET status = $1, input = COALESCE($2, input), \
                 completed_at = CASE WHEN $3 THEN $4 ELSE NULL END \
                 WHERE id = $5 AND status = $6",
            )
            .bind(to.as_str())
            .bind(new_input.map(Json))
            .bind(finished)
            .bind(to_ms(now))
            .bind(id.get())
            .bind(TaskStatus::Blocked.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.task_refusal(id, to).await);
        }
        self.task(id).await
    }

    /// Cancels a task that has not finished. A running task loses its lease:
    /// its worker's next write is refused.
    pub async fn cancel_task(&self, id: TaskId, now: DateTime<Utc>) -> Result<(), StoreError> {
        let sql = format!(
            "UPDATE tasks SET status = $1, lease_owner = NULL, lease_expires_at = NULL, \
             completed_at = $2 WHERE id = $3 AND status IN ({})",
            predecessor_list(TaskStatus::Cancelled)
        );
        let updated = with_pool!(self, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(TaskStatus::Cancelled.as_str())
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.task_refusal(id, TaskStatus::Cancelled).await);
        }
        Ok(())
    }

    /// Returns every running task whose lease expired before `now` to the
    /// queue (its attempt stays counted), or fails it when no attempt is left.
    pub async fn requeue_expired_leases(
        &self,
        now: DateTime<Utc>,
    ) -> Result<ExpiredLeases, StoreError> {
        let rows: Vec<(i64, String)> = with_pool!(self, |pool| {
            sqlx::query_as(EXPIRE_LEASES)
                .bind(TaskStatus::Queued.as_str())
                .bind(TaskStatus::Failed.as_str())
                .bind(to_ms(now))
                .bind(LEASE_EXPIRED_ERROR)
                .bind(TaskStatus::Running.as_str())
                .fetch_all(pool)
                .await
        })?;
        let mut report = ExpiredLeases::default();
        for (id, status) in rows {
            match parse_text::<TaskStatus>("task status", &status)? {
                TaskStatus::Queued => report.requeued.push(TaskId::new(id)),
                _ => report.failed.push(TaskId::new(id)),
            }
        }
        report.requeued.sort();
        report.failed.sort();
        Ok(report)
    }

    async fn record_outcome(
        &self,
        id: TaskId,
        worker: &str,
        status: TaskStatus,
        outcome: &TaskOutcome,
        now: DateTime<Utc>,
    ) -> Result<Task, StoreError> {
        if let Some(confidence) = outcome.confidence
            && !(0.0..=1.0).contains(&confidence)
        {
            return Err(StoreError::Invalid(format!(
                "confidence {confidence} is not within 0–1"
            )));
        }
        let updated = with_pool!(self, |pool| {
            sqlx::query(RECORD_OUTCOME)
                .bind(status.as_str())
                .bind(Json(&outcome.result))
                .bind(outcome.confidence)
                .bind(outcome.model.as_deref())
                .bind(stored(outcome.tokens_in))
                .bind(stored(outcome.tokens_out))
                .bind(outcome.cost.micros())
                .bind(outcome.cloud_equivalent_cost.micros())
                .bind(stored(outcome.iterations))
                .bind(stored(outcome.duration_ms))
                .bind(to_ms(now))
                .bind(id.get())
                .bind(TaskStatus::Running.as_str())
                .bind(worker)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        self.expect_held(updated, id, worker).await?;
        self.task(id).await
    }

    async fn hydrate(&self, row: TaskRow) -> Result<Task, StoreError> {
        let depends_on = self.dependencies(TaskId::new(row.id)).await?;
        row.into_task(depends_on)
    }

    async fn dependencies(&self, id: TaskId) -> Result<Vec<TaskId>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT depends_on_id FROM task_dependencies WHERE task_id = $1 ORDER BY depends_on_id",
            )
            .bind(id.get())
            .fetch_all(pool)
            .await
        })?;
        Ok(ids.into_iter().map(TaskId::new).collect())
    }

    async fn task_status(
        &self,
        id: TaskId,
    ) -> Result<Option<(TaskStatus, Option<String>)>, StoreError> {
        let row: Option<(String, Option<String>)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT status, lease_owner FROM tasks WHERE id = $1")
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.map(|(status, owner)| Ok((parse_text("task status", &status)?, owner)))
            .transpose()
    }

    async fn expect_held(&self, rows: u64, id: TaskId, worker: &str) -> Result<(), StoreError> {
        if rows == 0 {
            return Err(self.lease_refusal(id, worker).await);
        }
        Ok(())
    }

    /// Why a lease-holder's write matched no row.
    async fn lease_refusal(&self, id: TaskId, worker: &str) -> StoreError {
        match self.task_status(id).await {
            Ok(Some(_)) => StoreError::LeaseLost {
                id,
                worker: worker.to_owned(),
            },
            Ok(None) => not_found(id),
            Err(e) => e,
        }
    }

    /// Why a status change matched no row.
    async fn task_refusal(&self, id: TaskId, to: TaskStatus) -> StoreError {
        match self.task_status(id).await {
            Ok(Some((from, _))) => self.illegal(id, from, to),
            Ok(None) => not_found(id),
            Err(e) => e,
        }
    }

    fn illegal(&self, id: TaskId, from: TaskStatus, to: TaskStatus) -> StoreError {
        StoreError::illegal("task", id.get(), from, to)
    }
}

fn not_found(id: TaskId) -> StoreError {
    StoreError::NotFound {
        kind: "task",
        id: id.get(),
    }
}

fn unknown_dependency(error: sqlx::Error, dependency: TaskId) -> StoreError {
    match &error {
        sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::ForeignKeyViolation => {
            StoreError::Invalid(format!("task #{dependency}, a dependency, does not exist"))
        }
        _ => error.into(),
    }
}

fn sorted_ids(mut ids: Vec<i64>) -> Vec<TaskId> {
    ids.sort_unstable();
    ids.into_iter().map(TaskId::new).collect()
}
