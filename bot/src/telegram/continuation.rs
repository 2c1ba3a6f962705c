//! What carries the CEO's conversation from one message to the next: the
//! objective a message continues (the one it replies to, or the one just
//! answered), what the Interpreter reads with it (recent messages, the
//! profile entries it uses, that objective's result and tasks), corrections
//! of a continued objective, and the Profiler queued every few messages.

use chrono::TimeDelta;
use serde_json::{Value, json};
use teloxide::prelude::*;
use ulias_agents::ceo_intel::{continuation_context, profile_context, queue_profiler};
use ulias_agents::interpreter::{Continuing, objective_of};
use ulias_agents::schemas::Interpretation;
use ulias_agents::untrusted::wrap_untrusted;
use ulias_core::domain::{ObjectiveId, Status};
use ulias_core::settings::CeoSettings;
use ulias_core::store::Store;

use super::ceo::confirm;
use super::edge::Incoming;
use super::error::{HandlerError, HandlerResult};
use super::{Common, Work};
use crate::i18n::arg;

/// How many past interactions the Interpreter sees.
pub(super) const CONTEXT_INTERACTIONS: i64 = 5;
/// How far back a correction looks for the reading it corrects.
const CORRECTABLE_INTERACTIONS: i64 = 50;

/// The objective this message may continue: the one whose message it
/// replies to, or the one answered within `ceo.follow_up_window_minutes`.
pub(super) async fn continuing(
    common: &Common,
    ceo: &CeoSettings,
    incoming: &Incoming,
) -> Result<Option<Continuing>, HandlerError> {
    if let Some(reply_to) = incoming.reply_to
        && let Some(objective) = common
            .store
            .objective_at_message(incoming.chat_id, i64::from(reply_to))
            .await?
    {
        return Ok(Some(Continuing {
            objective,
            replied: true,
        }));
    }
    let window = TimeDelta::minutes(i64::from(ceo.follow_up_window_minutes));
    Ok(common
        .store
        .last_answered_since(common.clock.now() - window)
        .await?
        .map(|(objective, _)| Continuing {
            objective,
            replied: false,
        }))
}

/// A correction of a continued objective: still running, it is rewritten;
/// finished, the corrected one starts, linked to it. Either way the reading
/// that led to it counts as corrected.
pub(super) async fn redo_corrected(
    common: &Common,
    work: &Work,
    incoming: &Incoming,
    interaction: i64,
    objective_id: ObjectiveId,
    reading: &Interpretation,
) -> HandlerResult {
    mark_corrected(&common.store, objective_id, &incoming.text).await?;
    let objective = common.store.objective(objective_id).await?;
    let fixed = objective_of(reading);
    if !objective.status.is_terminal() {
        common
            .store
            .rewrite_objective(objective_id, &fixed.title, &fixed.description)
            .await?;
        common
            .store
            .settle_interaction(interaction, Some(objective_id), None)
            .await?;
        let text = common.texts.with(
            "objective-corrected",
            &[arg("id", objective_id), arg("title", &fixed.title)],
        );
        common
            .bot
            .send_message(ChatId(incoming.chat_id), text)
            .await?;
        return Ok(());
    }
    let created = common
        .store
        .create_objective(&fixed.following(objective_id), common.clock.now())
        .await?;
    common
        .store
        .settle_interaction(interaction, Some(created.id), None)
        .await?;
    confirm(common, work, incoming.chat_id, &created).await
}

/// Marks the reading that created `objective` as corrected (with the words
/// of the correction as feedback).
async fn mark_corrected(store: &Store, objective: ObjectiveId, feedback: &str) -> HandlerResult {
    let recent = store.recent_interactions(CORRECTABLE_INTERACTIONS).await?;
    if let Some(reading) = recent.iter().find(|i| i.objective_id == Some(objective)) {
        store.mark_interaction_corrected(reading.id).await?;
        store
            .settle_interaction(reading.id, None, Some(feedback))
            .await?;
    }
    Ok(())
}

/// Queues the Profiler every `ceo.profile_every_interactions` messages.
pub(super) async fn profile_now_and_then(
    common: &Common,
    work: &Work,
    ceo: &CeoSettings,
) -> HandlerResult {
    let every = u64::from(ceo.profile_every_interactions.max(1));
    let count = common.store.interaction_count().await?;
    if count > 0 && count % every == 0 {
        let runner = &work.engine.runner;
        queue_profiler(&common.store, &runner.catalogue, common.clock.now()).await?;
    }
    Ok(())
}

/// What the Interpreter reads besides the message: the last interactions,
/// the profile entries that matter for it, the forwarded message it replies
/// to (as untrusted text), and the objective it may continue.
pub(super) async fn context(
    store: &Store,
    message: &str,
    forwarded: Option<&str>,
    continuing: Option<Continuing>,
) -> Result<Value, HandlerError> {
    let recent = store.recent_interactions(CONTEXT_INTERACTIONS).await?;
    let mut context = json!({
        "last_interactions": recent.iter().map(|i| json!({
            "message": i.raw_message, "understood_as": i.interpreted_as, "feedback": i.feedback,
        })).collect::<Vec<_>>(),
        "profile": profile_context(store, message).await?,
    });
    if let Some(forwarded) = forwarded {
        // Someone else's words the CEO replied to: data, never instructions.
        context["forwarded"] = json!(wrap_untrusted("a message the CEO forwarded", forwarded));
    }
    if let Some(c) = continuing {
        let mut continues = continuation_context(store, c.objective).await?;
        continues["replied_to"] = json!(c.replied);
        context["continues"] = continues;
    }
    Ok(context)
}
