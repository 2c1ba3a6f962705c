//! Playbook operations, and holding work: pausing, resuming and stopping an
//! operation or an objective. A paused operation or objective keeps its
//! tasks but starts none (see the ready queue in `tasks.rs`); stopping one
//! cancels every task of it that has not finished and withdraws its pending
//! validations, in one transaction.

use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::time::{from_ms, from_opt_ms, parse_text, predecessor_list, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    NewOperation, ObjectiveId, ObjectiveStatus, Operation, OperationId, OperationStatus, Task,
    TaskStatus, ValidationStatus,
};

macro_rules! operation_columns {
    () => {
        "id, name, token_symbol, chain, official_address, official_addresses, site_subdomain, \
         j0_at, status, validation_required, created_at"
    };
}

const SELECT_OPERATION: &str = concat!(
    "SELECT ",
    operation_columns!(),
    " FROM operations WHERE id = $1"
);

/// The statuses of an operation that holds its contract, groups and accounts.
const LIVE: &str = "('planned','running','paused')";

#[derive(sqlx::FromRow)]
struct OperationRow {
    id: i64,
    name: String,
    token_symbol: Option<String>,
    chain: Option<String>,
    official_address: Option<String>,
    official_addresses: Json<Vec<String>>,
    site_subdomain: Option<String>,
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
            official_addresses: row.official_addresses.0,
            site_subdomain: row.site_subdomain,
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
    /// Creates a `planned` operation. A contract already in a live
    /// operation (planned, running or paused) is refused with
    /// [`StoreError::Taken`], also when two starts race (a unique index).
    pub async fn create_operation(
        &self,
        new: &NewOperation,
        now: DateTime<Utc>,
    ) -> Result<Operation, StoreError> {
        if let (Some(chain), Some(address)) = (&new.chain, &new.official_address)
            && let Some(live) = self.live_operation_for(chain, address).await?
        {
            return Err(StoreError::Taken {
                what: "contract",
                operation: live.id.get(),
            });
        }
        let mut official = new.official_addresses.clone();
        if let Some(contract) = &new.official_address
            && !official.iter().any(|a| a.eq_ignore_ascii_case(contract))
        {
            official.insert(0, contract.clone());
        }
        let inserted: Result<i64, sqlx::Error> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO operations (name, token_symbol, chain, official_address, \
                 official_addresses, j0_at, status, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
            )
            .bind(new.name.as_str())
            .bind(new.token_symbol.as_deref())
            .bind(new.chain.as_deref())
            .bind(new.official_address.as_deref())
            .bind(Json(&official))
            .bind(to_ms(new.j0_at))
            .bind(OperationStatus::Planned.as_str())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        });
        let id = match inserted {
            Ok(id) => id,
            Err(sqlx::Error::Database(e)) if e.is_unique_violation() => {
                let live = match (&new.chain, &new.official_address) {
                    (Some(chain), Some(address)) => self.live_operation_for(chain, address).await?,
                    _ => None,
                };
                return Err(StoreError::Taken {
                    what: "contract",
                    operation: live.map_or(0, |o| o.id.get()),
                });
            }
            Err(other) => return Err(other.into()),
        };
        self.operation(OperationId::new(id)).await
    }

    /// The live operation (planned, running or paused) of this contract.
    pub async fn live_operation_for(
        &self,
        chain: &str,
        address: &str,
    ) -> Result<Option<Operation>, StoreError> {
        let sql = format!(
            "SELECT {} FROM operations WHERE chain = $1 AND lower(official_address) = lower($2) \
             AND status IN {LIVE}",
            operation_columns!()
        );
        let row: Option<OperationRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(chain)
                .bind(address)
                .fetch_optional(pool)
                .await
        })?;
        row.map(Operation::try_from).transpose()
    }

    /// Every operation, newest first.
    pub async fn operations(&self) -> Result<Vec<Operation>, StoreError> {
        let rows: Vec<OperationRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                operation_columns!(),
                " FROM operations ORDER BY id DESC"
            ))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Operation::try_from).collect()
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

    /// Records the subdomain an operation's site goes live under.
    pub async fn set_site_subdomain(
        &self,
        id: OperationId,
        subdomain: &str,
        now: DateTime<Utc>,
    ) -> Result<Operation, StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE operations SET site_subdomain = $1, updated_at = $2 WHERE id = $3")
                .bind(subdomain)
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
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
