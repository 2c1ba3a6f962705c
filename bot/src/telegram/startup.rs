//! Checks made once the bot starts: its rights in the guarded groups and
//! the log channel (what it lacks is told to the team), and whether it can
//! write to the CEO at all — a bot cannot write first, so a CEO who never
//! pressed Start is told by ntfy.

use teloxide::prelude::*;
use teloxide::types::ChatAction;
use ulias_core::domain::Urgency;

use super::groups::{self, Community};
use super::{Common, Roles};
use crate::i18n::arg;

/// Runs every start-up check; each failure is reported, none stops the bot.
pub async fn check(common: &Common, roles: &Roles, community: &Community, ntfy: bool) {
    groups::check_rights(common, roles, &community.guard).await;
    probe_ceo(common, roles, &community.username, ntfy).await;
}

/// Shows "typing…" in the CEO's chat: refused, the CEO is asked by ntfy to
/// start the bot.
async fn probe_ceo(common: &Common, roles: &Roles, username: &str, ntfy: bool) {
    let Some(ceo) = roles.ceo_chat else {
        return;
    };
    let Err(error) = common
        .bot
        .send_chat_action(ChatId(ceo), ChatAction::Typing)
        .await
    else {
        return;
    };
    tracing::error!(%error, "the bot cannot write to the CEO");
    if !ntfy {
        return;
    }
    let text = common
        .texts
        .with("ceo-not-started", &[arg("bot", username)]);
    let push = crate::ntfy::compose::alert(&common.texts, "Ulias", &text, Urgency::High);
    if let Err(error) = common.store.queue_push(&push, common.clock.now()).await {
        tracing::error!(%error, "could not tell the CEO's phone either");
    }
}
