//! `ulias x connect <account> --user-id <id>`: stores an account's tokens,
//! encrypted; they come on standard input (the access token, then the
//! refresh token if there is one) so they never show in the shell's
//! history or the process list.

use std::io::{BufRead, Write};

use anyhow::Context;
use ulias_core::clock::{Clock, SystemClock};
use ulias_core::settings::Settings;

use super::{Outcome, open_store};
use crate::cli::XCommand;
use crate::x::{Grant, TokenVault};

pub async fn run(
    settings: &Settings,
    command: &XCommand,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    match command {
        XCommand::Connect {
            account,
            user_id,
            operation,
            expires_in,
        } => {
            let vault = TokenVault::new(settings.x.token_key.as_ref())?;
            let mut token = String::new();
            input
                .read_line(&mut token)
                .context("Failed to read the token from standard input")?;
            let token = token.trim();
            anyhow::ensure!(!token.is_empty(), "no token on standard input");
            let mut refresh = String::new();
            input
                .read_line(&mut refresh)
                .context("Failed to read the refresh token from standard input")?;
            let refresh = Some(refresh.trim()).filter(|r| !r.is_empty());
            anyhow::ensure!(
                refresh.is_none() || settings.x.client_id.is_some(),
                "a refresh token needs `x.client_id` (the app's OAuth 2.0 client id) to be used"
            );
            let now = SystemClock.now();
            let grant = Grant {
                access_token: token,
                refresh_token: refresh,
                expires_at: refresh
                    .map(|_| now + chrono::TimeDelta::seconds(i64::from(*expires_in))),
            };
            let store = open_store(settings).await?;
            store
                .migrate()
                .await
                .context("Failed to migrate the database")?;
            let sealed = vault.seal_account(account, user_id, &grant)?;
            store.save_x_account(&sealed, now).await?;
            if let Some(id) = operation {
                let id = ulias_core::domain::OperationId::new(*id);
                store
                    .bind_account(account, id, SystemClock.now())
                    .await
                    .with_context(|| format!("Failed to bind @{account} to operation #{id}"))?;
            }
            store.close().await;
            let stored = if refresh.is_some() {
                "tokens stored encrypted, refreshed before they expire"
            } else {
                "token stored encrypted; without a refresh token it is not renewed"
            };
            writeln!(out, "x          @{account} connected ({stored})")?;
            if let Some(id) = operation {
                writeln!(out, "x          @{account} posts for operation #{id}")?;
            }
            Ok(Outcome::Done)
        }
    }
}
