//! Polls: sending and stopping them.

#[allow(clippy::wildcard_imports)]
use super::*;

impl World {
    pub(super) fn send_poll(&mut self, params: &Map<String, Value>) -> Answer {
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

    pub(super) fn stop_poll(&mut self, params: &Map<String, Value>) -> Answer {
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
}
