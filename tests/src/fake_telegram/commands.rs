//! The bot's identity (`getMe`) and its command lists.

#[allow(clippy::wildcard_imports)]
use super::*;

impl World {
    pub(super) fn set_my_commands(&mut self, params: &Map<String, Value>) -> Answer {
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

pub(super) fn me() -> Value {
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

pub(super) fn commands_key(params: &Map<String, Value>) -> (String, String) {
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
