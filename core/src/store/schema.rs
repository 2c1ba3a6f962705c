//! Migrations: one folder per backend under `migrations/`, embedded in the
//! binary so a deployed `ulias` needs no files beside it.

use sqlx::migrate::Migrator;

use super::{Store, StoreError, with_pool};

static SQLITE: Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES: Migrator = sqlx::migrate!("../migrations/postgres");

/// What a call to [`Store::migrate`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationReport {
    /// Descriptions of the migrations applied by this call, in order.
    pub applied_now: Vec<String>,
    /// How many migrations the database has in all, after this call.
    pub total: usize,
}

impl Store {
    /// Brings the schema up to date. Running it again changes nothing.
    pub async fn migrate(&self) -> Result<MigrationReport, StoreError> {
        let before = self.applied_versions().await?;
        let migrator = match self.backend_kind() {
            super::BackendKind::Sqlite => &SQLITE,
            super::BackendKind::Postgres => &POSTGRES,
        };
        with_pool!(self, |pool| migrator.run(pool).await)?;
        let applied_now = migrator
            .iter()
            .filter(|m| !before.contains(&m.version))
            .map(|m| format!("{} {}", m.version, m.description))
            .collect();
        Ok(MigrationReport {
            applied_now,
            total: migrator.iter().count(),
        })
    }

    /// Versions already recorded in sqlx's bookkeeping table (none on a new database).
    async fn applied_versions(&self) -> Result<Vec<i64>, StoreError> {
        let result: Result<Vec<i64>, sqlx::Error> = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
                .fetch_all(pool)
                .await
        });
        match result {
            Ok(versions) => Ok(versions),
            // The bookkeeping table does not exist before the first migration.
            Err(sqlx::Error::Database(e)) if is_missing_table(e.message()) => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    }
}

fn is_missing_table(message: &str) -> bool {
    message.contains("no such table") || message.contains("does not exist")
}
