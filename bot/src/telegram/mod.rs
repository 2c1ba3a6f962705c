//! The Telegram surface: the only way people operate Ulias. The CEO
//! commands by message (read by the Interpreter) and answers decisions; the
//! team approves or rejects every public output with buttons; the public log
//! channel shows each call with its cost. [`run`] is the whole process: the
//! engine, the schedule, the bot and the loops that show what waits for
//! people.

pub(crate) mod alerter;
mod answers;
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
mod roles;
mod storage;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use secrecy::ExposeSecret;
use serde::{Deserialize, Serialize};
use teloxide::adaptors::Throttle;
use teloxide::adaptors::throttle::Limits;
use teloxide::dispatching::dialogue::Dialogue;
use teloxide::prelude::*;
use teloxide::update_listeners::Polling;
use ulias_agents::engine::{Engine, EngineConfig, ProposalPolicy};
use ulias_agents::pools::Pools;
use ulias_agents::scheduler::Scheduler;
use ulias_core::clock::{SharedClock, SystemClock};
use ulias_core::settings::{Settings, UpdateMode};
use ulias_core::store::Store;

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

/// How long one `getUpdates` waits for updates.
const LONG_POLL: Duration = Duration::from_secs(10);

/// The Bot API's HTTP client: the connect and total timeouts of settings
/// (`[http]`), the total never under a long poll plus a margin, so no call
/// waits forever on a peer that stopped answering.
fn telegram_bot(settings: &Settings, token: &str) -> anyhow::Result<Bot> {
    let http = &settings.http;
    let total = Duration::from_secs(http.request_timeout_seconds).max(LONG_POLL * 2);
    let client = teloxide::net::default_reqwest_settings()
        .connect_timeout(Duration::from_secs(http.connect_timeout_seconds))
        .timeout(total)
        .build()
        .context("Failed to build the Telegram HTTP client")?;
    Ok(Bot::with_client(token, client).set_api_url(settings.telegram.api_url.clone()))
}

/// Runs Ulias until `shutdown` completes: the engine and the schedule
/// every `engine.tick_seconds`, the bot (long polling, or a webhook), and
/// the loops that post validations, decisions, progress and the log.
pub async fn run(
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send,
) -> anyhow::Result<()> {
    let app = Arc::new(build(settings).await?);
    commands::register(&app).await;
    let guarding = groups::guard(&app).await;
    let (stop_outbox, outbox_stopped) = tokio::sync::watch::channel(false);
    let outbox = tokio::spawn(outbox::run(app.clone(), outbox_stopped));
    let tasks = [
        tokio::spawn(engine_loop(app.clone())),
        tokio::spawn(groups_loop(app.clone())),
        tokio::spawn(notify::run(app.clone())),
        tokio::spawn(log_channel::run(app.clone())),
        tokio::spawn(phone::ntfy_replies(app.clone())),
        tokio::spawn(send_pushes(app.clone())),
        tokio::spawn(notify::x_mentions(app.clone())),
    ];
    let mut dispatcher = Dispatcher::builder(app.bot.clone(), handler_tree())
        .dependencies(dptree::deps![app.clone(), app.storage.clone()])
        .default_handler(|_| async {})
        .build();
    let token = dispatcher.shutdown_token();
    let listen = async {
        match (&app.settings.telegram.mode, &app.settings.telegram.webhook) {
            (UpdateMode::Webhook, Some(webhook)) => {
                let mut options = teloxide::update_listeners::webhooks::Options::new(
                    webhook.listen,
                    webhook.public_url.clone(),
                );
                if let Some(secret) = &webhook.secret_token {
                    options = options.secret_token(secret.expose_secret().to_owned());
                }
                let listener = teloxide::update_listeners::webhooks::axum(app.bot.clone(), options)
                    .await
                    .context("Failed to set the Telegram webhook")?;
                dispatcher
                    .dispatch_with_listener(listener, LoggingErrorHandler::new())
                    .await;
            }
            _ => {
                let listener = Polling::builder(app.bot.clone())
                    .timeout(LONG_POLL)
                    .delete_webhook()
                    .await
                    .build();
                dispatcher
                    .dispatch_with_listener(listener, LoggingErrorHandler::new())
                    .await;
            }
        }
        Ok::<(), anyhow::Error>(())
    };
    // Once `shutdown` completes, Telegram and the publishers get
    // `engine.stop_grace_seconds` to finish; then the process exits anyway
    // (a Bot API that stopped answering must not hold it for hours).
    let grace = Duration::from_secs(app.settings.engine.stop_grace_seconds);
    let stopping = tokio::sync::Notify::new();
    let listen = async {
        tokio::select! {
            listened = listen => listened,
            () = async { stopping.notified().await; tokio::time::sleep(grace).await } => {
                tracing::warn!("Telegram did not stop within the grace period: leaving it");
                Ok(())
            }
        }
    };
    let stop = async {
        shutdown.await;
        tracing::info!("stopping");
        stopping.notify_one();
        let asked = async {
            loop {
                match token.shutdown() {
                    Ok(done) => break done.await,
                    // The dispatcher has not started yet: wait for it.
                    Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                }
            }
        };
        if tokio::time::timeout(grace, asked).await.is_err() {
            tracing::warn!("the dispatcher did not stop within the grace period");
        }
    };
    let (listened, ()) = tokio::join!(listen, stop);
    for task in tasks.into_iter().chain(guarding) {
        task.abort();
    }
    // The publishers finish the job in hand (never left half-sent), within
    // the grace period.
    let _ = stop_outbox.send(true);
    let mut outbox = outbox;
    if tokio::time::timeout(grace, &mut outbox).await.is_err() {
        tracing::warn!("the publishers did not stop in time: a send in flight is left unknown");
        outbox.abort();
    }
    if tokio::time::timeout(grace, app.store.close())
        .await
        .is_err()
    {
        tracing::warn!("the store did not close in time");
    }
    listened
}

/// Opens the store and builds the runtime and the bot.
async fn build(settings: Settings) -> anyhow::Result<App> {
    let token =
        settings.telegram.token.as_ref().context(
            "`telegram.token` is not set: `ulias run` needs a bot token from @BotFather",
        )?;
    let store = Store::connect(
        settings.database.url.expose_secret(),
        settings.database.max_connections,
    )
    .await
    .context("Failed to open the database")?;
    store
        .migrate()
        .await
        .context("Failed to migrate the database")?;
    let clock: SharedClock = Arc::new(SystemClock);
    let bot = telegram_bot(&settings, token.expose_secret())?.throttle(Limits::default());
    let username = bot
        .get_me()
        .await
        .context("Failed to reach the Telegram Bot API (getMe): check `telegram.token` and `telegram.api_url`")?
        .username()
        .to_owned();
    let roles = Roles::from_settings(&settings.telegram);
    let texts = Texts::new(settings.locale);
    let ntfy = crate::ntfy::Ntfy::from_settings(&settings.ntfy, &settings.http)
        .context("Failed to build the ntfy client")?;
    let alerter = Arc::new(alerter::TelegramAlerter::new(
        bot.clone(),
        roles.ceo_chat,
        texts.clone(),
        ntfy.as_ref().map(|_| (store.clone(), clock.clone())),
    ));
    let pools = Pools::from_settings(
        &settings.models,
        Duration::from_secs(settings.models.request_timeout_seconds),
    )?;
    let embedder = pools
        .all()
        .first()
        .map(|pool| pool.client.clone())
        .context("No model pool is configured")?;
    let runner = crate::commands::build_runner_with(
        &settings,
        store.clone(),
        pools,
        embedder,
        clock.clone(),
        alerter,
    )?;
    let mut config = engine_config(&settings);
    config.takeover = Some(Arc::new(crate::commands::load_takeover(&settings)?));
    let engine = Engine { runner, config };
    Ok(App {
        storage: StoreStorage::new(store.clone(), clock.clone()),
        guard: groups::Guard::empty(),
        limits: limits::Limits::from_settings(&settings.limits),
        wake: tokio::sync::Notify::new(),
        ntfy,
        site: None,
        store,
        engine,
        roles,
        texts,
        clock,
        settings,
        bot,
        username,
    })
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
