//! A fake of the Telegram Bot API on loopback: real HTTP, Telegram's JSON.
//! A real `teloxide` client reaches it with
//! `Bot::new(TOKEN).set_api_url(fake.api_url.parse()?)`: teloxide builds
//! `{api_url}/bot{token}/{method}` by joining an absolute path, so the base
//! URL is the bare `http://127.0.0.1:PORT/`.
//!
//! It answers `POST` (or `GET`) `/bot<any token>/<method>` with JSON,
//! `multipart/form-data` (what teloxide sends when a request carries a file)
//! or url-encoded bodies, always in Telegram's envelope
//! (`{"ok":true,"result":…}` or `{"ok":false,"error_code":N,"description":…}`).
//!
//! The fake keeps a small world — registered chats, the messages in them
//! (as edited), polls, callback queries, members' statuses, the bot's
//! administrator rights per chat — and refuses what Telegram refuses: an
//! unknown chat, an empty or over-long text or caption, `callback_data`
//! outside 1–64 bytes, a poll with fewer than 2 or more than 10 options, an
//! edit of a missing message or one that changes nothing, a callback answer
//! to an unknown query or with a text over 200 characters; a moderation
//! call (delete, ban, restrict, pin, permissions) without the matching
//! administrator right; deleting others' messages older than 48 hours; a
//! message to a user who never started the bot, or to a channel where the
//! bot may not post; media given by a URL it cannot fetch. A restricted or
//! banned member cannot write ([`FakeTelegram::try_send_text`]), and with
//! privacy mode on (the default) a bot that is not a group's administrator
//! receives only commands, mentions of it, replies to it and service
//! messages. On demand any method answers 429 with `retry_after`
//! ([`FakeTelegram::fail_next`]).
//!
//! Tests inject updates (a user's text, a reply, a button press, a member
//! joining, a poll answer); `getUpdates` long-polls for them (its timeout
//! capped at 2 s) and filters them by `allowed_updates` as Telegram does:
//! `chat_member` updates only reach a bot that asked for them.
//!
//! Every call is recorded ([`Call`]), accepted or refused.
//!
//! Texts: with `parse_mode` HTML the tags are stripped before the length
//! checks and in the stored message, as Telegram does; Markdown texts are
//! measured and stored as sent. Lengths count UTF-16 code units, as
//! Telegram does. Entities are only produced for a leading `/command` in
//! injected texts.
//!
//! # Layout
//! [`FakeTelegram`]'s control side is in `control` (setting the world up,
//! failures, what the bot did) and `users` (what users do); the Bot API
//! side by area: `http` (the endpoint, `getUpdates`, request bodies),
//! `world` (ids, chats, failures, dispatch), `messages`, `files`, `polls`,
//! `members`, `rights` (what the bot and users may do) and `commands`.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::any;
use axum::{Json, Router};
use serde_json::{Map, Value, json};
use tokio::sync::Notify;

/// The token to give `Bot::new` (the fake accepts any token).
mod commands;
mod control;
mod files;
mod http;
mod members;
mod messages;
mod polls;
mod rights;
mod users;
mod world;

use self::commands::*;
use self::files::unreachable_media;
use self::http::*;
use self::members::*;
use self::messages::*;
use self::rights::PERMISSION_FLAGS;

pub use self::rights::Right;

pub const TOKEN: &str = "123456:TEST";
/// The bot's user id: the number before the colon of [`TOKEN`].
pub const BOT_ID: i64 = 123_456;
/// The bot's username.
pub const BOT_USERNAME: &str = "ulias_test_bot";
/// The bot's first name.
pub const BOT_NAME: &str = "Ulias";

/// The user Telegram shows as the author of an anonymous administrator's
/// message (`@GroupAnonymousBot`).
pub const ANONYMOUS_ADMIN_BOT: i64 = 1_087_968_824;
/// The user Telegram shows as the author of a message sent as a channel.
pub const CHANNEL_BOT: i64 = 136_817_688;
/// Telegram's own service account (automatic forwards).
pub const TELEGRAM_SERVICE: i64 = 777_000;

/// The longest a `getUpdates` call waits, whatever timeout it asks for.
const LONG_POLL_CAP: Duration = Duration::from_secs(2);
/// Telegram's limits.
const MAX_TEXT: usize = 4096;
const MAX_CAPTION: usize = 1024;
const MAX_CALLBACK_DATA: usize = 64;
const MAX_CALLBACK_ANSWER: usize = 200;
const MAX_POLL_QUESTION: usize = 300;
const MAX_POLL_OPTION: usize = 100;
/// Update types Telegram leaves out when `allowed_updates` is empty or unset.
const OPT_IN_UPDATES: [&str; 3] = ["chat_member", "message_reaction", "message_reaction_count"];
/// Multipart fields kept as text even when they look like numbers or JSON.
const TEXT_FIELDS: [&str; 12] = [
    "text",
    "caption",
    "question",
    "explanation",
    "title",
    "description",
    "callback_query_id",
    "inline_message_id",
    "url",
    "business_connection_id",
    "language_code",
    "action",
];

/// A Telegram user, as tests make them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FakeUser {
    pub id: i64,
    pub first_name: String,
    pub username: Option<String>,
    pub is_bot: bool,
    pub language_code: Option<String>,
}

impl FakeUser {
    /// A human user without username or language.
    pub fn new(id: i64, first_name: impl Into<String>) -> Self {
        Self {
            id,
            first_name: first_name.into(),
            username: None,
            is_bot: false,
            language_code: None,
        }
    }

    /// The same user with a username (without `@`).
    pub fn with_username(mut self, username: impl Into<String>) -> Self {
        self.username = Some(username.into());
        self
    }

    /// The same user with a language code (`"fr"`).
    pub fn with_language(mut self, language_code: impl Into<String>) -> Self {
        self.language_code = Some(language_code.into());
        self
    }

    /// The bot the fake plays (`getMe`), e.g. to list it among a group's admins.
    pub fn bot() -> Self {
        Self {
            is_bot: true,
            ..Self::new(BOT_ID, BOT_NAME).with_username(BOT_USERNAME)
        }
    }

    /// Telegram's `User` object.
    pub fn to_json(&self) -> Value {
        let mut user = json!({"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name});
        if let Some(username) = &self.username {
            user["username"] = json!(username);
        }
        if let Some(code) = &self.language_code {
            user["language_code"] = json!(code);
        }
        user
    }
}

/// A file part of a multipart request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UploadedFile {
    /// The part's name (teloxide names it after the attachment it sends as
    /// `attach://<name>`).
    pub field: String,
    pub file_name: Option<String>,
    pub size: usize,
    /// What was received.
    pub bytes: Vec<u8>,
}

/// The largest request body Telegram takes from a bot (uploads).
const MAX_UPLOAD: usize = 50 * 1024 * 1024;
/// The largest photo Telegram takes.
const MAX_PHOTO: usize = 10 * 1024 * 1024;

/// One request the fake received.
#[derive(Clone, Debug)]
pub struct Call {
    /// The method, its first letter lowercased (`sendMessage`; teloxide
    /// writes `SendMessage`, and Telegram ignores case).
    pub method: String,
    /// Its parameters: the JSON body, or the text fields of a multipart or
    /// url-encoded body (JSON-looking fields parsed, numbers and booleans
    /// converted), plus any query string.
    pub params: Value,
    /// When it arrived.
    pub at: Instant,
    /// `true` when the fake did not carry it out: a 429 from
    /// [`FakeTelegram::fail_next`], or any other error answer.
    pub refused: bool,
    /// The file parts of a multipart body.
    pub files: Vec<UploadedFile>,
    /// The envelope the fake answered.
    pub answer: Value,
}

/// An error answer.
struct Refusal {
    code: u16,
    description: String,
    retry_after: Option<u32>,
}

type Answer = Result<Value, Refusal>;

fn bad(description: &str) -> Refusal {
    Refusal {
        code: 400,
        description: format!("Bad Request: {description}"),
        retry_after: None,
    }
}

fn envelope(answer: Answer) -> (StatusCode, Value) {
    match answer {
        Ok(result) => (StatusCode::OK, json!({"ok": true, "result": result})),
        Err(refusal) => {
            let mut body = json!({"ok": false, "error_code": refusal.code, "description": refusal.description});
            if let Some(seconds) = refusal.retry_after {
                body["parameters"] = json!({"retry_after": seconds});
            }
            let status = StatusCode::from_u16(refusal.code).unwrap_or(StatusCode::BAD_REQUEST);
            (status, body)
        }
    }
}

/// The fake's world.
#[derive(Default)]
struct World {
    calls: Vec<Call>,
    /// Method → (calls left to refuse, retry_after).
    failures: HashMap<String, (usize, u32)>,
    /// Updates not yet confirmed by an offset, in order.
    updates: Vec<Value>,
    next_update_id: i64,
    /// The last `allowed_updates` a `getUpdates` gave.
    allowed_updates: Option<Vec<String>>,
    chats: HashMap<i64, Value>,
    last_message_id: HashMap<i64, i64>,
    messages: HashMap<(i64, i64), Value>,
    /// Poll id → (chat id, message id).
    polls: HashMap<String, (i64, i64)>,
    /// (poll id, user id) → the options the user chose.
    votes: HashMap<(String, i64), Vec<usize>>,
    /// Chat id → administrators (`ChatMember` objects), in order.
    admins: HashMap<i64, Vec<Value>>,
    /// (chat id, user id) → `ChatMember` set by joins, bans, restrictions.
    members: HashMap<(i64, i64), Value>,
    /// Users seen in injected updates.
    users: HashMap<i64, Value>,
    /// Callback query id → answered.
    queries: HashMap<String, bool>,
    /// (scope, language) → commands.
    commands: HashMap<(String, String), Value>,
    serial: u64,
    /// Unix time pinned by [`FakeTelegram::set_now`].
    pinned_now: Option<i64>,
    /// Set by [`FakeTelegram::hang`]: no request is answered any more.
    hung: bool,
    /// Privacy mode (BotFather's default): a bot that is not an
    /// administrator of a group sees only what is meant for it.
    privacy: bool,
    /// Chat id → the group's default member permissions, once set.
    permissions: HashMap<i64, Value>,
    /// (group, channel) pairs: the channel may not post in the group.
    banned_senders: HashSet<(i64, i64)>,
    /// Chat id → the bytes of the photo the bot set.
    chat_photos: HashMap<i64, Vec<u8>>,
    /// Method → calls left that are carried out but answered late or
    /// never.
    held: HashMap<String, (usize, Held)>,
    /// Per method and chat: calls let through first, then calls refused
    /// with 400.
    refusals: HashMap<(String, i64), (usize, usize, String)>,
}

/// How long the answer to a call that was carried out is held back.
#[derive(Clone, Copy)]
enum Held {
    Never,
    For(std::time::Duration),
}

struct Shared {
    world: Mutex<World>,
    updates_ready: Notify,
}

/// A running fake Telegram.
#[derive(Clone)]
pub struct FakeTelegram {
    /// The base URL to give `Bot::set_api_url` (`http://127.0.0.1:PORT/`).
    pub api_url: String,
    shared: Arc<Shared>,
}
