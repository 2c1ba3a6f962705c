//! Validations and decisions as messages with buttons, and what pressing
//! them does. A message is re-rendered from the store when it is edited,
//! so what it shows is always what is stored.

use std::sync::Arc;

use serde_json::{Value, json};
use teloxide::prelude::*;
use teloxide::types::{
    ForceReply, InlineKeyboardButton, InlineKeyboardMarkup, InputFile, InputMedia, InputMediaPhoto,
    MessageId,
};
use ulias_core::domain::{
    Decision, DecisionAnswer, DecisionId, DecisionStatus, PublicationTarget, Urgency, Validation,
    ValidationId, ValidationKind, ValidationStatus,
};
use ulias_core::store::{ActorRole, AuditEntry, StoreError};

use super::buttons::Button;
use super::edge::{Incoming, Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{App, ChatDialogue, ChatState, StoreStorage};
use crate::decision_text;
use crate::i18n::arg;
use ulias_agents::publications::Content;

/// Shows a validation in the team chat: the album first when it has images,
/// then the preview with Approve / Reject. Returns the buttons' message.
pub async fn post_validation(
    app: &App,
    chat: i64,
    validation: &Validation,
) -> Result<MessageId, HandlerError> {
    let images = images_of(validation);
    if validation.kind == ValidationKind::Album && images.len() >= 2 {
        let media = images
            .iter()
            .take(10)
            .map(|url| InputMedia::Photo(InputMediaPhoto::new(InputFile::url(url.clone()))));
        app.bot.send_media_group(ChatId(chat), media).await?;
    }
    let keyboard = InlineKeyboardMarkup::new([[
        InlineKeyboardButton::callback(
            app.texts.get("button-approve"),
            Button::Approve(validation.id.get()).data(),
        ),
        InlineKeyboardButton::callback(
            app.texts.get("button-reject"),
            Button::Reject(validation.id.get()).data(),
        ),
    ]]);
    let sent = app
        .bot
        .send_message(ChatId(chat), clip(&validation_text(app, validation).await))
        .reply_markup(keyboard)
        .await?;
    Ok(sent.id)
}

/// The text of a validation's message, with its outcome once decided.
pub async fn validation_text(app: &App, validation: &Validation) -> String {
    let step = validation
        .payload
        .get("step")
        .and_then(Value::as_str)
        .map(|step| app.texts.with("validation-step", &[arg("step", step)]))
        .unwrap_or_default();
    let mut text = app.texts.with(
        "validation-header",
        &[
            arg("id", validation.id),
            arg("kind", validation.kind),
            arg("step", step),
        ],
    );
    text.push('\n');
    text.push_str(&destination(app, validation).await);
    text.push('\n');
    text.push_str(&preview(app, validation));
    let at = |when: Option<chrono::DateTime<chrono::Utc>>| {
        when.map(|w| w.format("%H:%M").to_string())
            .unwrap_or_default()
    };
    let who = validation.decided_by.clone().unwrap_or_default();
    match validation.status {
        ValidationStatus::Approved => {
            text.push_str("\n\n");
            text.push_str(&app.texts.with(
                "validation-approved",
                &[arg("who", who), arg("at", at(validation.decided_at))],
            ));
        }
        ValidationStatus::Rejected => {
            text.push_str("\n\n");
            let reason = validation.rejection_reason.clone().unwrap_or_default();
            text.push_str(&app.texts.with(
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
async fn destination(app: &App, validation: &Validation) -> String {
    let t = &app.texts;
    let operation = validation.operation_id;
    let op = operation.map(|o| o.to_string()).unwrap_or_default();
    match validation.target {
        PublicationTarget::Telegram => {
            match super::outbox::telegram_destination(app, operation).await {
                Ok(chat) => {
                    let name = app
                        .settings
                        .telegram
                        .groups
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
            match super::outbox::x_destination(app, operation, named).await {
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
fn preview(app: &App, validation: &Validation) -> String {
    let t = &app.texts;
    let content = match Content::of(validation.kind, &validation.payload) {
        Ok(content) => content,
        Err(error) => return t.with("validation-unreadable", &[arg("error", error)]),
    };
    match &content {
        Content::Post { text } => format!("{}\n{text}", t.get("validation-post")),
        Content::Profile { .. } => {
            format!(
                "{}\n{}",
                t.get("validation-post"),
                content.messages().join("\n")
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
        Content::Album { images, caption } => format!(
            "{}\n{caption}",
            t.with("validation-album", &[arg("count", images.len())])
        ),
        Content::Site {
            url,
            template,
            fields,
        } => {
            let shown = url
                .clone()
                .unwrap_or_else(|| format!("{template}\n{}", pretty(fields)));
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

/// The images of an album, as URLs.
fn images_of(validation: &Validation) -> Vec<url::Url> {
    match Content::of(validation.kind, &validation.payload) {
        Ok(Content::Album { images, .. }) => images.iter().filter_map(|u| u.parse().ok()).collect(),
        _ => Vec::new(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

/// Approve pressed: publish once, show who decided. A second press, even
/// at the same moment, is told it is already decided.
pub async fn approve(app: &App, press: &Press, id: i64) -> Result<Option<String>, HandlerError> {
    let who = press.user_name.clone();
    match app.engine.approve(ValidationId::new(id), &who).await {
        Ok(_publication) => {}
        Err(StoreError::IllegalTransition { .. }) => {
            return Ok(Some(app.texts.get("validation-already")));
        }
        Err(error) => return Err(error.into()),
    }
    audit(
        app,
        press.user_id,
        "validation_approved",
        "validation",
        id,
        json!({"by": who}),
    )
    .await?;
    refresh_validation(app, id).await?;
    Ok(None)
}

/// Reject pressed: ask why, by force-reply; the answer rejects it.
pub async fn ask_reason(
    app: &App,
    press: &Press,
    id: i64,
    storage: Arc<StoreStorage<ChatState>>,
) -> Result<Option<String>, HandlerError> {
    let validation = app.store.validation(ValidationId::new(id)).await?;
    if validation.status != ValidationStatus::Pending {
        return Ok(Some(app.texts.get("validation-already")));
    }
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    let prompt = app
        .bot
        .send_message(
            ChatId(chat),
            app.texts.with("validation-reason-prompt", &[arg("id", id)]),
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
pub async fn rejection_reason(app: &App, incoming: &Incoming, id: i64) -> HandlerResult {
    match app
        .engine
        .reject(ValidationId::new(id), &incoming.user_name, &incoming.text)
        .await
    {
        Ok(()) => {}
        Err(StoreError::IllegalTransition { .. }) => {
            app.bot
                .send_message(
                    ChatId(incoming.chat_id),
                    app.texts.get("validation-already"),
                )
                .await?;
            return Ok(());
        }
        Err(error) => return Err(error.into()),
    }
    audit(
        app,
        incoming.user_id,
        "validation_rejected",
        "validation",
        id,
        json!({"reason": incoming.text}),
    )
    .await?;
    refresh_validation(app, id).await?;
    app.bot
        .send_message(
            ChatId(incoming.chat_id),
            app.texts.get("validation-reason-stored"),
        )
        .await?;
    Ok(())
}

/// Re-renders a validation's message from the store, without buttons.
async fn refresh_validation(app: &App, id: i64) -> HandlerResult {
    let validation = app.store.validation(ValidationId::new(id)).await?;
    if let Some((chat, message)) = app.store.validation_message(validation.id).await? {
        let message = MessageId(i32::try_from(message)?);
        app.bot
            .edit_message_text(
                ChatId(chat),
                message,
                clip(&validation_text(app, &validation).await),
            )
            .await?;
    }
    Ok(())
}

/// Shows a decision to the CEO with its options as buttons.
pub async fn post_decision(
    app: &App,
    chat: i64,
    decision: &Decision,
) -> Result<MessageId, HandlerError> {
    let labels = decision_text::option_labels(&app.texts, decision);
    let rows = labels.into_iter().enumerate().map(|(option, label)| {
        let label = if decision.recommended == Some(option) {
            app.texts
                .with("decision-recommended", &[arg("option", label)])
        } else {
            label
        };
        vec![InlineKeyboardButton::callback(
            label.chars().take(60).collect::<String>(),
            Button::Decide {
                decision: decision.id.get(),
                option,
            }
            .data(),
        )]
    });
    let sent = app
        .bot
        .send_message(ChatId(chat), clip(&decision_text(app, decision)))
        .reply_markup(InlineKeyboardMarkup::new(rows))
        .await?;
    Ok(sent.id)
}

/// The text of a decision's message, with its answer once made.
pub fn decision_text(app: &App, decision: &Decision) -> String {
    let urgency = match decision.urgency {
        Urgency::Low => "urgency-low",
        Urgency::Normal => "urgency-normal",
        Urgency::High => "urgency-high",
        Urgency::Critical => "urgency-critical",
    };
    let mut lines = vec![
        app.texts.with(
            "decision-header",
            &[
                arg("id", decision.id),
                arg("urgency", app.texts.get(urgency)),
            ],
        ),
        decision_text::question(&app.texts, decision),
    ];
    if !decision.context_summary.is_empty() {
        lines.push(app.texts.with(
            "decision-context",
            &[arg("context", &decision.context_summary)],
        ));
    }
    let option = |i: Option<usize>| decision_text::option_label(&app.texts, decision, i);
    match decision.status {
        DecisionStatus::Pending => {
            if let (Some(at), Some(_)) = (decision.timeout_at, decision.auto_decision) {
                lines.push(app.texts.with(
                    "decision-timeout",
                    &[
                        arg("at", at.format("%Y-%m-%d %H:%M UTC")),
                        arg("default", option(decision.auto_decision)),
                    ],
                ));
            }
        }
        DecisionStatus::Answered | DecisionStatus::TimedOut => {
            let at = decision
                .responded_at
                .map(|t| t.format("%H:%M").to_string())
                .unwrap_or_default();
            lines.push(app.texts.with(
                "decision-answered",
                &[
                    arg("option", option(decision.response)),
                    arg("who", decision.responded_by.clone().unwrap_or_default()),
                    arg("at", at),
                ],
            ));
        }
        DecisionStatus::Cancelled => {}
    }
    lines.join("\n")
}

/// An option pressed: the decision is answered once and applied.
pub async fn decide(
    app: &App,
    press: &Press,
    id: i64,
    option: usize,
) -> Result<Option<String>, HandlerError> {
    let answer = DecisionAnswer {
        option,
        by: press.user_name.clone(),
    };
    let decision = match app
        .store
        .answer_decision(DecisionId::new(id), &answer, app.clock.now())
        .await
    {
        Ok(decision) => decision,
        Err(StoreError::IllegalTransition { .. }) => {
            return Ok(Some(app.texts.get("decision-already")));
        }
        Err(error) => return Err(error.into()),
    };
    // Carried out now so the CEO sees the outcome; if it fails, the next
    // tick carries it out (the answer is recorded either way).
    let applied = match app.engine.apply_decision(&decision).await {
        Ok(applied) => Some(applied),
        Err(error) => {
            tracing::warn!(decision = id, %error, "decision answered, not carried out yet");
            None
        }
    };
    audit(
        app,
        press.user_id,
        "decision_answered",
        "decision",
        id,
        json!({"option": option}),
    )
    .await?;
    if let Some((chat, message)) = press.message {
        app.bot
            .edit_message_text(ChatId(chat), message, clip(&decision_text(app, &decision)))
            .await?;
        super::operations::tell_applied(app, chat, applied.as_ref()).await?;
    }
    Ok(None)
}

async fn audit(
    app: &App,
    user: i64,
    action: &str,
    kind: &str,
    id: i64,
    details: Value,
) -> HandlerResult {
    let role = match app.roles.of(user) {
        super::Role::Ceo => ActorRole::Ceo,
        super::Role::Team => ActorRole::Team,
        super::Role::Stranger => ActorRole::Unknown,
    };
    app.store
        .audit(
            &AuditEntry {
                actor: &user.to_string(),
                role,
                action,
                target_kind: Some(kind),
                target_id: Some(id.to_string()),
                details,
            },
            app.clock.now(),
        )
        .await?;
    Ok(())
}
