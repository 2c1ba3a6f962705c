//! Spam and ham samples the team labelled in community groups.

use chrono::{DateTime, Utc};

use super::time::{from_opt_ms, to_ms};
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

    /// Keeps each labelled text of `samples` that `chat_id` does not hold
    /// yet with that label (blank lines and repeats are skipped); returns
    /// how many were added. All or none: one transaction.
    pub async fn import_spam_samples(
        &self,
        chat_id: i64,
        samples: &[(bool, String)],
        added_by: &str,
        now: DateTime<Utc>,
    ) -> Result<usize, StoreError> {
        let added = with_pool!(self, |pool| {
            async {
                let mut tx = pool.begin().await?;
                let mut added = 0;
                for (spam, text) in samples.iter().filter(|(_, t)| !t.trim().is_empty()) {
                    let label = if *spam { SPAM } else { HAM };
                    let known: Option<i64> = sqlx::query_scalar(
                        "SELECT id FROM spam_samples WHERE chat_id = $1 AND label = $2 AND text = $3",
                    )
                    .bind(chat_id)
                    .bind(label)
                    .bind(text.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                    if known.is_some() {
                        continue;
                    }
                    sqlx::query(
                        "INSERT INTO spam_samples (chat_id, user_id, label, text, added_by, created_at) \
                         VALUES ($1, NULL, $2, $3, $4, $5)",
                    )
                    .bind(chat_id)
                    .bind(label)
                    .bind(text.as_str())
                    .bind(added_by)
                    .bind(to_ms(now))
                    .execute(&mut *tx)
                    .await?;
                    added += 1;
                }
                tx.commit().await?;
                Ok::<usize, sqlx::Error>(added)
            }
            .await
        })?;
        Ok(added)
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

/// What the anti-spam engine remembers of one member of a guarded group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupMember {
    pub user_id: i64,
    /// Clean messages long enough to count toward trust.
    pub clean: u32,
    /// Penalties ever.
    pub strikes_ever: u32,
    /// Their first message.
    pub first_seen: Option<DateTime<Utc>>,
}

impl Store {
    /// Keeps (or replaces) what is remembered of a member of `chat_id`.
    pub async fn save_group_member(
        &self,
        chat_id: i64,
        member: &GroupMember,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO group_members \
                 (chat_id, user_id, clean, strikes_ever, first_seen, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (chat_id, user_id) DO UPDATE SET clean = excluded.clean, \
                 strikes_ever = excluded.strikes_ever, first_seen = excluded.first_seen, \
                 updated_at = excluded.updated_at",
            )
            .bind(chat_id)
            .bind(member.user_id)
            .bind(i64::from(member.clean))
            .bind(i64::from(member.strikes_ever))
            .bind(member.first_seen.map(to_ms))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Every remembered member of `chat_id`.
    pub async fn group_members(&self, chat_id: i64) -> Result<Vec<GroupMember>, StoreError> {
        let rows: Vec<(i64, i64, i64, Option<i64>)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT user_id, clean, strikes_ever, first_seen FROM group_members \
                 WHERE chat_id = $1 ORDER BY user_id",
            )
            .bind(chat_id)
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|(user_id, clean, strikes_ever, first_seen)| {
                Ok(GroupMember {
                    user_id,
                    clean: u32::try_from(clean).map_err(|_| StoreError::corrupt("clean", clean))?,
                    strikes_ever: u32::try_from(strikes_ever)
                        .map_err(|_| StoreError::corrupt("strikes_ever", strikes_ever))?,
                    first_seen: from_opt_ms(first_seen)?,
                })
            })
            .collect()
    }
}

/// A newcomer's open captcha, as the store keeps it across restarts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenCaptcha {
    pub user_id: i64,
    /// The right answer.
    pub answer: i64,
    /// Unix seconds: unanswered by then, the newcomer is removed.
    pub deadline: i64,
    /// A wrong button was pressed: no other answer counts.
    pub failed: bool,
    /// The question's message, to delete once answered or expired.
    pub message_id: Option<i64>,
}

impl Store {
    /// Keeps (or replaces) a newcomer's open captcha in `chat_id`.
    pub async fn save_captcha(
        &self,
        chat_id: i64,
        captcha: &OpenCaptcha,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO group_captchas \
                 (chat_id, user_id, answer, deadline, failed, message_id) \
                 VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (chat_id, user_id) DO UPDATE SET answer = excluded.answer, \
                 deadline = excluded.deadline, failed = excluded.failed, \
                 message_id = excluded.message_id",
            )
            .bind(chat_id)
            .bind(captcha.user_id)
            .bind(captcha.answer)
            .bind(captcha.deadline)
            .bind(i64::from(captcha.failed))
            .bind(captcha.message_id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Forgets a captcha once answered or expired.
    pub async fn forget_captcha(&self, chat_id: i64, user_id: i64) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("DELETE FROM group_captchas WHERE chat_id = $1 AND user_id = $2")
                .bind(chat_id)
                .bind(user_id)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Every open captcha of `chat_id`.
    pub async fn open_captchas(&self, chat_id: i64) -> Result<Vec<OpenCaptcha>, StoreError> {
        let rows: Vec<(i64, i64, i64, i64, Option<i64>)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT user_id, answer, deadline, failed, message_id FROM group_captchas \
                 WHERE chat_id = $1 ORDER BY user_id",
            )
            .bind(chat_id)
            .fetch_all(pool)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(
                |(user_id, answer, deadline, failed, message_id)| OpenCaptcha {
                    user_id,
                    answer,
                    deadline,
                    failed: failed != 0,
                    message_id,
                },
            )
            .collect())
    }
}
