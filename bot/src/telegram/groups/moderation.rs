//! Moderation: each message and member judged by the anti-spam engine, the
//! verdict carried out and logged; ban reports, `/spam`, unban and the groups'
//! own time.

use std::sync::PoisonError;

use chrono::{DateTime, Utc};
use teloxide::prelude::*;
use teloxide::types::{
    ChatMemberUpdated, ChatPermissions, InlineKeyboardButton, InlineKeyboardMarkup, MessageId,
    UserId,
};
use ulias_antispam::{Action, Event, Member, Sender, Verdict, check};
use ulias_core::domain::{LogKind, LogScope, NewLogEntry};
use ulias_core::store::{SpamSample, Store};

use super::questions::{answer_question, bind};
use super::registry::{kept_of, member_of};
use super::{Community, Guard, Guarded};
use crate::i18n::arg;
use crate::telegram::buttons::Button;
use crate::telegram::edge::clip;
use crate::telegram::error::{HandlerError, HandlerResult};
use crate::telegram::group_learning;
use crate::telegram::{Common, Roles, Work};

/// What an ordinary member may do: write, post media, polls and previews,
/// invite — not change the group's info, pin or manage topics.
fn member_permissions() -> ChatPermissions {
    ChatPermissions::SEND_MESSAGES
        | ChatPermissions::SEND_MEDIA_MESSAGES
        | ChatPermissions::SEND_POLLS
        | ChatPermissions::SEND_OTHER_MESSAGES
        | ChatPermissions::ADD_WEB_PAGE_PREVIEWS
        | ChatPermissions::INVITE_USERS
}

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
    let member = member_of(user);
    let asker = member.id;
    if let Some(joined) = message.new_chat_members() {
        for user in joined {
            renamed(&guarded, &member_of(user));
            judge(common, roles, &guarded, &Event::Join(member_of(user)), None).await?;
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
    let pending = guarded
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .captchas
        .contains_key(&member.id);
    if let (true, Ok(answer)) = (pending, text.trim().parse::<i64>()) {
        judge(
            common,
            roles,
            &guarded,
            &Event::CaptchaAnswer { member, answer },
            Some(message),
        )
        .await?;
        return Ok(());
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

/// At most 5 members with a clean history, each with a reason, posted to
/// the team chat once per ISO week (when there is anyone to propose).
async fn weekly_shortlist(common: &Common, roles: &Roles, guarded: &Guarded) -> HandlerResult {
    use chrono::Datelike;
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let now = common.clock.now();
    let candidates = {
        let state = guarded.state.lock().unwrap_or_else(PoisonError::into_inner);
        ulias_antispam::community::moderator_shortlist(&state, now.timestamp(), 5)
    };
    if candidates.is_empty() {
        return Ok(());
    }
    let week = now.iso_week();
    let key = format!(
        "{}:{}-W{:02}",
        guarded.settings.chat_id,
        week.year(),
        week.week()
    );
    if !common
        .store
        .mark_alert_sent("moderator_shortlist", &key, now)
        .await?
    {
        return Ok(());
    }
    let names = guarded
        .names
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let mut lines = vec![common.texts.with(
        "group-shortlist-title",
        &[arg("group", &guarded.settings.name)],
    )];
    for candidate in candidates {
        let who = names
            .get(&candidate.member)
            .cloned()
            .unwrap_or_else(|| candidate.member.to_string());
        lines.push(common.texts.with(
            "group-shortlist-line",
            &[
                arg("user", who),
                arg("clean", candidate.clean),
                arg("weeks", candidate.weeks),
            ],
        ));
    }
    common
        .bot
        .send_message(ChatId(team), clip(&lines.join("\n")))
        .await?;
    Ok(())
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
        for action in &verdict.actions {
            if let Err(error) = act(common, roles, guarded, action, event, message).await {
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

/// Carries out one action through the bot.
async fn act(
    common: &Common,
    roles: &Roles,
    guarded: &Guarded,
    action: &Action,
    event: &Event,
    message: Option<&Message>,
) -> HandlerResult {
    let chat = ChatId(guarded.settings.chat_id);
    let t = &common.texts;
    match action {
        Action::Delete { message } => {
            group_learning::withdraw(&common.store, chat.0, *message).await?;
            common
                .bot
                .delete_message(chat, MessageId(i32::try_from(*message)?))
                .await?;
        }
        Action::Mute { user, until } => {
            let until = DateTime::from_timestamp(*until, 0).unwrap_or_else(|| common.clock.now());
            common
                .bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .until_date(until)
                .await?;
        }
        Action::Ban { user } => {
            common.bot.ban_chat_member(chat, user_id(*user)?).await?;
            report_ban(common, roles, guarded, *user, event).await?;
        }
        Action::RemindOfficialAddress => {
            let addresses = guarded.settings.official_addresses.join("\n");
            common
                .bot
                .send_message(
                    chat,
                    t.with("group-official-address", &[arg("addresses", addresses)]),
                )
                .await?;
        }
        Action::HoldForReview { user } => {
            common
                .bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
        }
        Action::Captcha { user, a, b, .. } => {
            common
                .bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
            let name = match event {
                Event::Join(member) => member.display_name.clone(),
                _ => user.to_string(),
            };
            let seconds = guarded.settings.captcha_seconds;
            common
                .bot
                .send_message(
                    chat,
                    t.with(
                        "group-captcha",
                        &[
                            arg("name", name),
                            arg("a", a),
                            arg("b", b),
                            arg("seconds", seconds),
                        ],
                    ),
                )
                .await?;
        }
        Action::Release { user } => {
            common
                .bot
                .restrict_chat_member(chat, user_id(*user)?, member_permissions())
                .await?;
            if let Some(message) = message {
                common.bot.delete_message(chat, message.id).await.ok();
            }
        }
        Action::Kick { user } => {
            common.bot.ban_chat_member(chat, user_id(*user)?).await?;
            common
                .bot
                .unban_chat_member(chat, user_id(*user)?)
                .only_if_banned(true)
                .await?;
        }
        Action::HoldNewcomer { user } => {
            common
                .bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
        }
        Action::AlertTeam { text } => {
            if let Some(team) = roles.team_chat {
                let alert = t.with(
                    "group-alert",
                    &[arg("group", &guarded.settings.name), arg("text", text)],
                );
                common.bot.send_message(ChatId(team), clip(&alert)).await?;
            }
        }
    }
    Ok(())
}

fn user_id(id: i64) -> Result<UserId, HandlerError> {
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

/// `/spam` as a reply, by the team: the message goes, its author is
/// banned, and the text is learned as spam.
async fn learn_spam(
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
    let Some(author) = spam.from.as_ref() else {
        return Ok(());
    };
    let text = spam
        .text()
        .or_else(|| spam.caption())
        .unwrap_or_default()
        .to_owned();
    group_learning::withdraw(&common.store, chat.0, i64::from(spam.id.0)).await?;
    common.bot.delete_message(chat, spam.id).await?;
    common.bot.ban_chat_member(chat, author.id).await?;
    let sample = SpamSample {
        id: 0,
        chat_id: chat.0,
        user_id: i64::try_from(author.id.0).ok(),
        spam: true,
        text: text.clone(),
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
            "{}: /spam by {by}: user {} banned, sample learned",
            guarded.settings.name, author.id.0
        ),
    );
    common.store.append_log(&entry, common.clock.now()).await?;
    Ok(())
}

/// The Unban button under a ban report: the ban is lifted and the message
/// becomes ham.
pub async fn unban(
    common: &Common,
    guard: &Guard,
    sample: i64,
) -> Result<Option<String>, HandlerError> {
    let found = common.store.spam_sample(sample).await?;
    if !found.spam {
        return Ok(Some(common.texts.get("validation-already")));
    }
    if let Some(user) = found.user_id {
        common
            .bot
            .unban_chat_member(ChatId(found.chat_id), user_id(user)?)
            .only_if_banned(true)
            .await?;
    }
    common.store.relabel_spam_sample(sample, false).await?;
    guard.retrain(&common.store).await?;
    Ok(Some(common.texts.get("group-unbanned")))
}
