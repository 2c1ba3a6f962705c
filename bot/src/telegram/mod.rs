//! The Telegram surface: the only way people operate Ulias. The CEO
//! commands by message (read by the Interpreter) and answers decisions; the
//! team approves or rejects every public output with buttons; the public log
//! channel shows each call with its cost. [`run`] is the whole process: the
//! engine, the schedule, the bot and the loops that show what waits for
//! people.
//!
//! Handlers and loops take only the parts they use, never the whole
//! process: [`Common`] (store, clock, bot, texts), [`Work`] (the engine and
//! its wake-up), [`Roles`], the community side (the guarded groups, the
//! limits on outsiders, the bot's @username), ntfy when configured, and the
//! settings sections they read. The handlers receive them through
//! `dptree::deps![…]`, wired in [`Application`].

mod album;
pub(crate) mod alerter;
mod answers;
mod application;
mod buttons;
mod ceo;
mod commands;
mod continuation;
mod decisions;
mod edge;
mod error;
mod group_learning;
mod group_replies;
mod groups;
mod handlers;
mod limits;
mod log_channel;
mod loops;
mod notify;
mod operations;
mod outbox;
mod phone;
mod previews;
mod price_watch;
mod profile;
mod proposals;
mod publishers;
mod retry;
mod roles;
mod startup;
mod storage;
mod utilities;
mod votes;
mod x_watch;

use std::future::Future;

use serde::{Deserialize, Serialize};
use teloxide::adaptors::Throttle;
use teloxide::dispatching::dialogue::Dialogue;
use teloxide::prelude::*;
use ulias_agents::engine::{Engine, EngineConfig, ProposalPolicy};
use ulias_core::clock::SharedClock;
use ulias_core::settings::{CeoSettings, EngineSettings, Settings};
use ulias_core::store::Store;

pub use self::application::Application;
pub use self::handlers::handler_tree;
pub use self::notify::{SUMMARY_CURSOR, WEEKLY_CURSOR};
pub use self::roles::{Role, Roles};
pub use self::storage::StoreStorage;
use crate::i18n::Texts;

/// The bot as the handlers use it: Telegram's limits respected.
pub type TgBot = Throttle<Bot>;

/// What a chat is in the middle of.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub enum ChatState {
    #[default]
    Idle,
    /// The team was asked why it rejects a validation.
    AwaitingRejectionReason { validation: i64, prompt: i32 },
}

/// A chat's dialogue, kept in our store.
pub type ChatDialogue = Dialogue<ChatState, StoreStorage<ChatState>>;

/// What nearly every handler and loop uses: the store, the clock, and the
/// bot with the texts it speaks.
pub struct Common {
    pub store: Store,
    pub clock: SharedClock,
    pub bot: TgBot,
    pub texts: Texts,
}

/// The engine and its wake-up, for callers that queue work someone waits
/// for (a plan, a pre-report, a group question).
pub struct Work {
    pub engine: Engine,
    /// Wakes the engine before its next tick.
    pub wake: tokio::sync::Notify,
}

/// Runs Ulias until `shutdown` completes (see [`Application::run`]),
/// every reading of the time through `clock`.
pub async fn run(
    settings: Settings,
    clock: SharedClock,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    Application::build(settings, clock, shutdown)
        .await?
        .run()
        .await
}

/// The engine's settings.
pub fn engine_config(engine: &EngineSettings, ceo: &CeoSettings) -> EngineConfig {
    EngineConfig {
        worker: format!("ulias-{}", std::process::id()),
        confidence_threshold: engine.confidence_threshold,
        decision_timeout: chrono::TimeDelta::hours(i64::from(engine.decision_timeout_hours)),
        proposals: ProposalPolicy {
            supervised_days: ceo.proposals_supervised_days,
            autonomy_rate: ceo.proposals_autonomy_rate,
            min_answered: ceo.proposals_autonomy_min_answered,
        },
        ..EngineConfig::default()
    }
}
