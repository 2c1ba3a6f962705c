//! Playbook operations, and holding work: pausing, resuming and stopping an
//! operation or an objective. A paused operation or objective keeps its
//! tasks but starts none (see the ready queue in `tasks.rs`); stopping one
//! cancels every task of it that has not finished and withdraws its pending
//! validations, in one transaction.

use chrono::{DateTime, Utc};

use super::time::{from_ms, from_opt_ms, parse_text, predecessor_list, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    NewOperation, ObjectiveId, ObjectiveStatus, Operation, OperationId, OperationStatus, Task,
    TaskStatus, ValidationStatus,
};

const SELECT_OPERATION: &str = "SELECT id, name, token_symbol, chain, official_address, j0_at, \
     status, validation_required, created_at FROM operations WHERE id = $1";

#[derive(sqlx::FromRow)]
struct OperationRow {
    id: i64,
    name: String,
    token_symbol: Option<String>,
    chain: Option<String>,
    official_address: Option<String>,
    j0_at: Option<i64>,
    status: String,
    validation_required: bool,
    created_at: i64,
}

impl TryFrom<OperationRow> for Operation {
    type Error = StoreError;

    fn try_from(row: OperationRow) -> Result<Self, StoreError> {
        Ok(Operation {
            id: OperationId::new(row.id),
            name: row.name,
            token_symbol: row.token_symbol,
            chain: row.chain,
            official_address: row.official_address,
            j0_at: from_opt_ms(row.j0_at)?,
            status: parse_text("operation status", &row.status)?,
            validation_required: row.validation_required,
            created_at: from_ms(row.created_at)?,
        })
    }
}

/// What stopping cancelled.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stopped {
    pub tasks_cancelled: u64,
    pub validations_withdrawn: u64,
}

impl Store {
    /// Creates a `planned` operation.
    pub async fn create_operation(
        &self,
        new: &NewOperation,
        now: DateTime<Utc>,
    ) -> Result<Operation, StoreError> {
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO operations (name, token_symbol, chain, official_address, j0_at, \
                 status, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) \
                 RETURNING id",
            )
            .bind(new.name.as_str())
            .bind(new.token_symbol.as_deref())
            .bind(new.chain.as_deref())
            .bind(new.official_address.as_deref())
            .bind(to_ms(new.j0_at))
            .bind(OperationStatus::Planned.as_str())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        self.operation(OperationId::new(id)).await
    }

    /// The operation with this id.
    pub async fn operation(&self, id: OperationId) -> Result<Operation, StoreError> {
        let row: Option<OperationRow> = with_pool!(self, |pool| {
            sqlx::query_as(SELECT_OPERATION)
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "operation",
            id: id.get(),
        })?
        .try_into()
    }

    /// Moves an operation to `to` if its status allows it. Stopping goes
    /// through [`Store::stop_operation`], which also cancels its work.
    pub async fn set_operation_status(
        &self,
        id: OperationId,
        to: OperationStatus,
        now: DateTime<Utc>,
    ) -> Result<Operation, StoreError> {
        if to == OperationStatus::Stopped {
            self.stop_operation(id, now).await?;
            return self.operation(id).await;
        }
        let sql = format!(
            "UPDATE operations SET status = $1, updated_at = $2 WHERE id = $3 AND status IN ({})",
            predecessor_list(to)
        );
        let updated = with_pool!(self, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(to.as_str())
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.operation_refusal(id, to).await);
        }
        self.operation(id).await
    }

    /// Stops an operation for good: its unfinished tasks are cancelled (a
    /// running one loses its lease) and its pending validations withdrawn.
    pub async fn stop_operation(
        &self,
        id: OperationId,
        now: DateTime<Utc>,
    ) -> Result<Stopped, StoreError> {
        let stop = format!(
            "UPDATE operations SET status = $1, updated_at = $2 WHERE id = $3 AND status IN ({})",
            predecessor_list(OperationStatus::Stopped)
        );
        let cancel = format!(
            "UPDATE tasks SET status = $1, lease_owner = NULL, lease_expires_at = NULL, \
             completed_at = $2 WHERE operation_id = $3 AND status IN ({})",
            predecessor_list(TaskStatus::Cancelled)
        );
        let stopped = with_pool!(self, |pool| {
            let mut tx = pool.begin().await?;
            let updated = sqlx::query(sqlx::AssertSqlSafe(stop))
                .bind(OperationStatus::Stopped.as_str())
                .bind(to_ms(now))
                .bind(id.get())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            if updated == 0 {
                tx.rollback().await?;
                return Err(self.operation_refusal(id, OperationStatus::Stopped).await);
            }
            let tasks_cancelled = sqlx::query(sqlx::AssertSqlSafe(cancel))
                .bind(TaskStatus::Cancelled.as_str())
                .bind(to_ms(now))
                .bind(id.get())
                .execute(&mut *tx)
                .await?
                .rows_affected();
            let validations_withdrawn = sqlx::query(
                "UPDATE validations SET status = $1 WHERE operation_id = $2 AND status = $3",
            )
            .bind(ValidationStatus::Cancelled.as_str())
            .bind(id.get())
            .bind(ValidationStatus::Pending.as_str())
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            Ok::<_, StoreError>(Stopped {
                tasks_cancelled,
                validations_withdrawn,
            })
        })?;
        Ok(stopped)
    }

    /// Turns the team's validation of an operation's public outputs on or off.
    pub async fn set_validation_required(
        &self,
        id: OperationId,
        required: bool,
        now: DateTime<Utc>,
    ) -> Result<Operation, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE operations SET validation_required = $1, updated_at = $2 WHERE id = $3",
            )
            .bind(required)
            .bind(to_ms(now))
            .bind(id.get())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(StoreError::NotFound {
                kind: "operation",
                id: id.get(),
            });
        }
        self.operation(id).await
    }

    /// Every task of an operation, in id order.
    pub async fn tasks_of_operation(&self, id: OperationId) -> Result<Vec<Task>, StoreError> {
        self.tasks_where("operation_id", id.get()).await
    }

    /// Holds an objective: its tasks stay as they are, none starts.
    pub async fn pause_objective(
        &self,
        id: ObjectiveId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.set_objective_pause(id, Some(to_ms(now))).await
    }

    /// Lets a paused objective's tasks start again.
    pub async fn resume_objective(&self, id: ObjectiveId) -> Result<(), StoreError> {
        self.set_objective_pause(id, None).await
    }

    /// Stops an objective: cancelled, with every unfinished task of it.
    pub async fn stop_objective(
        &self,
        id: ObjectiveId,
        now: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        self.set_objective_status(
            id,
            ObjectiveStatus::Cancelled,
            super::ObjectiveUpdate::default(),
            now,
        )
        .await?;
        let cancel = format!(
            "UPDATE tasks SET status = $1, lease_owner = NULL, lease_expires_at = NULL, \
             completed_at = $2 WHERE objective_id = $3 AND status IN ({})",
            predecessor_list(TaskStatus::Cancelled)
        );
        let cancelled = with_pool!(self, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(cancel))
                .bind(TaskStatus::Cancelled.as_str())
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(cancelled)
    }

    async fn set_objective_pause(
        &self,
        id: ObjectiveId,
        paused_at: Option<i64>,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query("UPDATE objectives SET paused_at = $1 WHERE id = $2")
                .bind(paused_at)
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(StoreError::NotFound {
                kind: "objective",
                id: id.get(),
            });
        }
        Ok(())
    }

    async fn operation_refusal(&self, id: OperationId, to: OperationStatus) -> StoreError {
        match self.operation(id).await {
            Ok(current) => StoreError::illegal("operation", id.get(), current.status, to),
            Err(e) => e,
        }
    }
}
