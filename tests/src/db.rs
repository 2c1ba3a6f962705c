//! Fresh databases for tests: an SQLite file in a temporary folder, or a
//! new schema on the PostgreSQL server named by `ULIAS_TEST_POSTGRES_URL`.
//! Either is dropped when the [`TestDb`] is.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::postgres::PgPool;
use sqlx::sqlite::SqlitePool;
use tempfile::TempDir;
use ulias_core::store::Store;

/// The variable naming the PostgreSQL server for the PostgreSQL half of the suite.
pub const POSTGRES_URL_VAR: &str = "ULIAS_TEST_POSTGRES_URL";

/// A fresh, empty (unmigrated) database and a store on it.
pub struct TestDb {
    /// The store under test.
    pub store: Store,
    /// The URL the store was opened with (to open more handles on it).
    pub url: String,
    raw: RawPool,
    cleanup: Cleanup,
    /// The folder for the files the organisation makes (`data_dir`).
    files: TempDir,
}

enum RawPool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

enum Cleanup {
    Folder(#[allow(dead_code)] TempDir),
    Schema { admin_url: String, schema: String },
}

impl TestDb {
    /// A fresh SQLite file.
    pub async fn sqlite() -> Self {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", folder.path().join("ulias.db").display());
        let store = Store::connect(&url, 4).await.unwrap();
        let raw = SqlitePool::connect(&url).await.unwrap();
        Self {
            store,
            url,
            raw: RawPool::Sqlite(raw),
            cleanup: Cleanup::Folder(folder),
            files: tempfile::tempdir().unwrap(),
        }
    }

    /// A fresh schema on the test PostgreSQL server, or `None` when
    /// `ULIAS_TEST_POSTGRES_URL` is not set.
    #[allow(clippy::disallowed_methods)] // tests are configured by their environment
    pub async fn postgres() -> Option<Self> {
        let admin_url = std::env::var(POSTGRES_URL_VAR).ok()?;
        let schema = unique_schema_name();
        let admin = PgPool::connect(&admin_url).await.unwrap();
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
            .execute(&admin)
            .await
            .unwrap();
        admin.close().await;
        let mut url = url::Url::parse(&admin_url).unwrap();
        url.query_pairs_mut()
            .append_pair("options", &format!("-c search_path={schema}"));
        let url = url.to_string();
        let store = Store::connect(&url, 4).await.unwrap();
        let raw = PgPool::connect(&url).await.unwrap();
        Some(Self {
            store,
            url,
            raw: RawPool::Postgres(raw),
            cleanup: Cleanup::Schema { admin_url, schema },
            files: tempfile::tempdir().unwrap(),
        })
    }

    /// A folder of its own for made files (sites…), gone with the database.
    pub fn files(&self) -> &std::path::Path {
        self.files.path()
    }

    /// The same database through a new pool, as a second process would see it.
    pub async fn another_store(&self) -> Store {
        Store::connect(&self.url, 4).await.unwrap()
    }

    /// Runs raw SQL, bypassing the store; returns the rows affected.
    pub async fn execute(&self, sql: &str) -> Result<u64, sqlx::Error> {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        match &self.raw {
            RawPool::Sqlite(pool) => sqlx::query(sql)
                .execute(pool)
                .await
                .map(|r| r.rows_affected()),
            RawPool::Postgres(pool) => sqlx::query(sql)
                .execute(pool)
                .await
                .map(|r| r.rows_affected()),
        }
    }

    /// Runs a raw query returning one integer.
    pub async fn scalar(&self, sql: &str) -> i64 {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        match &self.raw {
            RawPool::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await.unwrap(),
            RawPool::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await.unwrap(),
        }
    }

    /// The names of the tables in the database, sorted.
    pub async fn tables(&self) -> Vec<String> {
        let mut names: Vec<String> = match &self.raw {
            RawPool::Sqlite(pool) => sqlx::query_scalar(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            )
            .fetch_all(pool)
            .await
            .unwrap(),
            RawPool::Postgres(pool) => sqlx::query_scalar(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = current_schema()",
            )
            .fetch_all(pool)
            .await
            .unwrap(),
        };
        names.sort();
        names
    }

    /// The store, migrated.
    pub async fn migrated(&self) -> &Store {
        self.store.migrate().await.unwrap();
        &self.store
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let Cleanup::Schema { admin_url, schema } = &self.cleanup else {
            return;
        };
        let (admin_url, schema) = (admin_url.clone(), schema.clone());
        // Drop cannot await: drop the schema from a thread with its own runtime.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let admin = PgPool::connect(&admin_url).await?;
                sqlx::query(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
                    .execute(&admin)
                    .await?;
                admin.close().await;
                Ok::<(), sqlx::Error>(())
            })?;
            Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
        })
        .join();
        if !matches!(dropped, Ok(Ok(()))) {
            eprintln!("warning: could not drop test schema");
        }
    }
}

fn unique_schema_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    #[allow(clippy::disallowed_methods)] // only to keep schema names unique across runs
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!(
        "ulias_test_{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Generates, for each named test function `name(&TestDb)` of the calling
/// file, one test per backend: `sqlite::name` always, `postgres::name` when
/// [`POSTGRES_URL_VAR`] is set (skipped with a note otherwise).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),+ $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let db = $crate::db::TestDb::sqlite().await;
                    super::$name(&db).await;
                }
            )+
        }
        mod postgres {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $name() {
                    let Some(db) = $crate::db::TestDb::postgres().await else {
                        eprintln!("skipped: {} is not set", $crate::db::POSTGRES_URL_VAR);
                        return;
                    };
                    super::$name(&db).await;
                }
            )+
        }
    };
}
