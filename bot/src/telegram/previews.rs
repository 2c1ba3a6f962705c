//! Validations as messages with Approve / Reject, and what pressing them
//! does (decisions are in [`super::decisions`]). A message is re-rendered
//! from the store when it is edited, so what it shows is always what is
//! stored.

use std::sync::Arc;

use serde_json::{Value, json};
use teloxide::prelude::*;
use teloxide::types::{ForceReply, InlineKeyboardButton, InlineKeyboardMarkup, MessageId};
use ulias_core::domain::{
    PublicationTarget, Validation, ValidationId, ValidationKind, ValidationStatus,
};
use ulias_core::settings::GroupSettings;
use ulias_core::store::{ActorRole, AuditEntry, StoreError};

use super::buttons::Button;
use super::edge::{Incoming, Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{ChatDialogue, ChatState, Common, Roles, StoreStorage, Work};
use crate::i18n::{Texts, arg};
use ulias_agents::publications::Content;

/// Shows a validation in the team chat: the album first when it has images,
/// then the preview with Approve / Reject. Returns the buttons' message. An
/// album Telegram cannot send (an image it cannot fetch) is left out: the
/// preview lists the images as links and can still be decided.
pub async fn post_validation(
    common: &Common,
    roles: &Roles,
    groups: &[GroupSettings],
    chat: i64,
    validation: &Validation,
) -> Result<MessageId, HandlerError> {
    if validation.kind == ValidationKind::Album {
        show_album(common, chat, validation).await;
    }
    let keyboard = InlineKeyboardMarkup::new([[
        InlineKeyboardButton::callback(
            common.texts.get("button-approve"),
            Button::Approve(validation.id.get()).data(),
        ),
        InlineKeyboardButton::callback(
            common.texts.get("button-reject"),
            Button::Reject(validation.id.get()).data(),
        ),
    ]]);
    let sent = common
        .bot
        .send_message(
            ChatId(chat),
            clip(&validation_text(common, roles, groups, validation).await),
        )
        .reply_markup(keyboard)
        .await?;
    Ok(sent.id)
}

/// The text of a validation's message, with its outcome once decided
/// (`groups`: the configured groups, whose names it shows).
pub async fn validation_text(
    common: &Common,
    roles: &Roles,
    groups: &[GroupSettings],
    validation: &Validation,
) -> String {
    let step = validation
        .payload
        .get("step")
        .and_then(Value::as_str)
        .map(|step| common.texts.with("validation-step", &[arg("step", step)]))
        .unwrap_or_default();
    let mut text = common.texts.with(
        "validation-header",
        &[
            arg("id", validation.id),
            arg("kind", validation.kind),
            arg("step", step),
        ],
    );
    text.push('\n');
    text.push_str(&destination(common, roles, groups, validation).await);
    text.push('\n');
    text.push_str(&preview(&common.texts, validation));
    let at = |when: Option<chrono::DateTime<chrono::Utc>>| {
        when.map(|w| w.format("%H:%M").to_string())
            .unwrap_or_default()
    };
    let who = validation.decided_by.clone().unwrap_or_default();
    match validation.status {
        ValidationStatus::Approved => {
            text.push_str("\n\n");
            text.push_str(&common.texts.with(
                "validation-approved",
                &[arg("who", who), arg("at", at(validation.decided_at))],
            ));
        }
        ValidationStatus::Rejected => {
            text.push_str("\n\n");
            let reason = validation.rejection_reason.clone().unwrap_or_default();
            text.push_str(&common.texts.with(
                "validation-rejected",
                &[
                    arg("who", who),
                    arg("at", at(validation.decided_at)),
                    arg("reason", reason),
                ],
            ));
        }
        _ => {}
    }
    text
}

/// Where an approved output will go, exactly as the outbox will send it
/// (the operation's own group or account), or why it cannot go yet.
async fn destination(
    common: &Common,
    roles: &Roles,
    groups: &[GroupSettings],
    validation: &Validation,
) -> String {
    let t = &common.texts;
    let operation = validation.operation_id;
    let op = operation.map(|o| o.to_string()).unwrap_or_default();
    match validation.target {
        PublicationTarget::Telegram => {
            match super::outbox::telegram_destination(&common.store, roles, operation).await {
                Ok(chat) => {
                    let name = groups
                        .iter()
                        .find(|g| g.chat_id == chat.0)
                        .map_or_else(|| chat.0.to_string(), |g| g.name.clone());
                    t.with(
                        "validation-to-group",
                        &[arg("group", name), arg("chat", chat.0)],
                    )
                }
                Err(_) => t.with("validation-to-no-group", &[arg("operation", op)]),
            }
        }
        PublicationTarget::X => {
            let content = validation
                .payload
                .get("args")
                .unwrap_or(&validation.payload);
            let named = content.get("account").and_then(Value::as_str);
            match super::outbox::x_destination(&common.store, operation, named).await {
                Ok(account) => t.with("validation-to-x", &[arg("account", account)]),
                Err(_) => t.with("validation-to-no-x", &[arg("operation", op)]),
            }
        }
        PublicationTarget::Site => t.get("validation-to-site"),
        PublicationTarget::Manual => t.get("validation-to-manual"),
    }
}

/// The body of a preview: the typed content, whole, exactly as the
/// publisher will send it (a thread shows every part).
fn preview(t: &Texts, validation: &Validation) -> String {
    let content = match Content::of(validation.kind, &validation.payload) {
        Ok(content) => content,
        Err(error) => return t.with("validation-unreadable", &[arg("error", error)]),
    };
    match &content {
        Content::Post {
            text,
            images,
            reply_to,
        } => {
            let mut shown = vec![t.get("validation-post")];
            if let Some(mention) = reply_to {
                shown.push(t.with("validation-reply-to", &[arg("id", mention)]));
            }
            shown.push(text.clone());
            if !images.is_empty() {
                let ids: Vec<String> = images.iter().map(|i| format!("#{i}")).collect();
                shown.push(t.with("validation-images", &[arg("assets", ids.join(", "))]));
            }
            shown.join("\n")
        }
        Content::Profile(profile) => {
            let asset = |id: Option<i64>| id.map_or_else(|| "—".to_owned(), |i| format!("#{i}"));
            t.with(
                "validation-profile",
                &[
                    arg("name", profile.name.clone().unwrap_or_else(|| "—".into())),
                    arg("bio", profile.bio.clone().unwrap_or_else(|| "—".into())),
                    arg("picture", asset(profile.picture)),
                    arg("banner", asset(profile.banner)),
                ],
            )
        }
        Content::Thread { parts } => {
            let numbered: Vec<String> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{}/{} {p}", i + 1, parts.len()))
                .collect();
            format!(
                "{}\n{}",
                t.with("validation-thread", &[arg("count", parts.len())]),
                numbered.join("\n\n")
            )
        }
        Content::Album {
            images,
            caption,
            assets,
        } => {
            let files = assets.iter().map(|id| format!("#{id}"));
            let listed: Vec<String> = images.iter().cloned().chain(files).collect();
            format!(
                "{}\n{}\n{caption}",
                t.with("validation-album", &[arg("count", listed.len())]),
                listed.join(" ")
            )
        }
        Content::Site {
            url,
            template,
            fields,
            build,
        } => {
            let label = match build {
                Some(build) => format!("{template} #{build}"),
                None => template.clone(),
            };
            let shown = url
                .clone()
                .unwrap_or_else(|| format!("{label}\n{}", pretty(fields)));
            t.with("validation-site", &[arg("url", shown)])
        }
        Content::Pinned { text } => format!("{}\n{text}", t.get("validation-pinned")),
        Content::Poll { question, options } => {
            let options: Vec<String> = options
                .iter()
                .enumerate()
                .map(|(i, o)| format!("{}. {o}", i + 1))
                .collect();
            format!(
                "{}\n{}",
                t.with("validation-poll", &[arg("question", question)]),
                options.join("\n")
            )
        }
        Content::Utility { template, config } => format!(
            "{}\n{template}\n{}",
            t.get("validation-dossier"),
            pretty(config)
        ),
        Content::Dossier { text } => format!("{}\n{text}", t.get("validation-dossier")),
    }
}

/// Shows an album's images above its preview, uploaded from the data
/// folder where they are made files. An album Telegram cannot take (an
/// image it cannot fetch, a missing file) is left out: the preview lists
/// the images and can still be decided.
async fn show_album(common: &Common, chat: i64, validation: &Validation) {
    let Ok(Content::Album { images, assets, .. }) =
        Content::of(validation.kind, &validation.payload)
    else {
        return;
    };
    let store = &common.store;
    let items = match super::album::items(store, validation.operation_id, &images, &assets).await {
        Ok(items) => items,
        Err(error) => {
            tracing::warn!(%error, validation = %validation.id, "the album could not be shown");
            return;
        }
    };
    if let Err(error) = super::album::send(&common.bot, ChatId(chat), &items, "").await {
        tracing::warn!(%error, validation = %validation.id, "the album could not be shown");
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Approve pressed: publish once, show who decided. A second press, even
/// at the same moment, is told it is already decided.
pub async fn approve(
    common: &Common,
    work: &Work,
    roles: &Roles,
    groups: &[GroupSettings],
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    let who = press.user_name.clone();
    match work.engine.approve(ValidationId::new(id), &who).await {
        Ok(_publication) => {}
        Err(StoreError::IllegalTransition { .. }) => {
            return Ok(Some(common.texts.get("validation-already")));
        }
        Err(error) => return Err(error.into()),
    }
    audit(
        common,
        roles,
        press.user_id,
        "validation_approved",
        "validation",
        id,
        json!({"by": who}),
    )
    .await?;
    refresh_validation(common, roles, groups, id, press.message).await?;
    Ok(None)
}

/// Reject pressed: ask why, by force-reply; the answer rejects it.
pub async fn ask_reason(
    common: &Common,
    press: &Press,
    id: i64,
    storage: Arc<StoreStorage<ChatState>>,
) -> Result<Option<String>, HandlerError> {
    let validation = common.store.validation(ValidationId::new(id)).await?;
    if validation.status != ValidationStatus::Pending {
        return Ok(Some(common.texts.get("validation-already")));
    }
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    let prompt = common
        .bot
        .send_message(
            ChatId(chat),
            common
                .texts
                .with("validation-reason-prompt", &[arg("id", id)]),
        )
        .reply_markup(ForceReply::new().selective())
        .await?;
    ChatDialogue::new(storage, ChatId(chat))
        .update(ChatState::AwaitingRejectionReason {
            validation: id,
            prompt: prompt.id.0,
        })
        .await?;
    Ok(None)
}

/// The reason came: the validation is rejected and its step runs again.
pub async fn rejection_reason(
    common: &Common,
    work: &Work,
    roles: &Roles,
    groups: &[GroupSettings],
    incoming: &Incoming,
    id: i64,
) -> HandlerResult {
    match work
        .engine
        .reject(ValidationId::new(id), &incoming.user_name, &incoming.text)
        .await
    {
        Ok(()) => {}
        Err(StoreError::IllegalTransition { .. }) => {
            common
                .bot
                .send_message(
                    ChatId(incoming.chat_id),
                    common.texts.get("validation-already"),
                )
                .await?;
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    }
    audit(
        common,
        roles,
        incoming.user_id,
        "validation_rejected",
        "validation",
        id,
        json!({"reason": incoming.text}),
    )
    .await?;
    refresh_validation(common, roles, groups, id, None).await?;
    common
        .bot
        .send_message(
            ChatId(incoming.chat_id),
            common.texts.get("validation-reason-stored"),
        )
        .await?;
    Ok(())
}

/// Re-renders a validation's message from the store, without buttons.
/// `pressed` is the message whose button decided it: a press can come
/// before the poster has stored where the preview is, and that message is
/// the preview.
async fn refresh_validation(
    common: &Common,
    roles: &Roles,
    groups: &[GroupSettings],
    id: i64,
    pressed: Option<(i64, MessageId)>,
) -> HandlerResult {
    let validation = common.store.validation(ValidationId::new(id)).await?;
    let stored = match common.store.validation_message(validation.id).await? {
        Some((chat, message)) => Some((chat, MessageId(i32::try_from(message)?))),
        None => None,
    };
    if let Some((chat, message)) = stored.or(pressed) {
        common
            .bot
            .edit_message_text(
                ChatId(chat),
                message,
                clip(&validation_text(common, roles, groups, &validation).await),
            )
            .await?;
    }
    Ok(())
}

/// Audits a reviewer's or the CEO's press (`action` on `kind` `id`).
pub(super) async fn audit(
    common: &Common,
    roles: &Roles,
    user: i64,
    action: &str,
    kind: &str,
    id: i64,
    details: Value,
) -> HandlerResult {
    let role = match roles.of(user) {
        super::Role::Ceo => ActorRole::Ceo,
        super::Role::Team => ActorRole::Team,
        super::Role::Stranger => ActorRole::Unknown,
    };
    common
        .store
        .audit(
            &AuditEntry {
                actor: &user.to_string(),
                role,
                action,
                target_kind: Some(kind),
                target_id: Some(id.to_string()),
                details,
            },
            common.clock.now(),
        )
        .await?;
    Ok(())
}
