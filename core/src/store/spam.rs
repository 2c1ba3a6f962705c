//! Spam and ham samples the team labelled in community groups.

use chrono::{DateTime, Utc};

use super::time::to_ms;
use super::{Store, StoreError, with_pool};

/// A labelled group message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpamSample {
    pub id: i64,
    pub chat_id: i64,
    pub user_id: Option<i64>,
    pub spam: bool,
    pub text: String,
}

const SPAM: &str = "spam";
const HAM: &str = "ham";

impl Store {
    /// Keeps a labelled message; returns its id.
    pub async fn add_spam_sample(
        &self,
        sample: &SpamSample,
        added_by: &str,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let id = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO spam_samples (chat_id, user_id, label, text, added_by, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            )
            .bind(sample.chat_id)
            .bind(sample.user_id)
            .bind(if sample.spam { SPAM } else { HAM })
            .bind(sample.text.as_str())
            .bind(added_by)
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(id)
    }

    /// The sample with this id.
    pub async fn spam_sample(&self, id: i64) -> Result<SpamSample, StoreError> {
        let row: Option<(i64, i64, Option<i64>, String, String)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, chat_id, user_id, label, text FROM spam_samples WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(pool)
            .await
        })?;
        let (id, chat_id, user_id, label, text) = row.ok_or(StoreError::NotFound {
            kind: "spam sample",
            id,
        })?;
        Ok(SpamSample {
            id,
            chat_id,
            user_id,
            spam: label == SPAM,
            text,
        })
    }

    /// Relabels a sample (a ban the team undid makes its message ham).
    pub async fn relabel_spam_sample(&self, id: i64, spam: bool) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE spam_samples SET label = $1 WHERE id = $2")
                .bind(if spam { SPAM } else { HAM })
                .bind(id)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The texts labelled spam, and those labelled ham.
    pub async fn spam_corpus(&self) -> Result<(Vec<String>, Vec<String>), StoreError> {
        let rows: Vec<(String, String)> = with_pool!(self, |pool| {
            sqlx::query_as("SELECT label, text FROM spam_samples ORDER BY id")
                .fetch_all(pool)
                .await
        })?;
        let (spam, ham): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(label, _)| label == SPAM);
        Ok((
            spam.into_iter().map(|(_, text)| text).collect(),
            ham.into_iter().map(|(_, text)| text).collect(),
        ))
    }
}
