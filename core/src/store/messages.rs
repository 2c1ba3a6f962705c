//! Model exchanges, kept whole so a run can be replayed.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{count, parse_text, stored, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{StoredMessage, TaskId};

#[derive(sqlx::FromRow)]
struct MessageRow {
    task_id: i64,
    turn: i64,
    role: String,
    content: Option<String>,
    tool_calls: Option<Json<Value>>,
    tool_call_id: Option<String>,
    model: Option<String>,
    tokens_in: i64,
    tokens_out: i64,
    usage_estimated: bool,
}

impl Store {
    /// Appends one message of a task's exchange.
    pub async fn append_message(
        &self,
        message: &StoredMessage,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO messages (task_id, turn, role, content, tool_calls, tool_call_id, \
                 model, tokens_in, tokens_out, usage_estimated, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .bind(message.task_id.get())
            .bind(stored(message.turn))
            .bind(message.role.as_str())
            .bind(message.content.as_deref())
            .bind(message.tool_calls.as_ref().map(Json))
            .bind(message.tool_call_id.as_deref())
            .bind(message.model.as_deref())
            .bind(stored(message.tokens_in))
            .bind(stored(message.tokens_out))
            .bind(message.usage_estimated)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|_| ())
        })?;
        Ok(())
    }

    /// A task's messages in the order they were exchanged.
    pub async fn messages_of_task(&self, task: TaskId) -> Result<Vec<StoredMessage>, StoreError> {
        let rows: Vec<MessageRow> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT task_id, turn, role, content, tool_calls, tool_call_id, model, tokens_in, \
                 tokens_out, usage_estimated FROM messages WHERE task_id = $1 ORDER BY id",
            )
            .bind(task.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|row| {
                Ok(StoredMessage {
                    task_id: TaskId::new(row.task_id),
                    turn: count("message turn", row.turn)?,
                    role: parse_text("message role", &row.role)?,
                    content: row.content,
                    tool_calls: row.tool_calls.map(|json| json.0),
                    tool_call_id: row.tool_call_id,
                    model: row.model,
                    tokens_in: count("message tokens_in", row.tokens_in)?,
                    tokens_out: count("message tokens_out", row.tokens_out)?,
                    usage_estimated: row.usage_estimated,
                })
            })
            .collect()
    }
}
