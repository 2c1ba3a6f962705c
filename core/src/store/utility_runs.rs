//! The Builder's utility runs: each build-and-test of a template in the
//! sandbox, and where an approved one was released.
//!
//! A utility is an operation's Builder task; its runs are numbered by
//! attempt. Publishing reads the latest run of a template: only a passed
//! one is released. A release is a compare-and-set on `released_at IS
//! NULL`, so an approval handled twice releases once.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{from_ms, from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{OperationId, TaskId};

text_enum! {
    /// How a utility run ended.
    pub enum UtilityRunStatus as "utility run status" {
        /// Built, and its tests passed.
        Passed => "passed",
        /// The build or the tests failed (or ran out of time).
        Failed => "failed",
        /// Not run: the utility failed too often and was given up.
        Skipped => "skipped",
    }
}

/// A run to record.
#[derive(Debug, Clone, PartialEq)]
pub struct NewUtilityRun {
    pub operation_id: OperationId,
    pub task_id: Option<TaskId>,
    pub template: String,
    pub config: Value,
    pub status: UtilityRunStatus,
    /// The last lines of the build's and tests' output.
    pub output_tail: String,
    /// Which attempt of the utility it was, from 1.
    pub attempt: u32,
    /// The run's folder (its `dist/` is what a release copies).
    pub dir: Option<String>,
}

/// A recorded run.
#[derive(Debug, Clone, PartialEq)]
pub struct UtilityRun {
    pub id: i64,
    pub operation_id: OperationId,
    pub task_id: Option<TaskId>,
    pub template: String,
    pub config: Value,
    pub status: UtilityRunStatus,
    pub output_tail: String,
    pub attempt: u32,
    pub dir: Option<String>,
    /// Where it was released: a folder, or a bot command (`/quiz`).
    pub released_to: Option<String>,
    pub released_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

type Row = (
    i64,
    i64,
    Option<i64>,
    String,
    Json<Value>,
    String,
    String,
    i64,
    Option<String>,
    Option<String>,
    Option<i64>,
    i64,
);

macro_rules! columns {
    () => {
        "id, operation_id, task_id, template, config, status, output_tail, attempt, dir, \
         released_to, released_at, created_at"
    };
}

fn run(row: Row) -> Result<UtilityRun, StoreError> {
    let (id, operation, task, template, config, status, tail, attempt, dir, to, at, created) = row;
    Ok(UtilityRun {
        id,
        operation_id: OperationId::new(operation),
        task_id: task.map(TaskId::new),
        template,
        config: config.0,
        status: status
            .parse()
            .map_err(|e: crate::domain::UnknownVariant| StoreError::Invalid(e.to_string()))?,
        output_tail: tail,
        attempt: u32::try_from(attempt).unwrap_or(u32::MAX),
        dir,
        released_to: to,
        released_at: from_opt_ms(at)?,
        created_at: from_ms(created)?,
    })
}

impl Store {
    /// Records a run; returns it.
    pub async fn record_utility_run(
        &self,
        new: &NewUtilityRun,
        now: DateTime<Utc>,
    ) -> Result<UtilityRun, StoreError> {
        let row: Row = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "INSERT INTO utility_runs (operation_id, task_id, template, config, status, \
                 output_tail, attempt, dir, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 RETURNING ",
                columns!()
            ))
            .bind(new.operation_id.get())
            .bind(new.task_id.map(TaskId::get))
            .bind(new.template.as_str())
            .bind(Json(&new.config))
            .bind(new.status.as_str())
            .bind(new.output_tail.as_str())
            .bind(i64::from(new.attempt))
            .bind(new.dir.as_deref())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        run(row)
    }

    /// The runs of one utility (an operation's task), oldest first.
    pub async fn utility_runs_of_task(
        &self,
        operation: OperationId,
        task: TaskId,
    ) -> Result<Vec<UtilityRun>, StoreError> {
        let rows: Vec<Row> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                columns!(),
                " FROM utility_runs WHERE operation_id = $1 AND task_id = $2 ORDER BY id"
            ))
            .bind(operation.get())
            .bind(task.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(run).collect()
    }

    /// The latest run of `template` in the operation, if any.
    pub async fn latest_utility_run(
        &self,
        operation: OperationId,
        template: &str,
    ) -> Result<Option<UtilityRun>, StoreError> {
        let row: Option<Row> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                columns!(),
                " FROM utility_runs WHERE operation_id = $1 AND template = $2 \
                 ORDER BY id DESC LIMIT 1"
            ))
            .bind(operation.get())
            .bind(template)
            .fetch_optional(pool)
            .await
        })?;
        row.map(run).transpose()
    }

    /// Marks a passed run released to `to`; false when it was released
    /// already (or is not a passed run).
    pub async fn mark_utility_released(
        &self,
        id: i64,
        to: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE utility_runs SET released_to = $1, released_at = $2 \
                 WHERE id = $3 AND status = 'passed' AND released_at IS NULL",
            )
            .bind(to)
            .bind(to_ms(now))
            .bind(id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
    }

    /// The released runs of an operation, latest release first (the bot
    /// commands and pages it serves).
    pub async fn released_utilities(
        &self,
        operation: OperationId,
    ) -> Result<Vec<UtilityRun>, StoreError> {
        let rows: Vec<Row> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                columns!(),
                " FROM utility_runs WHERE operation_id = $1 AND released_at IS NOT NULL \
                 ORDER BY released_at DESC, id DESC"
            ))
            .bind(operation.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(run).collect()
    }
}
