//! The handler tree: every message and button press goes through here.
//! Roles are checked first; strangers get one polite refusal, audited.
//! Each endpoint takes the parts it uses, injected by `dptree::deps![…]`.

use std::sync::Arc;

use serde_json::json;
use teloxide::dispatching::{DpHandlerDescription, UpdateFilterExt};
use teloxide::prelude::*;
use teloxide::types::{ChatMemberUpdated, ReplyParameters};
use ulias_core::settings::{BudgetSettings, CeoSettings};
use ulias_core::store::{ActorRole, AuditEntry};

use super::buttons::Button;
use super::edge::{Incoming, Press};
use super::error::HandlerResult;
use super::groups::Community;
use super::{
    ChatDialogue, ChatState, Common, Role, Roles, StoreStorage, Work, answers, ceo, commands,
    decisions, groups, operations, outbox, previews, profile, proposals, votes,
};
use crate::ntfy::Ntfy;

/// The alert scope that makes a stranger's refusal go out once.
const REFUSED_SCOPE: &str = "stranger_refused";

/// The tree of handlers (a function, so tests build the same one).
pub fn handler_tree() -> Handler<'static, HandlerResult, DpHandlerDescription> {
    dptree::entry()
        .branch(
            Update::filter_message()
                .branch(dptree::filter(in_guarded_group).endpoint(on_group_message))
                .filter_map(|message: Message| Incoming::from_message(&message))
                .branch(dptree::filter(from_stranger_in_private).endpoint(refuse_stranger))
                .branch(dptree::filter_async(awaits_reason).endpoint(on_rejection_reason))
                .branch(dptree::filter(is_command).endpoint(on_command))
                .branch(
                    dptree::filter(|roles: Arc<Roles>, incoming: Incoming| {
                        ceo_in_private(&roles, &incoming)
                    })
                    .endpoint(on_ceo_text),
                ),
        )
        .branch(Update::filter_edited_message().endpoint(on_edited))
        .branch(Update::filter_chat_member().endpoint(on_member))
        .branch(Update::filter_my_chat_member().endpoint(on_my_member))
        .branch(Update::filter_callback_query().endpoint(on_button))
        .branch(Update::filter_poll().endpoint(on_poll))
}

/// A poll the bot sent has new votes: its totals are stored for the
/// vote's count (a poll it did not send changes nothing). Poll updates
/// carry no chat, so they may be handled out of order: the update's id
/// says which state is the latest.
async fn on_poll(
    common: Arc<Common>,
    update: Update,
    poll: teloxide::types::Poll,
) -> HandlerResult {
    let counts: Vec<u64> = poll
        .options
        .iter()
        .map(|o| u64::from(o.voter_count))
        .collect();
    common
        .store
        .set_poll_counts(
            ulias_core::domain::PollPlatform::Telegram,
            &poll.id.0,
            &counts,
            i64::from(update.id.0),
            common.clock.now(),
        )
        .await?;
    Ok(())
}

fn in_guarded_group(community: Arc<Community>, message: Message) -> bool {
    community.guard.guards(message.chat.id.0)
}

fn from_stranger_in_private(roles: Arc<Roles>, incoming: Incoming) -> bool {
    incoming.private && roles.of(incoming.user_id) == Role::Stranger
}

/// Whether a reviewer answers the question why they reject a validation.
/// A dialogue that cannot be read goes to the endpoint, which says why.
async fn awaits_reason(
    storage: Arc<StoreStorage<ChatState>>,
    roles: Arc<Roles>,
    incoming: Incoming,
) -> bool {
    if incoming.reply_to.is_none() || !roles.may_review(incoming.user_id) {
        return false;
    }
    match ChatDialogue::new(storage, ChatId(incoming.chat_id))
        .get()
        .await
    {
        Ok(Some(ChatState::AwaitingRejectionReason { prompt, .. })) => {
            incoming.reply_to == Some(prompt)
        }
        Ok(_) => false,
        Err(_) => true,
    }
}

/// Commands are answered in private chats and the team chat only, never
/// in front of a group the bot happens to be in.
fn is_command(roles: Arc<Roles>, incoming: Incoming) -> bool {
    let command_chat = incoming.private || Some(incoming.chat_id) == roles.team_chat;
    incoming.text.starts_with('/') && roles.of(incoming.user_id) != Role::Stranger && command_chat
}

/// Records that the CEO just wrote, when they write in private.
async fn note_ceo(common: &Common, roles: &Roles, incoming: &Incoming) -> HandlerResult {
    if ceo_in_private(roles, incoming) {
        answers::ceo_seen(common).await?;
    }
    Ok(())
}

fn ceo_in_private(roles: &Roles, incoming: &Incoming) -> bool {
    incoming.private && roles.of(incoming.user_id) == Role::Ceo
}

async fn on_group_message(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    message: Message,
) -> HandlerResult {
    groups::on_message(&common, &work, &roles, &community, &message, false).await
}

/// The reason a reviewer gave for rejecting a validation.
async fn on_rejection_reason(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    storage: Arc<StoreStorage<ChatState>>,
    incoming: Incoming,
) -> HandlerResult {
    note_ceo(&common, &roles, &incoming).await?;
    let dialogue = ChatDialogue::new(storage, ChatId(incoming.chat_id));
    if let Some(ChatState::AwaitingRejectionReason { validation, prompt }) = dialogue.get().await?
        && incoming.reply_to == Some(prompt)
    {
        let groups = &community.groups;
        previews::rejection_reason(&common, &work, &roles, groups, &incoming, validation).await?;
        dialogue.exit().await?;
    }
    Ok(())
}

async fn on_command(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    ntfy: Option<Arc<Ntfy>>,
    budgets: Arc<BudgetSettings>,
    incoming: Incoming,
) -> HandlerResult {
    note_ceo(&common, &roles, &incoming).await?;
    let ntfy = ntfy.as_deref();
    let username = &community.username;
    commands::answer(&common, &work, &roles, ntfy, &budgets, username, &incoming).await
}

/// A text from the CEO in private that is not a command.
async fn on_ceo_text(
    common: Arc<Common>,
    work: Arc<Work>,
    ceo: Arc<CeoSettings>,
    incoming: Incoming,
) -> HandlerResult {
    answers::ceo_seen(&common).await?;
    if incoming.forwarded {
        // Someone else's words: the CEO says what to do with them.
        common
            .bot
            .send_message(ChatId(incoming.chat_id), common.texts.get("forwarded-ask"))
            .await?;
        return Ok(());
    }
    ceo::on_text(&common, &work, &ceo, &incoming).await
}

async fn on_edited(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    message: Message,
) -> HandlerResult {
    groups::on_message(&common, &work, &roles, &community, &message, true).await
}

async fn on_member(
    common: Arc<Common>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    update: ChatMemberUpdated,
) -> HandlerResult {
    groups::on_member(&common, &roles, &community.guard, &update).await
}

/// The bot was added to a chat, or its rights there changed.
async fn on_my_member(
    common: Arc<Common>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    update: ChatMemberUpdated,
) -> HandlerResult {
    groups::on_my_member(&common, &roles, &community.guard, &update).await
}

async fn refuse_stranger(
    common: Arc<Common>,
    community: Arc<Community>,
    incoming: Incoming,
) -> HandlerResult {
    // A flood from one stranger is audited up to the allowance only.
    if !community.limits.admit_stranger(incoming.user_id) {
        return Ok(());
    }
    let now = common.clock.now();
    common.store
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
    let first_time = common
        .store
        .mark_alert_sent(REFUSED_SCOPE, &incoming.user_id.to_string(), now)
        .await?;
    if first_time {
        common
            .bot
            .send_message(
                ChatId(incoming.chat_id),
                common.texts.get("refusal-stranger"),
            )
            .await?;
    }
    Ok(())
}

async fn on_button(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    ceo: Arc<CeoSettings>,
    storage: Arc<StoreStorage<ChatState>>,
    query: CallbackQuery,
) -> HandlerResult {
    let Some(press) = Press::from_query(&query) else {
        return Ok(());
    };
    let Ok(button) = press.data.parse::<Button>() else {
        common.bot.answer_callback_query(query.id.clone()).await?;
        return Ok(());
    };
    if let Button::Captcha { user, answer } = button {
        return on_captcha(&common, &roles, &community, &query, &press, user, answer).await;
    }
    let allowed = match button {
        Button::Approve(_)
        | Button::Reject(_)
        | Button::Unban(_)
        | Button::Resend(_)
        | Button::VoteTie { .. } => roles.may_review(press.user_id),
        Button::Decide { .. }
        | Button::Guess { .. }
        | Button::Details(_)
        | Button::Redo(_)
        | Button::FollowUp(_)
        | Button::Proposal { .. }
        | Button::Forget(_)
        | Button::Takeover { .. } => roles.may_decide(press.user_id),
        Button::Captcha { .. } => false,
    };
    if !allowed {
        common
            .store
            .audit(
                &AuditEntry {
                    actor: &press.user_id.to_string(),
                    role: ActorRole::Unknown,
                    action: "button_refused",
                    target_kind: None,
                    target_id: Some(press.data.clone()),
                    details: json!({"name": press.user_name}),
                },
                common.clock.now(),
            )
            .await?;
        return refuse_press(&common, &query, "not-allowed").await;
    }
    // Answered first: the presser's spinner stops at once, whatever the
    // work takes; what the work finds is said after, as a reply.
    common.bot.answer_callback_query(query.id.clone()).await?;
    let notice = match button {
        Button::Captcha { .. } => None,
        Button::Approve(id) => {
            let groups = &community.groups;
            previews::approve(&common, &work, &roles, groups, &press, id).await?
        }
        Button::Reject(id) => previews::ask_reason(&common, &press, id, storage).await?,
        Button::Decide { decision, option } => {
            decisions::decide(&common, &work, &roles, &press, decision, option).await?
        }
        Button::Guess {
            interaction,
            option,
        } => ceo::on_guess(&common, &work, &press, interaction, option).await?,
        Button::Unban(sample) => groups::unban(&common, &community.guard, sample).await?,
        Button::Resend(publication) => outbox::resend(&common, &press, publication).await?,
        Button::Details(objective) => answers::details(&common, &press, objective).await?,
        Button::Redo(objective) => answers::redo(&common, &work, &press, objective).await?,
        Button::FollowUp(objective) => {
            answers::follow_up(&common, &work, &press, objective).await?
        }
        Button::Proposal { proposal, choice } => {
            proposals::answer(&common, &work, &ceo, &press, proposal, choice).await?
        }
        Button::Forget(entry) => profile::forget(&common, &press, entry).await?,
        Button::Takeover { interaction, run } => {
            operations::on_takeover_button(&common, &work, &press, interaction, run).await?
        }
        Button::VoteTie { vote, option } => {
            votes::choose(&common, &work, &press, vote, option).await?
        }
    };
    if let (Some(text), Some((chat, message))) = (notice, press.message) {
        common
            .bot
            .send_message(ChatId(chat), text)
            .reply_parameters(ReplyParameters::new(message).allow_sending_without_reply())
            .await?;
    }
    Ok(())
}

/// Answers a press that does nothing with an alert saying why.
async fn refuse_press(common: &Common, query: &CallbackQuery, key: &str) -> HandlerResult {
    common
        .bot
        .answer_callback_query(query.id.clone())
        .text(common.texts.get(key))
        .show_alert(true)
        .await?;
    Ok(())
}

/// A captcha button: only the newcomer it was asked of may answer it.
async fn on_captcha(
    common: &Common,
    roles: &Roles,
    community: &Community,
    query: &CallbackQuery,
    press: &Press,
    user: i64,
    answer: i64,
) -> HandlerResult {
    if press.user_id != user {
        return refuse_press(common, query, "group-captcha-not-yours").await;
    }
    common.bot.answer_callback_query(query.id.clone()).await?;
    groups::captcha_pressed(common, roles, &community.guard, press, answer).await
}
