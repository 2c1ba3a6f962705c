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
    refresh_nonce: Option<Vec<u8>>,
    refresh_ciphertext: Option<Vec<u8>>,
    expires_at: Option<i64>,
    paused: Option<String>,
    last_mention_id: Option<String>,
}

/// A token encrypted with `x.token_key`: its nonce and ciphertext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub nonce: Vec<u8>,
    pub ciphertext: Vec<u8>,
}

text_enum! {
    /// Why an account's posts wait (until the team connects it again).
    pub enum XPause as "X account pause" {
        /// X refused to refresh its access token.
        RefreshFailed => "refresh_failed",
    }
}

/// A connected X account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XAccount {
    pub name: String,
    pub user_id: String,
    /// The OAuth 2.0 user access token.
    pub token: Sealed,
    /// The refresh token, when the team gave one (`offline.access`).
    pub refresh: Option<Sealed>,
    /// When the access token stops working, when known.
    pub expires_at: Option<DateTime<Utc>>,
    /// Why its posts wait, if they do.
    pub paused: Option<XPause>,
    pub last_mention_id: Option<String>,
}

impl TryFrom<AccountRow> for XAccount {
    type Error = StoreError;

    fn try_from(row: AccountRow) -> Result<Self, StoreError> {
        let refresh = match (row.refresh_nonce, row.refresh_ciphertext) {
            (Some(nonce), Some(ciphertext)) => Some(Sealed { nonce, ciphertext }),
            _ => None,
        };
        Ok(Self {
            name: row.name,
            user_id: row.user_id,
            token: Sealed {
                nonce: row.token_nonce,
                ciphertext: row.token_ciphertext,
            },
            refresh,
            expires_at: from_opt_ms(row.expires_at)?,
            paused: row
                .paused
                .map(|p| p.parse())
                .transpose()
                .map_err(|e: crate::domain::UnknownVariant| StoreError::Invalid(e.to_string()))?,
            last_mention_id: row.last_mention_id,
        })
    }
}

impl Store {
    /// Connects (or reconnects) an account with its encrypted tokens; a
    /// reconnected account's posts no longer wait.
    pub async fn save_x_account(
        &self,
        account: &XAccount,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let refresh = account.refresh.as_ref();
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO x_accounts (name, user_id, token_nonce, token_ciphertext, \
                 refresh_nonce, refresh_ciphertext, expires_at, paused, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, $8) ON CONFLICT (name) DO UPDATE SET \
                 user_id = excluded.user_id, token_nonce = excluded.token_nonce, \
                 token_ciphertext = excluded.token_ciphertext, \
                 refresh_nonce = excluded.refresh_nonce, \
                 refresh_ciphertext = excluded.refresh_ciphertext, \
                 expires_at = excluded.expires_at, paused = NULL, updated_at = excluded.updated_at",
            )
            .bind(account.name.as_str())
            .bind(account.user_id.as_str())
            .bind(account.token.nonce.as_slice())
            .bind(account.token.ciphertext.as_slice())
            .bind(refresh.map(|r| r.nonce.as_slice()))
            .bind(refresh.map(|r| r.ciphertext.as_slice()))
            .bind(account.expires_at.map(to_ms))
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
            sqlx::query_as(concat!(
                "SELECT name, user_id, token_nonce, token_ciphertext, refresh_nonce, ",
                "refresh_ciphertext, expires_at, paused, last_mention_id ",
                "FROM x_accounts ORDER BY name"
            ))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(XAccount::try_from).collect()
    }

    /// The account called `name`, if connected.
    pub async fn x_account(&self, name: &str) -> Result<Option<XAccount>, StoreError> {
        let row: Option<AccountRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT name, user_id, token_nonce, token_ciphertext, refresh_nonce, ",
                "refresh_ciphertext, expires_at, paused, last_mention_id ",
                "FROM x_accounts WHERE name = $1"
            ))
            .bind(name)
            .fetch_optional(pool)
            .await
        })?;
        row.map(XAccount::try_from).transpose()
    }

    /// Stores the tokens a refresh returned, only if the account still holds
    /// the refresh token that was used (`used`): false when another worker
    /// refreshed it first (its tokens are the ones to read again).
    pub async fn replace_x_tokens(
        &self,
        name: &str,
        used: &Sealed,
        token: &Sealed,
        refresh: &Sealed,
        expires_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE x_accounts SET token_nonce = $1, token_ciphertext = $2, \
                 refresh_nonce = $3, refresh_ciphertext = $4, expires_at = $5, updated_at = $6 \
                 WHERE name = $7 AND refresh_nonce = $8 AND refresh_ciphertext = $9",
            )
            .bind(token.nonce.as_slice())
            .bind(token.ciphertext.as_slice())
            .bind(refresh.nonce.as_slice())
            .bind(refresh.ciphertext.as_slice())
            .bind(to_ms(expires_at))
            .bind(to_ms(now))
            .bind(name)
            .bind(used.nonce.as_slice())
            .bind(used.ciphertext.as_slice())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
    }

    /// Pauses an account's posts (they wait, none is dropped) until the
    /// team connects it again; true when it was not paused already.
    pub async fn pause_x_account(&self, name: &str, why: XPause) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query("UPDATE x_accounts SET paused = $1 WHERE name = $2 AND paused IS NULL")
                .bind(why.as_str())
                .bind(name)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
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

    /// When the account last had a post go out: its last sent post part
    /// (a profile update posts nothing and does not count).
    pub async fn last_x_post(&self, account: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        let at: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT MAX(parts.sent_at) FROM publication_parts parts \
                 JOIN publications p ON p.id = parts.publication_id \
                 WHERE p.target = $1 AND COALESCE(p.account, '') = $2",
            )
            .bind(PublicationTarget::X.as_str())
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
