//! Alerts to the CEO's chat, framed by the locale.

use async_trait::async_trait;
use teloxide::prelude::*;
use ulias_agents::alerts::{Alert, AlertLevel, Alerter};
use ulias_core::domain::Urgency;

use super::TgBot;
use crate::i18n::{Texts, arg};
use crate::ntfy::Ntfy;

/// Sends every alert to the CEO's chat, and pushes it by ntfy when set.
pub struct TelegramAlerter {
    bot: TgBot,
    chat: Option<i64>,
    texts: Texts,
    ntfy: Option<Ntfy>,
}

impl TelegramAlerter {
    pub fn new(bot: TgBot, chat: Option<i64>, texts: Texts, ntfy: Option<Ntfy>) -> Self {
        Self {
            bot,
            chat,
            texts,
            ntfy,
        }
    }
}

#[async_trait]
impl Alerter for TelegramAlerter {
    async fn alert(&self, alert: Alert) -> Result<(), String> {
        if let Some(ntfy) = &self.ntfy {
            let urgency = match alert.level {
                AlertLevel::Info => Urgency::Normal,
                AlertLevel::Warning => Urgency::High,
                AlertLevel::Critical => Urgency::Critical,
            };
            if let Err(error) = ntfy
                .publish(&alert.title, &alert.body, urgency, Vec::new())
                .await
            {
                tracing::warn!(%error, "could not push the alert by ntfy");
            }
        }
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
