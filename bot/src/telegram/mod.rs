//! The Telegram surface: the only way people operate Ulias. The CEO
//! commands by message (read by the Interpreter) and answers decisions; the
//! team approves or rejects every public output with buttons; the public log
//! channel shows each call with its cost. [`run`] is the whole process: the
//! engine, the schedule, the bot and the loops that show what waits for
//! people.

pub(crate) mod alerter;
mod answers;
mod application;
mod buttons;
mod ceo;
mod commands;
mod continuation;
mod edge;
mod error;
mod group_learning;
mod group_replies;
mod groups;
mod handlers;
mod limits;
mod log_channel;
mod notify;
mod operations;
mod outbox;
mod phone;
mod previews;
mod profile;
mod proposals;
mod publishers;
mod retry;
mod roles;
mod storage;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use teloxide::adaptors::Throttle;
use teloxide::dispatching::dialogue::Dialogue;
use teloxide::prelude::*;
use ulias_agents::engine::{Engine, EngineConfig, ProposalPolicy};
use ulias_agents::scheduler::Scheduler;
use ulias_core::clock::SharedClock;
use ulias_core::settings::Settings;
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

/// Everything the handlers and loops share.
pub struct App {
    pub store: Store,
    pub engine: Engine,
    pub roles: Roles,
    pub texts: Texts,
    pub clock: SharedClock,
    pub settings: Settings,
    pub bot: TgBot,
    /// The bot's @username, asked of Telegram once at start.
    pub username: String,
    pub storage: Arc<StoreStorage<ChatState>>,
    /// The community groups and their anti-spam policies.
    pub guard: groups::Guard,
    /// Push notifications and A/B/C answers, when configured.
    pub ntfy: Option<crate::ntfy::Ntfy>,
    /// What outsiders can make the bot do, per unit of time.
    pub limits: limits::Limits,
    /// Wakes the engine before its next tick (work someone waits for).
    pub wake: tokio::sync::Notify,
    /// Where approved sites go live (none wired yet).
    pub site: Option<Arc<dyn crate::site::SitePublisher>>,
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

/// Sends the queued ntfy pushes, when ntfy is configured.
async fn send_pushes(app: Arc<App>) {
    let Some(ntfy) = app.ntfy.clone() else {
        return;
    };
    // Longer than any request may take, so a slow send is never sent twice.
    let http = &app.settings.http;
    let longest = (http.connect_timeout_seconds + http.request_timeout_seconds + 60).min(86_400);
    let stale_after = chrono::TimeDelta::seconds(i64::try_from(longest).unwrap_or(86_400));
    crate::ntfy::outbox::run(app.store.clone(), app.clock.clone(), ntfy, stale_after).await;
}

/// The engine's settings.
pub fn engine_config(settings: &Settings) -> EngineConfig {
    EngineConfig {
        worker: format!("ulias-{}", std::process::id()),
        confidence_threshold: settings.engine.confidence_threshold,
        decision_timeout: chrono::TimeDelta::hours(i64::from(
            settings.engine.decision_timeout_hours,
        )),
        proposals: ProposalPolicy {
            supervised_days: settings.ceo.proposals_supervised_days,
            autonomy_rate: settings.ceo.proposals_autonomy_rate,
            min_answered: settings.ceo.proposals_autonomy_min_answered,
        },
        ..EngineConfig::default()
    }
}

/// The engine and the recurring schedule, every `engine.tick_seconds`.
async fn engine_loop(app: Arc<App>) {
    let runner = &app.engine.runner;
    let scheduler = match Scheduler::load(&app.settings.prompts_dir, &runner.catalogue) {
        Ok(scheduler) => Some(scheduler),
        Err(error) => {
            tracing::error!(%error, "the recurring schedule is off");
            None
        }
    };
    if let Some(scheduler) = &scheduler
        && let Err(error) = scheduler.sync(&app.store, app.clock.now()).await
    {
        tracing::error!(%error, "could not keep the schedule's next runs");
    }
    let mut every = tokio::time::interval(Duration::from_secs(app.settings.engine.tick_seconds));
    loop {
        // Every `engine.tick_seconds`, or at once when work was queued for
        // someone waiting (a plan, a group question).
        tokio::select! {
            _ = every.tick() => {}
            () = app.wake.notified() => {}
        }
        if let Some(scheduler) = &scheduler
            && let Err(error) = scheduler
                .tick(&app.store, &runner.catalogue, app.clock.now())
                .await
        {
            tracing::error!(%error, "the schedule's tick failed");
        }
        match app.engine.tick().await {
            Ok(report) => {
                tracing::debug!(?report, "engine tick");
                // A tick that hit its bound left work: the next one comes now.
                if report.ran() >= app.engine.config.max_tasks_per_tick {
                    app.wake.notify_one();
                }
            }
            Err(error) => tracing::error!(%error, "the engine's tick failed"),
        }
    }
}

/// The groups' own time (captcha deadlines, the end of raid mode) and the
/// answers to their questions, every `engine.notify_seconds`: never behind
/// an engine tick that runs models.
async fn groups_loop(app: Arc<App>) {
    let mut every = tokio::time::interval(Duration::from_secs(app.settings.engine.notify_seconds));
    loop {
        every.tick().await;
        groups::tick(&app).await;
        if let Err(error) = group_replies::send(&app).await {
            tracing::warn!(%error, "could not answer the group questions");
        }
    }
}
