//! The guarded groups: their settings and policies, loaded at start and renewed
//! on `/bind` and on what the team teaches, and the spam model they share.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::DateTime;
use teloxide::prelude::*;
use teloxide::types::MessageId;
use ulias_antispam::model::SpamModel;
use ulias_antispam::{CompiledPolicy, GroupState, Member, Mode, PendingCaptcha, Policy};
use ulias_core::domain::{Operation, OperationId};
use ulias_core::settings::{GroupSettings, ModerationMode};
use ulias_core::store::{GroupMember, Store};

use super::{Community, Guard, Guarded};
use crate::i18n::arg;
use crate::telegram::edge::clip;
use crate::telegram::error::HandlerError;
use crate::telegram::{Common, Roles, TgBot};

/// The samples every group's model starts from (ours, written for crypto
/// communities); the team's labels are added to them.
const SEED_SPAM: &str = include_str!("../../../../fixtures/spam/crypto-spam.txt");
const SEED_HAM: &str = include_str!("../../../../fixtures/spam/crypto-ham.txt");

/// Loads the groups' protection before the bot takes updates. When it
/// cannot, the team is told the groups are not protected, and a loop tries
/// again every `retry` (`engine.notify_seconds`, and tells the team once it
/// works): the groups are never left unguarded in silence.
pub async fn guard(
    common: &Arc<Common>,
    roles: &Arc<Roles>,
    community: &Arc<Community>,
    retry: Duration,
) -> Option<tokio::task::JoinHandle<()>> {
    let error = match community.load(common).await {
        Ok(()) => return None,
        Err(error) => error,
    };
    tracing::error!(%error, "the community groups are not protected; trying again");
    let text = common
        .texts
        .with("groups-unprotected", &[arg("error", error)]);
    tell_team(&common.bot, roles, text).await;
    let (common, roles, community) = (common.clone(), roles.clone(), community.clone());
    Some(tokio::spawn(async move {
        loop {
            tokio::time::sleep(retry).await;
            match community.load(&common).await {
                Ok(()) => {
                    let text = common.texts.get("groups-protected");
                    tell_team(&common.bot, &roles, text).await;
                    return;
                }
                Err(error) => {
                    tracing::warn!(%error, "the community groups are still not protected")
                }
            }
        }
    }))
}

async fn tell_team(bot: &TgBot, roles: &Roles, text: String) {
    let Some(team) = roles.team_chat else {
        return;
    };
    if let Err(error) = bot.send_message(ChatId(team), clip(&text)).await {
        tracing::warn!(%error, "could not tell the team about the groups' protection");
    }
}

impl Community {
    /// Builds each group's policy: its settings, its admins (asked of
    /// Telegram), and the model trained on our samples and the team's.
    pub async fn load(&self, common: &Common) -> Result<(), HandlerError> {
        let store = &common.store;
        let model = Arc::new(train(store).await?);
        for configured in &self.groups {
            let chat = configured.chat_id;
            if let Some(id) = configured.operation {
                let bound = store
                    .bind_group(chat, OperationId::new(id), "settings", common.clock.now())
                    .await;
                if let Err(error) = bound {
                    tracing::warn!(%error, chat, operation = id, "the group's operation from the settings is not bound");
                }
            }
            let operation = store.operation_of_group(chat).await?;
            let settings = effective(configured, operation.as_ref());
            let admins = admins(&common.bot, chat).await;
            let policy = CompiledPolicy::with_model(
                policy_of(&settings, admins, &self.username),
                model.clone(),
            )?;
            let guarded = Guarded {
                settings,
                operation,
                policy: Arc::new(policy),
                state: Mutex::new(remembered(store, chat).await?),
                names: Mutex::new(HashMap::new()),
                captcha_messages: Arc::new(Mutex::new(captcha_messages(store, chat).await?)),
                defaults: Arc::default(),
            };
            self.guard.lock().insert(chat, Arc::new(guarded));
        }
        Ok(())
    }

    /// Binds a guarded group to an operation and rebuilds its policy with
    /// the operation's official addresses (its members' state is kept).
    pub(super) async fn rebind(
        &self,
        store: &Store,
        chat: i64,
        operation: Operation,
    ) -> Result<(), HandlerError> {
        let Some(guarded) = self.guard.get(chat) else {
            return Ok(());
        };
        let Some(configured) = self.groups.iter().find(|g| g.chat_id == chat) else {
            return Ok(());
        };
        let settings = effective(configured, Some(&operation));
        let model = Arc::new(train(store).await?);
        let policy = CompiledPolicy::with_model(
            policy_of(
                &settings,
                guarded.policy.policy.admins.clone(),
                &self.username,
            ),
            model,
        )?;
        let renewed = guarded.renewed(settings, Some(operation), policy);
        self.guard.lock().insert(chat, Arc::new(renewed));
        Ok(())
    }
}

impl Guard {
    /// No group yet; [`Community::load`] fills it.
    pub fn empty() -> Self {
        Self {
            groups: Mutex::new(HashMap::new()),
        }
    }

    /// Retrains every group's model (after the team labelled a message).
    pub(super) async fn retrain(&self, store: &Store) -> Result<(), HandlerError> {
        let model = Arc::new(train(store).await?);
        let groups: Vec<(i64, Arc<Guarded>)> =
            self.lock().iter().map(|(k, v)| (*k, v.clone())).collect();
        for (chat, guarded) in groups {
            let policy = CompiledPolicy::with_model(guarded.policy.policy.clone(), model.clone())?;
            let renewed =
                guarded.renewed(guarded.settings.clone(), guarded.operation.clone(), policy);
            self.lock().insert(chat, Arc::new(renewed));
        }
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<Guarded>>> {
        self.groups.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn get(&self, chat: i64) -> Option<Arc<Guarded>> {
        self.lock().get(&chat).cloned()
    }

    /// Whether `chat` is a guarded group.
    pub fn guards(&self, chat: i64) -> bool {
        self.lock().contains_key(&chat)
    }

    pub(super) fn all(&self) -> Vec<Arc<Guarded>> {
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
            captcha_messages: self.captcha_messages.clone(),
            defaults: self.defaults.clone(),
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

/// The messages of a group's open captchas, by newcomer.
async fn captcha_messages(
    store: &Store,
    chat: i64,
) -> Result<HashMap<i64, MessageId>, HandlerError> {
    let mut messages = HashMap::new();
    for open in store.open_captchas(chat).await? {
        if let Some(id) = open.message_id {
            messages.insert(open.user_id, MessageId(i32::try_from(id)?));
        }
    }
    Ok(messages)
}

/// A group's state as the store remembers it: each member's trust,
/// penalties and first message, and the open captchas (the rest is recent
/// and starts empty).
async fn remembered(store: &Store, chat: i64) -> Result<GroupState, HandlerError> {
    let mut state = GroupState::default();
    for open in store.open_captchas(chat).await? {
        let pending = PendingCaptcha {
            answer: open.answer,
            deadline: open.deadline,
            failed: open.failed,
        };
        state.captchas.insert(open.user_id, pending);
    }
    for kept in store.group_members(chat).await? {
        let member = state.member(kept.user_id);
        member.clean = kept.clean;
        member.strikes_ever = kept.strikes_ever;
        member.first_seen = kept.first_seen.map(|at| at.timestamp());
    }
    Ok(state)
}

/// What is worth keeping of a member across restarts.
pub(super) fn kept_of(state: &GroupState, user: i64) -> Option<GroupMember> {
    state.members.get(&user).map(|m| GroupMember {
        user_id: user,
        clean: m.clean,
        strikes_ever: m.strikes_ever,
        first_seen: m.first_seen.and_then(|at| DateTime::from_timestamp(at, 0)),
    })
}

async fn train(store: &Store) -> Result<SpamModel, HandlerError> {
    let (mut spam, mut ham) = store.spam_corpus().await?;
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

pub(super) fn member_of(user: &teloxide::types::User) -> Member {
    Member {
        id: i64::try_from(user.id.0).unwrap_or(i64::MAX),
        display_name: user.full_name(),
        username: user.username.clone(),
    }
}
