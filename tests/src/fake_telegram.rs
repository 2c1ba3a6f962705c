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
//! (as edited), polls, callback queries, members' statuses — and refuses
//! what Telegram refuses: an unknown chat, an empty or over-long text or
//! caption, `callback_data` outside 1–64 bytes, a poll with fewer than 2 or
//! more than 10 options, an edit of a missing message or one that changes
//! nothing, a callback answer to an unknown query or with a text over 200
//! characters. On demand it answers 429 with `retry_after`
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

use std::collections::HashMap;
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
pub const TOKEN: &str = "123456:TEST";
/// The bot's user id: the number before the colon of [`TOKEN`].
pub const BOT_ID: i64 = 123_456;
/// The bot's username.
pub const BOT_USERNAME: &str = "ulias_test_bot";
/// The bot's first name.
pub const BOT_NAME: &str = "Ulias";

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
}

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
    /// Method → calls left that are carried out but never answered.
    swallowed: HashMap<String, usize>,
    /// Per method and chat: calls let through first, then calls refused
    /// with 400.
    refusals: HashMap<(String, i64), (usize, usize, String)>,
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

impl FakeTelegram {
    /// Starts a fake with no chats and no updates.
    pub async fn start() -> Self {
        let shared = Arc::new(Shared {
            world: Mutex::new(World {
                next_update_id: 1,
                ..World::default()
            }),
            updates_ready: Notify::new(),
        });
        let app = Router::new()
            .route("/{token}/{method}", any(endpoint))
            .fallback(not_found)
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            api_url: format!("http://{address}/"),
            shared,
        }
    }

    fn world(&self) -> MutexGuard<'_, World> {
        self.shared.world.lock().unwrap()
    }

    // ---- the world ----

    /// Registers the private chat with a user (its id is the user's).
    pub fn add_private_chat(&self, user_id: i64, first_name: &str) {
        self.add_user_chat(&FakeUser::new(user_id, first_name));
    }

    /// Registers the private chat with `user` (with its username, if any).
    pub fn add_user_chat(&self, user: &FakeUser) {
        let mut world = self.world();
        world.users.insert(user.id, user.to_json());
        world.chats.insert(user.id, private_chat(user));
    }

    /// Registers a supergroup.
    pub fn add_group(&self, chat_id: i64, title: &str) {
        self.world().chats.insert(
            chat_id,
            json!({"id": chat_id, "type": "supergroup", "title": title}),
        );
    }

    /// Registers a channel.
    pub fn add_channel(&self, chat_id: i64, title: &str) {
        self.world().chats.insert(
            chat_id,
            json!({"id": chat_id, "type": "channel", "title": title}),
        );
    }

    /// Makes `user` an administrator of a chat (for `getChatAdministrators`,
    /// `getChatMember`), with the usual moderator rights.
    pub fn add_admin(&self, chat_id: i64, user: &FakeUser) {
        self.add_privileged(chat_id, user, administrator(user.to_json()));
    }

    /// Makes `user` the owner (`creator`) of a chat.
    pub fn add_owner(&self, chat_id: i64, user: &FakeUser) {
        self.add_privileged(
            chat_id,
            user,
            json!({"user": user.to_json(), "status": "creator", "is_anonymous": false}),
        );
    }

    fn add_privileged(&self, chat_id: i64, user: &FakeUser, member: Value) {
        let mut world = self.world();
        world.users.insert(user.id, user.to_json());
        let admins = world.admins.entry(chat_id).or_default();
        admins.retain(|admin| admin["user"]["id"] != json!(user.id));
        admins.push(member);
    }

    /// Makes the next `times` calls of `method` answer 429
    /// `Too Many Requests: retry after N` with `parameters.retry_after`.
    pub fn fail_next(&self, method: &str, times: usize, retry_after_secs: u32) {
        self.world()
            .failures
            .insert(method.to_ascii_lowercase(), (times, retry_after_secs));
    }

    /// After `skip` more calls of `method` in `chat_id` go through, the
    /// next `times` are refused with 400 `Bad Request: <description>`
    /// (nothing is done).
    pub fn refuse_after(
        &self,
        method: &str,
        chat_id: i64,
        skip: usize,
        times: usize,
        description: &str,
    ) {
        self.world().refusals.insert(
            (method.to_ascii_lowercase(), chat_id),
            (skip, times, description.to_owned()),
        );
    }

    /// The next `times` calls of `method` are carried out (the message is
    /// delivered) but never answered: the caller's request times out.
    pub fn swallow_next(&self, method: &str, times: usize) {
        self.world()
            .swallowed
            .insert(method.to_ascii_lowercase(), times);
    }

    /// From now on the Bot API accepts connections and answers nothing
    /// (requests in flight are left waiting too, from their next call).
    pub fn hang(&self) {
        self.world().hung = true;
        self.shared.updates_ready.notify_waiters();
    }

    /// Pins the `date` of messages and updates (unix seconds), e.g. to match
    /// a test's manual clock; by default the fake reads the system clock.
    pub fn set_now(&self, unix_seconds: i64) {
        self.world().pinned_now = Some(unix_seconds);
    }

    // ---- what the bot did ----

    /// Every call received, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.world().calls.clone()
    }

    /// The accepted calls of `method` (any case), in order.
    pub fn calls_of(&self, method: &str) -> Vec<Call> {
        self.world()
            .calls
            .iter()
            .filter(|call| call.method.eq_ignore_ascii_case(method) && !call.refused)
            .cloned()
            .collect()
    }

    /// The parameters of the first accepted call of `method` matching
    /// `pred`, waiting up to `timeout` for one (checked every 20 ms).
    pub async fn wait_for(
        &self,
        method: &str,
        pred: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Option<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let found = self
                .world()
                .calls
                .iter()
                .find(|call| {
                    call.method.eq_ignore_ascii_case(method) && !call.refused && pred(&call.params)
                })
                .map(|call| call.params.clone());
            if found.is_some() {
                return found;
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The texts of the accepted `sendMessage` and `editMessageText` calls to
    /// a chat, as sent, in order.
    pub fn sent_texts(&self, chat_id: i64) -> Vec<String> {
        self.world()
            .calls
            .iter()
            .filter(|call| {
                !call.refused
                    && (call.method.eq_ignore_ascii_case("sendMessage")
                        || call.method.eq_ignore_ascii_case("editMessageText"))
                    && param_i64(&call.params["chat_id"]) == Some(chat_id)
            })
            .filter_map(|call| call.params["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// A message as it stands now (after edits; `None` once deleted).
    pub fn message(&self, chat_id: i64, message_id: i32) -> Option<Value> {
        self.world()
            .messages
            .get(&(chat_id, i64::from(message_id)))
            .cloned()
    }

    /// The messages of a chat that still exist, by id.
    pub fn messages(&self, chat_id: i64) -> Vec<Value> {
        let world = self.world();
        let mut found: Vec<(i64, Value)> = world
            .messages
            .iter()
            .filter(|((chat, _), _)| *chat == chat_id)
            .map(|((_, id), message)| (*id, message.clone()))
            .collect();
        found.sort_by_key(|(id, _)| *id);
        found.into_iter().map(|(_, message)| message).collect()
    }

    /// A member's status in a chat (`member`, `left`, `kicked`,
    /// `restricted`, `administrator`, `creator`), if the fake knows it.
    pub fn member_status(&self, chat_id: i64, user_id: i64) -> Option<String> {
        let world = self.world();
        world
            .chat_member(chat_id, user_id)
            .and_then(|member| member["status"].as_str().map(str::to_owned))
    }

    /// Updates not yet confirmed by the bot's `getUpdates` offset.
    pub fn pending_updates(&self) -> usize {
        self.world().updates.len()
    }

    // ---- updates ----

    /// Queues an update `{"update_id": …, kind: payload}` and wakes long
    /// polls; returns its id. The other injectors build on this one.
    pub fn push_update(&self, kind: &str, payload: Value) -> i64 {
        let id = {
            let mut world = self.world();
            let id = world.next_update_id;
            world.next_update_id += 1;
            let mut update = json!({"update_id": id});
            update[kind] = payload;
            world.updates.push(update);
            id
        };
        self.shared.updates_ready.notify_waiters();
        id
    }

    /// A text from `from` in a chat (a channel post, signed by the channel,
    /// in a channel); returns its message id. A private chat's id is the
    /// user's; writing to the bot opens it if the test did not.
    pub fn send_text(&self, chat_id: i64, from: &FakeUser, text: &str) -> i32 {
        self.user_message(chat_id, from, text_content(text))
    }

    /// A text answering message `reply_to_message_id` (with
    /// `reply_to_message` set, as force-reply answers are).
    pub fn reply_text(
        &self,
        chat_id: i64,
        from: &FakeUser,
        text: &str,
        reply_to_message_id: i32,
    ) -> i32 {
        let original = self
            .message(chat_id, reply_to_message_id)
            .unwrap_or_else(|| {
                panic!("no message {reply_to_message_id} in chat {chat_id} to reply to")
            });
        let mut content = text_content(text);
        content.insert("reply_to_message".to_owned(), without_reply(original));
        self.user_message(chat_id, from, content)
    }

    /// A text `from` forwards into `chat_id`, first written by `author`
    /// (`forward_origin` of type user); returns its message id.
    pub fn forward_text(
        &self,
        chat_id: i64,
        from: &FakeUser,
        text: &str,
        author: &FakeUser,
    ) -> i32 {
        let mut content = text_content(text);
        let date = self.world().now();
        content.insert(
            "forward_origin".to_owned(),
            json!({"type": "user", "date": date, "sender_user": author.to_json()}),
        );
        self.user_message(chat_id, from, content)
    }

    /// The service message of users joining a group (`new_chat_members`,
    /// sent by the first of them); returns its message id.
    pub fn new_members_message(&self, chat_id: i64, users: &[FakeUser]) -> i32 {
        let first = users.first().expect("at least one new member");
        let mut content = Map::new();
        content.insert(
            "new_chat_members".to_owned(),
            users.iter().map(FakeUser::to_json).collect(),
        );
        let id = self.user_message(chat_id, first, content);
        let mut world = self.world();
        for user in users {
            world.members.insert(
                (chat_id, user.id),
                json!({"user": user.to_json(), "status": "member"}),
            );
        }
        id
    }

    /// A `chat_member` update: `user` goes from `left` to `member`.
    pub fn chat_member_joined(&self, chat_id: i64, user: &FakeUser) {
        self.chat_member_changed(chat_id, user, "left", "member");
    }

    /// A user joining a group as Telegram reports it to an admin bot: the
    /// `new_chat_members` service message, then the `chat_member` update.
    /// Returns the service message's id.
    pub fn member_joins(&self, chat_id: i64, user: &FakeUser) -> i32 {
        let id = self.new_members_message(chat_id, std::slice::from_ref(user));
        self.chat_member_joined(chat_id, user);
        id
    }

    /// A `chat_member` update from status `old` to `new` (`member`, `left`,
    /// `kicked`, `restricted`, `administrator`, `creator`), made by the user.
    pub fn chat_member_changed(&self, chat_id: i64, user: &FakeUser, old: &str, new: &str) {
        let payload = {
            let mut world = self.world();
            let chat = world.registered_chat(chat_id);
            world.users.insert(user.id, user.to_json());
            let new_member = member_with_status(user.to_json(), new);
            world.members.insert((chat_id, user.id), new_member.clone());
            json!({
                "chat": chat,
                "from": user.to_json(),
                "date": world.now(),
                "old_chat_member": member_with_status(user.to_json(), old),
                "new_chat_member": new_member,
            })
        };
        self.push_update("chat_member", payload);
    }

    /// `from` presses the inline button carrying `data` under a message;
    /// returns the callback query's id. Panics when the message does not
    /// exist or has no button with that data (Telegram clients can only send
    /// the data of a button they show).
    pub fn press_button(
        &self,
        from: &FakeUser,
        chat_id: i64,
        message_id: i32,
        data: &str,
    ) -> String {
        let payload = {
            let mut world = self.world();
            let message = world
                .messages
                .get(&(chat_id, i64::from(message_id)))
                .cloned()
                .unwrap_or_else(|| panic!("no message {message_id} in chat {chat_id} to press"));
            let buttons: Vec<&str> = message["reply_markup"]["inline_keyboard"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(|button| button["callback_data"].as_str())
                .collect();
            assert!(
                buttons.contains(&data),
                "message {message_id} in chat {chat_id} has no button with data {data:?} (it has {buttons:?})"
            );
            world.users.insert(from.id, from.to_json());
            let id = format!("{}", 4_000_000_000_000_000_000_u64 + world.next_serial());
            world.queries.insert(id.clone(), false);
            json!({
                "id": id,
                "from": from.to_json(),
                "message": message,
                "chat_instance": format!("{}", chat_id.unsigned_abs()),
                "data": data,
            })
        };
        let id = payload["id"].as_str().unwrap_or_default().to_owned();
        self.push_update("callback_query", payload);
        id
    }

    /// A `poll_answer` update (an empty `option_ids` retracts the user's
    /// vote); the stored poll's counts follow.
    pub fn poll_answer(&self, poll_id: &str, user: &FakeUser, option_ids: &[i32]) {
        {
            let mut world = self.world();
            world.users.insert(user.id, user.to_json());
            let chosen: Vec<usize> = option_ids
                .iter()
                .filter_map(|id| usize::try_from(*id).ok())
                .collect();
            let previous = world
                .votes
                .insert((poll_id.to_owned(), user.id), chosen.clone())
                .unwrap_or_default();
            let voters = world
                .votes
                .iter()
                .filter(|((poll, _), options)| poll == poll_id && !options.is_empty())
                .count();
            if let Some(key) = world.polls.get(poll_id).copied()
                && let Some(message) = world.messages.get_mut(&key)
            {
                let poll = &mut message["poll"];
                for (options, step) in [(&previous, -1), (&chosen, 1)] {
                    for option in options {
                        if let Some(count) = poll["options"][*option]["voter_count"].as_i64() {
                            poll["options"][*option]["voter_count"] = json!(count + step);
                        }
                    }
                }
                poll["total_voter_count"] = json!(voters);
            }
        }
        self.push_update(
            "poll_answer",
            json!({"poll_id": poll_id, "user": user.to_json(), "option_ids": option_ids}),
        );
    }

    fn user_message(&self, chat_id: i64, from: &FakeUser, content: Map<String, Value>) -> i32 {
        let (kind, message) = {
            let mut world = self.world();
            if from.id == chat_id && !world.chats.contains_key(&chat_id) {
                world.chats.insert(chat_id, private_chat(from));
            }
            let chat = world.registered_chat(chat_id);
            world.users.insert(from.id, from.to_json());
            let id = world.next_message_id(chat_id);
            let mut message = Map::new();
            message.insert("message_id".to_owned(), json!(id));
            message.insert("date".to_owned(), json!(world.now()));
            let kind = if chat["type"] == "channel" {
                message.insert("sender_chat".to_owned(), chat.clone());
                "channel_post"
            } else {
                message.insert("from".to_owned(), from.to_json());
                "message"
            };
            message.insert("chat".to_owned(), chat);
            message.extend(content);
            let message = Value::Object(message);
            world.messages.insert((chat_id, id), message.clone());
            (kind, message)
        };
        let id = message["message_id"].as_i64().unwrap_or_default();
        self.push_update(kind, message);
        i32::try_from(id).unwrap()
    }
}

// ---- HTTP ----

async fn not_found() -> (StatusCode, Json<Value>) {
    let (status, body) = envelope(Err(Refusal {
        code: 404,
        description: "Not Found".to_owned(),
        retry_after: None,
    }));
    (status, Json(body))
}

async fn endpoint(
    State(shared): State<Arc<Shared>>,
    Path((token, method)): Path<(String, String)>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Json<Value>) {
    if !token.starts_with("bot") {
        return not_found().await;
    }
    if shared.world.lock().unwrap().hung {
        // A peer that accepts connections and never answers.
        return std::future::pending().await;
    }
    let at = Instant::now();
    let method = canonical_method(&method);
    let (params, files, answer) = match decode(&headers, &body, query.as_deref()) {
        Err(refusal) => (Map::new(), Vec::new(), Err(refusal)),
        Ok((params, files)) => {
            let injected = shared
                .world
                .lock()
                .unwrap()
                .injected_failure(&method, &params);
            let answer = match injected {
                Some(refusal) => Err(refusal),
                None if method.eq_ignore_ascii_case("getUpdates") => {
                    get_updates(&shared, &params).await
                }
                None => shared.world.lock().unwrap().call(&method, &params, &files),
            };
            (params, files, answer)
        }
    };
    let refused = answer.is_err();
    let (status, body) = envelope(answer);
    let swallowed = {
        let mut world = shared.world.lock().unwrap();
        world.calls.push(Call {
            method: method.clone(),
            params: Value::Object(params),
            at,
            refused,
            files,
            answer: body.clone(),
        });
        world.swallow(&method)
    };
    if swallowed {
        // Done, but the answer never leaves.
        return std::future::pending().await;
    }
    (status, Json(body))
}

/// Long poll: the confirmed updates are forgotten, then the call waits (at
/// most [`LONG_POLL_CAP`]) until an allowed update is there.
async fn get_updates(shared: &Shared, params: &Map<String, Value>) -> Answer {
    let offset = params.get("offset").and_then(param_i64).unwrap_or(0);
    let limit = params
        .get("limit")
        .and_then(param_i64)
        .unwrap_or(100)
        .clamp(1, 100);
    let timeout_secs = params.get("timeout").and_then(param_i64).unwrap_or(0);
    let timeout = Duration::from_secs(u64::try_from(timeout_secs).unwrap_or(0)).min(LONG_POLL_CAP);
    let deadline = tokio::time::Instant::now() + timeout;
    {
        let mut world = shared.world.lock().unwrap();
        if let Some(allowed) = params.get("allowed_updates").and_then(Value::as_array) {
            world.allowed_updates = Some(
                allowed
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect(),
            );
        }
        world.confirm(offset);
    }
    loop {
        let notified = shared.updates_ready.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        let batch = shared
            .world
            .lock()
            .unwrap()
            .deliverable(usize::try_from(limit).unwrap_or(100));
        if !batch.is_empty() || tokio::time::Instant::now() >= deadline {
            return Ok(Value::Array(batch));
        }
        let _ = tokio::time::timeout_at(deadline, notified).await;
    }
}

impl World {
    #[allow(clippy::disallowed_methods)] // the fake stands for Telegram's servers, which read their own clock
    fn now(&self) -> i64 {
        self.pinned_now.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
                .unwrap_or(0)
        })
    }

    fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    fn next_message_id(&mut self, chat_id: i64) -> i64 {
        let last = self.last_message_id.entry(chat_id).or_insert(0);
        *last += 1;
        *last
    }

    fn registered_chat(&self, chat_id: i64) -> Value {
        self.chats
            .get(&chat_id)
            .cloned()
            .unwrap_or_else(|| panic!("chat {chat_id} is not registered with the fake"))
    }

    /// Whether this call of `method` is one to leave unanswered.
    fn swallow(&mut self, method: &str) -> bool {
        match self.swallowed.get_mut(&method.to_ascii_lowercase()) {
            Some(left) if *left > 0 => {
                *left -= 1;
                true
            }
            _ => false,
        }
    }

    fn injected_failure(&mut self, method: &str, params: &Map<String, Value>) -> Option<Refusal> {
        let chat = params.get("chat_id").and_then(param_i64).unwrap_or(0);
        if let Some((skip, times, description)) =
            self.refusals.get_mut(&(method.to_ascii_lowercase(), chat))
        {
            if *skip > 0 {
                *skip -= 1;
            } else if *times > 0 {
                *times -= 1;
                return Some(Refusal {
                    code: 400,
                    description: format!("Bad Request: {description}"),
                    retry_after: None,
                });
            }
        }
        let (left, retry_after) = self.failures.get_mut(&method.to_ascii_lowercase())?;
        if *left == 0 {
            return None;
        }
        *left -= 1;
        let retry_after = *retry_after;
        Some(Refusal {
            code: 429,
            description: format!("Too Many Requests: retry after {retry_after}"),
            retry_after: Some(retry_after),
        })
    }

    /// Forgets the updates an offset confirms (a negative offset keeps the
    /// last `-offset` ones), as Telegram does.
    fn confirm(&mut self, offset: i64) {
        if offset > 0 {
            self.updates
                .retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
        } else if offset < 0 {
            let keep = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
            let drop = self.updates.len().saturating_sub(keep);
            self.updates.drain(..drop);
        }
    }

    fn deliverable(&self, limit: usize) -> Vec<Value> {
        self.updates
            .iter()
            .filter(|update| self.allowed(update))
            .take(limit)
            .cloned()
            .collect()
    }

    fn allowed(&self, update: &Value) -> bool {
        let Some(kind) = update
            .as_object()
            .and_then(|fields| fields.keys().find(|key| *key != "update_id"))
        else {
            return false;
        };
        match &self.allowed_updates {
            Some(allowed) if !allowed.is_empty() => allowed.iter().any(|a| a == kind),
            _ => !OPT_IN_UPDATES.contains(&kind.as_str()),
        }
    }

    fn chat_member(&self, chat_id: i64, user_id: i64) -> Option<Value> {
        if let Some(admin) = self
            .admins
            .get(&chat_id)
            .and_then(|admins| admins.iter().find(|a| a["user"]["id"] == json!(user_id)))
        {
            return Some(admin.clone());
        }
        if let Some(member) = self.members.get(&(chat_id, user_id)) {
            return Some(member.clone());
        }
        let user = self.users.get(&user_id)?;
        let status = if self.chats.contains_key(&chat_id) && chat_id == user_id {
            "member"
        } else {
            "left"
        };
        Some(member_with_status(user.clone(), status))
    }

    // ---- methods ----

    fn call(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
        files: &[UploadedFile],
    ) -> Answer {
        match method.to_ascii_lowercase().as_str() {
            "getme" => Ok(me()),
            "getwebhookinfo" => Ok(json!({
                "url": "", "has_custom_certificate": false,
                "pending_update_count": self.updates.len(),
            })),
            "deletewebhook" | "setwebhook" | "close" | "logout" => Ok(json!(true)),
            "sendmessage" => self.send_message(params),
            "editmessagetext" => self.edit_message_text(params),
            "editmessagecaption" => self.edit_message_caption(params),
            "editmessagereplymarkup" => self.edit_message_reply_markup(params),
            "answercallbackquery" => self.answer_callback_query(params),
            "sendphoto" => self.send_photo(params),
            "sendmediagroup" => self.send_media_group(params, files),
            "sendpoll" => self.send_poll(params),
            "stoppoll" => self.stop_poll(params),
            "deletemessage" => self.delete_message(params),
            "deletemessages" => self.delete_messages(params),
            "banchatmember" => self.ban_chat_member(params),
            "unbanchatmember" => self.unban_chat_member(params),
            "restrictchatmember" => self.restrict_chat_member(params),
            "setchatpermissions" => {
                let (_, chat) = self.chat(params)?;
                if chat["type"] == "private" || chat["type"] == "channel" {
                    return Err(bad("method is available only for supergroups and channel"));
                }
                Ok(json!(true))
            }
            "pinchatmessage" => {
                let (chat_id, _) = self.chat(params)?;
                let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
                if !self.messages.contains_key(&(chat_id, message_id)) {
                    return Err(bad("message to pin not found"));
                }
                Ok(json!(true))
            }
            "sendchataction" => {
                self.chat(params)?;
                if params.get("action").and_then(Value::as_str).is_none() {
                    return Err(bad("wrong parameter action in request"));
                }
                Ok(json!(true))
            }
            "setmycommands" => self.set_my_commands(params),
            "getmycommands" => Ok(self
                .commands
                .get(&commands_key(params))
                .cloned()
                .unwrap_or_else(|| json!([]))),
            "deletemycommands" => {
                self.commands.remove(&commands_key(params));
                Ok(json!(true))
            }
            "getchatadministrators" => {
                let (chat_id, chat) = self.chat(params)?;
                if chat["type"] == "private" {
                    return Err(bad("there are no administrators in the private chat"));
                }
                Ok(json!(
                    self.admins.get(&chat_id).cloned().unwrap_or_default()
                ))
            }
            "getchatmember" => {
                let (chat_id, _) = self.chat(params)?;
                let user_id = params.get("user_id").and_then(param_i64).unwrap_or(0);
                self.chat_member(chat_id, user_id)
                    .ok_or_else(|| bad("user not found"))
            }
            _ => Err(Refusal {
                code: 404,
                description: "Not Found: method not found".to_owned(),
                retry_after: None,
            }),
        }
    }

    /// The chat a call names (`chat_id`: a number, a numeric string or
    /// `@username`).
    fn chat(&self, params: &Map<String, Value>) -> Result<(i64, Value), Refusal> {
        let raw = params
            .get("chat_id")
            .filter(|id| !id.is_null())
            .ok_or_else(|| bad("chat_id is empty"))?;
        let id = match param_i64(raw) {
            Some(id) => Some(id),
            None => raw.as_str().and_then(|name| {
                let name = name.trim_start_matches('@');
                self.chats
                    .iter()
                    .find(|(_, chat)| chat["username"].as_str() == Some(name))
                    .map(|(id, _)| *id)
            }),
        };
        id.and_then(|id| self.chats.get(&id).map(|chat| (id, chat.clone())))
            .ok_or_else(|| bad("chat not found"))
    }

    /// A message the bot sends: `from` the bot (`sender_chat` in a channel).
    fn bot_message(&mut self, chat_id: i64, chat: &Value, content: Map<String, Value>) -> Value {
        let id = self.next_message_id(chat_id);
        let mut message = Map::new();
        message.insert("message_id".to_owned(), json!(id));
        message.insert("date".to_owned(), json!(self.now()));
        if chat["type"] == "channel" {
            message.insert("sender_chat".to_owned(), chat.clone());
        } else {
            message.insert("from".to_owned(), FakeUser::bot().to_json());
        }
        message.insert("chat".to_owned(), chat.clone());
        message.extend(content);
        let message = Value::Object(message);
        self.messages.insert((chat_id, id), message.clone());
        message
    }

    /// What every sent message shares: the replied message and the inline
    /// keyboard (other markups — force reply, reply keyboards — are not
    /// part of a `Message`).
    fn common_content(
        &self,
        chat_id: i64,
        params: &Map<String, Value>,
    ) -> Result<Map<String, Value>, Refusal> {
        check_keyboard(params)?;
        let mut content = Map::new();
        let reply = params.get("reply_parameters");
        let reply_to = reply
            .and_then(|r| r.get("message_id"))
            .or_else(|| params.get("reply_to_message_id"))
            .and_then(param_i64);
        if let Some(reply_to) = reply_to {
            let reply_chat = reply
                .and_then(|r| r.get("chat_id"))
                .and_then(param_i64)
                .unwrap_or(chat_id);
            match self.messages.get(&(reply_chat, reply_to)) {
                Some(original) => {
                    content.insert(
                        "reply_to_message".to_owned(),
                        without_reply(original.clone()),
                    );
                }
                None => {
                    let lenient = reply
                        .and_then(|r| r.get("allow_sending_without_reply"))
                        .or_else(|| params.get("allow_sending_without_reply"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false);
                    if !lenient {
                        return Err(bad("message to be replied not found"));
                    }
                }
            }
        }
        if let Some(markup) = inline_keyboard(params) {
            content.insert("reply_markup".to_owned(), markup);
        }
        Ok(content)
    }

    fn send_message(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let text = visible_text(params, "text");
        if text.trim().is_empty() {
            return Err(bad("message text is empty"));
        }
        if utf16_len(&text) > MAX_TEXT {
            return Err(bad("message is too long"));
        }
        let mut content = self.common_content(chat_id, params)?;
        content.insert("text".to_owned(), json!(text));
        Ok(self.bot_message(chat_id, &chat, content))
    }

    /// The message an edit names, if the bot may edit it.
    fn editable(&self, params: &Map<String, Value>) -> Result<(i64, i64), Refusal> {
        let (chat_id, _) = self.chat(params)?;
        let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
        let message = self
            .messages
            .get(&(chat_id, message_id))
            .ok_or_else(|| bad("message to edit not found"))?;
        let by_bot = message["from"]["id"] == json!(BOT_ID) || message.get("sender_chat").is_some();
        if !by_bot {
            return Err(bad("message can't be edited"));
        }
        Ok((chat_id, message_id))
    }

    /// Applies an edit of `field` (and of the inline keyboard, which an edit
    /// without `reply_markup` removes), refusing one that changes nothing.
    fn apply_edit(
        &mut self,
        key: (i64, i64),
        field: Option<(&str, String)>,
        params: &Map<String, Value>,
    ) -> Answer {
        check_keyboard(params)?;
        let now = self.now();
        let markup = inline_keyboard(params);
        let message = self
            .messages
            .get_mut(&key)
            .ok_or_else(|| bad("message to edit not found"))?;
        let same_field = field
            .as_ref()
            .is_none_or(|(name, value)| message[*name].as_str() == Some(value.as_str()));
        if same_field && message.get("reply_markup") == markup.as_ref() {
            return Err(bad(
                "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message",
            ));
        }
        let fields = message.as_object_mut().unwrap();
        if let Some((name, value)) = field {
            fields.insert(name.to_owned(), json!(value));
        }
        match markup {
            Some(markup) => fields.insert("reply_markup".to_owned(), markup),
            None => fields.remove("reply_markup"),
        };
        fields.insert("edit_date".to_owned(), json!(now));
        Ok(message.clone())
    }

    fn edit_message_text(&mut self, params: &Map<String, Value>) -> Answer {
        if params.contains_key("inline_message_id") {
            return Ok(json!(true));
        }
        let key = self.editable(params)?;
        if self.messages[&key].get("text").is_none() {
            return Err(bad("there is no text in the message to edit"));
        }
        let text = visible_text(params, "text");
        if text.trim().is_empty() {
            return Err(bad("message text is empty"));
        }
        if utf16_len(&text) > MAX_TEXT {
            return Err(bad("message is too long"));
        }
        self.apply_edit(key, Some(("text", text)), params)
    }

    fn edit_message_caption(&mut self, params: &Map<String, Value>) -> Answer {
        if params.contains_key("inline_message_id") {
            return Ok(json!(true));
        }
        let key = self.editable(params)?;
        let caption = visible_text(params, "caption");
        if utf16_len(&caption) > MAX_CAPTION {
            return Err(bad("message caption is too long"));
        }
        self.apply_edit(key, Some(("caption", caption)), params)
    }

    fn edit_message_reply_markup(&mut self, params: &Map<String, Value>) -> Answer {
        if params.contains_key("inline_message_id") {
            return Ok(json!(true));
        }
        let key = self.editable(params)?;
        self.apply_edit(key, None, params)
    }

    fn answer_callback_query(&mut self, params: &Map<String, Value>) -> Answer {
        let id = params
            .get("callback_query_id")
            .and_then(param_string)
            .unwrap_or_default();
        if let Some(text) = params.get("text").and_then(Value::as_str)
            && utf16_len(text) > MAX_CALLBACK_ANSWER
        {
            return Err(bad("MESSAGE_TOO_LONG"));
        }
        match self.queries.get_mut(&id) {
            Some(answered) if !*answered => {
                *answered = true;
                Ok(json!(true))
            }
            _ => Err(bad(
                "query is too old and response timeout expired or query ID is invalid",
            )),
        }
    }

    fn photo_sizes(&mut self) -> Value {
        let serial = self.next_serial();
        json!([
            {"file_id": format!("AgACAgQAAxkBAAI{serial}s"), "file_unique_id": format!("AQAD{serial}s"),
             "width": 90, "height": 90, "file_size": 1_024},
            {"file_id": format!("AgACAgQAAxkBAAI{serial}m"), "file_unique_id": format!("AQAD{serial}m"),
             "width": 800, "height": 800, "file_size": 65_536},
        ])
    }

    fn send_photo(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        if params.get("photo").is_none_or(Value::is_null) {
            return Err(bad("there is no photo in the request"));
        }
        let caption = visible_text(params, "caption");
        if utf16_len(&caption) > MAX_CAPTION {
            return Err(bad("message caption is too long"));
        }
        let mut content = self.common_content(chat_id, params)?;
        content.insert("photo".to_owned(), self.photo_sizes());
        if !caption.is_empty() {
            content.insert("caption".to_owned(), json!(caption));
        }
        Ok(self.bot_message(chat_id, &chat, content))
    }

    fn send_media_group(&mut self, params: &Map<String, Value>, files: &[UploadedFile]) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let media = params
            .get("media")
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| bad("parameter \"media\" is required"))?;
        if !(2..=10).contains(&media.len()) {
            return Err(bad("media group must include 2-10 items"));
        }
        for item in &media {
            if let Some(name) = item["media"]
                .as_str()
                .and_then(|m| m.strip_prefix("attach://"))
                && !files.iter().any(|file| file.field == name)
            {
                return Err(bad("can't parse InputMedia: media not found"));
            }
            if utf16_len(&visible_text(
                item.as_object().unwrap_or(&Map::new()),
                "caption",
            )) > MAX_CAPTION
            {
                return Err(bad("message caption is too long"));
            }
        }
        let common = self.common_content(chat_id, params)?;
        let group = format!("{}", 13_000_000_000_000_000_u64 + self.next_serial());
        let mut sent = Vec::new();
        for item in &media {
            let mut content = common.clone();
            content.remove("reply_markup");
            content.insert("media_group_id".to_owned(), json!(group));
            let serial = self.next_serial();
            match item["type"].as_str().unwrap_or("photo") {
                "photo" => {
                    content.insert("photo".to_owned(), self.photo_sizes());
                }
                "video" => {
                    content.insert(
                        "video".to_owned(),
                        json!({"file_id": format!("BAACAgQAAxkBAAI{serial}"), "file_unique_id": format!("AgAD{serial}"),
                               "width": 640, "height": 360, "duration": 1}),
                    );
                }
                kind => {
                    content.insert(
                        kind.to_owned(),
                        json!({"file_id": format!("BQACAgQAAxkBAAI{serial}"), "file_unique_id": format!("AgAD{serial}")}),
                    );
                }
            }
            let caption = visible_text(item.as_object().unwrap_or(&Map::new()), "caption");
            if !caption.is_empty() {
                content.insert("caption".to_owned(), json!(caption));
            }
            sent.push(self.bot_message(chat_id, &chat, content));
        }
        Ok(Value::Array(sent))
    }

    fn send_poll(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let question = params
            .get("question")
            .and_then(param_string)
            .unwrap_or_default();
        if question.trim().is_empty() {
            return Err(bad("poll question must be non-empty"));
        }
        if utf16_len(&question) > MAX_POLL_QUESTION {
            return Err(bad("poll question length must not exceed 300"));
        }
        let options: Vec<String> = params
            .get("options")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|option| match option {
                Value::Object(fields) => fields
                    .get("text")
                    .and_then(param_string)
                    .unwrap_or_default(),
                other => param_string(other).unwrap_or_default(),
            })
            .collect();
        if options.len() < 2 {
            return Err(bad("poll must have at least 2 option"));
        }
        if options.len() > 10 {
            return Err(bad("poll can't have more than 10 options"));
        }
        if options.iter().any(|option| option.trim().is_empty()) {
            return Err(bad("poll options must be non-empty"));
        }
        if options
            .iter()
            .any(|option| utf16_len(option) > MAX_POLL_OPTION)
        {
            return Err(bad("poll options length must not exceed 100"));
        }
        let is_anonymous = params
            .get("is_anonymous")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        if !is_anonymous && chat["type"] == "channel" {
            return Err(bad("non-anonymous polls can't be sent to channel chats"));
        }
        let mut content = self.common_content(chat_id, params)?;
        let id = format!("{}", 5_000_000_000_000_000_000_u64 + self.next_serial());
        let mut poll = json!({
            "id": id,
            "question": question,
            "options": options.iter().enumerate()
                .map(|(i, text)| json!({"persistent_id": i.to_string(), "text": text, "voter_count": 0}))
                .collect::<Vec<_>>(),
            "total_voter_count": 0,
            "is_closed": false,
            "is_anonymous": is_anonymous,
            "type": params.get("type").and_then(Value::as_str).unwrap_or("regular"),
            "allows_multiple_answers": params.get("allows_multiple_answers").and_then(Value::as_bool).unwrap_or(false),
        });
        for field in [
            "correct_option_id",
            "explanation",
            "open_period",
            "close_date",
        ] {
            if let Some(value) = params.get(field) {
                poll[field] = value.clone();
            }
        }
        if poll.get("close_date").is_none()
            && let Some(period) = params.get("open_period").and_then(param_i64)
        {
            poll["close_date"] = json!(self.now() + period);
        }
        content.insert("poll".to_owned(), poll);
        let message = self.bot_message(chat_id, &chat, content);
        let message_id = message["message_id"].as_i64().unwrap_or_default();
        self.polls.insert(id, (chat_id, message_id));
        Ok(message)
    }

    fn stop_poll(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _) = self.chat(params)?;
        check_keyboard(params)?;
        let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
        let markup = inline_keyboard(params);
        let message = self
            .messages
            .get_mut(&(chat_id, message_id))
            .ok_or_else(|| bad("message with poll to stop not found"))?;
        if message.get("poll").is_none() {
            return Err(bad("message is not a poll"));
        }
        if message["poll"]["is_closed"] == json!(true) {
            return Err(bad("poll has already been closed"));
        }
        message["poll"]["is_closed"] = json!(true);
        if let Some(markup) = markup {
            message["reply_markup"] = markup;
        }
        Ok(message["poll"].clone())
    }

    fn delete_message(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _) = self.chat(params)?;
        let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
        self.messages
            .remove(&(chat_id, message_id))
            .map(|_| json!(true))
            .ok_or_else(|| bad("message to delete not found"))
    }

    fn delete_messages(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _) = self.chat(params)?;
        let ids: Vec<i64> = params
            .get("message_ids")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(param_i64)
            .collect();
        if ids.is_empty() || ids.len() > 100 {
            return Err(bad("message_ids must contain 1-100 identifiers"));
        }
        for id in ids {
            self.messages.remove(&(chat_id, id));
        }
        Ok(json!(true))
    }

    /// The chat and user a moderation call names; refuses private chats and
    /// the chat's admins.
    fn moderated(&self, params: &Map<String, Value>) -> Result<(i64, Value, i64), Refusal> {
        let (chat_id, chat) = self.chat(params)?;
        let user_id = params
            .get("user_id")
            .and_then(param_i64)
            .ok_or_else(|| bad("user_id is empty"))?;
        if chat["type"] == "private" {
            return Err(bad("chat member status can't be changed in private chats"));
        }
        match self.admins.get(&chat_id).and_then(|admins| {
            admins
                .iter()
                .find(|admin| admin["user"]["id"] == json!(user_id))
        }) {
            Some(admin) if admin["status"] == "creator" => Err(bad("can't remove chat owner")),
            Some(_) => Err(bad("user is an administrator of the chat")),
            None => Ok((chat_id, chat, user_id)),
        }
    }

    fn user_json(&self, user_id: i64) -> Value {
        self.users.get(&user_id).cloned().unwrap_or_else(
            || json!({"id": user_id, "is_bot": false, "first_name": format!("User {user_id}")}),
        )
    }

    fn ban_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _, user_id) = self.moderated(params)?;
        let until = params.get("until_date").and_then(param_i64).unwrap_or(0);
        let user = self.user_json(user_id);
        self.members.insert(
            (chat_id, user_id),
            json!({"user": user, "status": "kicked", "until_date": until}),
        );
        Ok(json!(true))
    }

    fn unban_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _, user_id) = self.moderated(params)?;
        let only_if_banned = params
            .get("only_if_banned")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let banned = self
            .members
            .get(&(chat_id, user_id))
            .is_some_and(|member| member["status"] == "kicked");
        if banned || !only_if_banned {
            let user = self.user_json(user_id);
            self.members
                .insert((chat_id, user_id), member_with_status(user, "left"));
        }
        Ok(json!(true))
    }

    fn restrict_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat, user_id) = self.moderated(params)?;
        if chat["type"] != "supergroup" {
            return Err(bad("method is available only for supergroups and channel"));
        }
        if user_id == BOT_ID {
            return Err(bad("can't restrict self"));
        }
        let permissions = params
            .get("permissions")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("can't parse chat permissions"))?;
        let user = self.user_json(user_id);
        let mut member = member_with_status(user.clone(), "restricted");
        let mut all = true;
        for flag in RESTRICTED_FLAGS {
            if flag == "is_member" {
                continue;
            }
            let granted = permissions
                .get(flag)
                .and_then(Value::as_bool)
                .unwrap_or(false);
            all &= granted;
            member[flag] = json!(granted);
        }
        member["until_date"] = json!(params.get("until_date").and_then(param_i64).unwrap_or(0));
        if all {
            member = member_with_status(user, "member");
        }
        self.members.insert((chat_id, user_id), member);
        Ok(json!(true))
    }

    fn set_my_commands(&mut self, params: &Map<String, Value>) -> Answer {
        let commands = params
            .get("commands")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if commands.len() > 100 {
            return Err(bad("too many commands"));
        }
        for command in &commands {
            let name = command["command"].as_str().unwrap_or("");
            let valid = (1..=32).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                return Err(bad("BOT_COMMAND_INVALID"));
            }
            let description = command["description"].as_str().unwrap_or("");
            if description.is_empty() || utf16_len(description) > 256 {
                return Err(bad("command description is empty or too long"));
            }
        }
        self.commands
            .insert(commands_key(params), Value::Array(commands));
        Ok(json!(true))
    }
}

// ---- Telegram objects ----

fn me() -> Value {
    let mut me = FakeUser::bot().to_json();
    for (field, value) in [
        ("can_join_groups", true),
        ("can_read_all_group_messages", false),
        ("supports_inline_queries", false),
        ("can_connect_to_business", false),
        ("has_main_web_app", false),
    ] {
        me[field] = json!(value);
    }
    me
}

fn private_chat(user: &FakeUser) -> Value {
    let mut chat = json!({"id": user.id, "type": "private", "first_name": user.first_name});
    if let Some(username) = &user.username {
        chat["username"] = json!(username);
    }
    chat
}

fn administrator(user: Value) -> Value {
    let mut admin = json!({"user": user, "status": "administrator"});
    for (flag, value) in [
        ("is_anonymous", false),
        ("can_be_edited", false),
        ("can_manage_chat", true),
        ("can_change_info", true),
        ("can_delete_messages", true),
        ("can_manage_video_chats", true),
        ("can_invite_users", true),
        ("can_restrict_members", true),
        ("can_promote_members", false),
        ("can_post_stories", false),
        ("can_edit_stories", false),
        ("can_delete_stories", false),
        ("can_pin_messages", true),
        ("can_manage_topics", false),
    ] {
        admin[flag] = json!(value);
    }
    admin
}

/// The boolean fields of a `restricted` `ChatMember`.
const RESTRICTED_FLAGS: [&str; 16] = [
    "is_member",
    "can_send_messages",
    "can_send_audios",
    "can_send_documents",
    "can_send_photos",
    "can_send_videos",
    "can_send_video_notes",
    "can_send_voice_notes",
    "can_send_polls",
    "can_send_other_messages",
    "can_add_web_page_previews",
    "can_change_info",
    "can_invite_users",
    "can_pin_messages",
    "can_manage_topics",
    "can_react_to_messages",
];

/// A `ChatMember` with the fields its status requires.
fn member_with_status(user: Value, status: &str) -> Value {
    let mut member = json!({"user": user, "status": status});
    match status {
        "kicked" => member["until_date"] = json!(0),
        "restricted" => {
            member["until_date"] = json!(0);
            for flag in RESTRICTED_FLAGS {
                member[flag] = json!(flag == "is_member");
            }
        }
        "creator" => member["is_anonymous"] = json!(false),
        "administrator" => member = administrator(member["user"].clone()),
        _ => {}
    }
    member
}

/// A message's text, with a `bot_command` entity for a leading `/command`.
fn text_content(text: &str) -> Map<String, Value> {
    let mut content = Map::new();
    content.insert("text".to_owned(), json!(text));
    if let Some(command) = text
        .split_whitespace()
        .next()
        .filter(|word| word.starts_with('/') && word.len() > 1 && text.starts_with('/'))
    {
        content.insert(
            "entities".to_owned(),
            json!([{"type": "bot_command", "offset": 0, "length": utf16_len(command)}]),
        );
    }
    content
}

/// A message as `reply_to_message` carries it (no nested reply).
fn without_reply(mut message: Value) -> Value {
    if let Some(fields) = message.as_object_mut() {
        fields.remove("reply_to_message");
    }
    message
}

/// The inline keyboard a call attaches, if any (an empty one is none).
fn inline_keyboard(params: &Map<String, Value>) -> Option<Value> {
    let markup = params.get("reply_markup")?;
    let rows = markup.get("inline_keyboard")?.as_array()?;
    if rows
        .iter()
        .all(|row| row.as_array().is_none_or(Vec::is_empty))
    {
        return None;
    }
    Some(markup.clone())
}

/// Refuses `callback_data` outside 1–64 bytes.
fn check_keyboard(params: &Map<String, Value>) -> Result<(), Refusal> {
    let Some(rows) = params
        .get("reply_markup")
        .and_then(|markup| markup.get("inline_keyboard"))
        .and_then(Value::as_array)
    else {
        return Ok(());
    };
    for button in rows.iter().filter_map(Value::as_array).flatten() {
        if let Some(data) = button.get("callback_data") {
            let len = data.as_str().map_or(0, str::len);
            if len == 0 || len > MAX_CALLBACK_DATA {
                return Err(bad("BUTTON_DATA_INVALID"));
            }
        }
    }
    Ok(())
}

/// A text or caption as Telegram shows it: HTML tags stripped and entities
/// decoded with `parse_mode` HTML, as sent otherwise.
fn visible_text(params: &Map<String, Value>, field: &str) -> String {
    let raw = params.get(field).and_then(param_string).unwrap_or_default();
    let html = params
        .get("parse_mode")
        .and_then(Value::as_str)
        .is_some_and(|mode| mode.eq_ignore_ascii_case("html"));
    if !html {
        return raw;
    }
    let mut plain = String::with_capacity(raw.len());
    let mut in_tag = false;
    for c in raw.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            _ => plain.push(c),
        }
    }
    plain
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

fn commands_key(params: &Map<String, Value>) -> (String, String) {
    let scope = params
        .get("scope")
        .map(Value::to_string)
        .unwrap_or_else(|| r#"{"type":"default"}"#.to_owned());
    let language = params
        .get("language_code")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    (scope, language)
}

/// Telegram's method names are case-insensitive and teloxide writes them
/// `SendMessage`: calls are recorded as `sendMessage`.
fn canonical_method(method: &str) -> String {
    let mut chars = method.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_ascii_lowercase().to_string() + chars.as_str()
    })
}

/// A number, or a string holding one.
fn param_i64(value: &Value) -> Option<i64> {
    value
        .as_i64()
        .or_else(|| value.as_str().and_then(|text| text.trim().parse().ok()))
}

/// A string, or a number written as one.
fn param_string(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

// ---- request bodies ----

type Decoded = (Map<String, Value>, Vec<UploadedFile>);

fn decode(headers: &HeaderMap, body: &[u8], query: Option<&str>) -> Result<Decoded, Refusal> {
    let mut params = Map::new();
    let mut files = Vec::new();
    if let Some(query) = query {
        for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
            params.insert(key.to_string(), text_value(&key, &value));
        }
    }
    if body.is_empty() {
        return Ok((params, files));
    }
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match mime.as_str() {
        "application/json" => match serde_json::from_slice::<Value>(body) {
            Ok(Value::Object(fields)) => params.extend(fields),
            _ => return Err(bad("can't parse JSON object")),
        },
        "application/x-www-form-urlencoded" => {
            for (key, value) in url::form_urlencoded::parse(body) {
                params.insert(key.to_string(), text_value(&key, &value));
            }
        }
        "multipart/form-data" => {
            let boundary = content_type
                .split(';')
                .filter_map(|part| part.trim().strip_prefix("boundary="))
                .next()
                .map(|boundary| boundary.trim_matches('"').to_owned())
                .ok_or_else(|| bad("multipart boundary is missing"))?;
            parse_multipart(body, &boundary, &mut params, &mut files)?;
        }
        _ => return Err(bad("unsupported content type")),
    }
    Ok((params, files))
}

/// A text field of a form: JSON when it looks like an object or array, a
/// number or boolean when it reads as one, a string otherwise (always a
/// string for free-text fields).
fn text_value(key: &str, raw: &str) -> Value {
    if TEXT_FIELDS.contains(&key) {
        return json!(raw);
    }
    let trimmed = raw.trim();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(value) = serde_json::from_str(trimmed)
    {
        return value;
    }
    if let Ok(number) = trimmed.parse::<i64>() {
        return json!(number);
    }
    match trimmed {
        "true" => json!(true),
        "false" => json!(false),
        _ => json!(raw),
    }
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

fn parse_multipart(
    body: &[u8],
    boundary: &str,
    params: &mut Map<String, Value>,
    files: &mut Vec<UploadedFile>,
) -> Result<(), Refusal> {
    let delimiter = format!("--{boundary}").into_bytes();
    let mut starts = Vec::new();
    let mut from = 0;
    while let Some(at) = find(body, &delimiter, from) {
        starts.push(at);
        from = at + delimiter.len();
    }
    for pair in starts.windows(2) {
        let part = &body[pair[0] + delimiter.len()..pair[1]];
        let part = part.strip_prefix(b"\r\n").unwrap_or(part);
        let part = part.strip_suffix(b"\r\n").unwrap_or(part);
        let split = find(part, b"\r\n\r\n", 0).ok_or_else(|| bad("malformed multipart part"))?;
        let head = String::from_utf8_lossy(&part[..split]);
        let content = &part[split + 4..];
        let mut name = None;
        let mut file_name = None;
        let mut typed = false;
        for line in head.lines() {
            let lower = line.to_ascii_lowercase();
            if lower.starts_with("content-type:") && !lower.contains("text/plain") {
                typed = true;
            }
            if !lower.starts_with("content-disposition:") {
                continue;
            }
            for attribute in line.split(';').skip(1) {
                let Some((key, value)) = attribute.trim().split_once('=') else {
                    continue;
                };
                let value = value.trim().trim_matches('"').to_owned();
                match key.trim() {
                    "name" => name = Some(value),
                    "filename" => file_name = Some(value),
                    _ => {}
                }
            }
        }
        let name = name.ok_or_else(|| bad("multipart part without a name"))?;
        match std::str::from_utf8(content) {
            Ok(text) if file_name.is_none() && !typed => {
                params.insert(name.clone(), text_value(&name, text));
            }
            _ => files.push(UploadedFile {
                field: name,
                file_name,
                size: content.len(),
            }),
        }
    }
    Ok(())
}
