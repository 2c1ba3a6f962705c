//! `/profile`: what the organisation knows of its CEO, each entry with its
//! confidence and a button to forget it.

use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_core::domain::{ProfileEntry, ProfileEntryId};

use super::App;
use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use crate::i18n::arg;

/// At most this many entries get a Forget button (Telegram keyboards stay short).
const MAX_BUTTONS: usize = 30;

/// Sends the profile to `chat`.
pub async fn show(app: &App, chat: i64) -> HandlerResult {
    let (text, keyboard) = render(app).await?;
    app.bot
        .send_message(ChatId(chat), text)
        .reply_markup(keyboard)
        .await?;
    Ok(())
}

/// The profile's text and its Forget buttons.
async fn render(app: &App) -> Result<(String, InlineKeyboardMarkup), HandlerError> {
    let entries = app.store.profile_entries().await?;
    if entries.is_empty() {
        return Ok((
            app.texts.get("profile-empty"),
            InlineKeyboardMarkup::default(),
        ));
    }
    let mut lines = vec![app.texts.get("profile-title")];
    lines.extend(entries.iter().map(|e| entry_line(app, e)));
    let rows = entries.iter().take(MAX_BUTTONS).map(|e| {
        vec![InlineKeyboardButton::callback(
            app.texts
                .with("button-forget", &[arg("id", e.id), arg("key", &e.key)]),
            Button::Forget(e.id.get()).data(),
        )]
    });
    Ok((clip(&lines.join("\n")), InlineKeyboardMarkup::new(rows)))
}

fn entry_line(app: &App, entry: &ProfileEntry) -> String {
    app.texts.with(
        "profile-line",
        &[
            arg("id", entry.id),
            arg(
                "kind",
                app.texts.get(&format!("profile-kind-{}", entry.kind)),
            ),
            arg("key", &entry.key),
            arg("value", entry.value_text()),
            arg("percent", format!("{:.0}", entry.confidence * 100.0)),
        ],
    )
}

/// The CEO pressed Forget on an entry.
pub async fn forget(app: &App, press: &Press, id: i64) -> Result<Option<String>, HandlerError> {
    let forgotten = app
        .store
        .delete_profile_entry(ProfileEntryId::new(id))
        .await?;
    if !forgotten {
        return Ok(Some(app.texts.get("decision-already")));
    }
    if let Some((chat, message)) = press.message {
        let (text, keyboard) = render(app).await?;
        app.bot
            .edit_message_text(ChatId(chat), message, text)
            .reply_markup(keyboard)
            .await?;
    }
    Ok(Some(app.texts.with("profile-forgotten", &[arg("id", id)])))
}
