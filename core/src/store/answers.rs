//! Where each CEO objective's answer went, and how a later message finds
//! the objective it continues (a reply to its confirmation or its answer);
//! and the tasks whose answers someone waits for (group questions).
//!
//! The answer is sent, then recorded: a crash between the two sends it once
//! more after the restart (the CEO reads it twice rather than never).

use chrono::{DateTime, Utc};

use super::surface::{ProgressMessage, progress_rows};
use super::time::{from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{ObjectiveId, ObjectiveStatus, Task, TaskStatus};

impl Store {
    /// Objectives created since `since` whose confirmation is in a chat,
    /// that reached a final status and whose answer was not sent yet.
    pub async fn unanswered_objectives(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Vec<ProgressMessage>, StoreError> {
        let rows: Vec<(i64, String, String, i64, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, title, status, progress_chat_id, progress_message_id FROM objectives \
                 WHERE progress_message_id IS NOT NULL AND answered_at IS NULL \
                 AND status IN ($1, $2, $3) AND created_at >= $4 ORDER BY id",
            )
            .bind(ObjectiveStatus::Completed.as_str())
            .bind(ObjectiveStatus::Failed.as_str())
            .bind(ObjectiveStatus::Cancelled.as_str())
            .bind(to_ms(since))
            .fetch_all(pool)
            .await
        })?;
        progress_rows(rows)
    }

    /// Tasks of `kind` completed since `since`, oldest first.
    pub async fn completed_tasks_of_kind(
        &self,
        kind: &str,
        since: DateTime<Utc>,
    ) -> Result<Vec<Task>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT id FROM tasks WHERE kind = $1 AND status = $2 AND completed_at >= $3 \
                 ORDER BY completed_at, id",
            )
            .bind(kind)
            .bind(TaskStatus::Completed.as_str())
            .bind(to_ms(since))
            .fetch_all(pool)
            .await
        })?;
        self.tasks_with_ids(ids).await
    }

    /// Whether the objective was confirmed in a chat (its answer goes there).
    pub async fn shown_in_chat(&self, id: ObjectiveId) -> Result<bool, StoreError> {
        let shown: Option<Option<i64>> = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT progress_message_id FROM objectives WHERE id = $1")
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        Ok(shown.flatten().is_some())
    }

    /// Records that the objective's answer is message `message_id` of its chat.
    pub async fn record_answer(
        &self,
        id: ObjectiveId,
        message_id: i64,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE objectives SET answer_message_id = $1, answered_at = $2 WHERE id = $3",
            )
            .bind(message_id)
            .bind(to_ms(now))
            .bind(id.get())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The objective whose confirmation or answer is message `message_id`
    /// of `chat_id`.
    pub async fn objective_at_message(
        &self,
        chat_id: i64,
        message_id: i64,
    ) -> Result<Option<ObjectiveId>, StoreError> {
        let id: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT id FROM objectives WHERE progress_chat_id = $1 \
                 AND (progress_message_id = $2 OR answer_message_id = $2) ORDER BY id DESC LIMIT 1",
            )
            .bind(chat_id)
            .bind(message_id)
            .fetch_optional(pool)
            .await
        })?;
        Ok(id.map(ObjectiveId::new))
    }

    /// The objective answered last, if its answer went out since `since`.
    pub async fn last_answered_since(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Option<(ObjectiveId, DateTime<Utc>)>, StoreError> {
        let row: Option<(i64, Option<i64>)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, answered_at FROM objectives WHERE answered_at >= $1 \
                 ORDER BY answered_at DESC, id DESC LIMIT 1",
            )
            .bind(to_ms(since))
            .fetch_optional(pool)
            .await
        })?;
        row.map(|(id, at)| {
            let at = from_opt_ms(at)?.ok_or_else(|| StoreError::corrupt("answered_at", id))?;
            Ok((ObjectiveId::new(id), at))
        })
        .transpose()
    }

    /// Marks an interaction's reading as corrected by the CEO (the
    /// interpretation accuracy counts these).
    pub async fn mark_interaction_corrected(&self, id: i64) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE ceo_interactions SET corrected = $1 WHERE id = $2")
                .bind(true)
                .bind(id)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// How many CEO messages were recorded, ever.
    pub async fn interaction_count(&self) -> Result<u64, StoreError> {
        let n: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT COUNT(*) FROM ceo_interactions")
                .fetch_one(pool)
                .await
        })?;
        super::time::count("interaction count", n)
    }
}
