//! ntfy: push notifications for alerts, and decisions answered with up to 3
//! buttons (A/B/C). Each button is an `http` action that POSTs
//! `decision:<id>:<letter>` to a private reply topic with a token that may
//! only publish there; the bot follows that topic's JSON stream, resuming
//! with `since=<last id>` after a drop or a restart, and applies each
//! answer once (the store refuses a second answer).

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use ulias_core::domain::{Decision, Urgency};
use ulias_core::settings::{HttpSettings, NtfySettings};
use url::Url;

/// The letters of a decision's buttons.
pub const LETTERS: [char; 3] = ['A', 'B', 'C'];

/// Why ntfy could not be reached.
#[derive(Debug, thiserror::Error)]
pub enum NtfyError {
    #[error("ntfy request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("ntfy answered {status}: {body}")]
    Refused { status: u16, body: String },
    #[error("bad ntfy URL: {0}")]
    Url(#[from] url::ParseError),
}

/// A client of one ntfy server.
#[derive(Clone)]
pub struct Ntfy {
    http: reqwest::Client,
    server: Url,
    topic: String,
    reply_topic: String,
    token: Option<SecretString>,
    reply_token: Option<SecretString>,
}

/// One event of a topic's JSON stream.
#[derive(Debug, Clone, Deserialize)]
pub struct StreamEvent {
    pub id: String,
    pub event: String,
    #[serde(default)]
    pub message: Option<String>,
}

/// A decision answered from a phone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub decision: i64,
    pub option: usize,
}

impl Ntfy {
    /// The client, when ntfy is configured.
    pub fn from_settings(
        settings: &NtfySettings,
        http: &HttpSettings,
    ) -> Result<Option<Self>, NtfyError> {
        if !settings.enabled() {
            return Ok(None);
        }
        Ok(Some(Self {
            http: crate::http::client(http)?,
            server: settings.server.clone(),
            topic: settings.topic.clone(),
            reply_topic: settings.reply_topic.clone(),
            token: settings.token.clone(),
            reply_token: settings.reply_token.clone(),
        }))
    }

    /// Pushes a message to the alert topic.
    pub async fn publish(
        &self,
        title: &str,
        message: &str,
        urgency: Urgency,
        actions: Vec<Value>,
    ) -> Result<(), NtfyError> {
        let body = json!({
            "topic": self.topic,
            "title": title,
            "message": message,
            "priority": priority(urgency),
            "tags": [tag(urgency)],
            "actions": actions,
        });
        let mut request = self.http.post(self.server.clone()).json(&body);
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose_secret());
        }
        let response = request.send().await?;
        if !response.status().is_success() {
            return Err(NtfyError::Refused {
                status: response.status().as_u16(),
                body: response.text().await.unwrap_or_default(),
            });
        }
        Ok(())
    }

    /// A decision as a push with one button per option (at most 3: A, B, C).
    pub async fn publish_decision(
        &self,
        decision: &Decision,
        labels: &[String],
        text: &str,
    ) -> Result<(), NtfyError> {
        let reply_url = self.server.join(&self.reply_topic)?;
        let actions = labels
            .iter()
            .zip(LETTERS)
            .map(|(option, letter)| {
                let mut headers = serde_json::Map::new();
                if let Some(token) = &self.reply_token {
                    headers.insert(
                        "Authorization".into(),
                        json!(format!("Bearer {}", token.expose_secret())),
                    );
                }
                json!({
                    "action": "http",
                    "label": format!("{letter}: {option}"),
                    "url": reply_url.as_str(),
                    "method": "POST",
                    "body": format!("decision:{}:{letter}", decision.id),
                    "headers": headers,
                    "clear": true,
                })
            })
            .collect();
        self.publish(
            &format!("Decision #{}", decision.id),
            text,
            decision.urgency,
            actions,
        )
        .await
    }

    /// Pushes a message in the background: whoever pushes never waits on
    /// ntfy (a failure is logged).
    pub fn push(&self, title: String, message: String, urgency: Urgency) {
        let ntfy = self.clone();
        tokio::spawn(async move {
            if let Err(error) = ntfy.publish(&title, &message, urgency, Vec::new()).await {
                tracing::warn!(%error, %title, "could not push by ntfy");
            }
        });
    }

    /// Pushes a decision with its A/B/C actions in the background.
    pub fn push_decision(&self, decision: Decision, labels: Vec<String>, text: String) {
        let ntfy = self.clone();
        tokio::spawn(async move {
            if let Err(error) = ntfy.publish_decision(&decision, &labels, &text).await {
                tracing::warn!(%error, decision = %decision.id, "could not push the decision by ntfy");
            }
        });
    }

    /// Opens the reply topic's JSON stream from after `since` (an event id),
    /// or from now.
    pub async fn subscribe(&self, since: Option<&str>) -> Result<reqwest::Response, NtfyError> {
        let mut url = self.server.join(&format!("{}/json", self.reply_topic))?;
        if let Some(since) = since {
            url.query_pairs_mut().append_pair("since", since);
        }
        let mut request = self.http.get(url).timeout(Duration::from_secs(24 * 3600));
        if let Some(token) = &self.token {
            request = request.bearer_auth(token.expose_secret());
        }
        let response = request.send().await?;
        if !response.status().is_success() {
            return Err(NtfyError::Refused {
                status: response.status().as_u16(),
                body: response.text().await.unwrap_or_default(),
            });
        }
        Ok(response)
    }
}

/// Reads the answer a reply carries (`decision:42:B`), if it is one.
pub fn parse_answer(message: &str) -> Option<Answer> {
    let mut parts = message.trim().split(':');
    if parts.next()? != "decision" {
        return None;
    }
    let decision = parts.next()?.parse().ok()?;
    let letter = parts.next()?.chars().next()?;
    let option = LETTERS
        .iter()
        .position(|l| *l == letter.to_ascii_uppercase())?;
    parts
        .next()
        .is_none()
        .then_some(Answer { decision, option })
}

/// ntfy's priority (1–5) for an urgency.
fn priority(urgency: Urgency) -> u8 {
    match urgency {
        Urgency::Low => 2,
        Urgency::Normal => 3,
        Urgency::High => 4,
        Urgency::Critical => 5,
    }
}

fn tag(urgency: Urgency) -> &'static str {
    match urgency {
        Urgency::Low | Urgency::Normal => "information_source",
        Urgency::High => "warning",
        Urgency::Critical => "rotating_light",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_from_its_body_and_anything_else_is_not() {
        assert_eq!(
            parse_answer("decision:42:B"),
            Some(Answer {
                decision: 42,
                option: 1
            })
        );
        assert_eq!(
            parse_answer(" decision:7:a\n"),
            Some(Answer {
                decision: 7,
                option: 0
            })
        );
        assert_eq!(parse_answer("decision:7:D"), None);
        assert_eq!(parse_answer("decision:x:A"), None);
        assert_eq!(parse_answer("hello"), None);
        assert_eq!(parse_answer("decision:1:A:extra"), None);
    }

    #[test]
    fn urgency_maps_to_ntfy_priorities() {
        assert_eq!(priority(Urgency::Critical), 5);
        assert_eq!(priority(Urgency::Low), 2);
    }
}
