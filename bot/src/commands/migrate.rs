//! `ulias migrate`: create or update the schema of the configured database.

use std::io::Write;

use anyhow::Context;
use secrecy::ExposeSecret;
use ulias_core::settings::Settings;
use ulias_core::store::redact_url;

use super::{Outcome, open_store};

/// Applies the pending migrations and says which.
pub async fn run(settings: &Settings, out: &mut impl Write) -> anyhow::Result<Outcome> {
    let store = open_store(settings).await?;
    let report = store
        .migrate()
        .await
        .context("Failed to migrate the database")?;
    store.close().await;
    let url = redact_url(settings.database.url.expose_secret());
    tracing::info!(%url, applied = report.applied_now.len(), "database migrated");
    if report.applied_now.is_empty() {
        writeln!(
            out,
            "{url}: schema up to date ({} migrations)",
            report.total
        )?;
    } else {
        writeln!(
            out,
            "{url}: applied {} migration(s):",
            report.applied_now.len()
        )?;
        for migration in &report.applied_now {
            writeln!(out, "  {migration}")?;
        }
    }
    Ok(Outcome::Done)
}
