//! The validation queue: approving writes the publication job in the same
//! transaction, so an output is published once however often it is approved.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{from_ms, from_opt_ms, parse_text, to_ms};

fn stored_count(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
use super::{Store, StoreError, with_pool};
use crate::domain::{
    NewValidation, OperationId, PublicationId, TaskId, Validation, ValidationId, ValidationStatus,
};

macro_rules! validation_columns {
    () => {
        "id, task_id, operation_id, kind, target, payload, status, decided_by, decided_at, \
         rejection_reason, created_at"
    };
}

const SELECT_VALIDATION: &str = concat!(
    "SELECT ",
    validation_columns!(),
    " FROM validations WHERE id = $1"
);

const DECIDE: &str = "UPDATE validations SET status = $1, decided_by = $2, decided_at = $3, \
     rejection_reason = $4 WHERE id = $5 AND status = $6";

const ENQUEUE_PUBLICATION: &str = "INSERT INTO publications (validation_id, operation_id, target, \
     account, payload, status, not_before, created_at) \
     SELECT id, operation_id, target, account, payload, $1, $2, $2 FROM validations WHERE id = $3 \
     RETURNING id";

#[derive(sqlx::FromRow)]
struct ValidationRow {
    id: i64,
    task_id: Option<i64>,
    operation_id: Option<i64>,
    kind: String,
    target: String,
    payload: Json<Value>,
    status: String,
    decided_by: Option<String>,
    decided_at: Option<i64>,
    rejection_reason: Option<String>,
    created_at: i64,
}

impl TryFrom<ValidationRow> for Validation {
    type Error = StoreError;

    fn try_from(row: ValidationRow) -> Result<Self, StoreError> {
        Ok(Validation {
            id: ValidationId::new(row.id),
            task_id: row.task_id.map(TaskId::new),
            operation_id: row.operation_id.map(OperationId::new),
            kind: parse_text("validation kind", &row.kind)?,
            target: parse_text("validation target", &row.target)?,
            payload: row.payload.0,
            status: parse_text("validation status", &row.status)?,
            decided_by: row.decided_by,
            decided_at: from_opt_ms(row.decided_at)?,
            rejection_reason: row.rejection_reason,
            created_at: from_ms(row.created_at)?,
        })
    }
}

impl Store {
    /// Puts a public output in the team's queue.
    pub async fn create_validation(
        &self,
        new: &NewValidation,
        now: DateTime<Utc>,
    ) -> Result<Validation, StoreError> {
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO validations (task_id, operation_id, kind, target, payload, status, \
                 created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
            )
            .bind(new.task_id.map(TaskId::get))
            .bind(new.operation_id.map(OperationId::get))
            .bind(new.kind.as_str())
            .bind(new.target.as_str())
            .bind(Json(&new.payload))
            .bind(ValidationStatus::Pending.as_str())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        self.validation(ValidationId::new(id)).await
    }

    /// The validation with this id.
    pub async fn validation(&self, id: ValidationId) -> Result<Validation, StoreError> {
        let row: Option<ValidationRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_VALIDATION)
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "validation",
            id: id.get(),
        })?
        .try_into()
    }

    /// Approves a pending validation and, in the same transaction, queues
    /// its publication. A second approval is refused and queues nothing.
    pub async fn approve_validation(
        &self,
        id: ValidationId,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<PublicationId, StoreError> {
        let publication: Option<i64> = with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let decided = sqlx::query(DECIDE)
                .bind(ValidationStatus::Approved.as_str())
                .bind(by)
                .bind(to_ms(now))
                .bind(None::<&str>)
                .bind(id.get())
                .bind(ValidationStatus::Pending.as_str())
                .execute(&mut *tx)
                .await?;
            if decided.rows_affected() == 0 {
                tx.rollback().await?;
                Ok::<_, StoreError>(None)
            } else {
                let publication: i64 = sqlx::query_scalar(ENQUEUE_PUBLICATION)
                    .bind(crate::domain::PublicationStatus::Pending.as_str())
                    .bind(to_ms(now))
                    .bind(id.get())
                    .fetch_one(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(Some(publication))
            }
        })?;
        match publication {
            Some(publication) => Ok(PublicationId::new(publication)),
            None => Err(self.refusal(id, ValidationStatus::Approved).await),
        }
    }

    /// Rejects a pending validation with the team's reason.
    pub async fn reject_validation(
        &self,
        id: ValidationId,
        by: &str,
        reason: &str,
        now: DateTime<Utc>,
    ) -> Result<Validation, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(DECIDE)
                .bind(ValidationStatus::Rejected.as_str())
                .bind(by)
                .bind(to_ms(now))
                .bind(Some(reason))
                .bind(id.get())
                .bind(ValidationStatus::Pending.as_str())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.refusal(id, ValidationStatus::Rejected).await);
        }
        self.validation(id).await
    }

    /// The validations a task produced, oldest first.
    pub async fn validations_of_task(&self, task: TaskId) -> Result<Vec<Validation>, StoreError> {
        self.validations_where(
            concat!(
                "SELECT ",
                validation_columns!(),
                " FROM validations WHERE task_id = $1 ORDER BY id"
            ),
            task.get(),
        )
        .await
    }

    /// The validations waiting for the team, oldest first.
    pub async fn pending_validations(&self) -> Result<Vec<Validation>, StoreError> {
        let rows: Vec<ValidationRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                validation_columns!(),
                " FROM validations WHERE status = $1 ORDER BY created_at, id"
            ))
            .bind(ValidationStatus::Pending.as_str())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Validation::try_from).collect()
    }

    /// Publication jobs in all, and those with no approved validation
    /// behind them (which must never exist while validation is required).
    pub async fn publication_counts(&self) -> Result<(u64, u64), StoreError> {
        let (total, unvalidated): (i64, i64) = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT COUNT(*), CAST(COALESCE(SUM(CASE WHEN v.id IS NULL OR v.status <> $1 \
                 THEN 1 ELSE 0 END), 0) AS BIGINT) \
                 FROM publications p LEFT JOIN validations v ON v.id = p.validation_id",
            )
            .bind(ValidationStatus::Approved.as_str())
            .fetch_one(pool)
            .await
        })?;
        Ok((stored_count(total), stored_count(unvalidated)))
    }

    /// Pending validations not shown to the team yet, oldest first.
    pub async fn unposted_validations(&self) -> Result<Vec<Validation>, StoreError> {
        let rows: Vec<ValidationRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                validation_columns!(),
                " FROM validations WHERE status = $1 AND message_id IS NULL ORDER BY id"
            ))
            .bind(ValidationStatus::Pending.as_str())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Validation::try_from).collect()
    }

    /// Records where a validation was shown (the message with its buttons).
    pub async fn set_validation_message(
        &self,
        id: ValidationId,
        chat_id: i64,
        message_id: i64,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE validations SET chat_id = $1, message_id = $2 WHERE id = $3")
                .bind(chat_id)
                .bind(message_id)
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Where a validation was shown, if it was.
    pub async fn validation_message(
        &self,
        id: ValidationId,
    ) -> Result<Option<(i64, i64)>, StoreError> {
        self.shown_at(
            "SELECT chat_id, message_id FROM validations WHERE id = $1",
            id.get(),
        )
        .await
    }

    /// The chat and message a record was shown in (`sql` selects both by id).
    pub(crate) async fn shown_at(
        &self,
        sql: &'static str,
        id: i64,
    ) -> Result<Option<(i64, i64)>, StoreError> {
        let row: Option<(Option<i64>, Option<i64>)> = with_pool!(self, |pool| {
            sqlx::query_as(sql).bind(id).fetch_optional(pool).await
        })?;
        Ok(row.and_then(|(chat, message)| Some((chat?, message?))))
    }

    async fn validations_where(
        &self,
        sql: &'static str,
        id: i64,
    ) -> Result<Vec<Validation>, StoreError> {
        let rows: Vec<ValidationRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql).bind(id).fetch_all(pool).await
        })?;
        rows.into_iter().map(Validation::try_from).collect()
    }

    async fn refusal(&self, id: ValidationId, to: ValidationStatus) -> StoreError {
        match self.validation(id).await {
            Ok(current) => StoreError::illegal("validation", id.get(), current.status, to),
            Err(e) => e,
        }
    }
}
