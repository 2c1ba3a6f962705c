//! ntfy: push notifications for alerts, and decisions answered with up to 3
//! buttons (A/B/C). Each button is an `http` action that POSTs a signed
//! `decision:<id>:<letter>:<expiry>:<signature>` ([`signing`]) to a private
//! reply topic with a token that may only publish there; the bot follows
//! that topic's JSON stream, resuming with `since=<last id>` after a drop or
//! a restart, and applies each answer once (the store refuses a second
//! answer). Nothing is pushed directly: pushes are queued in the store and
//! sent by [`outbox::run`], which retries what ntfy refused.
//!
//! # Layout
//! - [`signing`]: the signed answer bodies.
//! - [`compose`]: alerts, decisions and outcomes as pushes, in the chat's
//!   language and within ntfy's size limit.
//! - [`outbox`]: the loop that sends queued pushes, with backoff.

pub mod compose;
pub mod outbox;
pub mod signing;

use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use ulias_core::domain::Urgency;
use ulias_core::settings::{HttpSettings, NtfySettings};
use ulias_core::store::PushPayload;
use url::Url;

pub use self::signing::{Refusal, Signer};

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
    #[error(transparent)]
    Key(#[from] signing::BadKey),
}

impl NtfyError {
    /// Whether sending the same push again cannot succeed: ntfy refused
    /// the request itself (400, 413), not the moment (down, 429, 5xx).
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            Self::Refused {
                status: 400 | 413,
                ..
            } | Self::Url(_)
        )
    }
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
    /// Signs and checks answers; without a key, decisions are pushed
    /// without buttons and no reply is accepted.
    signer: Option<Signer>,
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
            signer: settings
                .signing_key
                .as_ref()
                .map(|key| Signer::from_hex(key.expose_secret()))
                .transpose()?,
        }))
    }

    /// The answers' signer, when `ntfy.signing_key` is set.
    pub fn signer(&self) -> Option<&Signer> {
        self.signer.as_ref()
    }

    /// Sends a queued push to the alert topic; its buttons post their body
    /// to the reply topic with the reply token.
    pub async fn send(&self, push: &PushPayload) -> Result<(), NtfyError> {
        let reply_url = self.server.join(&self.reply_topic)?;
        let actions = push
            .actions
            .iter()
            .map(|action| {
                let mut headers = serde_json::Map::new();
                if let Some(token) = &self.reply_token {
                    headers.insert(
                        "Authorization".into(),
                        json!(format!("Bearer {}", token.expose_secret())),
                    );
                }
                json!({
                    "action": "http",
                    "label": action.label,
                    "url": reply_url.as_str(),
                    "method": "POST",
                    "body": action.body,
                    "headers": headers,
                    "clear": true,
                })
            })
            .collect();
        self.publish(&push.title, &push.message, push.urgency, actions)
            .await
    }

    /// Pushes a message to the alert topic.
    async fn publish(
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
    fn urgency_maps_to_ntfy_priorities() {
        assert_eq!(priority(Urgency::Critical), 5);
        assert_eq!(priority(Urgency::Low), 2);
    }
}
