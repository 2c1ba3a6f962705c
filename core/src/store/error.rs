//! What can go wrong in the store, typed where callers branch on it.

use crate::domain::TaskId;

/// A store failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The database could not be opened.
    #[error("cannot open the database at {url}")]
    Connect {
        /// The URL, password redacted.
        url: String,
        /// Why.
        source: sqlx::Error,
    },
    /// Applying the migrations failed.
    #[error("database migration failed")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// No record with that id.
    #[error("{kind} #{id} does not exist")]
    NotFound {
        /// What was looked for (`task`, `decision`, …).
        kind: &'static str,
        /// The id asked for.
        id: i64,
    },
    /// The record exists but its status does not allow the change.
    #[error("{kind} #{id} cannot go from {from} to {to}")]
    IllegalTransition {
        /// The record's kind.
        kind: &'static str,
        /// Its id.
        id: i64,
        /// Its current status.
        from: String,
        /// The status asked for.
        to: String,
    },
    /// A worker acted on a task it no longer holds (its lease expired and
    /// the task went back to the queue, or another worker has it).
    #[error("task #{id} is no longer held by worker `{worker}`")]
    LeaseLost {
        /// The task.
        id: TaskId,
        /// The worker that thought it held it.
        worker: String,
    },
    /// Another live operation already holds it: a contract, a community
    /// group or an X account belongs to one live operation at a time.
    #[error("{what} already belongs to operation #{operation}")]
    Taken {
        /// What was asked for (`contract`, `group`, `account`).
        what: &'static str,
        /// The operation that holds it.
        operation: i64,
    },
    /// The caller asked for something the records cannot hold.
    #[error("invalid request: {0}")]
    Invalid(String),
    /// A stored value does not parse (a hand-edited row, or a newer schema).
    #[error("stored {what} is invalid: {detail}")]
    Corrupt {
        /// Which value.
        what: &'static str,
        /// What is wrong with it.
        detail: String,
    },
    /// Any other database error.
    #[error("database error")]
    Database(#[from] sqlx::Error),
}

impl StoreError {
    /// A record of `kind` whose status `from` does not allow `to`.
    pub(crate) fn illegal(
        kind: &'static str,
        id: i64,
        from: impl ToString,
        to: impl ToString,
    ) -> Self {
        Self::IllegalTransition {
            kind,
            id,
            from: from.to_string(),
            to: to.to_string(),
        }
    }

    pub(crate) fn corrupt(what: &'static str, detail: impl ToString) -> Self {
        Self::Corrupt {
            what,
            detail: detail.to_string(),
        }
    }
}
