//! Moderation: each message and member judged by the anti-spam engine, the
//! verdict carried out (`actions`) and logged; captcha presses, and the
//! groups' own time. Messages sent as a chat: the group itself (an
//! anonymous administrator) counts as an admin and a linked channel's
//! automatic forwards are left alone; any other channel is judged as the
//! sender it is.

use std::sync::PoisonError;

use chrono::{DateTime, Utc};
use teloxide::prelude::*;
use teloxide::types::ChatMemberUpdated;
use ulias_antispam::{Event, Member, Sender, Verdict, check};
use ulias_core::domain::{LogKind, LogScope, NewLogEntry};
use ulias_core::store::{OpenCaptcha, Store};

use super::actions::{Cause, act};
use super::labels::learn_spam;
use super::questions::{answer_question, bind};
use super::registry::{kept_of, member_of};
use super::shortlist::weekly_shortlist;
use super::{Community, Guard, Guarded};
use crate::telegram::edge::Press;
use crate::telegram::error::{HandlerError, HandlerResult};
use crate::telegram::group_learning;
use crate::telegram::{Common, Roles, Work, utilities};

/// A message (or an edit) in a guarded group.
pub async fn on_message(
    common: &Common,
    work: &Work,
    roles: &Roles,
    community: &Community,
    message: &Message,
    edited: bool,
) -> HandlerResult {
    let chat = message.chat.id.0;
    let Some(guarded) = community.guard.get(chat) else {
        return Ok(());
    };
    let Some(user) = message.from.as_ref() else {
        return Ok(());
    };
    if speaks_for_the_group(message) {
        return Ok(());
    }
    let member = member_of(user);
    let asker = member.id;
    if let Some(joined) = message.new_chat_members() {
        for user in joined {
            renamed(&guarded, &member_of(user));
            let join = Event::Join(member_of(user));
            judge(common, roles, &guarded, &join, Some(message)).await?;
        }
        return Ok(());
    }
    if renamed(&guarded, &member) {
        let event = Event::NameChange(member.clone());
        if judge(common, roles, &guarded, &event, Some(message))
            .await?
            .is_some_and(|v| !v.actions.is_empty())
        {
            return Ok(());
        }
    }
    let Some(text) = message.text().or_else(|| message.caption()) else {
        return Ok(());
    };
    if text.starts_with("/spam") && roles.may_review(member.id) {
        return learn_spam(common, &community.guard, &guarded, message).await;
    }
    if let Some(args) = text.strip_prefix("/bind")
        && roles.may_review(member.id)
    {
        return bind(common, community, chat, args).await;
    }
    let judged = ulias_antispam::Message {
        id: i64::from(message.id.0),
        sender: Sender {
            member,
            as_channel: message.sender_chat.as_ref().map(|c| c.id.0),
        },
        text: text.to_owned(),
        forwarded: message.forward_origin().is_some(),
    };
    let event = if edited {
        Event::Edited(judged)
    } else {
        Event::Message(judged)
    };
    let verdict = judge(common, roles, &guarded, &event, Some(message)).await;
    // A question the engine acted on (deleted, muted…) is not answered; one
    // that only brushed a rule is: the agent can only read, and says what
    // the operation's file says.
    let clean = verdict
        .as_ref()
        .is_ok_and(|v| v.as_ref().is_none_or(|v| v.actions.is_empty()));
    verdict?;
    // A released utility's command (`/quiz`, `/price`) is answered.
    if clean
        && !edited
        && let (Some(operation), Some(command)) = (&guarded.operation, utilities::command_of(text))
        && utilities::serve(common, operation.id, message, &command).await?
    {
        return Ok(());
    }
    if clean && !edited && trusted(&guarded, asker) {
        group_learning::offer_ham(common, chat, asker, i64::from(message.id.0), text).await?;
    }
    if clean && !edited && ulias_antispam::community::is_question(text, &community.username) {
        // Over its allowance, a question is left for people: no model runs.
        match community.limits.admit_question(message.chat.id.0, asker) {
            Ok(()) => answer_question(common, work, &guarded, message, text).await?,
            Err(limited) => {
                tracing::info!(
                    ?limited,
                    chat = message.chat.id.0,
                    user = asker,
                    "a group question over its limit"
                );
            }
        }
    }
    Ok(())
}

/// A message sent as the group itself (an anonymous administrator), or a
/// linked channel's post forwarded automatically into its discussion
/// group: the group's own voice, never judged.
fn speaks_for_the_group(message: &Message) -> bool {
    let as_group = message
        .sender_chat
        .as_ref()
        .is_some_and(|sender| sender.id == message.chat.id);
    as_group || message.is_automatic_forward()
}

/// A newcomer pressed one of their captcha's buttons (the press is
/// answered already; only the newcomer's own press gets here).
pub async fn captcha_pressed(
    common: &Common,
    roles: &Roles,
    guard: &Guard,
    press: &Press,
    answer: i64,
) -> HandlerResult {
    let Some((chat, _)) = press.message else {
        return Ok(());
    };
    let Some(guarded) = guard.get(chat) else {
        return Ok(());
    };
    let member = Member {
        id: press.user_id,
        display_name: press.user_name.clone(),
        username: None,
    };
    let event = Event::CaptchaAnswer { member, answer };
    judge(common, roles, &guarded, &event, None).await?;
    // A wrong press is remembered across a restart: no second guess then
    // either.
    let failed = guarded
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .captchas
        .get(&press.user_id)
        .filter(|pending| pending.failed)
        .copied();
    if let Some(pending) = failed {
        let message = guarded
            .captcha_messages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&press.user_id)
            .map(|id| i64::from(id.0));
        let open = OpenCaptcha {
            user_id: press.user_id,
            answer: pending.answer,
            deadline: pending.deadline,
            failed: true,
            message_id: message,
        };
        common.store.save_captcha(chat, &open).await?;
    }
    Ok(())
}

/// Whether `user` is trusted in the group by their clean messages.
fn trusted(guarded: &Guarded, user: i64) -> bool {
    guarded
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .is_trusted(user, guarded.policy.policy.trust_after)
}

/// Whether `member` now shows another name than when last seen (the first
/// sight only records it).
fn renamed(guarded: &Guarded, member: &Member) -> bool {
    let shown = format!(
        "{} @{}",
        member.display_name,
        member.username.as_deref().unwrap_or_default()
    );
    let mut names = guarded.names.lock().unwrap_or_else(PoisonError::into_inner);
    names
        .insert(member.id, shown.clone())
        .is_some_and(|before| before != shown)
}

/// A member joined (a `chat_member` update).
pub async fn on_member(
    common: &Common,
    roles: &Roles,
    guard: &Guard,
    update: &ChatMemberUpdated,
) -> HandlerResult {
    let Some(guarded) = guard.get(update.chat.id.0) else {
        return Ok(());
    };
    let joined =
        !update.old_chat_member.kind.is_present() && update.new_chat_member.kind.is_present();
    if joined {
        renamed(&guarded, &member_of(&update.new_chat_member.user));
        judge(
            common,
            roles,
            &guarded,
            &Event::Join(member_of(&update.new_chat_member.user)),
            None,
        )
        .await?;
    }
    Ok(())
}

/// Time passes for every group: captcha deadlines, the end of raid mode,
/// and once a week the moderator shortlist for the team.
pub async fn tick(common: &Common, roles: &Roles, guard: &Guard) {
    for guarded in guard.all() {
        if let Err(error) = judge(common, roles, &guarded, &Event::Tick, None).await {
            tracing::warn!(%error, group = guarded.settings.chat_id, "group tick");
        }
        if let Err(error) = weekly_shortlist(common, roles, &guarded).await {
            tracing::warn!(%error, group = guarded.settings.chat_id, "moderator shortlist");
        }
    }
}

/// Runs the engine on one event, carries out its actions (unless the group
/// is in dry run) and logs the verdict. Returns the verdict when it said anything.
async fn judge(
    common: &Common,
    roles: &Roles,
    guarded: &Guarded,
    event: &Event,
    message: Option<&Message>,
) -> Result<Option<Verdict>, HandlerError> {
    let now = common.clock.now();
    let writer = match event {
        Event::Message(m) | Event::Edited(m) => Some(m.sender.judged_id()),
        _ => None,
    };
    let (verdict, before, after) = {
        let mut state = guarded.state.lock().unwrap_or_else(PoisonError::into_inner);
        let before = writer.and_then(|user| kept_of(&state, user));
        let verdict = check(&guarded.policy, &mut state, event, now.timestamp());
        let after = writer.and_then(|user| kept_of(&state, user));
        (verdict, before, after)
    };
    if let Some(member) = after.filter(|after| before.as_ref() != Some(after)) {
        common
            .store
            .save_group_member(guarded.settings.chat_id, &member, now)
            .await?;
    }
    if verdict.hits.is_empty() && verdict.actions.is_empty() {
        return Ok(None);
    }
    log_verdict(&common.store, guarded, event, &verdict, now).await?;
    if !verdict.dry_run {
        let cause = Cause { event, message };
        for action in &verdict.actions {
            if let Err(error) = act(common, roles, guarded, action, &cause).await {
                tracing::warn!(%error, ?action, "a moderation action failed");
            }
        }
    }
    Ok(Some(verdict))
}

async fn log_verdict(
    store: &Store,
    guarded: &Guarded,
    event: &Event,
    verdict: &Verdict,
    now: DateTime<Utc>,
) -> HandlerResult {
    let who = match event {
        Event::Message(m) | Event::Edited(m) => m.sender.judged_id().to_string(),
        Event::Join(m) | Event::NameChange(m) | Event::CaptchaAnswer { member: m, .. } => {
            m.id.to_string()
        }
        Event::Reaction { member } => member.id.to_string(),
        Event::Tick => "-".to_owned(),
    };
    let actions: Vec<String> = verdict.actions.iter().map(|a| format!("{a:?}")).collect();
    let summary = format!(
        "{}: user {who}: rules [{}] score {:.2} → {}{}",
        guarded.settings.name,
        verdict.rules().join(", "),
        verdict.score(),
        actions.join(", "),
        if verdict.dry_run { " (dry run)" } else { "" }
    );
    let entry = NewLogEntry::event(
        LogScope {
            agent: Some("antispam".to_owned()),
            ..LogScope::default()
        },
        LogKind::Moderation,
        summary,
    );
    store.append_log(&entry, now).await?;
    Ok(())
}
