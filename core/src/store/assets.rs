//! Made files (the brand kit's images): one row per file, with its path
//! under the data folder, size and checksum, by operation and task.
//!
//! Crash semantics: a file is written before its row, so a row always
//! names a file on disk; a crash between the two leaves an orphan file
//! that nothing points to, and the step's rerun writes and records anew.

use chrono::{DateTime, Utc};

use super::time::{from_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{OperationId, TaskId};

/// A file to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAsset {
    pub operation_id: Option<OperationId>,
    pub task_id: Option<TaskId>,
    /// What it is (`preview`, `logo_512`, `banner`, `meme`, …).
    pub kind: String,
    /// Where the file is.
    pub path: String,
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    /// Its size in bytes.
    pub bytes: u64,
    /// Its SHA-256, lowercase hex.
    pub sha256: Option<String>,
}

/// A recorded file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    pub id: i64,
    pub operation_id: Option<OperationId>,
    pub task_id: Option<TaskId>,
    pub kind: String,
    pub path: String,
    pub mime: String,
    pub width: Option<u32>,
    pub height: Option<u32>,
    pub bytes: u64,
    pub sha256: Option<String>,
    pub created_at: DateTime<Utc>,
}

type AssetRow = (
    i64,
    Option<i64>,
    Option<i64>,
    String,
    String,
    String,
    Option<i64>,
    Option<i64>,
    i64,
    Option<String>,
    i64,
);

const COLUMNS: &str =
    "id, operation_id, task_id, kind, path, mime, width, height, bytes, sha256, created_at";

fn asset(row: AssetRow) -> Result<Asset, StoreError> {
    let (id, operation, task, kind, path, mime, width, height, bytes, sha256, at) = row;
    let dimension = |v: Option<i64>| v.and_then(|v| u32::try_from(v).ok());
    Ok(Asset {
        id,
        operation_id: operation.map(OperationId::new),
        task_id: task.map(TaskId::new),
        kind,
        path,
        mime,
        width: dimension(width),
        height: dimension(height),
        bytes: u64::try_from(bytes).unwrap_or(0),
        sha256,
        created_at: from_ms(at)?,
    })
}

impl Store {
    /// Records a file written under the data folder; its id.
    pub async fn insert_asset(
        &self,
        new: &NewAsset,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO assets (operation_id, task_id, kind, path, mime, width, height, \
                 bytes, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                 RETURNING id",
            )
            .bind(new.operation_id.map(OperationId::get))
            .bind(new.task_id.map(TaskId::get))
            .bind(new.kind.as_str())
            .bind(new.path.as_str())
            .bind(new.mime.as_str())
            .bind(new.width.map(i64::from))
            .bind(new.height.map(i64::from))
            .bind(i64::try_from(new.bytes).unwrap_or(i64::MAX))
            .bind(new.sha256.as_deref())
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(id)
    }

    /// An operation's files, oldest first.
    pub async fn assets_of_operation(&self, id: OperationId) -> Result<Vec<Asset>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM assets WHERE operation_id = $1 ORDER BY id");
        self.assets_where(sql, id.get()).await
    }

    /// The files a task made, oldest first.
    pub async fn assets_of_task(&self, id: TaskId) -> Result<Vec<Asset>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM assets WHERE task_id = $1 ORDER BY id");
        self.assets_where(sql, id.get()).await
    }

    async fn assets_where(&self, sql: String, id: i64) -> Result<Vec<Asset>, StoreError> {
        let rows: Vec<AssetRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(asset).collect()
    }
}
