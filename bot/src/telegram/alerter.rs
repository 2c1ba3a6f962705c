//! Alerts to the CEO's chat, framed by the locale.

use async_trait::async_trait;
use teloxide::prelude::*;
use ulias_agents::alerts::{Alert, AlertLevel, Alerter};
use ulias_core::clock::SharedClock;
use ulias_core::domain::Urgency;
use ulias_core::store::Store;

use super::TgBot;
use crate::i18n::{Arg, Texts, arg};

/// Sends every alert to the CEO's chat, and queues it for ntfy when set.
pub struct TelegramAlerter {
    bot: TgBot,
    chat: Option<i64>,
    texts: Texts,
    /// Where pushes are queued for the ntfy outbox, when ntfy is on.
    pushes: Option<(Store, SharedClock)>,
}

impl TelegramAlerter {
    pub fn new(
        bot: TgBot,
        chat: Option<i64>,
        texts: Texts,
        pushes: Option<(Store, SharedClock)>,
    ) -> Self {
        Self {
            bot,
            chat,
            texts,
            pushes,
        }
    }
}

/// An alert's title and body in `texts`' language (`{key}-title`, `{key}-body`).
pub fn render(texts: &Texts, alert: &Alert) -> (String, String) {
    let args: Vec<Arg<'_>> = alert
        .args
        .iter()
        .map(|(name, value)| arg(name, value))
        .collect();
    (
        texts.with(&format!("{}-title", alert.key), &args),
        texts.with(&format!("{}-body", alert.key), &args),
    )
}

#[async_trait]
impl Alerter for TelegramAlerter {
    async fn alert(&self, alert: Alert) -> Result<(), String> {
        if let Some((store, clock)) = &self.pushes {
            let urgency = match alert.level {
                AlertLevel::Info => Urgency::Normal,
                AlertLevel::Warning => Urgency::High,
                AlertLevel::Critical => Urgency::Critical,
            };
            let (title, body) = render(&self.texts, &alert);
            // Queued, for the outbox: the chat never waits on ntfy, and a
            // chat that fails never skips the push.
            let push = crate::ntfy::compose::alert(&self.texts, &title, &body, urgency);
            if let Err(error) = store.queue_push(&push, clock.now()).await {
                tracing::warn!(%error, %title, "could not queue an alert for ntfy");
            }
        }
        let Some(chat) = self.chat else {
            tracing::warn!(%alert, "no CEO chat is configured for alerts");
            return Ok(());
        };
        let key = match alert.level {
            AlertLevel::Info => "alert-info",
            AlertLevel::Warning => "alert-warning",
            AlertLevel::Critical => "alert-critical",
        };
        let (title, body) = render(&self.texts, &alert);
        let text = self
            .texts
            .with(key, &[arg("title", title), arg("body", body)]);
        self.bot
            .send_message(ChatId(chat), super::edge::clip(&text))
            .await
            .map(|_| ())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use ulias_agents::alerts::keys;
    use ulias_core::settings::Locale;

    use super::*;

    #[test]
    fn an_alert_is_rendered_in_the_team_language() {
        let alert = Alert::new(AlertLevel::Info, keys::OBJECTIVE_FINISHED)
            .with("id", 4)
            .with("status", "completed")
            .with("title", "Check the backups")
            .with("completed", 3)
            .with("total", 3);
        assert_eq!(
            render(&Texts::new(Locale::Fr), &alert),
            (
                "Objectif #4 terminé : Check the backups".to_owned(),
                "3/3 tâches terminées".to_owned()
            )
        );
        assert_eq!(
            render(&Texts::new(Locale::En), &alert).0,
            "Objective #4 completed: Check the backups"
        );
    }
}
