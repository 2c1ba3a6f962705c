//! What an operation owns besides its tasks: its community groups and its
//! X accounts. A group or an account belongs to one live operation at a
//! time (the primary key holds one row each); binding it to another is
//! refused while the first operation lives, and allowed once it ended.
//! Publishers and the group guard read these, never a payload's words.

use chrono::{DateTime, Utc};

use super::time::to_ms;
use super::{Store, StoreError, with_pool};
use crate::domain::{Operation, OperationId, OperationStatus};

/// Which resource table, and the words a refusal uses.
#[derive(Clone, Copy)]
enum Resource {
    Group,
    Account,
}

impl Resource {
    const fn what(self) -> &'static str {
        match self {
            Self::Group => "group",
            Self::Account => "account",
        }
    }

    const fn owner_sql(self) -> &'static str {
        match self {
            Self::Group => "SELECT operation_id FROM operation_groups WHERE chat_id = $1",
            Self::Account => "SELECT operation_id FROM operation_accounts WHERE account = $1",
        }
    }
}

impl Store {
    /// Binds a community group to an operation (a team member's `/bind`,
    /// or the settings). Binding it again to the same operation is a no-op.
    pub async fn bind_group(
        &self,
        chat_id: i64,
        operation: OperationId,
        by: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let holder: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(Resource::Group.owner_sql())
                .bind(chat_id)
                .fetch_optional(pool)
                .await
        })?;
        self.refuse_if_held(Resource::Group, holder, operation)
            .await?;
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO operation_groups (chat_id, operation_id, bound_by, bound_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (chat_id) DO UPDATE SET \
                 operation_id = excluded.operation_id, bound_by = excluded.bound_by, \
                 bound_at = excluded.bound_at",
            )
            .bind(chat_id)
            .bind(operation.get())
            .bind(by)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Binds an X account to an operation: its posts go out from it only.
    pub async fn bind_account(
        &self,
        account: &str,
        operation: OperationId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let holder: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(Resource::Account.owner_sql())
                .bind(account)
                .fetch_optional(pool)
                .await
        })?;
        self.refuse_if_held(Resource::Account, holder, operation)
            .await?;
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO operation_accounts (account, operation_id, bound_at) \
                 VALUES ($1, $2, $3) ON CONFLICT (account) DO UPDATE SET \
                 operation_id = excluded.operation_id, bound_at = excluded.bound_at",
            )
            .bind(account)
            .bind(operation.get())
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The operation a group is bound to, if any (ended ones included:
    /// the group keeps its official addresses after the operation).
    pub async fn operation_of_group(&self, chat_id: i64) -> Result<Option<Operation>, StoreError> {
        let id: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(Resource::Group.owner_sql())
                .bind(chat_id)
                .fetch_optional(pool)
                .await
        })?;
        match id {
            Some(id) => Ok(Some(self.operation(OperationId::new(id)).await?)),
            None => Ok(None),
        }
    }

    /// The operation an X account is bound to, if any.
    pub async fn operation_of_account(
        &self,
        account: &str,
    ) -> Result<Option<Operation>, StoreError> {
        let id: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(Resource::Account.owner_sql())
                .bind(account)
                .fetch_optional(pool)
                .await
        })?;
        match id {
            Some(id) => Ok(Some(self.operation(OperationId::new(id)).await?)),
            None => Ok(None),
        }
    }

    /// The community groups of an operation, in chat id order.
    pub async fn groups_of_operation(&self, id: OperationId) -> Result<Vec<i64>, StoreError> {
        let groups = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT chat_id FROM operation_groups WHERE operation_id = $1 ORDER BY chat_id",
            )
            .bind(id.get())
            .fetch_all(pool)
            .await
        })?;
        Ok(groups)
    }

    /// The X accounts of an operation, by name.
    pub async fn accounts_of_operation(&self, id: OperationId) -> Result<Vec<String>, StoreError> {
        let accounts = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT account FROM operation_accounts WHERE operation_id = $1 ORDER BY account",
            )
            .bind(id.get())
            .fetch_all(pool)
            .await
        })?;
        Ok(accounts)
    }

    /// Refuses a resource held by another operation that is still live.
    async fn refuse_if_held(
        &self,
        resource: Resource,
        holder: Option<i64>,
        wanted: OperationId,
    ) -> Result<(), StoreError> {
        let Some(holder) = holder.filter(|h| *h != wanted.get()) else {
            return Ok(());
        };
        let holder = self.operation(OperationId::new(holder)).await?;
        if matches!(
            holder.status,
            OperationStatus::Stopped | OperationStatus::Completed
        ) {
            return Ok(());
        }
        Err(StoreError::Taken {
            what: resource.what(),
            operation: holder.id.get(),
        })
    }
}
