//! The process under test: `run(settings, clock, shutdown)` against the
//! fake Bot API, a scripted model server and a fresh SQLite store, on a
//! manual clock the test moves ([`Surface::clock`]).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, dead_code)]

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use secrecy::SecretString;
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use ulias_bot::telegram;
use ulias_core::clock::{Clock, ManualClock, SystemClock};
use ulias_core::settings::{Locale, Settings, ToolProtocol};
use ulias_core::store::Store;
use ulias_tests::db::TestDb;
use ulias_tests::fake_llm::FakeLlm;
use ulias_tests::fake_telegram::{FakeTelegram, FakeUser, TOKEN};
use ulias_tests::harness::prompts_dir;

pub const CEO: i64 = 1001;
pub const TEAMMATE: i64 = 2002;
pub const STRANGER: i64 = 3003;
pub const TEAM_CHAT: i64 = -100_777;
pub const LOG_CHANNEL: i64 = -100_888;
/// A community group, known to the fake, with the teammate as its admin
/// and the bot as its moderator.
pub const GROUP: i64 = -100_555;
pub const WAIT: Duration = Duration::from_secs(15);

pub struct Surface {
    pub tg: FakeTelegram,
    pub llm: FakeLlm,
    pub db: TestDb,
    /// The process's clock: it moves only when the test says.
    pub clock: Arc<ManualClock>,
    stop: Option<oneshot::Sender<()>>,
    process: Option<JoinHandle<anyhow::Result<()>>>,
}

pub fn ceo() -> FakeUser {
    FakeUser::new(CEO, "Alice").with_username("alice")
}
pub fn teammate() -> FakeUser {
    FakeUser::new(TEAMMATE, "Bob").with_username("bob")
}
pub fn stranger() -> FakeUser {
    FakeUser::new(STRANGER, "Mallory")
}

pub fn interpretation(title: &str, confidence: f64, guesses: &[&str]) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "title": title, "description": format!("{title}, in detail"), "priority": 6,
        "team": "ops", "guesses": guesses, "confidence": confidence}}]})
}

impl Surface {
    /// The process on a fresh database.
    pub async fn start(locale: Locale, turns: Vec<Value>) -> Self {
        let db = TestDb::sqlite().await;
        db.migrated().await;
        Self::start_on(db, locale, turns).await
    }

    pub async fn start_on(db: TestDb, locale: Locale, turns: Vec<Value>) -> Self {
        Self::start_with(db, locale, turns, |_| {}).await
    }

    /// The process with settings changed by `customise` first.
    pub async fn start_with(
        db: TestDb,
        locale: Locale,
        turns: Vec<Value>,
        customise: impl FnOnce(&mut Settings),
    ) -> Self {
        Self::start_in_world(db, locale, turns, |_| {}, customise).await
    }

    /// The process with the fake's world changed by `shape` (after the
    /// usual chats are set up) and settings by `customise`, both before it
    /// starts.
    pub async fn start_in_world(
        db: TestDb,
        locale: Locale,
        turns: Vec<Value>,
        shape: impl FnOnce(&FakeTelegram),
        customise: impl FnOnce(&mut Settings),
    ) -> Self {
        let tg = FakeTelegram::start().await;
        tg.add_user_chat(&ceo());
        tg.add_user_chat(&teammate());
        tg.add_user_chat(&stranger());
        tg.add_group(TEAM_CHAT, "Team");
        tg.add_channel(LOG_CHANNEL, "Public log");
        tg.add_group(GROUP, "PEPE2 community");
        tg.add_admin(GROUP, &teammate());
        // As the README asks: a moderator in the community group, a poster
        // in the log channel, a plain member of the team chat.
        tg.add_bot_moderator(GROUP);
        tg.add_bot_moderator(LOG_CHANNEL);
        shape(&tg);
        let llm = FakeLlm::start(turns).await;
        let mut settings = Settings {
            locale,
            prompts_dir: prompts_dir().to_path_buf(),
            ..Settings::default()
        };
        settings.database.url = SecretString::from(db.url.clone());
        settings.telegram.token = Some(SecretString::from(TOKEN));
        settings.telegram.api_url = tg.api_url.parse().unwrap();
        settings.telegram.users.ceo = vec![CEO];
        settings.telegram.users.team = vec![TEAMMATE];
        settings.telegram.chats.ceo = Some(CEO);
        settings.telegram.chats.team = Some(TEAM_CHAT);
        settings.telegram.chats.log_channel = Some(LOG_CHANNEL);
        settings.models.pools.truncate(1);
        settings.models.pools[0].base_url = llm.base_url.parse().unwrap();
        settings.models.pools[0].protocol = ToolProtocol::Tools;
        settings.engine.tick_seconds = 1;
        settings.engine.notify_seconds = 1;
        settings.engine.log_batch_seconds = 1;
        customise(&mut settings);
        let clock = Arc::new(ManualClock::new(start_time()));
        let (stop, stopped) = oneshot::channel::<()>();
        let process = tokio::spawn(telegram::run(settings, clock.clone(), async {
            let _ = stopped.await;
        }));
        Self {
            tg,
            llm,
            db,
            clock,
            stop: Some(stop),
            process: Some(process),
        }
    }

    /// Moves the process's clock forward by `step`.
    pub fn advance(&self, step: TimeDelta) {
        self.clock.advance(step);
    }

    pub fn store(&self) -> &Store {
        &self.db.store
    }

    /// The first message in `chat` whose text contains `needle`, waiting for it.
    pub async fn message_containing(&self, chat: i64, needle: &str) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(found) = self
                .tg
                .messages(chat)
                .into_iter()
                .find(|m| m["text"].as_str().is_some_and(|t| t.contains(needle)))
            {
                return found;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no message containing {needle:?} in {chat}; sent: {:?}",
                self.tg.sent_texts(chat)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Stops the process and hands back its database (for a restart).
    pub async fn stop_keeping_db(mut self) -> TestDb {
        self.halt().await;
        let Surface { db, .. } = self;
        db
    }

    async fn halt(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(process) = self.process.take() {
            // The process may take its whole grace period (10 s by default)
            // to stop; a loaded machine gets a margin on top. How fast a
            // stop is, is `resilience.rs`'s business.
            let done = tokio::time::timeout(Duration::from_secs(20), process).await;
            let result = done
                .expect("the process stops")
                .expect("the process did not panic");
            result.expect("the process ends without error");
        }
    }

    pub async fn stop(mut self) {
        self.halt().await;
    }
}

/// Where the process's clock starts: today at 06:00 UTC, an hour when no
/// daily or weekly summary is due (they go out in the evening), whenever the
/// tests run. Rows a test writes before the start are dated from it.
/// A running operation for `symbol` on Base, started at [`start_time`].
pub async fn running_operation(store: &Store, symbol: &str) -> ulias_core::domain::OperationId {
    use ulias_core::domain::{NewOperation, OperationStatus};
    let op = store
        .create_operation(
            &NewOperation {
                name: "PEPE2".into(),
                token_symbol: Some(symbol.into()),
                chain: Some("base".into()),
                official_address: None,
                official_addresses: Vec::new(),
                j0_at: start_time(),
            },
            start_time(),
        )
        .await
        .unwrap();
    store
        .set_operation_status(op.id, OperationStatus::Running, start_time())
        .await
        .unwrap();
    op.id
}

pub fn start_time() -> DateTime<Utc> {
    let today = SystemClock.now().date_naive();
    today.and_hms_opt(6, 0, 0).unwrap().and_utc()
}

pub fn button_data(message: &Value) -> Vec<String> {
    message["reply_markup"]["inline_keyboard"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|b| b["callback_data"].as_str().map(str::to_owned))
        .collect()
}

pub fn id_of(message: &Value) -> i32 {
    i32::try_from(message["message_id"].as_i64().unwrap()).unwrap()
}

pub fn finish(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": arguments}]})
}

pub fn report(summary: &str) -> Value {
    finish(json!({"summary": summary, "findings": [], "confidence": 0.9}))
}

/// What `check` finds, waiting for it (the process writes after it talks).
pub async fn eventually<T, Fut>(what: &str, mut check: impl FnMut() -> Fut) -> T
where
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(found) = check().await {
            return found;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never happened: {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `validation` created and approved by a teammate: its publication waits
/// for the outbox.
pub async fn approved_validation(
    store: &Store,
    validation: &ulias_core::domain::NewValidation,
) -> ulias_core::domain::PublicationId {
    let id = store
        .create_validation(validation, start_time())
        .await
        .unwrap()
        .id;
    store
        .approve_validation(id, "bob", start_time())
        .await
        .unwrap()
}
