//! The store: one API over SQLite (the embedded default) and PostgreSQL
//! (several processes sharing one queue).
//!
//! SQL is written once where both backends agree (`$N` placeholders,
//! `RETURNING`, integer epoch-millisecond times, JSON bound as
//! [`sqlx::types::Json`]) and once per backend where they do not (claiming a
//! task uses `FOR UPDATE SKIP LOCKED` on PostgreSQL). The [`with_pool!`]
//! macro runs the same code against whichever pool is open.

mod ab_tests;
mod answers;
mod asset_files;
mod assets;
mod decisions;
mod error;
mod incidents;
mod learning;
mod ledger;
mod lessons;
mod messages;
mod metrics;
mod objectives;
mod operation_files;
mod operation_resources;
mod operations;
mod org_reads;
mod polls;
mod profile;
mod proposals;
mod publications;
mod pushes;
mod read_only;
mod report;
mod schedules;
mod schema;
mod spam;
mod surface;
mod tasks;
mod time;
mod utility_runs;
mod validations;
mod x_accounts;

use std::str::FromStr;
use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

pub use ab_tests::{AbTest, PromptVersion};
pub use asset_files::AssetFile;
pub use assets::{Asset, NewAsset};
pub use decisions::TIMEOUT_RESPONDER;
pub use error::StoreError;
pub use incidents::{Event, Incident, ServiceCheck};
pub use learning::{LEARNED_BY, Learned, LearnedHam};
pub use metrics::Counts;
pub use objectives::ObjectiveUpdate;
pub use operations::Stopped;
pub use org_reads::{AgentFigures, TaskFilter};
pub use polls::{NewPoll, NewVoteOutcome, Poll, VoteOutcome};
pub use profile::ProfileObservation;
pub use pushes::{NewPush, Push, PushAction, PushKind, PushPayload, PushStatus};
pub use read_only::{QueryRows, Refused, SECRET_NAMES, check_select};
pub use report::{DayFigures, DayPoint};
pub use schema::MigrationReport;
pub use spam::{GroupMember, OpenCaptcha, SpamSample};
pub use surface::{ActorRole, AuditEntry, Interaction, NewInteraction, ProgressMessage};
pub use tasks::{ExpiredLeases, Progress};
pub use utility_runs::{NewUtilityRun, UtilityRun, UtilityRunStatus};
pub use x_accounts::{Sealed, XAccount, XPause};

/// Runs `$body` with `$pool` bound to the open pool, whichever backend it is.
/// The body is compiled once per backend, so it must type-check on both.
macro_rules! with_pool {
    ($store:expr, |$pool:ident| $body:expr) => {
        match &$store.backend {
            $crate::store::Backend::Sqlite($pool) => $body,
            $crate::store::Backend::Postgres($pool) => $body,
        }
    };
}
pub(crate) use with_pool;

/// Which database engine a [`Store`] talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BackendKind {
    /// An SQLite file (WAL mode, foreign keys on).
    Sqlite,
    /// A PostgreSQL server.
    Postgres,
}

impl BackendKind {
    /// The backend a database URL names: PostgreSQL for `postgres://` and
    /// `postgresql://`, SQLite otherwise (`sqlite://file.db`, `sqlite::memory:`).
    pub fn of_url(url: &str) -> Self {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Self::Postgres
        } else {
            Self::Sqlite
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Backend {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A handle to the database. Cheap to clone; clones share the pool.
#[derive(Debug, Clone)]
pub struct Store {
    pub(crate) backend: Backend,
}

/// How long a connection waits for SQLite's write lock before giving up.
const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(10);

impl Store {
    /// Opens the database at `url` with at most `max_connections`
    /// connections. An SQLite file is created when missing. Does not migrate.
    pub async fn connect(url: &str, max_connections: u32) -> Result<Self, StoreError> {
        let connect_error = |source| StoreError::Connect {
            url: redact_url(url),
            source,
        };
        let backend = match BackendKind::of_url(url) {
            BackendKind::Postgres => {
                let options = PgConnectOptions::from_str(url).map_err(connect_error)?;
                // One direct attempt first: a pool would hide why it failed
                // (refused, bad password) behind "timed out".
                options
                    .connect()
                    .await
                    .map_err(connect_error)?
                    .close()
                    .await
                    .map_err(connect_error)?;
                let pool = PgPoolOptions::new()
                    .max_connections(max_connections)
                    .connect_with(options)
                    .await
                    .map_err(connect_error)?;
                Backend::Postgres(pool)
            }
            BackendKind::Sqlite => {
                let in_memory = url.contains(":memory:") || url.contains("mode=memory");
                let mut options = SqliteConnectOptions::from_str(url)
                    .map_err(connect_error)?
                    .create_if_missing(true)
                    .foreign_keys(true)
                    .busy_timeout(SQLITE_BUSY_TIMEOUT);
                if !in_memory {
                    options = options.journal_mode(SqliteJournalMode::Wal);
                }
                // Each connection to `:memory:` would be its own empty database.
                let connections = if in_memory { 1 } else { max_connections };
                let pool = SqlitePoolOptions::new()
                    .max_connections(connections)
                    .connect_with(options)
                    .await
                    .map_err(connect_error)?;
                Backend::Sqlite(pool)
            }
        };
        Ok(Self { backend })
    }

    /// Which engine this store runs on.
    pub fn backend_kind(&self) -> BackendKind {
        match self.backend {
            Backend::Sqlite(_) => BackendKind::Sqlite,
            Backend::Postgres(_) => BackendKind::Postgres,
        }
    }

    /// Closes every connection, waiting for queries in flight.
    pub async fn close(&self) {
        with_pool!(self, |pool| pool.close().await)
    }
}

/// The URL with any password replaced by `***`, safe for logs and errors.
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            // Setting a password only fails for URLs that cannot hold one.
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_their_backend() {
        assert_eq!(
            BackendKind::of_url("postgres://u@h/db"),
            BackendKind::Postgres
        );
        assert_eq!(
            BackendKind::of_url("postgresql://u@h/db"),
            BackendKind::Postgres
        );
        assert_eq!(
            BackendKind::of_url("sqlite://ulias.db"),
            BackendKind::Sqlite
        );
    }

    #[test]
    fn passwords_never_reach_error_messages() {
        assert_eq!(
            redact_url("postgres://ulias:hunter2@db:5432/ulias"),
            "postgres://ulias:***@db:5432/ulias"
        );
        assert_eq!(redact_url("sqlite://ulias.db"), "sqlite://ulias.db");
    }
}
