//! What users do: messages, replies, forwards, joins, button presses, poll
//! answers (as updates the bot polls for).

#[allow(clippy::wildcard_imports)]
use super::*;

impl FakeTelegram {
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

    /// A user votes (an empty `option_ids` retracts the vote); the stored
    /// poll's counts follow. As Telegram does for a poll the bot sent: a
    /// `poll` update with the poll's new state, and a `poll_answer` update
    /// only when the poll is not anonymous.
    pub fn poll_answer(&self, poll_id: &str, user: &FakeUser, option_ids: &[i32]) {
        let state = {
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
            match world.polls.get(poll_id).copied() {
                Some(key) => world.messages.get_mut(&key).map(|message| {
                    let poll = &mut message["poll"];
                    for (options, step) in [(&previous, -1), (&chosen, 1)] {
                        for option in options {
                            if let Some(count) = poll["options"][*option]["voter_count"].as_i64() {
                                poll["options"][*option]["voter_count"] = json!(count + step);
                            }
                        }
                    }
                    poll["total_voter_count"] = json!(voters);
                    poll.clone()
                }),
                None => None,
            }
        };
        let anonymous = state
            .as_ref()
            .is_none_or(|poll| poll["is_anonymous"] != json!(false));
        if let Some(poll) = state {
            self.push_update("poll", poll);
        }
        if !anonymous {
            self.push_update(
                "poll_answer",
                json!({"poll_id": poll_id, "user": user.to_json(), "option_ids": option_ids}),
            );
        }
    }

    pub(super) fn user_message(
        &self,
        chat_id: i64,
        from: &FakeUser,
        content: Map<String, Value>,
    ) -> i32 {
        self.try_user_message(chat_id, from, content)
            .unwrap_or_else(|refusal| panic!("Telegram refuses the message: {refusal}"))
    }

    /// A user's message, unless Telegram refuses it (a restricted or
    /// banned member, a banned channel); delivered to the bot only if it
    /// receives it (privacy mode).
    pub(super) fn try_user_message(
        &self,
        chat_id: i64,
        from: &FakeUser,
        content: Map<String, Value>,
    ) -> Result<i32, String> {
        let (kind, message, delivered) = {
            let mut world = self.world();
            if from.id == chat_id && !world.chats.contains_key(&chat_id) {
                world.chats.insert(chat_id, private_chat(from));
            }
            let chat = world.registered_chat(chat_id);
            if let Some(refusal) = world.refuses_writer(chat_id, from) {
                return Err(refusal);
            }
            if let Some(sender) = content.get("sender_chat").and_then(|c| c["id"].as_i64())
                && world.banned_senders.contains(&(chat_id, sender))
            {
                return Err(format!("chat {sender} is banned from chat {chat_id}"));
            }
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
            message.insert("chat".to_owned(), chat.clone());
            message.extend(content);
            let message = Value::Object(message);
            world.messages.insert((chat_id, id), message.clone());
            let delivered = world.bot_receives(chat_id, &chat, &message);
            (kind, message, delivered)
        };
        let id = message["message_id"].as_i64().unwrap_or_default();
        if delivered {
            self.push_update(kind, message);
        }
        Ok(i32::try_from(id).unwrap())
    }

    /// A text from `from`, or why Telegram refuses it (a restricted or
    /// banned member cannot write).
    pub fn try_send_text(&self, chat_id: i64, from: &FakeUser, text: &str) -> Result<i32, String> {
        self.try_user_message(chat_id, from, text_content(text))
    }

    /// A text posted in a group on behalf of a chat (`sender_chat`): the
    /// group itself for an anonymous administrator, or a channel the
    /// member owns. Refused once that channel is banned from the group.
    pub fn send_as_chat(
        &self,
        chat_id: i64,
        sender_chat_id: i64,
        text: &str,
    ) -> Result<i32, String> {
        let sender_chat = self.world().registered_chat(sender_chat_id);
        let from = if sender_chat_id == chat_id {
            FakeUser::new(ANONYMOUS_ADMIN_BOT, "Group").with_username("GroupAnonymousBot")
        } else {
            FakeUser::new(CHANNEL_BOT, "Channel").with_username("Channel_Bot")
        };
        let mut content = text_content(text);
        content.insert("sender_chat".to_owned(), sender_chat);
        self.try_user_message(
            chat_id,
            &FakeUser {
                is_bot: true,
                ..from
            },
            content,
        )
    }

    /// A linked channel's post forwarded automatically into its discussion
    /// group (`is_automatic_forward`).
    pub fn automatic_forward(&self, chat_id: i64, channel_id: i64, text: &str) -> i32 {
        let channel = self.world().registered_chat(channel_id);
        let date = self.world().now();
        let mut content = text_content(text);
        content.insert("sender_chat".to_owned(), channel.clone());
        content.insert("is_automatic_forward".to_owned(), json!(true));
        content.insert(
            "forward_origin".to_owned(),
            json!({"type": "channel", "date": date, "chat": channel, "message_id": 1}),
        );
        let telegram = FakeUser {
            is_bot: false,
            ..FakeUser::new(TELEGRAM_SERVICE, "Telegram")
        };
        self.user_message(chat_id, &telegram, content)
    }

    /// A text in a forum topic (`message_thread_id`).
    pub fn send_text_in_topic(&self, chat_id: i64, topic: i32, from: &FakeUser, text: &str) -> i32 {
        let mut content = text_content(text);
        content.insert("message_thread_id".to_owned(), json!(topic));
        content.insert("is_topic_message".to_owned(), json!(true));
        self.user_message(chat_id, from, content)
    }

    /// The bot is added to a group by `by` (a `my_chat_member` update with
    /// the bot's rights as set, e.g. by [`FakeTelegram::add_bot_admin`]).
    pub fn bot_added(&self, chat_id: i64, by: &FakeUser) {
        let payload = {
            let mut world = self.world();
            let chat = world.registered_chat(chat_id);
            world.users.insert(by.id, by.to_json());
            json!({
                "chat": chat,
                "from": by.to_json(),
                "date": world.now(),
                "old_chat_member": member_with_status(FakeUser::bot().to_json(), "left"),
                "new_chat_member": world.bot_member(chat_id),
            })
        };
        self.push_update("my_chat_member", payload);
    }
}
