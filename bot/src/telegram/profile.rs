//! `/profile`: what the organisation knows of its CEO, each entry with its
//! confidence and a button to forget it.

use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_core::domain::{ProfileEntry, ProfileEntryId};

use super::Common;
use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use crate::i18n::{Texts, arg};

/// At most this many entries get a Forget button (Telegram keyboards stay short).
const MAX_BUTTONS: usize = 30;

/// Sends the profile to `chat`.
pub async fn show(common: &Common, chat: i64) -> HandlerResult {
    let (text, keyboard) = render(common).await?;
    common
        .bot
        .send_message(ChatId(chat), text)
        .reply_markup(keyboard)
        .await?;
    Ok(())
}

/// The profile's text and its Forget buttons.
async fn render(common: &Common) -> Result<(String, InlineKeyboardMarkup), HandlerError> {
    let entries = common.store.profile_entries().await?;
    if entries.is_empty() {
        return Ok((
            common.texts.get("profile-empty"),
            InlineKeyboardMarkup::default(),
        ));
    }
    let mut lines = vec![common.texts.get("profile-title")];
    lines.extend(entries.iter().map(|e| entry_line(&common.texts, e)));
    let rows = entries.iter().take(MAX_BUTTONS).map(|e| {
        vec![InlineKeyboardButton::callback(
            common
                .texts
                .with("button-forget", &[arg("id", e.id), arg("key", &e.key)]),
            Button::Forget(e.id.get()).data(),
        )]
    });
    Ok((clip(&lines.join("\n")), InlineKeyboardMarkup::new(rows)))
}

fn entry_line(texts: &Texts, entry: &ProfileEntry) -> String {
    texts.with(
        "profile-line",
        &[
            arg("id", entry.id),
            arg("kind", texts.get(&format!("profile-kind-{}", entry.kind))),
            arg("key", &entry.key),
            arg("value", entry.value_text()),
            arg("percent", format!("{:.0}", entry.confidence * 100.0)),
        ],
    )
}

/// The CEO pressed Forget on an entry.
pub async fn forget(
    common: &Common,
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    let forgotten = common
        .store
        .delete_profile_entry(ProfileEntryId::new(id))
        .await?;
    if !forgotten {
        return Ok(Some(common.texts.get("decision-already")));
    }
    if let Some((chat, message)) = press.message {
        let (text, keyboard) = render(common).await?;
        common
            .bot
            .edit_message_text(ChatId(chat), message, text)
            .reply_markup(keyboard)
            .await?;
    }
    Ok(Some(
        common.texts.with("profile-forgotten", &[arg("id", id)]),
    ))
}
