//! Messages: sending, editing, deleting, callback answers; the text rules
//! Telegram applies.

#[allow(clippy::wildcard_imports)]
use super::*;

impl World {
    pub(super) fn send_message(&mut self, params: &Map<String, Value>) -> Answer {
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
    pub(super) fn editable(&self, params: &Map<String, Value>) -> Result<(i64, i64), Refusal> {
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
    pub(super) fn apply_edit(
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

    pub(super) fn edit_message_text(&mut self, params: &Map<String, Value>) -> Answer {
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

    pub(super) fn edit_message_caption(&mut self, params: &Map<String, Value>) -> Answer {
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

    pub(super) fn edit_message_reply_markup(&mut self, params: &Map<String, Value>) -> Answer {
        if params.contains_key("inline_message_id") {
            return Ok(json!(true));
        }
        let key = self.editable(params)?;
        self.apply_edit(key, None, params)
    }

    pub(super) fn answer_callback_query(&mut self, params: &Map<String, Value>) -> Answer {
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

    pub(super) fn delete_message(&mut self, params: &Map<String, Value>) -> Answer {
        let (chat_id, chat) = self.chat(params)?;
        let message_id = params.get("message_id").and_then(param_i64).unwrap_or(0);
        let message = self
            .messages
            .get(&(chat_id, message_id))
            .ok_or_else(|| bad("message to delete not found"))?;
        if !self.deletable(chat_id, &chat, message) {
            return Err(bad("message can't be deleted"));
        }
        self.messages.remove(&(chat_id, message_id));
        Ok(json!(true))
    }

    pub(super) fn delete_messages(&mut self, params: &Map<String, Value>) -> Answer {
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
        // Those that cannot be found or deleted are skipped; none at all is
        // an error.
        let (chat_id, chat) = self.chat(params)?;
        let deletable: Vec<i64> = ids
            .into_iter()
            .filter(|id| {
                self.messages
                    .get(&(chat_id, *id))
                    .is_some_and(|message| self.deletable(chat_id, &chat, message))
            })
            .collect();
        if deletable.is_empty() {
            return Err(bad("message can't be deleted"));
        }
        for id in deletable {
            self.messages.remove(&(chat_id, id));
        }
        Ok(json!(true))
    }
}

/// A message's text, with a `bot_command` entity for a leading `/command`.
pub(super) fn text_content(text: &str) -> Map<String, Value> {
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
pub(super) fn without_reply(mut message: Value) -> Value {
    if let Some(fields) = message.as_object_mut() {
        fields.remove("reply_to_message");
    }
    message
}

/// The inline keyboard a call attaches, if any (an empty one is none).
pub(super) fn inline_keyboard(params: &Map<String, Value>) -> Option<Value> {
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
pub(super) fn check_keyboard(params: &Map<String, Value>) -> Result<(), Refusal> {
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
pub(super) fn visible_text(params: &Map<String, Value>, field: &str) -> String {
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

pub(super) fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}
