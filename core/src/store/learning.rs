//! Ham learned from the group itself: clean messages of trusted members,
//! capped per member and per day, deduplicated, and withdrawn when the
//! message is later deleted or reported.

use chrono::{DateTime, Utc};

use super::time::to_ms;
use super::{Store, StoreError, with_pool};

/// Who added a sample learned from the group.
pub const LEARNED_BY: &str = "learned";

/// A clean message offered as a ham sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedHam<'a> {
    pub chat_id: i64,
    pub user_id: i64,
    pub message_id: i64,
    pub text: &'a str,
}

/// What became of an offered sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learned {
    Added,
    /// The group already holds this text as a sample.
    Duplicate,
    /// The member already gave their share of samples in the last day.
    OverCap,
}

impl Store {
    /// Keeps `ham` as a ham sample of its group, unless the group holds the
    /// same text already or the member gave `cap_per_day` samples in the
    /// 24 hours before `now`.
    pub async fn learn_ham(
        &self,
        ham: &LearnedHam<'_>,
        cap_per_day: u32,
        now: DateTime<Utc>,
    ) -> Result<Learned, StoreError> {
        let since = to_ms(now) - 86_400_000;
        let learned = with_pool!(self, |pool| {
            async {
                let mut tx = pool.begin().await?;
                let known: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM spam_samples WHERE chat_id = $1 AND text = $2 LIMIT 1",
                )
                .bind(ham.chat_id)
                .bind(ham.text)
                .fetch_optional(&mut *tx)
                .await?;
                if known.is_some() {
                    return Ok::<Learned, sqlx::Error>(Learned::Duplicate);
                }
                let given: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM spam_samples WHERE chat_id = $1 AND user_id = $2 \
                     AND added_by = $3 AND created_at > $4",
                )
                .bind(ham.chat_id)
                .bind(ham.user_id)
                .bind(LEARNED_BY)
                .bind(since)
                .fetch_one(&mut *tx)
                .await?;
                if given >= i64::from(cap_per_day) {
                    return Ok(Learned::OverCap);
                }
                sqlx::query(
                    "INSERT INTO spam_samples \
                     (chat_id, user_id, label, text, added_by, created_at, message_id) \
                     VALUES ($1, $2, 'ham', $3, $4, $5, $6)",
                )
                .bind(ham.chat_id)
                .bind(ham.user_id)
                .bind(ham.text)
                .bind(LEARNED_BY)
                .bind(to_ms(now))
                .bind(ham.message_id)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(Learned::Added)
            }
            .await
        })?;
        Ok(learned)
    }

    /// Withdraws the ham learned from message `message_id` of `chat_id`
    /// (deleted or reported since); returns whether there was one.
    pub async fn withdraw_learned_ham(
        &self,
        chat_id: i64,
        message_id: i64,
    ) -> Result<bool, StoreError> {
        let removed = with_pool!(self, |pool| {
            sqlx::query(
                "DELETE FROM spam_samples WHERE chat_id = $1 AND message_id = $2 AND added_by = $3",
            )
            .bind(chat_id)
            .bind(message_id)
            .bind(LEARNED_BY)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(removed > 0)
    }
}
