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
use teloxide::dptree::di::DependencyMap;
use teloxide::prelude::*;
use teloxide::types::AllowedUpdate;
use teloxide::update_listeners::{Polling, UpdateListener, webhooks};
use ulias_agents::engine::Engine;
use ulias_agents::model::Timeouts;
use ulias_agents::pools::Pools;
use ulias_core::clock::SharedClock;
use ulias_core::settings::{BudgetSettings, CeoSettings, Settings, UpdateMode, WebhookSettings};
use ulias_core::store::Store;

use super::groups::Community;
use super::loops::{engine_loop, groups_loop, send_pushes};
use super::publishers::{Outlets, SiteOutlet};
use super::{
    ChatState, Common, Roles, StoreStorage, TgBot, Work, alerter, commands, engine_config, groups,
    handler_tree, limits, log_channel, notify, outbox, phone, startup, x_watch,
};
use crate::i18n::Texts;
use crate::ntfy::Ntfy;

/// The whole process, wired and ready to run.
pub struct Application {
    parts: Parts,
    settings: Settings,
    shutdown: Pin<Box<dyn Future<Output = ()> + Send>>,
}

/// The parts the handlers and loops take, each shared: the wiring hands
/// each one only those it uses.
struct Parts {
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    ntfy: Option<Arc<Ntfy>>,
    outlets: Arc<Outlets>,
    storage: Arc<StoreStorage<ChatState>>,
    ceo: Arc<CeoSettings>,
    budgets: Arc<BudgetSettings>,
}

impl Parts {
    /// What the handler tree may take: each endpoint names those it uses.
    fn dependencies(&self) -> DependencyMap {
        dptree::deps![
            self.common.clone(),
            self.work.clone(),
            self.roles.clone(),
            self.community.clone(),
            self.ntfy.clone(),
            self.ceo.clone(),
            self.budgets.clone(),
            self.storage.clone()
        ]
    }
}

/// The updates the bot asks Telegram for, by polling and webhook alike
/// (`chat_member` only reaches a bot that asks for it).
const ALLOWED_UPDATES: [AllowedUpdate; 6] = [
    AllowedUpdate::Message,
    AllowedUpdate::Poll,
    AllowedUpdate::EditedMessage,
    AllowedUpdate::CallbackQuery,
    AllowedUpdate::ChatMember,
    AllowedUpdate::MyChatMember,
];

/// Registers the webhook with [`ALLOWED_UPDATES`] (teloxide's own setup
/// drops them) and serves it: updates are checked against the secret.
async fn webhook_listener(
    bot: &TgBot,
    webhook: &WebhookSettings,
) -> anyhow::Result<impl UpdateListener<Err = std::convert::Infallible>> {
    let mut options = webhooks::Options::new(webhook.listen, webhook.public_url.clone());
    if let Some(secret) = &webhook.secret_token {
        options = options.secret_token(secret.expose_secret().to_owned());
    }
    let secret = options.get_or_gen_secret_token().to_owned();
    bot.set_webhook(webhook.public_url.clone())
        .allowed_updates(ALLOWED_UPDATES)
        .secret_token(secret)
        .await?;
    let (listener, stopped, router) = webhooks::axum_no_setup(options);
    let socket = tokio::net::TcpListener::bind(webhook.listen).await?;
    tokio::spawn(async move {
        let served = axum::serve(socket, router)
            .with_graceful_shutdown(stopped)
            .await;
        if let Err(error) = served {
            tracing::error!(%error, "the webhook server stopped");
        }
    });
    Ok(listener)
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
        let parts = build_parts(&settings, clock).await?;
        Ok(Self {
            parts,
            settings,
            shutdown: Box::pin(shutdown),
        })
    }

    /// Runs Ulias until the shutdown future completes: the engine and the
    /// schedule every `engine.tick_seconds`, the bot (long polling, or a
    /// webhook), and the loops that post validations, decisions, progress
    /// and the log.
    pub async fn run(self) -> anyhow::Result<()> {
        let Self {
            parts,
            settings,
            shutdown,
        } = self;
        let bot = &parts.common.bot;
        let notify_every = Duration::from_secs(settings.engine.notify_seconds);

        commands::register(bot).await;
        let guarding =
            groups::guard(&parts.common, &parts.roles, &parts.community, notify_every).await;
        let checks = {
            let (common, roles) = (parts.common.clone(), parts.roles.clone());
            let (community, ntfy) = (parts.community.clone(), parts.ntfy.is_some());
            tokio::spawn(async move { startup::check(&common, &roles, &community, ntfy).await })
        };
        let (stop_outbox, outbox_stopped) = tokio::sync::watch::channel(false);
        let outbox = tokio::spawn(outbox::run(
            parts.common.clone(),
            parts.work.clone(),
            parts.roles.clone(),
            parts.outlets.clone(),
            notify_every,
            outbox_stopped,
        ));
        let mut tasks = spawn_loops(&parts, &settings);
        tasks.extend(serve_public_api(&parts.common, &settings).await?);
        let mut dispatcher = Dispatcher::builder(bot.clone(), handler_tree())
            .dependencies(parts.dependencies())
            .default_handler(|_| async {})
            .build();
        let token = dispatcher.shutdown_token();
        let listen = async {
            match (&settings.telegram.mode, &settings.telegram.webhook) {
                (UpdateMode::Webhook, Some(webhook)) => {
                    let listener = webhook_listener(bot, webhook)
                        .await
                        .context("Failed to set the Telegram webhook")?;
                    dispatcher
                        .dispatch_with_listener(listener, LoggingErrorHandler::new())
                        .await;
                    if let Err(error) = bot.delete_webhook().await {
                        tracing::warn!(%error, "could not delete the webhook");
                    }
                }
                _ => {
                    let listener = Polling::builder(bot.clone())
                        .timeout(LONG_POLL)
                        .allowed_updates(ALLOWED_UPDATES.to_vec())
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
        let grace = Duration::from_secs(settings.engine.stop_grace_seconds);
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
        for task in tasks.into_iter().chain(guarding).chain([checks]) {
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
        if tokio::time::timeout(grace, parts.common.store.close())
            .await
            .is_err()
        {
            tracing::warn!("the store did not close in time");
        }
        listened
    }
}

/// The loops that run beside the bot until the process stops (the
/// publishers' loop aside: it is stopped gracefully).
fn spawn_loops(parts: &Parts, settings: &Settings) -> Vec<tokio::task::JoinHandle<()>> {
    let Parts {
        common,
        work,
        roles,
        community,
        ntfy,
        ceo,
        ..
    } = parts;
    let engine = &settings.engine;
    let seconds = Duration::from_secs;
    let mut loops = price_watch(parts, settings).into_iter().collect::<Vec<_>>();
    loops.extend([
        tokio::spawn(engine_loop(
            common.store.clone(),
            common.clock.clone(),
            work.clone(),
            settings.prompts_dir.clone(),
            seconds(engine.tick_seconds),
        )),
        tokio::spawn(groups_loop(
            common.clone(),
            work.clone(),
            roles.clone(),
            community.clone(),
            seconds(engine.notify_seconds),
        )),
        tokio::spawn(notify::run(
            common.clone(),
            roles.clone(),
            ntfy.clone(),
            community.clone(),
            engine.clone(),
            ceo.clone(),
        )),
        tokio::spawn(log_channel::run(
            common.clone(),
            roles.log_channel,
            seconds(engine.log_batch_seconds),
        )),
        tokio::spawn(phone::ntfy_replies(
            common.clone(),
            work.clone(),
            ntfy.clone(),
        )),
        tokio::spawn(send_pushes(
            common.store.clone(),
            common.clock.clone(),
            ntfy.clone(),
            settings.http.clone(),
        )),
        tokio::spawn(x_watch::run(
            common.clone(),
            work.clone(),
            roles.clone(),
            settings.x.clone(),
            settings.http.clone(),
        )),
    ]);
    loops
}

/// The released price alerts' watch (none, said in the log, when the
/// chain settings make no reader).
fn price_watch(parts: &Parts, settings: &Settings) -> Option<tokio::task::JoinHandle<()>> {
    match ulias_agents::chain::ChainReader::from_settings(settings) {
        Ok(chain) => Some(tokio::spawn(super::price_watch::run(
            parts.common.clone(),
            parts.roles.clone(),
            chain,
            Duration::from_secs(settings.engine.price_alert_seconds),
        ))),
        Err(error) => {
            tracing::error!(%error, "price alerts are not watched: no chain reader");
            None
        }
    }
}

/// Opens the store and builds the runtime, the bot and the parts.
async fn build_parts(settings: &Settings, clock: SharedClock) -> anyhow::Result<Parts> {
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
    let bot = telegram_bot(settings, token.expose_secret())?.throttle(Limits::default());
    let username = bot
        .get_me()
        .await
        .context("Failed to reach the Telegram Bot API (getMe): check `telegram.token` and `telegram.api_url`")?
        .username()
        .to_owned();
    let roles = Roles::from_settings(&settings.telegram);
    let texts = Texts::new(settings.locale);
    let ntfy = Ntfy::from_settings(&settings.ntfy, &settings.http)
        .context("Failed to build the ntfy client")?;
    let engine = build_engine(
        settings,
        &store,
        &clock,
        &bot,
        &roles,
        &texts,
        ntfy.is_some(),
    )?;
    Ok(Parts {
        storage: StoreStorage::new(store.clone(), clock.clone()),
        work: Arc::new(Work {
            engine,
            wake: tokio::sync::Notify::new(),
        }),
        community: Arc::new(Community {
            guard: groups::Guard::empty(),
            limits: limits::Limits::from_settings(&settings.limits),
            username,
            groups: settings.telegram.groups.clone(),
        }),
        outlets: Arc::new(Outlets {
            x: settings.x.clone(),
            http: settings.http.clone(),
            site: site_outlet(settings)?,
            data_dir: settings.data_dir.clone(),
        }),
        ntfy: ntfy.map(Arc::new),
        ceo: Arc::new(settings.ceo.clone()),
        budgets: Arc::new(settings.budgets.clone()),
        roles: Arc::new(roles),
        common: Arc::new(Common {
            store,
            clock,
            bot,
            texts,
        }),
    })
}

/// The public API the sites' widgets read, when `public_api.listen` is set
/// (stopped with the other loops).
async fn serve_public_api(
    common: &Common,
    settings: &Settings,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let Some(listen) = settings.public_api.listen else {
        return Ok(None);
    };
    let chain = ulias_agents::chain::ChainReader::from_settings(settings)
        .context("Failed to build the public API's chain reader")?;
    let api = Arc::new(crate::public_api::PublicApi::new(
        common.store.clone(),
        chain,
        common.clock.clone(),
        Duration::from_secs(settings.public_api.cache_seconds),
        settings.cloudflare.domain.clone(),
    ));
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .with_context(|| {
            format!("Failed to listen on {listen} for the public API (`public_api.listen`)")
        })?;
    tracing::info!(%listen, "public API listening");
    Ok(Some(tokio::spawn(async move {
        let served = crate::public_api::serve(listener, api, std::future::pending()).await;
        if let Err(error) = served {
            tracing::error!(%error, "the public API stopped");
        }
    })))
}

/// Where approved sites go live: Cloudflare when `[cloudflare]` is set.
fn site_outlet(settings: &Settings) -> anyhow::Result<SiteOutlet> {
    let cloudflare = &settings.cloudflare;
    let host = match cloudflare.account() {
        Some(account) => {
            let client = crate::cloudflare::Cloudflare::new(account, &settings.http)
                .context("Failed to build the Cloudflare client")?;
            Some(Arc::new(client) as Arc<dyn crate::site::SitePublisher>)
        }
        None => None,
    };
    Ok(SiteOutlet {
        data_dir: settings.data_dir.clone(),
        project_prefix: cloudflare.project_prefix.clone(),
        host,
        api: settings
            .public_api
            .public_url
            .as_ref()
            .map(ToString::to_string),
    })
}

/// The engine: its runner (the model pools, the catalogue, alerts to the
/// CEO's chat, queued for ntfy when `pushes` is on) and its settings.
fn build_engine(
    settings: &Settings,
    store: &Store,
    clock: &SharedClock,
    bot: &super::TgBot,
    roles: &Roles,
    texts: &Texts,
    pushes: bool,
) -> anyhow::Result<Engine> {
    let alerter = Arc::new(alerter::TelegramAlerter::new(
        bot.clone(),
        roles.ceo_chat,
        texts.clone(),
        pushes.then(|| (store.clone(), clock.clone())),
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
        settings,
        store.clone(),
        pools,
        embedder,
        clock.clone(),
        alerter,
    )?;
    let mut config = engine_config(&settings.engine, &settings.ceo);
    config.takeover = Some(Arc::new(crate::commands::load_takeover(settings)?));
    Ok(Engine { runner, config })
}
