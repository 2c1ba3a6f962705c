//! The public log channel: the public operations' log rows, posted in
//! batches (every `engine.log_batch_seconds`), each with its cost, and the
//! running total.

use std::sync::Arc;
use std::time::Duration;

use teloxide::prelude::*;

use super::Common;
use super::edge::clip;
use super::error::HandlerResult;
use crate::i18n::arg;

/// Rows per message at most.
const BATCH: i64 = 40;

/// Posts a batch to `channel` (when there is one) every `every`
/// (`engine.log_batch_seconds`).
pub async fn run(common: Arc<Common>, channel: Option<i64>, every: Duration) {
    let Some(channel) = channel else {
        return;
    };
    let mut every = tokio::time::interval(every);
    loop {
        every.tick().await;
        if let Err(error) = post_batch(&common, channel).await {
            tracing::warn!(%error, "could not post the log batch");
        }
    }
}

/// Posts the rows not posted yet; a row is marked only once its message went out.
pub async fn post_batch(common: &Common, channel: i64) -> HandlerResult {
    let rows = common.store.unposted_public_log(BATCH).await?;
    if rows.is_empty() {
        return Ok(());
    }
    let mut lines = vec![common.texts.get("log-batch-header")];
    for row in &rows {
        lines.push(common.texts.with(
            "log-line",
            &[
                arg("agent", row.entry.scope.agent.as_deref().unwrap_or("ulias")),
                arg("summary", &row.entry.summary),
                arg("cost", row.entry.cost),
            ],
        ));
    }
    let (total, _) = common.store.total_spend().await?;
    lines.push(common.texts.with("log-total", &[arg("total", total)]));
    common
        .bot
        .send_message(ChatId(channel), clip(&lines.join("\n")))
        .await?;
    let ids: Vec<i64> = rows.iter().map(|row| row.id).collect();
    common
        .store
        .mark_log_posted(&ids, common.clock.now())
        .await?;
    Ok(())
}
