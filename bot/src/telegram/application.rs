//! The process wiring: [`Application::build`] opens the store and builds
//! the engine and the bot on the clock it is given; [`Application::run`]
//! runs the bot and the loops until the shutdown future completes.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use secrecy::ExposeSecret;
use teloxide::adaptors::throttle::Limits;
use teloxide::prelude::*;
use teloxide::update_listeners::Polling;
use ulias_agents::engine::Engine;
use ulias_agents::model::Timeouts;
use ulias_agents::pools::Pools;
use ulias_core::clock::SharedClock;
use ulias_core::settings::{Settings, UpdateMode};
use ulias_core::store::Store;

use super::{
    App, Roles, StoreStorage, alerter, commands, engine_config, engine_loop, groups, groups_loop,
    handler_tree, limits, log_channel, notify, outbox, phone, send_pushes,
};
use crate::i18n::Texts;

/// The whole process, wired and ready to run.
pub struct Application {
    app: Arc<App>,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
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

impl Application {
    /// Opens the store, builds the engine and the bot (every reading of the
    /// time through `clock`); [`Application::run`] stops once `shutdown`
    /// completes.
    pub async fn build(
        settings: Settings,
        clock: SharedClock,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<Self> {
        let app = Arc::new(build_app(settings, clock).await?);
        Ok(Self {
            app,
            shutdown: Box::pin(shutdown),
        })
    }

    /// Runs Ulias until the shutdown future completes: the engine and the
    /// schedule every `engine.tick_seconds`, the bot (long polling, or a
    /// webhook), and the loops that post validations, decisions, progress
    /// and the log.
    pub async fn run(self) -> anyhow::Result<()> {
        let Self { app, shutdown } = self;

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
                    let listener =
                        teloxide::update_listeners::webhooks::axum(app.bot.clone(), options)
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
}

/// Opens the store and builds the runtime and the bot.
async fn build_app(settings: Settings, clock: SharedClock) -> anyhow::Result<App> {
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
        Timeouts::from_settings(&settings.models, &settings.http),
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
