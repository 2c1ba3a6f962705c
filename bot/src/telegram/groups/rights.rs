//! What the bot may do where it works: its own rights, read with
//! `getChatMember` at start and whenever it is added to a group or its
//! rights change, and the team told what it cannot do there (Telegram
//! refuses a moderation call without the matching right).

use teloxide::prelude::*;
use teloxide::types::{ChatMember, ChatMemberKind, ChatMemberUpdated};

use super::Guard;
use crate::i18n::arg;
use crate::telegram::edge::clip;
use crate::telegram::error::HandlerResult;
use crate::telegram::{Common, Roles};

/// A right the bot needs, and the locale key that names it.
struct Needed {
    key: &'static str,
    held: fn(&ChatMember) -> bool,
}

/// What moderating a group takes.
const GROUP: [Needed; 3] = [
    Needed {
        key: "right-delete",
        held: |member| member.kind.can_delete_messages(),
    },
    Needed {
        key: "right-restrict",
        held: |member| member.kind.can_restrict_members(),
    },
    Needed {
        key: "right-pin",
        held: may_pin,
    },
];

/// What the log channel takes.
const CHANNEL: [Needed; 1] = [Needed {
    key: "right-post",
    held: |member| member.kind.can_post_messages(),
}];

/// Whether an administrator may pin (an owner always may).
fn may_pin(member: &ChatMember) -> bool {
    match &member.kind {
        ChatMemberKind::Owner(_) => true,
        ChatMemberKind::Administrator(admin) => admin.can_pin_messages,
        _ => false,
    }
}

/// At start: the bot's rights in every guarded group and the log channel.
pub async fn check_rights(common: &Common, roles: &Roles, guard: &Guard) {
    let me = match common.bot.get_me().await {
        Ok(me) => me.id,
        Err(error) => {
            tracing::warn!(%error, "could not ask Telegram who the bot is");
            return;
        }
    };
    for guarded in guard.all() {
        let (chat, name) = (guarded.settings.chat_id, guarded.settings.name.clone());
        report_missing(common, roles, me, chat, &name, &GROUP).await;
    }
    if let Some(channel) = roles.log_channel {
        let name = match common.bot.get_chat(ChatId(channel)).await {
            Ok(chat) => chat.title().unwrap_or_default().to_owned(),
            Err(_) => channel.to_string(),
        };
        report_missing(common, roles, me, channel, &name, &CHANNEL).await;
    }
}

/// The bot was added to a chat or its rights there changed: a guarded
/// group is checked again.
pub async fn on_my_member(
    common: &Common,
    roles: &Roles,
    guard: &Guard,
    update: &ChatMemberUpdated,
) -> HandlerResult {
    let chat = update.chat.id.0;
    if let Some(guarded) = guard.get(chat)
        && update.new_chat_member.kind.is_present()
    {
        let me = update.new_chat_member.user.id;
        report_missing(common, roles, me, chat, &guarded.settings.name, &GROUP).await;
    }
    Ok(())
}

/// Tells the team which of `needed` the bot lacks in `chat`, if any.
async fn report_missing(
    common: &Common,
    roles: &Roles,
    me: UserId,
    chat: i64,
    name: &str,
    needed: &[Needed],
) {
    let member = match common.bot.get_chat_member(ChatId(chat), me).await {
        Ok(member) => member,
        Err(error) => {
            tracing::warn!(%error, chat, "could not read the bot's rights");
            return;
        }
    };
    let missing: Vec<String> = needed
        .iter()
        .filter(|right| !(right.held)(&member))
        .map(|right| common.texts.get(right.key))
        .collect();
    if missing.is_empty() {
        return;
    }
    tracing::warn!(chat, ?missing, "the bot lacks rights");
    let Some(team) = roles.team_chat else {
        return;
    };
    let text = common.texts.with(
        "group-rights-missing",
        &[arg("group", name), arg("missing", missing.join(", "))],
    );
    if let Err(error) = common.bot.send_message(ChatId(team), clip(&text)).await {
        tracing::warn!(%error, "could not tell the team about the bot's rights");
    }
}
