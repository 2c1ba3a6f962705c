//! The engine's actions carried out through the bot: deletes, mutes, bans
//! (a channel's with `banChatSenderChat`), captchas asked with buttons,
//! releases to the group's own default permissions, kicks, alerts. Every
//! moderation call is tried again after a 429; replies go to the forum
//! topic the message came from.

use std::sync::PoisonError;

use chrono::DateTime;
use teloxide::prelude::*;
use teloxide::types::{
    ChatPermissions, InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ThreadId, UserId,
};
use ulias_antispam::{Action, Event};
use ulias_core::store::{OpenCaptcha, SpamSample};

use super::Guarded;
use crate::i18n::arg;
use crate::telegram::buttons::Button;
use crate::telegram::edge::clip;
use crate::telegram::error::{HandlerError, HandlerResult};
use crate::telegram::retry::after_429;
use crate::telegram::{Common, Roles, TgBot, group_learning};

/// What an ordinary member may do when the group's own defaults cannot be
/// read: write, post media, polls and previews, invite.
fn member_permissions() -> ChatPermissions {
    ChatPermissions::SEND_MESSAGES
        | ChatPermissions::SEND_MEDIA_MESSAGES
        | ChatPermissions::SEND_POLLS
        | ChatPermissions::SEND_OTHER_MESSAGES
        | ChatPermissions::ADD_WEB_PAGE_PREVIEWS
        | ChatPermissions::INVITE_USERS
}

/// What the action is about: the event judged and the message, if any.
pub(super) struct Cause<'a> {
    pub event: &'a Event,
    pub message: Option<&'a Message>,
}

/// Carries out one action through the bot.
pub(super) async fn act(
    common: &Common,
    roles: &Roles,
    guarded: &Guarded,
    action: &Action,
    cause: &Cause<'_>,
) -> HandlerResult {
    let chat = ChatId(guarded.settings.chat_id);
    let bot = &common.bot;
    match action {
        Action::Delete { message } => {
            group_learning::withdraw(&common.store, chat.0, *message).await?;
            let id = MessageId(i32::try_from(*message)?);
            after_429(|| async { bot.delete_message(chat, id).await }).await?;
        }
        Action::Mute { user, until } => {
            let until = DateTime::from_timestamp(*until, 0).unwrap_or_else(|| common.clock.now());
            let user = user_id(*user)?;
            after_429(|| async {
                bot.restrict_chat_member(chat, user, ChatPermissions::empty())
                    .until_date(until)
                    .await
            })
            .await?;
        }
        Action::Ban { user } => {
            ban(bot, chat, *user).await?;
            report_ban(common, roles, guarded, *user, cause.event).await?;
        }
        Action::RemindOfficialAddress => {
            let addresses = guarded.settings.official_addresses.join("\n");
            let text = common
                .texts
                .with("group-official-address", &[arg("addresses", addresses)]);
            let mut reminder = bot.send_message(chat, text);
            if let Some(topic) = topic_of(cause.message) {
                reminder = reminder.message_thread_id(topic);
            }
            reminder.await?;
        }
        Action::HoldForReview { user } | Action::HoldNewcomer { user } => {
            restrict(bot, chat, *user, ChatPermissions::empty()).await?;
        }
        Action::Captcha { user, .. } => ask_captcha(common, guarded, action, cause, *user).await?,
        Action::Release { user } => {
            let defaults = group_defaults(bot, guarded).await;
            restrict(bot, chat, *user, defaults).await?;
            drop_captcha(common, guarded, *user).await;
        }
        Action::Kick { user } => {
            ban(bot, chat, *user).await?;
            let id = user_id(*user)?;
            after_429(|| async { bot.unban_chat_member(chat, id).only_if_banned(true).await })
                .await?;
            drop_captcha(common, guarded, *user).await;
        }
        Action::AlertTeam { text } => {
            if let Some(team) = roles.team_chat {
                let alert = common.texts.with(
                    "group-alert",
                    &[arg("group", &guarded.settings.name), arg("text", text)],
                );
                bot.send_message(ChatId(team), clip(&alert)).await?;
            }
        }
    }
    Ok(())
}

/// Bans a member, or a channel (a negative id) posting in the group.
pub(super) async fn ban(bot: &TgBot, chat: ChatId, id: i64) -> HandlerResult {
    if id < 0 {
        after_429(|| async { bot.ban_chat_sender_chat(chat, ChatId(id)).await }).await?;
    } else {
        let user = user_id(id)?;
        after_429(|| async { bot.ban_chat_member(chat, user).await }).await?;
    }
    Ok(())
}

async fn restrict(bot: &TgBot, chat: ChatId, user: i64, to: ChatPermissions) -> HandlerResult {
    let user = user_id(user)?;
    after_429(|| async { bot.restrict_chat_member(chat, user, to.clone()).await }).await?;
    Ok(())
}

/// Restricts the newcomer and asks the sum with one button per choice, in
/// the topic they joined in; the message is kept to be deleted later.
async fn ask_captcha(
    common: &Common,
    guarded: &Guarded,
    action: &Action,
    cause: &Cause<'_>,
    user: i64,
) -> HandlerResult {
    let Action::Captcha { a, b, choices, .. } = action else {
        return Ok(());
    };
    let chat = ChatId(guarded.settings.chat_id);
    restrict(&common.bot, chat, user, ChatPermissions::empty()).await?;
    let name = match cause.event {
        Event::Join(member) => member.display_name.clone(),
        _ => user.to_string(),
    };
    let text = common.texts.with(
        "group-captcha",
        &[
            arg("name", name),
            arg("a", a),
            arg("b", b),
            arg("seconds", guarded.settings.captcha_seconds),
        ],
    );
    let buttons = choices.iter().map(|answer| {
        InlineKeyboardButton::callback(
            answer.to_string(),
            Button::Captcha {
                user,
                answer: *answer,
            }
            .data(),
        )
    });
    let mut ask = common
        .bot
        .send_message(chat, clip(&text))
        .reply_markup(InlineKeyboardMarkup::new([buttons.collect::<Vec<_>>()]));
    if let Some(topic) = topic_of(cause.message) {
        ask = ask.message_thread_id(topic);
    }
    let sent = ask.await?;
    guarded
        .captcha_messages
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(user, sent.id);
    let Action::Captcha { deadline, .. } = action else {
        return Ok(());
    };
    let open = OpenCaptcha {
        user_id: user,
        answer: a + b,
        deadline: *deadline,
        failed: false,
        message_id: Some(i64::from(sent.id.0)),
    };
    common.store.save_captcha(chat.0, &open).await?;
    Ok(())
}

/// Deletes a newcomer's captcha message and forgets the captcha, once
/// answered or expired.
async fn drop_captcha(common: &Common, guarded: &Guarded, user: i64) {
    let chat = guarded.settings.chat_id;
    if let Err(error) = common.store.forget_captcha(chat, user).await {
        tracing::warn!(%error, user, "could not forget a captcha");
    }
    delete_captcha_message(&common.bot, guarded, user).await;
}

async fn delete_captcha_message(bot: &TgBot, guarded: &Guarded, user: i64) {
    let message = guarded
        .captcha_messages
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&user);
    if let Some(message) = message {
        let chat = ChatId(guarded.settings.chat_id);
        if let Err(error) = bot.delete_message(chat, message).await {
            tracing::warn!(%error, user, "could not delete a captcha");
        }
    }
}

/// The group's own default member permissions (read once with `getChat`):
/// what a released newcomer gets back, never more.
async fn group_defaults(bot: &TgBot, guarded: &Guarded) -> ChatPermissions {
    let known = guarded
        .defaults
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    if let Some(known) = known {
        return known;
    }
    match bot.get_chat(ChatId(guarded.settings.chat_id)).await {
        Ok(chat) => {
            let defaults = chat.permissions().unwrap_or_else(member_permissions);
            *guarded
                .defaults
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Some(defaults.clone());
            defaults
        }
        Err(error) => {
            tracing::warn!(%error, group = guarded.settings.chat_id, "could not read the group's permissions");
            member_permissions()
        }
    }
}

/// The forum topic a message was written in.
pub(super) fn topic_of(message: Option<&Message>) -> Option<ThreadId> {
    message.and_then(|m| m.thread_id)
}

pub(super) fn user_id(id: i64) -> Result<UserId, HandlerError> {
    Ok(UserId(u64::try_from(id)?))
}

/// Tells the team about a ban, with a button to undo it (and learn the
/// message as ham). The banned message is kept as a spam sample.
async fn report_ban(
    common: &Common,
    roles: &Roles,
    guarded: &Guarded,
    user: i64,
    event: &Event,
) -> HandlerResult {
    let text = match event {
        Event::Message(m) | Event::Edited(m) => m.text.clone(),
        _ => String::new(),
    };
    let sample = SpamSample {
        id: 0,
        chat_id: guarded.settings.chat_id,
        user_id: Some(user),
        spam: true,
        text: text.clone(),
    };
    let id = common
        .store
        .add_spam_sample(&sample, "antispam", common.clock.now())
        .await?;
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let report = common.texts.with(
        "group-ban-report",
        &[
            arg("group", &guarded.settings.name),
            arg("user", user),
            arg("text", text.chars().take(300).collect::<String>()),
        ],
    );
    let button =
        InlineKeyboardButton::callback(common.texts.get("button-unban"), Button::Unban(id).data());
    common
        .bot
        .send_message(ChatId(team), clip(&report))
        .reply_markup(InlineKeyboardMarkup::new([[button]]))
        .await?;
    Ok(())
}
