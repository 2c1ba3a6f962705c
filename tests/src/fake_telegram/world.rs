//! The world's core: time, ids, registered chats, injected failures, the update
//! queue and the method dispatch.

#[allow(clippy::wildcard_imports)]
use super::*;

/// The methods that send a message (or show the bot typing) in a chat.
const SENDS: [&str; 5] = [
    "sendmessage",
    "sendphoto",
    "sendmediagroup",
    "sendpoll",
    "sendchataction",
];

impl World {
    #[allow(clippy::disallowed_methods)] // the fake stands for Telegram's servers, which read their own clock
    pub(super) fn now(&self) -> i64 {
        self.pinned_now.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|elapsed| i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX))
                .unwrap_or(0)
        })
    }

    pub(super) fn next_serial(&mut self) -> u64 {
        self.serial += 1;
        self.serial
    }

    pub(super) fn next_message_id(&mut self, chat_id: i64) -> i64 {
        let last = self.last_message_id.entry(chat_id).or_insert(0);
        *last += 1;
        *last
    }

    pub(super) fn registered_chat(&self, chat_id: i64) -> Value {
        self.chats
            .get(&chat_id)
            .cloned()
            .unwrap_or_else(|| panic!("chat {chat_id} is not registered with the fake"))
    }

    /// Whether this call of `method` is one to leave unanswered.
    /// Whether the answer to this call of `method` is held back, and how long.
    pub(super) fn hold(&mut self, method: &str) -> Option<Held> {
        match self.held.get_mut(&method.to_ascii_lowercase()) {
            Some((left, held)) if *left > 0 => {
                *left -= 1;
                Some(*held)
            }
            _ => None,
        }
    }

    pub(super) fn injected_failure(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
    ) -> Option<Refusal> {
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
    pub(super) fn confirm(&mut self, offset: i64) {
        if offset > 0 {
            self.updates
                .retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
        } else if offset < 0 {
            let keep = usize::try_from(offset.unsigned_abs()).unwrap_or(usize::MAX);
            let drop = self.updates.len().saturating_sub(keep);
            self.updates.drain(..drop);
        }
    }

    pub(super) fn deliverable(&self, limit: usize) -> Vec<Value> {
        self.updates
            .iter()
            .filter(|update| self.allowed(update))
            .take(limit)
            .cloned()
            .collect()
    }

    pub(super) fn allowed(&self, update: &Value) -> bool {
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

    pub(super) fn chat_member(&self, chat_id: i64, user_id: i64) -> Option<Value> {
        if user_id == BOT_ID {
            return self.bot_member(chat_id);
        }
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

    pub(super) fn call(
        &mut self,
        method: &str,
        params: &Map<String, Value>,
        files: &[UploadedFile],
    ) -> Answer {
        let method = method.to_ascii_lowercase();
        if SENDS.contains(&method.as_str()) {
            self.may_send(params)?;
        }
        match method.as_str() {
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
            "sendphoto" => self.send_photo(params, files),
            "sendmediagroup" => self.send_media_group(params, files),
            "sendpoll" => self.send_poll(params),
            "stoppoll" => self.stop_poll(params),
            "deletemessage" => self.delete_message(params),
            "deletemessages" => self.delete_messages(params),
            "banchatmember" => self.ban_chat_member(params),
            "unbanchatmember" => self.unban_chat_member(params),
            "restrictchatmember" => self.restrict_chat_member(params),
            "setchatpermissions" => self.set_chat_permissions(params),
            "banchatsenderchat" => self.ban_sender_chat(params),
            "pinchatmessage" => self.pin_chat_message(params),
            "setchatphoto" => self.set_chat_photo(params, files),
            "getchat" => self.get_chat(params),
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
    pub(super) fn chat(&self, params: &Map<String, Value>) -> Result<(i64, Value), Refusal> {
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
    pub(super) fn bot_message(
        &mut self,
        chat_id: i64,
        chat: &Value,
        content: Map<String, Value>,
    ) -> Value {
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
    pub(super) fn common_content(
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
        if let Some(topic) = params.get("message_thread_id").and_then(param_i64) {
            content.insert("message_thread_id".to_owned(), json!(topic));
            content.insert("is_topic_message".to_owned(), json!(true));
        }
        Ok(content)
    }
}
