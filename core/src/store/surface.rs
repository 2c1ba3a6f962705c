//! What the chat surface keeps: the CEO's interactions with the Interpreter,
//! the audit of every human action, dialogue states, and where an
//! objective's progress message is.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{count, from_ms, parse_text, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{ObjectiveId, ObjectiveStatus, TaskStatus};

/// One CEO message and what the Interpreter made of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Interaction {
    pub id: i64,
    pub chat_id: Option<i64>,
    pub message_id: Option<i64>,
    pub raw_message: String,
    pub interpreted_as: Option<Value>,
    pub confidence: Option<f64>,
    pub objective_id: Option<ObjectiveId>,
    pub feedback: Option<String>,
    /// The CEO corrected this reading.
    pub corrected: bool,
    pub created_at: DateTime<Utc>,
}

/// An interaction to record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NewInteraction {
    pub chat_id: Option<i64>,
    pub message_id: Option<i64>,
    pub raw_message: String,
    pub interpreted_as: Option<Value>,
    pub confidence: Option<f64>,
    pub objective_id: Option<ObjectiveId>,
}

/// Who did something, for the audit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorRole {
    Ceo,
    Team,
    System,
    Unknown,
}

impl ActorRole {
    fn as_str(self) -> &'static str {
        match self {
            Self::Ceo => "ceo",
            Self::Team => "team",
            Self::System => "system",
            Self::Unknown => "unknown",
        }
    }
}

/// One audit row to write.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditEntry<'a> {
    pub actor: &'a str,
    pub role: ActorRole,
    pub action: &'a str,
    pub target_kind: Option<&'a str>,
    pub target_id: Option<String>,
    pub details: Value,
}

/// The rows `(id, title, status, chat, message)` of shown objectives.
pub(super) fn progress_rows(
    rows: Vec<(i64, String, String, i64, i64)>,
) -> Result<Vec<ProgressMessage>, StoreError> {
    rows.into_iter()
        .map(|(id, title, status, chat_id, message_id)| {
            Ok(ProgressMessage {
                objective_id: ObjectiveId::new(id),
                title,
                status: parse_text("objective status", &status)?,
                chat_id,
                message_id,
            })
        })
        .collect()
}

/// An objective whose progress is shown in a chat message.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressMessage {
    pub objective_id: ObjectiveId,
    pub title: String,
    pub status: ObjectiveStatus,
    pub chat_id: i64,
    pub message_id: i64,
}

#[derive(sqlx::FromRow)]
struct InteractionRow {
    id: i64,
    chat_id: Option<i64>,
    message_id: Option<i64>,
    raw_message: String,
    interpreted_as: Option<Json<Value>>,
    confidence: Option<f64>,
    objective_id: Option<i64>,
    feedback: Option<String>,
    corrected: bool,
    created_at: i64,
}

impl TryFrom<InteractionRow> for Interaction {
    type Error = StoreError;

    fn try_from(row: InteractionRow) -> Result<Self, StoreError> {
        Ok(Self {
            id: row.id,
            chat_id: row.chat_id,
            message_id: row.message_id,
            raw_message: row.raw_message,
            interpreted_as: row.interpreted_as.map(|json| json.0),
            confidence: row.confidence,
            objective_id: row.objective_id.map(ObjectiveId::new),
            feedback: row.feedback,
            corrected: row.corrected,
            created_at: from_ms(row.created_at)?,
        })
    }
}

const INTERACTION_COLUMNS: &str = "id, chat_id, message_id, raw_message, interpreted_as, \
     confidence, objective_id, feedback, corrected, created_at";

impl Store {
    /// Records a CEO message and its reading.
    pub async fn record_interaction(
        &self,
        new: &NewInteraction,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let id = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO ceo_interactions (chat_id, message_id, raw_message, interpreted_as, \
                 confidence, objective_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 RETURNING id",
            )
            .bind(new.chat_id)
            .bind(new.message_id)
            .bind(new.raw_message.as_str())
            .bind(new.interpreted_as.as_ref().map(Json))
            .bind(new.confidence)
            .bind(new.objective_id.map(ObjectiveId::get))
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(id)
    }

    /// The interaction with this id.
    pub async fn interaction(&self, id: i64) -> Result<Interaction, StoreError> {
        let sql = format!("SELECT {INTERACTION_COLUMNS} FROM ceo_interactions WHERE id = $1");
        let row: Option<InteractionRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "interaction",
            id,
        })?
        .try_into()
    }

    /// The last `limit` interactions, newest first.
    pub async fn recent_interactions(&self, limit: i64) -> Result<Vec<Interaction>, StoreError> {
        let sql =
            format!("SELECT {INTERACTION_COLUMNS} FROM ceo_interactions ORDER BY id DESC LIMIT $1");
        let rows: Vec<InteractionRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(limit)
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(Interaction::try_from).collect()
    }

    /// Links an interaction to the objective it became, and keeps the CEO's
    /// feedback on it (a correction, a chosen guess).
    pub async fn settle_interaction(
        &self,
        id: i64,
        objective: Option<ObjectiveId>,
        feedback: Option<&str>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE ceo_interactions SET objective_id = COALESCE($1, objective_id), \
                 feedback = COALESCE($2, feedback) WHERE id = $3",
            )
            .bind(objective.map(ObjectiveId::get))
            .bind(feedback)
            .bind(id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Writes one audit row.
    pub async fn audit(
        &self,
        entry: &AuditEntry<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO admin_audit (actor, actor_role, action, target_kind, target_id, \
                 details, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind(entry.actor)
            .bind(entry.role.as_str())
            .bind(entry.action)
            .bind(entry.target_kind)
            .bind(entry.target_id.as_deref())
            .bind(Json(&entry.details))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Audit rows for `action`, oldest first: (actor, role, target id).
    pub async fn audit_rows(
        &self,
        action: &str,
    ) -> Result<Vec<(String, String, Option<String>)>, StoreError> {
        let rows = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT actor, actor_role, target_id FROM admin_audit WHERE action = $1 ORDER BY id",
            )
            .bind(action)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows)
    }

    /// A chat's dialogue state, if any.
    pub async fn dialogue(&self, chat_id: i64) -> Result<Option<Value>, StoreError> {
        let row: Option<Json<Value>> = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT state FROM dialogues WHERE chat_id = $1")
                .bind(chat_id)
                .fetch_optional(pool)
                .await
        })?;
        Ok(row.map(|json| json.0))
    }

    /// Sets a chat's dialogue state.
    pub async fn set_dialogue(
        &self,
        chat_id: i64,
        state: &Value,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO dialogues (chat_id, state, updated_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (chat_id) DO UPDATE SET state = excluded.state, \
                 updated_at = excluded.updated_at",
            )
            .bind(chat_id)
            .bind(Json(state))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Forgets a chat's dialogue state; whether there was one.
    pub async fn remove_dialogue(&self, chat_id: i64) -> Result<bool, StoreError> {
        let removed = with_pool!(self, |pool| {
            sqlx::query("DELETE FROM dialogues WHERE chat_id = $1")
                .bind(chat_id)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(removed > 0)
    }

    /// Records where an objective's progress is shown.
    pub async fn set_progress_message(
        &self,
        id: ObjectiveId,
        chat_id: i64,
        message_id: i64,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE objectives SET progress_chat_id = $1, progress_message_id = $2 WHERE id = $3",
            )
            .bind(chat_id)
            .bind(message_id)
            .bind(id.get())
            .execute(pool)
            .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Objectives whose progress is shown in a chat, created since `since`.
    pub async fn progress_messages(
        &self,
        since: DateTime<Utc>,
    ) -> Result<Vec<ProgressMessage>, StoreError> {
        let rows: Vec<(i64, String, String, i64, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, title, status, progress_chat_id, progress_message_id FROM objectives \
                 WHERE progress_message_id IS NOT NULL AND created_at >= $1 ORDER BY id",
            )
            .bind(to_ms(since))
            .fetch_all(pool)
            .await
        })?;
        progress_rows(rows)
    }

    /// Changes what an objective says it is (the CEO corrected it).
    pub async fn rewrite_objective(
        &self,
        id: ObjectiveId,
        title: &str,
        description: &str,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE objectives SET title = $1, description = $2 WHERE id = $3")
                .bind(title)
                .bind(description)
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// How many tasks are in each status.
    pub async fn task_counts(&self) -> Result<Vec<(TaskStatus, u64)>, StoreError> {
        let rows: Vec<(String, i64)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT status, COUNT(*) FROM tasks GROUP BY status ORDER BY status")
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter()
            .map(|(status, n)| Ok((parse_text("task status", &status)?, count("task count", n)?)))
            .collect()
    }

    /// Pauses every objective in progress; how many.
    pub async fn pause_all_objectives(&self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let paused = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE objectives SET paused_at = $1 WHERE paused_at IS NULL AND status = $2",
            )
            .bind(to_ms(now))
            .bind(ObjectiveStatus::InProgress.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(paused)
    }

    /// Resumes every paused objective; how many.
    pub async fn resume_all_objectives(&self) -> Result<u64, StoreError> {
        let resumed = with_pool!(self, |pool| {
            sqlx::query("UPDATE objectives SET paused_at = NULL WHERE paused_at IS NOT NULL")
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(resumed)
    }
}

impl Store {
    /// Where the stream `name` was last read up to.
    pub async fn cursor(&self, name: &str) -> Result<Option<String>, StoreError> {
        let value = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT value FROM cursors WHERE name = $1")
                .bind(name)
                .fetch_optional(pool)
                .await
        })?;
        Ok(value)
    }

    /// Records where the stream `name` was read up to.
    pub async fn set_cursor(
        &self,
        name: &str,
        value: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO cursors (name, value, updated_at) VALUES ($1, $2, $3) \
                 ON CONFLICT (name) DO UPDATE SET value = excluded.value, \
                 updated_at = excluded.updated_at",
            )
            .bind(name)
            .bind(value)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }
}
