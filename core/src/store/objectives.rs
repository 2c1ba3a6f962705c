//! Objectives: what the organisation is asked to achieve.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{from_ms, from_opt_ms, parse_text, predecessor_list, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    NewObjective, Objective, ObjectiveId, ObjectiveStatus, OperationId, Priority, Status,
};

macro_rules! objective_columns {
    () => {
        "id, title, description, priority, status, source, team, operation_id, \
         parent_objective_id, source_agent, created_at, started_at, completed_at, result, error"
    };
}

const SELECT_OBJECTIVE: &str = concat!(
    "SELECT ",
    objective_columns!(),
    " FROM objectives WHERE id = $1"
);

const SELECT_BY_STATUS: &str = concat!(
    "SELECT ",
    objective_columns!(),
    " FROM objectives WHERE status = $1 ORDER BY priority DESC, id"
);

#[derive(sqlx::FromRow)]
struct ObjectiveRow {
    id: i64,
    title: String,
    description: String,
    priority: i64,
    status: String,
    source: String,
    team: Option<String>,
    operation_id: Option<i64>,
    parent_objective_id: Option<i64>,
    source_agent: Option<String>,
    created_at: i64,
    started_at: Option<i64>,
    completed_at: Option<i64>,
    result: Option<Json<Value>>,
    error: Option<String>,
}

impl TryFrom<ObjectiveRow> for Objective {
    type Error = StoreError;

    fn try_from(row: ObjectiveRow) -> Result<Self, StoreError> {
        Ok(Objective {
            id: ObjectiveId::new(row.id),
            title: row.title,
            description: row.description,
            priority: Priority::new(row.priority)
                .ok_or_else(|| StoreError::corrupt("objective priority", row.priority))?,
            status: parse_text("objective status", &row.status)?,
            source: parse_text("objective source", &row.source)?,
            team: row
                .team
                .as_deref()
                .map(|team| parse_text("objective team", team))
                .transpose()?,
            operation_id: row.operation_id.map(OperationId::new),
            parent: row.parent_objective_id.map(ObjectiveId::new),
            source_agent: row.source_agent,
            created_at: from_ms(row.created_at)?,
            started_at: from_opt_ms(row.started_at)?,
            completed_at: from_opt_ms(row.completed_at)?,
            result: row.result.map(|json| json.0),
            error: row.error,
        })
    }
}

/// What a status change also records.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectiveUpdate {
    /// The result, on completion.
    pub result: Option<Value>,
    /// The reason, on failure.
    pub error: Option<String>,
}

impl Store {
    /// Creates a `pending` objective.
    pub async fn create_objective(
        &self,
        new: &NewObjective,
        now: DateTime<Utc>,
    ) -> Result<Objective, StoreError> {
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO objectives (title, description, priority, status, source, team, \
                 operation_id, parent_objective_id, source_agent, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
            )
            .bind(new.title.as_str())
            .bind(new.description.as_str())
            .bind(new.priority.get())
            .bind(ObjectiveStatus::Pending.as_str())
            .bind(new.source.as_str())
            .bind(new.team.map(|team| team.as_str()))
            .bind(new.operation_id.map(OperationId::get))
            .bind(new.parent.map(ObjectiveId::get))
            .bind(new.source_agent.as_deref())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        self.objective(ObjectiveId::new(id)).await
    }

    /// The objective with this id.
    pub async fn objective(&self, id: ObjectiveId) -> Result<Objective, StoreError> {
        let row: Option<ObjectiveRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_OBJECTIVE)
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "objective",
            id: id.get(),
        })?
        .try_into()
    }

    /// Objectives in `status`, highest priority first.
    pub async fn objectives_with_status(
        &self,
        status: ObjectiveStatus,
    ) -> Result<Vec<Objective>, StoreError> {
        let rows: Vec<ObjectiveRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_BY_STATUS)
                .bind(status.as_str())
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(Objective::try_from).collect()
    }

    /// Objectives created since `since`, newest first, at most `limit`.
    pub async fn objectives_since(
        &self,
        since: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<Objective>, StoreError> {
        let sql = concat!(
            "SELECT ",
            objective_columns!(),
            " FROM objectives WHERE created_at >= $1 ORDER BY created_at DESC, id DESC LIMIT $2"
        );
        let rows: Vec<ObjectiveRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(to_ms(since))
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(Objective::try_from).collect()
    }

    /// Moves an objective to `to` if its current status allows it. Entering
    /// `in_progress` stamps `started_at` (once); a final status stamps
    /// `completed_at` and keeps the update's result or error.
    pub async fn set_objective_status(
        &self,
        id: ObjectiveId,
        to: ObjectiveStatus,
        update: ObjectiveUpdate,
        now: DateTime<Utc>,
    ) -> Result<Objective, StoreError> {
        let sql = format!(
            "UPDATE objectives SET status = $1, \
             started_at = CASE WHEN $2 THEN COALESCE(started_at, $3) ELSE started_at END, \
             completed_at = CASE WHEN $4 THEN $3 ELSE completed_at END, \
             result = COALESCE($5, result), error = COALESCE($6, error) \
             WHERE id = $7 AND status IN ({})",
            predecessor_list(to)
        );
        let updated = with_pool!(self, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(to.as_str())
                .bind(to == ObjectiveStatus::InProgress)
                .bind(to_ms(now))
                .bind(to.is_terminal())
                .bind(update.result.as_ref().map(Json))
                .bind(update.error.as_deref())
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            let current = self.objective(id).await?;
            return Err(StoreError::illegal(
                "objective",
                id.get(),
                current.status,
                to,
            ));
        }
        self.objective(id).await
    }
}
