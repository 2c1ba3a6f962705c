//! Operation files: versioned JSON, one section per agent. Writing a section
//! adds a version; nothing is overwritten.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{count, from_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{OperationFile, OperationId, TaskId};

#[derive(sqlx::FromRow)]
struct FileRow {
    operation_id: Option<i64>,
    section: String,
    version: i64,
    content: Json<Value>,
    author_agent: String,
    task_id: Option<i64>,
    created_at: i64,
}

impl FileRow {
    fn into_file(self) -> Result<OperationFile, StoreError> {
        let row = self;
        Ok(OperationFile {
            operation_id: row.operation_id.map(OperationId::new),
            section: row.section,
            version: count("operation file version", row.version)?,
            content: row.content.0,
            author_agent: row.author_agent,
            task_id: row.task_id.map(TaskId::new),
            created_at: from_ms(row.created_at)?,
        })
    }
}

impl Store {
    /// The latest version of a section, if any was written.
    pub async fn latest_section(
        &self,
        operation: Option<OperationId>,
        section: &str,
    ) -> Result<Option<OperationFile>, StoreError> {
        let row: Option<FileRow> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT operation_id, section, version, content, author_agent, task_id, created_at \
                 FROM operation_files WHERE operation_id IS NOT DISTINCT FROM $1 AND section = $2 \
                 ORDER BY version DESC LIMIT 1",
            )
            .bind(operation.map(OperationId::get))
            .bind(section)
            .fetch_optional(pool)
            .await
        })?;
        row.map(FileRow::into_file).transpose()
    }

    /// Writes a new version of a section and returns it. Concurrent writers
    /// cannot produce the same version (a unique key refuses the second).
    pub async fn write_section(
        &self,
        operation: Option<OperationId>,
        section: &str,
        content: &Value,
        author_agent: &str,
        task: Option<TaskId>,
        now: DateTime<Utc>,
    ) -> Result<OperationFile, StoreError> {
        let version: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO operation_files (operation_id, section, version, content, \
                 author_agent, task_id, created_at) \
                 SELECT $1, $2, COALESCE(MAX(version), 0) + 1, $3, $4, $5, $6 \
                 FROM operation_files WHERE operation_id IS NOT DISTINCT FROM $1 AND section = $2 \
                 RETURNING version",
            )
            .bind(operation.map(OperationId::get))
            .bind(section)
            .bind(Json(content))
            .bind(author_agent)
            .bind(task.map(TaskId::get))
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(OperationFile {
            operation_id: operation,
            section: section.to_owned(),
            version: count("operation file version", version)?,
            content: content.clone(),
            author_agent: author_agent.to_owned(),
            task_id: task,
            created_at: from_ms(to_ms(now))?,
        })
    }
}
