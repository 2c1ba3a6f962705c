//! Alerts to the CEO's chat, framed by the locale.

use async_trait::async_trait;
use teloxide::prelude::*;
use ulias_agents::alerts::{Alert, AlertLevel, Alerter};

use super::TgBot;
use crate::i18n::{Texts, arg};

/// Sends every alert to the CEO's chat.
pub struct TelegramAlerter {
    bot: TgBot,
    chat: Option<i64>,
    texts: Texts,
}

impl TelegramAlerter {
    pub fn new(bot: TgBot, chat: Option<i64>, texts: Texts) -> Self {
        Self { bot, chat, texts }
    }
}

#[async_trait]
impl Alerter for TelegramAlerter {
    async fn alert(&self, alert: Alert) -> Result<(), String> {
        let Some(chat) = self.chat else {
            tracing::warn!(title = %alert.title, "no CEO chat is configured for alerts");
            return Ok(());
        };
        let key = match alert.level {
            AlertLevel::Info => "alert-info",
            AlertLevel::Warning => "alert-warning",
            AlertLevel::Critical => "alert-critical",
        };
        let text = self
            .texts
            .with(key, &[arg("title", &alert.title), arg("body", &alert.body)]);
        self.bot
            .send_message(ChatId(chat), super::edge::clip(&text))
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}
