//! The team's labels: `/spam` as a reply (the message goes when Telegram
//! still allows it, its author is banned, the text is learned as spam) and
//! the Unban button under a ban report (the ban is lifted, the text becomes
//! ham).

use teloxide::prelude::*;
use ulias_core::domain::{LogKind, LogScope, NewLogEntry};
use ulias_core::store::SpamSample;

use super::actions::{ban, user_id};
use super::{Guard, Guarded};
use crate::telegram::Common;
use crate::telegram::error::{HandlerError, HandlerResult};
use crate::telegram::group_learning;
use crate::telegram::retry::after_429;

/// `/spam` as a reply, by the team. A message Telegram no longer lets us
/// delete (others' messages older than 48 hours) stays, but its author is
/// banned and its text learned all the same.
pub(super) async fn learn_spam(
    common: &Common,
    guard: &Guard,
    guarded: &Guarded,
    command: &Message,
) -> HandlerResult {
    let chat = command.chat.id;
    common.bot.delete_message(chat, command.id).await.ok();
    let Some(spam) = command.reply_to_message() else {
        return Ok(());
    };
    let author = match (&spam.sender_chat, &spam.from) {
        (Some(channel), _) if channel.id != chat => channel.id.0,
        (_, Some(user)) => i64::try_from(user.id.0)?,
        _ => return Ok(()),
    };
    let text = spam
        .text()
        .or_else(|| spam.caption())
        .unwrap_or_default()
        .to_owned();
    group_learning::withdraw(&common.store, chat.0, i64::from(spam.id.0)).await?;
    let bot = &common.bot;
    if let Err(error) = after_429(|| async { bot.delete_message(chat, spam.id).await }).await {
        tracing::warn!(%error, "the flagged message could not be deleted; banned and learned anyway");
    }
    ban(bot, chat, author).await?;
    let sample = SpamSample {
        id: 0,
        chat_id: chat.0,
        user_id: Some(author),
        spam: true,
        text,
    };
    let by = command
        .from
        .as_ref()
        .map_or_else(String::new, |u| u.id.0.to_string());
    common
        .store
        .add_spam_sample(&sample, &by, common.clock.now())
        .await?;
    guard.retrain(&common.store).await?;
    let entry = NewLogEntry::event(
        LogScope {
            agent: Some("antispam".to_owned()),
            ..LogScope::default()
        },
        LogKind::Moderation,
        format!(
            "{}: /spam by {by}: {author} banned, sample learned",
            guarded.settings.name
        ),
    );
    common.store.append_log(&entry, common.clock.now()).await?;
    Ok(())
}

/// The Unban button under a ban report: the ban is lifted (a member's or a
/// channel's) and the message becomes ham.
pub async fn unban(
    common: &Common,
    guard: &Guard,
    sample: i64,
) -> Result<Option<String>, HandlerError> {
    let found = common.store.spam_sample(sample).await?;
    if !found.spam {
        return Ok(Some(common.texts.get("validation-already")));
    }
    let chat = ChatId(found.chat_id);
    match found.user_id {
        Some(channel) if channel < 0 => {
            common
                .bot
                .unban_chat_sender_chat(chat, ChatId(channel))
                .await?;
        }
        Some(user) => {
            common
                .bot
                .unban_chat_member(chat, user_id(user)?)
                .only_if_banned(true)
                .await?;
        }
        None => {}
    }
    common.store.relabel_spam_sample(sample, false).await?;
    guard.retrain(&common.store).await?;
    Ok(Some(common.texts.get("group-unbanned")))
}
