//! X accounts (their tokens stay encrypted here: the store never sees a
//! token in clear), and the facts the posting rules need.

use chrono::{DateTime, Utc};

use super::time::{from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{PublicationId, PublicationStatus, PublicationTarget};

/// An `x_accounts` row.
#[derive(sqlx::FromRow)]
struct AccountRow {
    name: String,
    user_id: String,
    token_nonce: Vec<u8>,
    token_ciphertext: Vec<u8>,
    last_mention_id: Option<String>,
}

/// A connected X account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XAccount {
    pub name: String,
    pub user_id: String,
    pub token_nonce: Vec<u8>,
    pub token_ciphertext: Vec<u8>,
    pub last_mention_id: Option<String>,
}

impl Store {
    /// Connects (or reconnects) an account with its encrypted token.
    pub async fn save_x_account(
        &self,
        account: &XAccount,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO x_accounts (name, user_id, token_nonce, token_ciphertext, updated_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO UPDATE SET \
                 user_id = excluded.user_id, token_nonce = excluded.token_nonce, \
                 token_ciphertext = excluded.token_ciphertext, updated_at = excluded.updated_at",
            )
            .bind(account.name.as_str())
            .bind(account.user_id.as_str())
            .bind(account.token_nonce.as_slice())
            .bind(account.token_ciphertext.as_slice())
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Every connected account, by name.
    pub async fn x_accounts(&self) -> Result<Vec<XAccount>, StoreError> {
        let rows: Vec<AccountRow> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT name, user_id, token_nonce, token_ciphertext, last_mention_id \
                 FROM x_accounts ORDER BY name",
            )
            .fetch_all(pool)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(|row| XAccount {
                name: row.name,
                user_id: row.user_id,
                token_nonce: row.token_nonce,
                token_ciphertext: row.token_ciphertext,
                last_mention_id: row.last_mention_id,
            })
            .collect())
    }

    /// Records the last mention read for an account.
    pub async fn set_last_mention(&self, name: &str, id: &str) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE x_accounts SET last_mention_id = $1 WHERE name = $2")
                .bind(id)
                .bind(name)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// When the account last had a post go out (a publication to X whose
    /// payload names it, or any when it is the only account).
    pub async fn last_x_post(&self, account: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let at: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT MAX(sent_at) FROM publications WHERE target = $1 AND status = $2 \
                 AND COALESCE(account, '') = $3",
            )
            .bind(PublicationTarget::X.as_str())
            .bind(PublicationStatus::Sent.as_str())
            .bind(account)
            .fetch_one(pool)
            .await
        })?;
        from_opt_ms(at)
    }

    /// Names the account a publication goes out from (kept for the rules).
    pub async fn set_publication_account(
        &self,
        id: PublicationId,
        account: &str,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE publications SET account = $1 WHERE id = $2")
                .bind(account)
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Puts a job being sent back to wait until `not_before` (a posting
    /// rule delays it; it is not dropped, and the wait survives a restart).
    pub async fn defer_publication(
        &self,
        id: PublicationId,
        not_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE publications SET status = $1, not_before = $2, sending_since = NULL, \
                 sending_owner = NULL, attempts = attempts - 1 WHERE id = $3 AND status = $4",
            )
            .bind(PublicationStatus::Pending.as_str())
            .bind(to_ms(not_before))
            .bind(id.get())
            .bind(PublicationStatus::Sending.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(StoreError::Invalid(format!(
                "publication #{id} is not being sent"
            )));
        }
        Ok(())
    }
}
