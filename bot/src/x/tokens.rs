//! A usable access token for each request: refreshed shortly before it
//! expires (OAuth 2.0 refresh tokens, rotated by X, stored encrypted). A
//! refresh X refuses pauses the account: its posts wait, none is dropped,
//! until the team connects it again (`ulias x connect`). X rotates the
//! refresh token on every use, so two refreshes with the same one would
//! see the second refused and the account paused: within the process,
//! refreshes take turns and each first reads the stored account again (a
//! turn that finds the token already rotated uses the new one). Across
//! processes, only the worker whose refresh token is still the stored one
//! writes; the other, refused, finds the rotated token and reads it.

use chrono::{DateTime, TimeDelta, Utc};
use secrecy::SecretString;
use ulias_core::settings::XSettings;
use ulias_core::store::{Store, StoreError, XAccount, XPause};

use super::XError;
use super::client::{OAuthClient, XClient};
use super::vault::TokenVault;

/// A token this close to its expiry is refreshed before use.
pub const REFRESH_MARGIN: TimeDelta = TimeDelta::minutes(5);

/// One refresh at a time in this process (the publisher and the mentions
/// reader both want a token when it comes due).
static REFRESHING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Why no usable token came.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    /// The account's posts wait for the team to connect it again.
    #[error("@{0}'s posts are paused until it is connected again (`ulias x connect`)")]
    Paused(String),
    /// X refused the refresh: the account was paused now (`newly`: not
    /// already paused by another worker), the team is to be told.
    #[error("X refused to refresh @{account}'s token: {reason}")]
    RefreshRefused {
        account: String,
        reason: String,
        newly: bool,
    },
    /// The refresh could not reach X: try again later.
    #[error("X could not be reached to refresh a token: {0}")]
    Unreachable(XError),
    #[error(transparent)]
    X(#[from] XError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a token is read with.
pub struct Tokens<'a> {
    pub store: &'a Store,
    pub vault: &'a TokenVault,
    pub client: &'a XClient,
    pub settings: &'a XSettings,
}

impl Tokens<'_> {
    /// The account's access token, refreshed first when it expires within
    /// [`REFRESH_MARGIN`] of `now` and a refresh token is stored.
    pub async fn fresh(
        &self,
        account: &XAccount,
        now: DateTime<Utc>,
    ) -> Result<SecretString, TokenError> {
        if account.paused.is_some() {
            return Err(TokenError::Paused(account.name.clone()));
        }
        if account.refresh.is_none() || !refresh_due(account, now) {
            return Ok(self.vault.access_token(account)?);
        }
        let _turn = REFRESHING.lock().await;
        // Read again: the turn before may have rotated it already.
        let current = self.stored(&account.name).await?;
        if current.paused.is_some() {
            return Err(TokenError::Paused(current.name));
        }
        match &current.refresh {
            Some(refresh) if refresh_due(&current, now) => {
                self.refresh(&current, refresh, now).await
            }
            _ => Ok(self.vault.access_token(&current)?),
        }
    }

    async fn refresh(
        &self,
        account: &XAccount,
        used: &ulias_core::store::Sealed,
        now: DateTime<Utc>,
    ) -> Result<SecretString, TokenError> {
        let refused = |reason: String| async move {
            let newly = self
                .store
                .pause_x_account(&account.name, XPause::RefreshFailed)
                .await?;
            Err(TokenError::RefreshRefused {
                account: account.name.clone(),
                reason,
                newly,
            })
        };
        let Some(id) = self.settings.client_id.as_deref() else {
            return refused("`x.client_id` is not set".into()).await;
        };
        let oauth = OAuthClient {
            id,
            secret: self.settings.client_secret.as_ref(),
        };
        let refresh_token = self.vault.open(&account.name, used)?;
        let fresh = match self.client.refresh(&oauth, &refresh_token).await {
            Ok(fresh) => fresh,
            Err(XError::Refused { status, body }) => {
                // Refused because another worker rotated it first?
                if let Some(current) = self.store.x_account(&account.name).await?
                    && current.refresh.as_ref() != Some(used)
                {
                    return Ok(self.vault.access_token(&current)?);
                }
                return refused(format!(
                    "{status}: {}",
                    body.chars().take(300).collect::<String>()
                ))
                .await;
            }
            Err(other) => return Err(TokenError::Unreachable(other)),
        };
        use secrecy::ExposeSecret;
        let token = self
            .vault
            .seal(&account.name, fresh.access_token.expose_secret())?;
        let refresh = self
            .vault
            .seal(&account.name, fresh.refresh_token.expose_secret())?;
        let expires_at = now + TimeDelta::seconds(fresh.expires_in.max(0));
        let stored = self
            .store
            .replace_x_tokens(&account.name, used, &token, &refresh, expires_at, now)
            .await?;
        if stored {
            tracing::info!(account = %account.name, %expires_at, "X access token refreshed");
            return Ok(fresh.access_token);
        }
        // Another worker refreshed first: its token is the stored one.
        let current = self.stored(&account.name).await?;
        Ok(self.vault.access_token(&current)?)
    }

    async fn stored(&self, name: &str) -> Result<XAccount, TokenError> {
        let account = self.store.x_account(name).await?;
        Ok(
            account
                .ok_or_else(|| StoreError::Invalid(format!("@{name} is no longer connected")))?,
        )
    }
}

fn refresh_due(account: &XAccount, now: DateTime<Utc>) -> bool {
    account
        .expires_at
        .is_some_and(|at| at - now <= REFRESH_MARGIN)
}
