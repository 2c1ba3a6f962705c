//! The handler tree: every message and button press goes through here.
//! Roles are checked first; strangers get one polite refusal, audited.

use std::sync::Arc;

use serde_json::json;
use teloxide::dispatching::{DpHandlerDescription, UpdateFilterExt};
use teloxide::prelude::*;
use teloxide::types::ChatMemberUpdated;
use ulias_core::store::{ActorRole, AuditEntry};

use super::buttons::Button;
use super::edge::{Incoming, Press};
use super::error::HandlerResult;
use super::{
    App, ChatDialogue, ChatState, Role, StoreStorage, answers, ceo, commands, groups, operations,
    outbox, previews, profile, proposals,
};

/// The alert scope that makes a stranger's refusal go out once.
const REFUSED_SCOPE: &str = "stranger_refused";

/// The tree of handlers (a function, so tests build the same one).
pub fn handler_tree() -> Handler<'static, HandlerResult, DpHandlerDescription> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(on_message))
        .branch(Update::filter_edited_message().endpoint(on_edited))
        .branch(Update::filter_chat_member().endpoint(on_member))
        .branch(Update::filter_callback_query().endpoint(on_button))
}

async fn on_message(
    app: Arc<App>,
    storage: Arc<StoreStorage<ChatState>>,
    message: Message,
) -> HandlerResult {
    if app.guard.guards(message.chat.id.0) {
        return groups::on_message(&app, &message, false).await;
    }
    let Some(incoming) = Incoming::from_message(&message) else {
        return Ok(());
    };
    let role = app.roles.of(incoming.user_id);
    if incoming.private && role == Role::Stranger {
        return refuse_stranger(&app, &incoming).await;
    }
    if incoming.private && role == Role::Ceo {
        answers::ceo_seen(&app).await?;
    }
    let dialogue = ChatDialogue::new(storage, ChatId(incoming.chat_id));
    if let Some(ChatState::AwaitingRejectionReason { validation, prompt }) = dialogue.get().await?
        && incoming.reply_to == Some(prompt)
        && app.roles.may_review(incoming.user_id)
    {
        previews::rejection_reason(&app, &incoming, validation).await?;
        dialogue.exit().await?;
        return Ok(());
    }
    // Commands are answered in private chats and the team chat only, never
    // in front of a group the bot happens to be in.
    let command_chat = incoming.private || Some(incoming.chat_id) == app.roles.team_chat;
    if incoming.text.starts_with('/') && role != Role::Stranger && command_chat {
        return commands::answer(&app, &incoming, role).await;
    }
    if incoming.private && role == Role::Ceo {
        if incoming.forwarded {
            // Someone else's words: the CEO says what to do with them.
            app.bot
                .send_message(ChatId(incoming.chat_id), app.texts.get("forwarded-ask"))
                .await?;
            return Ok(());
        }
        return ceo::on_text(&app, &incoming).await;
    }
    Ok(())
}

async fn on_edited(app: Arc<App>, message: Message) -> HandlerResult {
    groups::on_message(&app, &message, true).await
}

async fn on_member(app: Arc<App>, update: ChatMemberUpdated) -> HandlerResult {
    groups::on_member(&app, &update).await
}

async fn refuse_stranger(app: &App, incoming: &Incoming) -> HandlerResult {
    // A flood from one stranger is audited up to the allowance only.
    if !app.limits.admit_stranger(incoming.user_id) {
        return Ok(());
    }
    let now = app.clock.now();
    app.store
        .audit(
            &AuditEntry {
                actor: &incoming.user_id.to_string(),
                role: ActorRole::Unknown,
                action: "private_message_refused",
                target_kind: None,
                target_id: None,
                details: json!({"name": incoming.user_name, "text": incoming.text.chars().take(200).collect::<String>()}),
            },
            now,
        )
        .await?;
    let first_time = app
        .store
        .mark_alert_sent(REFUSED_SCOPE, &incoming.user_id.to_string(), now)
        .await?;
    if first_time {
        app.bot
            .send_message(ChatId(incoming.chat_id), app.texts.get("refusal-stranger"))
            .await?;
    }
    Ok(())
}

async fn on_button(
    app: Arc<App>,
    storage: Arc<StoreStorage<ChatState>>,
    query: CallbackQuery,
) -> HandlerResult {
    let Some(press) = Press::from_query(&query) else {
        return Ok(());
    };
    let Ok(button) = press.data.parse::<Button>() else {
        app.bot.answer_callback_query(query.id.clone()).await?;
        return Ok(());
    };
    let allowed = match button {
        Button::Approve(_) | Button::Reject(_) | Button::Unban(_) | Button::Resend(_) => {
            app.roles.may_review(press.user_id)
        }
        Button::Decide { .. }
        | Button::Guess { .. }
        | Button::Details(_)
        | Button::Redo(_)
        | Button::FollowUp(_)
        | Button::Proposal { .. }
        | Button::Forget(_)
        | Button::Takeover { .. } => app.roles.may_decide(press.user_id),
    };
    if !allowed {
        app.store
            .audit(
                &AuditEntry {
                    actor: &press.user_id.to_string(),
                    role: ActorRole::Unknown,
                    action: "button_refused",
                    target_kind: None,
                    target_id: Some(press.data.clone()),
                    details: json!({"name": press.user_name}),
                },
                app.clock.now(),
            )
            .await?;
        app.bot
            .answer_callback_query(query.id.clone())
            .text(app.texts.get("not-allowed"))
            .show_alert(true)
            .await?;
        return Ok(());
    }
    let answer = match button {
        Button::Approve(id) => previews::approve(&app, &press, id).await?,
        Button::Reject(id) => previews::ask_reason(&app, &press, id, storage).await?,
        Button::Decide { decision, option } => {
            previews::decide(&app, &press, decision, option).await?
        }
        Button::Guess {
            interaction,
            option,
        } => ceo::on_guess(&app, &press, interaction, option).await?,
        Button::Unban(sample) => groups::unban(&app, sample).await?,
        Button::Resend(publication) => outbox::resend(&app, &press, publication).await?,
        Button::Details(objective) => answers::details(&app, &press, objective).await?,
        Button::Redo(objective) => answers::redo(&app, &press, objective).await?,
        Button::FollowUp(objective) => answers::follow_up(&app, &press, objective).await?,
        Button::Proposal { proposal, choice } => {
            proposals::answer(&app, &press, proposal, choice).await?
        }
        Button::Forget(entry) => profile::forget(&app, &press, entry).await?,
        Button::Takeover { interaction, run } => {
            operations::on_takeover_button(&app, &press, interaction, run).await?
        }
    };
    let mut reply = app.bot.answer_callback_query(query.id.clone());
    if let Some(text) = answer {
        reply = reply.text(text);
    }
    reply.await?;
    Ok(())
}
