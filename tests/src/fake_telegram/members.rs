//! Members: bans, unbans, restrictions, and the `ChatMember` objects.

#[allow(clippy::wildcard_imports)]
use super::*;

impl World {
    /// The chat and user a moderation call names; refuses private chats and
    /// the chat's admins.
    pub(super) fn moderated(
        &self,
        params: &Map<String, Value>,
    ) -> Result<(i64, Value, i64), Refusal> {
        let (chat_id, chat) = self.chat(params)?;
        let user_id = params
            .get("user_id")
            .and_then(param_i64)
            .ok_or_else(|| bad("user_id is empty"))?;
        if chat["type"] == "private" {
            return Err(bad("chat member status can't be changed in private chats"));
        }
        self.require(
            chat_id,
            Right::RestrictMembers,
            "not enough rights to restrict/unrestrict chat member",
        )?;
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

    pub(super) fn user_json(&self, user_id: i64) -> Value {
        self.users.get(&user_id).cloned().unwrap_or_else(
            || json!({"id": user_id, "is_bot": false, "first_name": format!("User {user_id}")}),
        )
    }

    pub(super) fn ban_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, _, user_id) = self.moderated(params)?;
        let until = params.get("until_date").and_then(param_i64).unwrap_or(0);
        let user = self.user_json(user_id);
        self.members.insert(
            (chat_id, user_id),
            json!({"user": user, "status": "kicked", "until_date": until}),
        );
        Ok(json!(true))
    }

    pub(super) fn unban_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
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

    pub(super) fn restrict_chat_member(&mut self, params: &Map<String, Value>) -> Answer {
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
        for flag in restricted_flags() {
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
}

pub(super) fn private_chat(user: &FakeUser) -> Value {
    let mut chat = json!({"id": user.id, "type": "private", "first_name": user.first_name});
    if let Some(username) = &user.username {
        chat["username"] = json!(username);
    }
    chat
}

pub(super) fn administrator(user: Value) -> Value {
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

/// The boolean fields of a `restricted` `ChatMember`: membership, the
/// `ChatPermissions` fields, and reactions.
pub(super) fn restricted_flags() -> impl Iterator<Item = &'static str> {
    std::iter::once("is_member")
        .chain(PERMISSION_FLAGS)
        .chain(std::iter::once("can_react_to_messages"))
}

/// A `ChatMember` with the fields its status requires.
pub(super) fn member_with_status(user: Value, status: &str) -> Value {
    let mut member = json!({"user": user, "status": status});
    match status {
        "kicked" => member["until_date"] = json!(0),
        "restricted" => {
            member["until_date"] = json!(0);
            for flag in restricted_flags() {
                member[flag] = json!(flag == "is_member");
            }
        }
        "creator" => member["is_anonymous"] = json!(false),
        "administrator" => member = administrator(member["user"].clone()),
        _ => {}
    }
    member
}
