//! What Telegram lets the bot and users do: the bot's administrator rights
//! per chat, privacy mode, who may write where, the 48-hour rule on
//! deleting others' messages, and who the bot may write to.

#[allow(clippy::wildcard_imports)]
use super::*;

/// Others' messages older than this cannot be deleted.
const DELETE_WINDOW_SECONDS: i64 = 48 * 3600;
/// Telegram's reading of `until_date`: under 30 s or over 366 days from now
/// means forever.
const UNTIL_MIN_SECONDS: i64 = 30;
const UNTIL_MAX_SECONDS: i64 = 366 * 86_400;

/// An administrator right the bot may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Right {
    DeleteMessages,
    RestrictMembers,
    PinMessages,
    PostMessages,
    ChangeInfo,
}

impl Right {
    pub(super) fn flag(self) -> &'static str {
        match self {
            Self::DeleteMessages => "can_delete_messages",
            Self::RestrictMembers => "can_restrict_members",
            Self::PinMessages => "can_pin_messages",
            Self::PostMessages => "can_post_messages",
            Self::ChangeInfo => "can_change_info",
        }
    }
}

/// The fields of the Bot API's `ChatPermissions`.
pub(super) const PERMISSION_FLAGS: [&str; 14] = [
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
];

/// The permissions a new supergroup gives its members.
pub(super) fn default_permissions() -> Value {
    let mut permissions = Map::new();
    for flag in PERMISSION_FLAGS {
        let granted = !matches!(
            flag,
            "can_change_info" | "can_pin_messages" | "can_manage_topics"
        );
        permissions.insert(flag.to_owned(), json!(granted));
    }
    Value::Object(permissions)
}

fn forbidden(description: &str) -> Refusal {
    Refusal {
        code: 403,
        description: format!("Forbidden: {description}"),
        retry_after: None,
    }
}

impl World {
    /// The bot's `ChatMember` in a chat: its administrator entry, else a
    /// plain member of every registered group.
    pub(super) fn bot_member(&self, chat_id: i64) -> Option<Value> {
        if let Some(admin) = self
            .admins
            .get(&chat_id)
            .and_then(|admins| admins.iter().find(|a| a["user"]["id"] == json!(BOT_ID)))
        {
            return Some(admin.clone());
        }
        let chat = self.chats.get(&chat_id)?;
        (chat["type"] != "private").then(|| member_with_status(FakeUser::bot().to_json(), "member"))
    }

    /// Whether the bot is an administrator of the chat.
    pub(super) fn bot_is_admin(&self, chat_id: i64) -> bool {
        self.bot_member(chat_id)
            .is_some_and(|m| m["status"] == "administrator" || m["status"] == "creator")
    }

    /// Whether the bot holds `right` in the chat (an owner holds them all).
    pub(super) fn bot_may(&self, chat_id: i64, right: Right) -> bool {
        self.bot_member(chat_id).is_some_and(|member| {
            member["status"] == "creator"
                || (member["status"] == "administrator" && member[right.flag()] == json!(true))
        })
    }

    /// Refuses a moderation call the bot has no right to make.
    pub(super) fn require(&self, chat_id: i64, right: Right, description: &str) -> Answer {
        if self.bot_may(chat_id, right) {
            Ok(json!(true))
        } else {
            Err(bad(description))
        }
    }

    /// Refuses a message the bot may not send: to a user who never started
    /// it, or to a channel where it cannot post.
    pub(super) fn may_send(&self, params: &Map<String, Value>) -> Answer {
        let raw = params.get("chat_id").and_then(param_i64);
        if let Some(user) = raw.filter(|id| *id > 0)
            && !self.chats.contains_key(&user)
            && self.users.contains_key(&user)
        {
            return Err(forbidden("bot can't initiate conversation with a user"));
        }
        let (chat_id, chat) = self.chat(params)?;
        if chat["type"] == "channel" && !self.bot_may(chat_id, Right::PostMessages) {
            return Err(bad("need administrator rights in the channel chat"));
        }
        Ok(json!(true))
    }

    /// Whether the bot may delete `message` in `chat`: its own always,
    /// others' with the right and within 48 hours (any in a private chat).
    pub(super) fn deletable(&self, chat_id: i64, chat: &Value, message: &Value) -> bool {
        if chat["type"] == "private" {
            return true;
        }
        let own = message["from"]["id"] == json!(BOT_ID)
            || (chat["type"] == "channel" && message["sender_chat"]["id"] == json!(chat_id));
        if own {
            return chat["type"] != "channel" || self.bot_may(chat_id, Right::PostMessages);
        }
        let age = self.now() - message["date"].as_i64().unwrap_or(0);
        self.bot_may(chat_id, Right::DeleteMessages) && age < DELETE_WINDOW_SECONDS
    }

    /// Why a user may not write in a group now, if they may not.
    pub(super) fn refuses_writer(&self, chat_id: i64, from: &FakeUser) -> Option<String> {
        let member = self.members.get(&(chat_id, from.id))?;
        match member["status"].as_str() {
            Some("kicked") => Some(format!("user {} is banned from chat {chat_id}", from.id)),
            Some("restricted")
                if member["can_send_messages"] == json!(false)
                    && self.restriction_lasts(member) =>
            {
                Some(format!(
                    "user {} is restricted in chat {chat_id}: they cannot send messages",
                    from.id
                ))
            }
            _ => None,
        }
    }

    /// Whether a restriction still holds (`until_date` as Telegram reads it).
    fn restriction_lasts(&self, member: &Value) -> bool {
        let until = member["until_date"].as_i64().unwrap_or(0);
        let ahead = until - self.now();
        let forever = until == 0 || !(UNTIL_MIN_SECONDS..=UNTIL_MAX_SECONDS).contains(&ahead);
        forever || ahead > 0
    }

    /// Whether the bot receives a user's message in a group: with privacy
    /// mode on, a bot that is not an administrator receives only commands,
    /// messages that mention it, replies to it and service messages.
    pub(super) fn bot_receives(&self, chat_id: i64, chat: &Value, message: &Value) -> bool {
        let group = chat["type"] == "group" || chat["type"] == "supergroup";
        if !group || !self.privacy || self.bot_is_admin(chat_id) {
            return true;
        }
        let Some(text) = message["text"].as_str().or(message["caption"].as_str()) else {
            // Service messages (joins, leaves, pins) reach every bot.
            return message.get("photo").is_none();
        };
        text.starts_with('/')
            || text.contains(&format!("@{BOT_USERNAME}"))
            || message["reply_to_message"]["from"]["id"] == json!(BOT_ID)
    }

    /// `getChat`: the chat's full information (`ChatFullInfo`), with its
    /// default permissions in a group.
    pub(super) fn get_chat(&self, params: &Map<String, Value>) -> Answer {
        let (chat_id, mut chat) = self.chat(params)?;
        chat["accent_color_id"] = json!(0);
        chat["max_reaction_count"] = json!(11);
        chat["accepted_gift_types"] = json!({
            "unlimited_gifts": false, "limited_gifts": false,
            "unique_gifts": false, "premium_subscription": false,
        });
        if chat["type"] == "group" || chat["type"] == "supergroup" {
            chat["permissions"] = self
                .permissions
                .get(&chat_id)
                .cloned()
                .unwrap_or_else(default_permissions);
        }
        Ok(chat)
    }

    /// `setChatPermissions`: the group's new defaults.
    pub(super) fn set_chat_permissions(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        if chat["type"] == "private" || chat["type"] == "channel" {
            return Err(bad("method is available only for supergroups and channel"));
        }
        self.require(
            chat_id,
            Right::RestrictMembers,
            "not enough rights to change chat permissions",
        )?;
        let given = params
            .get("permissions")
            .and_then(Value::as_object)
            .ok_or_else(|| bad("can't parse chat permissions"))?;
        let mut permissions = Map::new();
        for flag in PERMISSION_FLAGS {
            let granted = given.get(flag).and_then(Value::as_bool).unwrap_or(false);
            permissions.insert(flag.to_owned(), json!(granted));
        }
        self.permissions.insert(chat_id, Value::Object(permissions));
        Ok(json!(true))
    }

    /// `banChatSenderChat`: the channel may no longer post in the group.
    pub(super) fn ban_sender_chat(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        if chat["type"] == "private" {
            return Err(bad("method is available only for supergroups and channel"));
        }
        self.require(
            chat_id,
            Right::RestrictMembers,
            "not enough rights to restrict/unrestrict chat member",
        )?;
        let sender = params
            .get("sender_chat_id")
            .and_then(param_i64)
            .ok_or_else(|| bad("sender_chat_id is empty"))?;
        self.banned_senders.insert((chat_id, sender));
        Ok(json!(true))
    }

    /// `pinChatMessage`: needs the right in a group or channel.
    pub(super) fn pin_chat_message(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        if chat["type"] != "private" {
            let right = if chat["type"] == "channel" {
                Right::PostMessages
            } else {
                Right::PinMessages
            };
            self.require(
                chat_id,
                right,
                "not enough rights to manage pinned messages in the chat",
            )?;
        }
        let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
        if !self.messages.contains_key(&(chat_id, message_id)) {
            return Err(bad("message to pin not found"));
        }
        Ok(json!(true))
    }
}

impl FakeTelegram {
    /// Makes the bot an administrator of a chat holding only `rights`.
    pub fn add_bot_admin(&self, chat_id: i64, rights: &[Right]) {
        let mut admin = administrator(FakeUser::bot().to_json());
        for flag in [
            "can_delete_messages",
            "can_restrict_members",
            "can_pin_messages",
            "can_change_info",
            "can_invite_users",
            "can_manage_video_chats",
        ] {
            admin[flag] = json!(false);
        }
        for right in rights {
            admin[right.flag()] = json!(true);
        }
        self.add_privileged(chat_id, &FakeUser::bot(), admin);
    }

    /// Makes the bot an administrator of a group with every moderation
    /// right, or of a channel with the right to post.
    pub fn add_bot_moderator(&self, chat_id: i64) {
        self.add_bot_admin(
            chat_id,
            &[
                Right::DeleteMessages,
                Right::RestrictMembers,
                Right::PinMessages,
                Right::PostMessages,
            ],
        );
    }

    /// Turns the bot's privacy mode on or off (on by default, as BotFather
    /// sets it).
    pub fn set_privacy(&self, on: bool) {
        self.world().privacy = on;
    }

    /// Makes a user known to Telegram (in a group, say) without them ever
    /// having started the bot: the bot cannot write to them first.
    pub fn add_unstarted_user(&self, user: &FakeUser) {
        self.world().users.insert(user.id, user.to_json());
    }

    /// The user never started the bot (or deleted the chat with it): the
    /// bot can no longer write to them first.
    pub fn never_started(&self, user_id: i64) {
        self.world().chats.remove(&user_id);
    }

    /// A group's default member permissions, as `getChat` gives them.
    pub fn chat_permissions(&self, chat_id: i64) -> Value {
        self.world()
            .permissions
            .get(&chat_id)
            .cloned()
            .unwrap_or_else(default_permissions)
    }

    /// Sets a group's default member permissions (as its owner would).
    pub fn set_chat_permissions(&self, chat_id: i64, permissions: Value) {
        self.world().permissions.insert(chat_id, permissions);
    }

    /// Whether a channel was banned from posting in a group.
    pub fn sender_chat_banned(&self, chat_id: i64, sender_chat_id: i64) -> bool {
        self.world()
            .banned_senders
            .contains(&(chat_id, sender_chat_id))
    }
}
