//! Starting the fake, setting its world up, injecting failures and reading what
//! the bot did.

#[allow(clippy::wildcard_imports)]
use super::*;

impl FakeTelegram {
    /// Starts a fake with no chats and no updates.
    pub async fn start() -> Self {
        let shared = Arc::new(Shared {
            world: Mutex::new(World {
                next_update_id: 1,
                privacy: true,
                ..World::default()
            }),
            updates_ready: Notify::new(),
        });
        let app = Router::new()
            .route("/{token}/{method}", any(endpoint))
            .fallback(not_found)
            // Telegram takes uploads up to 50 MB per request.
            .layer(axum::extract::DefaultBodyLimit::max(MAX_UPLOAD))
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

    pub(super) fn world(&self) -> MutexGuard<'_, World> {
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
    /// `getChatMember`), with the usual moderator rights (in a channel, the
    /// rights to post and edit).
    pub fn add_admin(&self, chat_id: i64, user: &FakeUser) {
        let mut admin = administrator(user.to_json());
        if self
            .world()
            .chats
            .get(&chat_id)
            .is_some_and(|c| c["type"] == "channel")
        {
            admin["can_post_messages"] = json!(true);
            admin["can_edit_messages"] = json!(true);
        }
        self.add_privileged(chat_id, user, admin);
    }

    /// Makes `user` the owner (`creator`) of a chat.
    pub fn add_owner(&self, chat_id: i64, user: &FakeUser) {
        self.add_privileged(
            chat_id,
            user,
            json!({"user": user.to_json(), "status": "creator", "is_anonymous": false}),
        );
    }

    pub(super) fn add_privileged(&self, chat_id: i64, user: &FakeUser, member: Value) {
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
            .held
            .insert(method.to_ascii_lowercase(), (times, Held::Never));
    }

    /// The next `times` calls of `method` are carried out at once (the
    /// message is there for users to see and press) but answered only
    /// after `delay`, as over a slow network.
    pub fn answer_late(&self, method: &str, times: usize, delay: Duration) {
        self.world()
            .held
            .insert(method.to_ascii_lowercase(), (times, Held::For(delay)));
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

    /// The photo the bot set for a chat (`setChatPhoto`), if it did.
    pub fn chat_photo(&self, chat_id: i64) -> Option<Vec<u8>> {
        self.world().chat_photos.get(&chat_id).cloned()
    }

    /// The images uploaded to `chat_id` by accepted `sendPhoto` and
    /// `sendMediaGroup` calls, as received, in order (a group's in its
    /// items' order).
    pub fn uploaded_photos(&self, chat_id: i64) -> Vec<Vec<u8>> {
        let world = self.world();
        let mut photos = Vec::new();
        for call in world
            .calls
            .iter()
            .filter(|call| !call.refused && call.params["chat_id"].as_i64() == Some(chat_id))
        {
            let named: Vec<&str> = if call.method.eq_ignore_ascii_case("sendPhoto") {
                vec!["photo"]
            } else if call.method.eq_ignore_ascii_case("sendMediaGroup") {
                call.params["media"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|item| item["media"].as_str()?.strip_prefix("attach://"))
                    .collect()
            } else {
                continue;
            };
            for name in named {
                let file = call.files.iter().find(|file| file.field == name);
                photos.extend(file.map(|file| file.bytes.clone()));
            }
        }
        photos
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
}
