//! Community groups: every update goes through the deterministic anti-spam
//! engine (`ulias-antispam`), its actions are carried out through the bot
//! and logged with the verdict; questions reach the TG Bot agent, which
//! answers from the operation's file with read-only tools. The team's loop:
//! `/spam` (as a reply) deletes, bans and learns the sample; a ban report in
//! the team chat has an Unban button that lifts the ban and learns the
//! message as ham. Each group has its own policy from the settings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use chrono::{DateTime, Utc};
use serde_json::json;
use teloxide::prelude::*;
use teloxide::types::{
    ChatMemberUpdated, ChatPermissions, InlineKeyboardButton, InlineKeyboardMarkup, MessageId,
    UserId,
};
use ulias_agents::engine::GROUP_QUESTION;
use ulias_agents::untrusted::wrap_untrusted;
use ulias_antispam::model::SpamModel;
use ulias_antispam::{
    Action, CompiledPolicy, Event, GroupState, Member, Mode, Policy, Sender, Verdict, check,
};
use ulias_core::domain::{
    LogKind, LogScope, NewLogEntry, NewTask, Operation, OperationId, OperationStatus, Priority,
};
use ulias_core::settings::{GroupSettings, ModerationMode};
use ulias_core::store::{GroupMember, SpamSample, StoreError};

use super::buttons::Button;
use super::edge::clip;
use super::error::{HandlerError, HandlerResult};
use super::group_learning;
use super::{App, TgBot};
use crate::i18n::arg;

/// The samples every group's model starts from (ours, written for crypto
/// communities); the team's labels are added to them.
const SEED_SPAM: &str = include_str!("../../../fixtures/spam/crypto-spam.txt");
const SEED_HAM: &str = include_str!("../../../fixtures/spam/crypto-ham.txt");
/// The agent that answers questions in groups.
const TG_BOT: &str = "tg_bot";
/// Where a group question's task keeps the message to answer.
pub(super) const REPLY_TO: &str = "reply_to";

/// The message a group question's answer replies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct ReplyTo {
    pub chat_id: i64,
    pub message_id: i32,
}

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

/// One guarded group.
struct Guarded {
    /// The group's settings, its official addresses those of the operation
    /// it is bound to (if any).
    settings: GroupSettings,
    /// The operation the group belongs to.
    operation: Option<Operation>,
    policy: Arc<CompiledPolicy>,
    state: Mutex<GroupState>,
    /// The name each member was last seen with: Telegram sends no update
    /// when a name changes, so a changed name is noticed on the next message.
    names: Mutex<HashMap<i64, String>>,
}

/// Every guarded group, by chat id.
pub struct Guard {
    groups: Mutex<HashMap<i64, Arc<Guarded>>>,
}

/// Loads the groups' protection before the bot takes updates. When it
/// cannot, the team is told the groups are not protected, and a loop tries
/// again every `engine.notify_seconds` (and tells the team once it works):
/// the groups are never left unguarded in silence.
pub async fn guard(app: &Arc<App>) -> Option<tokio::task::JoinHandle<()>> {
    let error = match Guard::load(app).await {
        Ok(()) => return None,
        Err(error) => error,
    };
    tracing::error!(%error, "the community groups are not protected; trying again");
    let text = app.texts.with("groups-unprotected", &[arg("error", error)]);
    tell_team(app, text).await;
    let app = app.clone();
    Some(tokio::spawn(async move {
        let every = std::time::Duration::from_secs(app.settings.engine.notify_seconds);
        loop {
            tokio::time::sleep(every).await;
            match Guard::load(&app).await {
                Ok(()) => {
                    tell_team(&app, app.texts.get("groups-protected")).await;
                    return;
                }
                Err(error) => {
                    tracing::warn!(%error, "the community groups are still not protected")
                }
            }
        }
    }))
}

async fn tell_team(app: &App, text: String) {
    let Some(team) = app.roles.team_chat else {
        return;
    };
    if let Err(error) = app.bot.send_message(ChatId(team), clip(&text)).await {
        tracing::warn!(%error, "could not tell the team about the groups' protection");
    }
}

impl Guard {
    /// No group yet; [`Guard::load`] fills it.
    pub fn empty() -> Self {
        Self {
            groups: Mutex::new(HashMap::new()),
        }
    }

    /// Builds each group's policy: its settings, its admins (asked of
    /// Telegram), and the model trained on our samples and the team's.
    pub async fn load(app: &App) -> Result<(), HandlerError> {
        let model = Arc::new(train(app).await?);
        for configured in &app.settings.telegram.groups {
            let chat = configured.chat_id;
            if let Some(id) = configured.operation {
                let bound = app
                    .store
                    .bind_group(chat, OperationId::new(id), "settings", app.clock.now())
                    .await;
                if let Err(error) = bound {
                    tracing::warn!(%error, chat, operation = id, "the group's operation from the settings is not bound");
                }
            }
            let operation = app.store.operation_of_group(chat).await?;
            let settings = effective(configured, operation.as_ref());
            let admins = admins(&app.bot, chat).await;
            let policy = CompiledPolicy::with_model(
                policy_of(&settings, admins, &app.username),
                model.clone(),
            )?;
            let guarded = Guarded {
                settings,
                operation,
                policy: Arc::new(policy),
                state: Mutex::new(remembered(app, chat).await?),
                names: Mutex::new(HashMap::new()),
            };
            app.guard.lock().insert(chat, Arc::new(guarded));
        }
        Ok(())
    }

    /// Binds a guarded group to an operation and rebuilds its policy with
    /// the operation's official addresses (its members' state is kept).
    async fn rebind(app: &App, chat: i64, operation: Operation) -> Result<(), HandlerError> {
        let Some(guarded) = app.guard.get(chat) else {
            return Ok(());
        };
        let Some(configured) = app
            .settings
            .telegram
            .groups
            .iter()
            .find(|g| g.chat_id == chat)
        else {
            return Ok(());
        };
        let settings = effective(configured, Some(&operation));
        let model = Arc::new(train(app).await?);
        let policy = CompiledPolicy::with_model(
            policy_of(
                &settings,
                guarded.policy.policy.admins.clone(),
                &app.username,
            ),
            model,
        )?;
        let renewed = guarded.renewed(settings, Some(operation), policy);
        app.guard.lock().insert(chat, Arc::new(renewed));
        Ok(())
    }

    /// Retrains every group's model (after the team labelled a message).
    async fn retrain(app: &App) -> Result<(), HandlerError> {
        let model = Arc::new(train(app).await?);
        let groups: Vec<(i64, Arc<Guarded>)> = app
            .guard
            .lock()
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect();
        for (chat, guarded) in groups {
            let policy = CompiledPolicy::with_model(guarded.policy.policy.clone(), model.clone())?;
            let renewed =
                guarded.renewed(guarded.settings.clone(), guarded.operation.clone(), policy);
            app.guard.lock().insert(chat, Arc::new(renewed));
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<Guarded>>> {
        self.groups.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn get(&self, chat: i64) -> Option<Arc<Guarded>> {
        self.lock().get(&chat).cloned()
    }

    /// Whether `chat` is a guarded group.
    pub fn guards(&self, chat: i64) -> bool {
        self.lock().contains_key(&chat)
    }

    fn all(&self) -> Vec<Arc<Guarded>> {
        self.lock().values().cloned().collect()
    }
}

impl Guarded {
    /// The same group with new settings and policy, its state kept.
    fn renewed(
        &self,
        settings: GroupSettings,
        operation: Option<Operation>,
        policy: CompiledPolicy,
    ) -> Self {
        Self {
            settings,
            operation,
            policy: Arc::new(policy),
            state: Mutex::new(
                self.state
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
            ),
            names: Mutex::new(
                self.names
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone(),
            ),
        }
    }
}

/// A group's settings as they apply: a bound group's official addresses
/// are its operation's.
fn effective(configured: &GroupSettings, operation: Option<&Operation>) -> GroupSettings {
    let mut settings = configured.clone();
    if let Some(operation) = operation
        && !operation.official_addresses.is_empty()
    {
        settings.official_addresses = operation.official_addresses.clone();
    }
    settings
}

/// A group's state as the store remembers it: each member's trust,
/// penalties and first message (the rest is recent and starts empty).
async fn remembered(app: &App, chat: i64) -> Result<GroupState, HandlerError> {
    let mut state = GroupState::default();
    for kept in app.store.group_members(chat).await? {
        let member = state.member(kept.user_id);
        member.clean = kept.clean;
        member.strikes_ever = kept.strikes_ever;
        member.first_seen = kept.first_seen.map(|at| at.timestamp());
    }
    Ok(state)
}

/// What is worth keeping of a member across restarts.
fn kept_of(state: &GroupState, user: i64) -> Option<GroupMember> {
    state.members.get(&user).map(|m| GroupMember {
        user_id: user,
        clean: m.clean,
        strikes_ever: m.strikes_ever,
        first_seen: m.first_seen.and_then(|at| DateTime::from_timestamp(at, 0)),
    })
}

async fn train(app: &App) -> Result<SpamModel, HandlerError> {
    let (mut spam, mut ham) = app.store.spam_corpus().await?;
    spam.extend(lines(SEED_SPAM));
    ham.extend(lines(SEED_HAM));
    // Thousands of samples take a fraction of a second: off the async threads.
    Ok(tokio::task::spawn_blocking(move || SpamModel::train(&spam, &ham)).await?)
}

fn lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

fn policy_of(settings: &GroupSettings, admins: Vec<Member>, bot: &str) -> Policy {
    Policy {
        bot_username: Some(bot.to_owned()),
        mode: match settings.mode {
            ModerationMode::DryRun => Mode::DryRun,
            ModerationMode::Soft => Mode::Soft,
            ModerationMode::Normal => Mode::Normal,
        },
        official_addresses: settings.official_addresses.clone(),
        allowed_domains: settings.allowed_domains.clone(),
        stop_phrases: settings.stop_phrases.clone(),
        admins,
        captcha: settings.captcha,
        captcha_seconds: i64::from(settings.captcha_seconds),
        raid_joins_per_minute: settings.raid_joins_per_minute as usize,
        raid_quiet_seconds: i64::from(settings.raid_quiet_seconds),
        raid_max_seconds: i64::from(settings.raid_max_seconds),
        ..Policy::default()
    }
}

async fn admins(bot: &TgBot, chat: i64) -> Vec<Member> {
    match bot.get_chat_administrators(ChatId(chat)).await {
        Ok(admins) => admins.iter().map(|a| member_of(&a.user)).collect(),
        Err(error) => {
            tracing::warn!(%error, chat, "could not read the group's admins; none are exempt");
            Vec::new()
        }
    }
}

fn member_of(user: &teloxide::types::User) -> Member {
    Member {
        id: i64::try_from(user.id.0).unwrap_or(i64::MAX),
        display_name: user.full_name(),
        username: user.username.clone(),
    }
}

/// A message (or an edit) in a guarded group.
pub async fn on_message(app: &App, message: &Message, edited: bool) -> HandlerResult {
    let chat = message.chat.id.0;
    let Some(guarded) = app.guard.get(chat) else {
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
            judge(app, &guarded, &Event::Join(member_of(user)), None).await?;
        }
        return Ok(());
    }
    if renamed(&guarded, &member) {
        let event = Event::NameChange(member.clone());
        if judge(app, &guarded, &event, Some(message))
            .await?
            .is_some_and(|v| !v.actions.is_empty())
        {
            return Ok(());
        }
    }
    let Some(text) = message.text().or_else(|| message.caption()) else {
        return Ok(());
    };
    if text.starts_with("/spam") && app.roles.may_review(member.id) {
        return learn_spam(app, &guarded, message).await;
    }
    if let Some(args) = text.strip_prefix("/bind")
        && app.roles.may_review(member.id)
    {
        return bind(app, chat, args).await;
    }
    let pending = guarded
        .state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .captchas
        .contains_key(&member.id);
    if let (true, Ok(answer)) = (pending, text.trim().parse::<i64>()) {
        judge(
            app,
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
    let verdict = judge(app, &guarded, &event, Some(message)).await;
    // A question the engine acted on (deleted, muted…) is not answered; one
    // that only brushed a rule is: the agent can only read, and says what
    // the operation's file says.
    let clean = verdict
        .as_ref()
        .is_ok_and(|v| v.as_ref().is_none_or(|v| v.actions.is_empty()));
    verdict?;
    if clean && !edited && trusted(&guarded, asker) {
        group_learning::offer_ham(app, chat, asker, i64::from(message.id.0), text).await?;
    }
    if clean && !edited && ulias_antispam::community::is_question(text, &app.username) {
        // Over its allowance, a question is left for people: no model runs.
        match app.limits.admit_question(message.chat.id.0, asker) {
            Ok(()) => answer_question(app, &guarded, message, text).await?,
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
pub async fn on_member(app: &App, update: &ChatMemberUpdated) -> HandlerResult {
    let Some(guarded) = app.guard.get(update.chat.id.0) else {
        return Ok(());
    };
    let joined =
        !update.old_chat_member.kind.is_present() && update.new_chat_member.kind.is_present();
    if joined {
        renamed(&guarded, &member_of(&update.new_chat_member.user));
        judge(
            app,
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
pub async fn tick(app: &App) {
    for guarded in app.guard.all() {
        if let Err(error) = judge(app, &guarded, &Event::Tick, None).await {
            tracing::warn!(%error, group = guarded.settings.chat_id, "group tick");
        }
        if let Err(error) = weekly_shortlist(app, &guarded).await {
            tracing::warn!(%error, group = guarded.settings.chat_id, "moderator shortlist");
        }
    }
}

/// At most 5 members with a clean history, each with a reason, posted to
/// the team chat once per ISO week (when there is anyone to propose).
async fn weekly_shortlist(app: &App, guarded: &Guarded) -> HandlerResult {
    use chrono::Datelike;
    let Some(team) = app.roles.team_chat else {
        return Ok(());
    };
    let now = app.clock.now();
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
    if !app
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
    let mut lines = vec![app.texts.with(
        "group-shortlist-title",
        &[arg("group", &guarded.settings.name)],
    )];
    for candidate in candidates {
        let who = names
            .get(&candidate.member)
            .cloned()
            .unwrap_or_else(|| candidate.member.to_string());
        lines.push(app.texts.with(
            "group-shortlist-line",
            &[
                arg("user", who),
                arg("clean", candidate.clean),
                arg("weeks", candidate.weeks),
            ],
        ));
    }
    app.bot
        .send_message(ChatId(team), clip(&lines.join("\n")))
        .await?;
    Ok(())
}

/// Runs the engine on one event, carries out its actions (unless the group
/// is in dry run) and logs the verdict. Returns the verdict when it said anything.
async fn judge(
    app: &App,
    guarded: &Guarded,
    event: &Event,
    message: Option<&Message>,
) -> Result<Option<Verdict>, HandlerError> {
    let now = app.clock.now();
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
        app.store
            .save_group_member(guarded.settings.chat_id, &member, now)
            .await?;
    }
    if verdict.hits.is_empty() && verdict.actions.is_empty() {
        return Ok(None);
    }
    log_verdict(app, guarded, event, &verdict, now).await?;
    if !verdict.dry_run {
        for action in &verdict.actions {
            if let Err(error) = act(app, guarded, action, event, message).await {
                tracing::warn!(%error, ?action, "a moderation action failed");
            }
        }
    }
    Ok(Some(verdict))
}

async fn log_verdict(
    app: &App,
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
    app.store.append_log(&entry, now).await?;
    Ok(())
}

/// Carries out one action through the bot.
async fn act(
    app: &App,
    guarded: &Guarded,
    action: &Action,
    event: &Event,
    message: Option<&Message>,
) -> HandlerResult {
    let chat = ChatId(guarded.settings.chat_id);
    let t = &app.texts;
    match action {
        Action::Delete { message } => {
            group_learning::withdraw(app, chat.0, *message).await?;
            app.bot
                .delete_message(chat, MessageId(i32::try_from(*message)?))
                .await?;
        }
        Action::Mute { user, until } => {
            let until = DateTime::from_timestamp(*until, 0).unwrap_or_else(|| app.clock.now());
            app.bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .until_date(until)
                .await?;
        }
        Action::Ban { user } => {
            app.bot.ban_chat_member(chat, user_id(*user)?).await?;
            report_ban(app, guarded, *user, event).await?;
        }
        Action::RemindOfficialAddress => {
            let addresses = guarded.settings.official_addresses.join("\n");
            app.bot
                .send_message(
                    chat,
                    t.with("group-official-address", &[arg("addresses", addresses)]),
                )
                .await?;
        }
        Action::HoldForReview { user } => {
            app.bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
        }
        Action::Captcha { user, a, b, .. } => {
            app.bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
            let name = match event {
                Event::Join(member) => member.display_name.clone(),
                _ => user.to_string(),
            };
            let seconds = guarded.settings.captcha_seconds;
            app.bot
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
            app.bot
                .restrict_chat_member(chat, user_id(*user)?, member_permissions())
                .await?;
            if let Some(message) = message {
                app.bot.delete_message(chat, message.id).await.ok();
            }
        }
        Action::Kick { user } => {
            app.bot.ban_chat_member(chat, user_id(*user)?).await?;
            app.bot
                .unban_chat_member(chat, user_id(*user)?)
                .only_if_banned(true)
                .await?;
        }
        Action::HoldNewcomer { user } => {
            app.bot
                .restrict_chat_member(chat, user_id(*user)?, ChatPermissions::empty())
                .await?;
        }
        Action::AlertTeam { text } => {
            if let Some(team) = app.roles.team_chat {
                let alert = t.with(
                    "group-alert",
                    &[arg("group", &guarded.settings.name), arg("text", text)],
                );
                app.bot.send_message(ChatId(team), clip(&alert)).await?;
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
async fn report_ban(app: &App, guarded: &Guarded, user: i64, event: &Event) -> HandlerResult {
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
    let id = app
        .store
        .add_spam_sample(&sample, "antispam", app.clock.now())
        .await?;
    let Some(team) = app.roles.team_chat else {
        return Ok(());
    };
    let report = app.texts.with(
        "group-ban-report",
        &[
            arg("group", &guarded.settings.name),
            arg("user", user),
            arg("text", text.chars().take(300).collect::<String>()),
        ],
    );
    let button =
        InlineKeyboardButton::callback(app.texts.get("button-unban"), Button::Unban(id).data());
    app.bot
        .send_message(ChatId(team), clip(&report))
        .reply_markup(InlineKeyboardMarkup::new([[button]]))
        .await?;
    Ok(())
}

/// `/spam` as a reply, by the team: the message goes, its author is
/// banned, and the text is learned as spam.
async fn learn_spam(app: &App, guarded: &Guarded, command: &Message) -> HandlerResult {
    let chat = command.chat.id;
    app.bot.delete_message(chat, command.id).await.ok();
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
    group_learning::withdraw(app, chat.0, i64::from(spam.id.0)).await?;
    app.bot.delete_message(chat, spam.id).await?;
    app.bot.ban_chat_member(chat, author.id).await?;
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
    app.store
        .add_spam_sample(&sample, &by, app.clock.now())
        .await?;
    Guard::retrain(app).await?;
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
    app.store.append_log(&entry, app.clock.now()).await?;
    Ok(())
}

/// The Unban button under a ban report: the ban is lifted and the message
/// becomes ham.
pub async fn unban(app: &App, sample: i64) -> Result<Option<String>, HandlerError> {
    let found = app.store.spam_sample(sample).await?;
    if !found.spam {
        return Ok(Some(app.texts.get("validation-already")));
    }
    if let Some(user) = found.user_id {
        app.bot
            .unban_chat_member(ChatId(found.chat_id), user_id(user)?)
            .only_if_banned(true)
            .await?;
    }
    app.store.relabel_spam_sample(sample, false).await?;
    Guard::retrain(app).await?;
    Ok(Some(app.texts.get("group-unbanned")))
}

/// The task input field holding a group question's words as asked (shown
/// to the team if its answer is held).
pub const ASKED: &str = "asked";

/// What a guarded group allows the bot to say: its official addresses and
/// allowed domains, and its name.
pub fn allowances(app: &App, chat: i64) -> Option<(Vec<String>, Vec<String>, String)> {
    app.guard.get(chat).map(|g| {
        (
            g.settings.official_addresses.clone(),
            g.settings.allowed_domains.clone(),
            g.settings.name.clone(),
        )
    })
}

/// `/bind <operation>` by a team member in a guarded group: the group
/// belongs to that operation from now on.
async fn bind(app: &App, chat: i64, args: &str) -> HandlerResult {
    let t = &app.texts;
    let text = match super::operations::operation_id(args) {
        None => t.get("bind-usage"),
        Some(id) => match app.store.operation(id).await {
            Err(StoreError::NotFound { .. }) => t.with("op-unknown", &[arg("id", id)]),
            Err(error) => return Err(error.into()),
            Ok(operation) => {
                match app
                    .store
                    .bind_group(chat, id, "team", app.clock.now())
                    .await
                {
                    Ok(()) => {
                        let done =
                            t.with("bind-done", &[arg("id", id), arg("name", &operation.name)]);
                        Guard::rebind(app, chat, operation).await?;
                        done
                    }
                    Err(StoreError::Taken { operation, .. }) => {
                        t.with("bind-taken", &[arg("id", operation)])
                    }
                    Err(error) => return Err(error.into()),
                }
            }
        },
    };
    app.bot.send_message(ChatId(chat), text).await?;
    Ok(())
}

/// A question in a group: queued for the TG Bot agent, which answers from
/// the operation's file with its read-only tools (the question reaches it
/// as untrusted text). No model runs here: the engine runs the task and
/// [`super::group_replies`] sends the answer, so moderation never waits.
async fn answer_question(
    app: &App,
    guarded: &Guarded,
    message: &Message,
    text: &str,
) -> HandlerResult {
    let runner = &app.engine.runner;
    let Some(spec) = runner.catalogue.get(TG_BOT) else {
        return Ok(());
    };
    // A bound group's questions read its operation's file, and wait while
    // it is paused; an ended operation's group is left to people.
    let operation = guarded.operation.as_ref();
    if operation.is_some_and(|o| o.status != OperationStatus::Running) {
        return Ok(());
    }
    let now = app.clock.now();
    let mut task = NewTask::new(
        spec.name.clone(),
        spec.team,
        format!("Question in {}", guarded.settings.name),
        now,
    );
    task.kind = Some(GROUP_QUESTION.to_owned());
    task.operation_id = operation.map(|o| o.id);
    task.priority = Priority::new(8).unwrap_or_default();
    task.max_attempts = 1;
    let reply_to = ReplyTo {
        chat_id: message.chat.id.0,
        message_id: message.id.0,
    };
    task.input = json!({
        "question": wrap_untrusted(&format!("telegram group {}", guarded.settings.name), text),
        "official_addresses": guarded.settings.official_addresses,
        "allowed_domains": guarded.settings.allowed_domains,
        ASKED: text,
        "sections": ["scan", "telegram", "faq"],
        REPLY_TO: reply_to,
    });
    app.store.create_task(&task, now).await?;
    app.wake.notify_one();
    Ok(())
}
