//! Telegram's types turned into ours at the edge: the handlers see who
//! wrote what where, nothing more.

use teloxide::types::{CallbackQuery, Message, MessageId};

/// A text message someone sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Incoming {
    pub chat_id: i64,
    pub private: bool,
    pub message_id: i32,
    pub user_id: i64,
    pub user_name: String,
    pub text: String,
    /// The message this one answers, if any.
    pub reply_to: Option<i32>,
    /// Forwarded from someone else: words to look at, not an instruction.
    pub forwarded: bool,
    /// The text of the forwarded message this one replies to, if it does.
    pub replied_forward: Option<String>,
}

impl Incoming {
    /// A text message from a person; `None` for anything else.
    pub fn from_message(message: &Message) -> Option<Self> {
        let user = message.from.as_ref()?;
        let text = message.text()?.to_owned();
        Some(Self {
            chat_id: message.chat.id.0,
            private: message.chat.is_private(),
            message_id: message.id.0,
            user_id: i64::try_from(user.id.0).ok()?,
            user_name: user
                .username
                .clone()
                .unwrap_or_else(|| user.first_name.clone()),
            text,
            reply_to: message.reply_to_message().map(|m| m.id.0),
            forwarded: message.forward_origin().is_some(),
            replied_forward: message
                .reply_to_message()
                .filter(|m| m.forward_origin().is_some())
                .and_then(|m| m.text())
                .map(str::to_owned),
        })
    }
}

/// A button someone pressed.
#[derive(Debug, Clone, PartialEq)]
pub struct Press {
    pub query_id: String,
    pub user_id: i64,
    pub user_name: String,
    pub data: String,
    /// Where the button's message is.
    pub message: Option<(i64, MessageId)>,
}

impl Press {
    pub fn from_query(query: &CallbackQuery) -> Option<Self> {
        Some(Self {
            query_id: query.id.0.clone(),
            user_id: i64::try_from(query.from.id.0).ok()?,
            user_name: query
                .from
                .username
                .clone()
                .unwrap_or_else(|| query.from.first_name.clone()),
            data: query.data.clone()?,
            message: query.message.as_ref().map(|m| (m.chat().id.0, m.id())),
        })
    }
}

/// The longest text Telegram accepts in one message, in UTF-16 code units
/// (how Telegram counts: an emoji outside the BMP counts two).
pub const MAX_TEXT: usize = 4096;
/// The longest caption, in UTF-16 code units.
pub const MAX_CAPTION: usize = 1024;

/// `text` cut to what Telegram accepts in a message, with an ellipsis
/// when cut.
pub fn clip(text: &str) -> String {
    clip_to(text, MAX_TEXT)
}

/// `text` cut to `limit` UTF-16 code units, with an ellipsis when cut (a
/// character is never split).
pub fn clip_to(text: &str, limit: usize) -> String {
    if text.encode_utf16().count() <= limit {
        return text.to_owned();
    }
    let mut clipped = String::new();
    let mut used = 0;
    for c in text.chars() {
        // Keep room for the ellipsis (one unit).
        if used + c.len_utf16() > limit - 1 {
            break;
        }
        used += c.len_utf16();
        clipped.push(c);
    }
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_of_emoji_is_clipped_by_utf16_length_as_telegram_counts() {
        let emoji = "🚀".repeat(3000); // 3,000 characters, 6,000 UTF-16 units

        let clipped = clip(&emoji);

        assert_eq!(clipped.encode_utf16().count(), MAX_TEXT - 1);
        assert!(clipped.ends_with('…'));
        assert_eq!(clip("short"), "short");
        assert_eq!(clip_to("ab🚀", 3), "ab…");
    }
}
