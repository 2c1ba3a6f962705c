//! `ulias x connect <account> --user-id <id>`: stores an account's token,
//! encrypted; the token comes on standard input so it never shows in the
//! shell's history or the process list.

use std::io::{BufRead, Write};

use anyhow::Context;
use ulias_core::clock::{Clock, SystemClock};
use ulias_core::settings::Settings;

use super::{Outcome, open_store};
use crate::cli::XCommand;
use crate::x::TokenVault;

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
        } => {
            let vault = TokenVault::new(settings.x.token_key.as_ref())?;
            let mut token = String::new();
            input
                .read_line(&mut token)
                .context("Failed to read the token from standard input")?;
            let token = token.trim();
            anyhow::ensure!(!token.is_empty(), "no token on standard input");
            let store = open_store(settings).await?;
            store
                .migrate()
                .await
                .context("Failed to migrate the database")?;
            let sealed = vault.seal(account, user_id, token)?;
            store.save_x_account(&sealed, SystemClock.now()).await?;
            if let Some(id) = operation {
                let id = ulias_core::domain::OperationId::new(*id);
                store
                    .bind_account(account, id, SystemClock.now())
                    .await
                    .with_context(|| format!("Failed to bind @{account} to operation #{id}"))?;
            }
            store.close().await;
            writeln!(
                out,
                "x          @{account} connected (token stored encrypted)"
            )?;
            if let Some(id) = operation {
                writeln!(out, "x          @{account} posts for operation #{id}")?;
            }
            Ok(Outcome::Done)
        }
    }
}
