//! One `Publisher` port for every target: Telegram (the operation's own
//! group), X (the operation's own account), the site host, and by hand.
//! Each sends the typed content the team approved, and says how it ended
//! in a typed error the outbox acts on: refused (nothing went out, or only
//! the parts recorded), lost (the request left, no answer came: it may
//! have gone out), or not built.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;
use teloxide::prelude::*;
use teloxide::types::{InputFile, InputMedia, InputMediaPhoto, InputPollOption};
use ulias_agents::publications::Content;
use ulias_core::domain::{Publication, PublicationTarget, ValidationKind};
use ulias_core::settings::{HttpSettings, XSettings};
use ulias_core::store::{Store, StoreError};

use super::edge::{MAX_CAPTION, clip, clip_to};
use super::outbox::{telegram_destination, x_destination};
use super::retry::after_429;
use super::{Common, Roles};

/// Where approved outputs go out besides Telegram: X (its settings and
/// the HTTP timeouts of its client) and the site host.
pub struct Outlets {
    pub x: XSettings,
    pub http: HttpSettings,
    /// Where approved sites go live (none wired yet).
    pub site: Option<Arc<dyn crate::site::SitePublisher>>,
}

/// What a manual publication records as its external id.
const BY_HAND: &str = "manual";

/// How a publication went out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    /// Sent: the platform's id of it (its first message or post).
    Sent(String),
    /// Sent, but Telegram refused to pin it: never sent again for that.
    SentNotPinned(String),
    /// Not yet: a posting rule put it back until its turn.
    Deferred,
}

/// Why a publication did not go out.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The platform refused it, or it cannot be sent as it is: nothing
    /// went out (a thread keeps the parts it recorded).
    #[error("{0}")]
    Refused(String),
    /// The request left and no answer came back: it may have gone out.
    #[error("{0}")]
    Lost(String),
    /// This target is not built yet: the team publishes by hand.
    #[error("{0}")]
    NotBuilt(&'static str),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<teloxide::RequestError> for PublishError {
    fn from(error: teloxide::RequestError) -> Self {
        use teloxide::RequestError::{InvalidJson, Io, Network};
        let lost = match &error {
            Network(network) => !network.is_connect() && !network.is_builder(),
            Io(_) | InvalidJson { .. } => true,
            _ => false,
        };
        if lost {
            Self::Lost(error.to_string())
        } else {
            Self::Refused(error.to_string())
        }
    }
}

impl From<crate::x::XError> for PublishError {
    fn from(error: crate::x::XError) -> Self {
        match &error {
            crate::x::XError::Http(http) if !http.is_connect() && !http.is_builder() => {
                Self::Lost(error.to_string())
            }
            _ => Self::Refused(error.to_string()),
        }
    }
}

/// Sends one approved publication.
#[async_trait]
pub trait Publisher: Send + Sync {
    async fn publish(
        &self,
        job: &Publication,
        content: &Content,
    ) -> Result<Published, PublishError>;
}

/// The publisher of a target.
pub fn publisher_for<'a>(
    common: &'a Common,
    roles: &'a Roles,
    outlets: &'a Outlets,
    target: PublicationTarget,
) -> Box<dyn Publisher + 'a> {
    match target {
        PublicationTarget::Telegram => Box::new(TelegramPublisher { common, roles }),
        PublicationTarget::X => Box::new(XPublisher { common, outlets }),
        PublicationTarget::Site => Box::new(SitePublisher(outlets.site.as_deref())),
        PublicationTarget::Manual => Box::new(ByHand),
    }
}

/// What a publication sends: the typed content its validation showed the
/// team (the very value the preview rendered).
pub async fn content_of(store: &Store, job: &Publication) -> Result<Content, PublishError> {
    let kind = match job.validation_id {
        Some(id) => store.validation(id).await?.kind,
        // A direct publication (validation off) carries its kind.
        None => job
            .payload
            .get("kind")
            .and_then(Value::as_str)
            .and_then(|kind| kind.parse().ok())
            .unwrap_or(ValidationKind::Post),
    };
    Content::of(kind, &job.payload).map_err(|e| PublishError::Refused(e.to_string()))
}

/// Telegram: the operation's own community group.
struct TelegramPublisher<'a> {
    common: &'a Common,
    roles: &'a Roles,
}

#[async_trait]
impl Publisher for TelegramPublisher<'_> {
    async fn publish(
        &self,
        job: &Publication,
        content: &Content,
    ) -> Result<Published, PublishError> {
        let common = self.common;
        let chat = telegram_destination(&common.store, self.roles, job.operation_id)
            .await
            .map_err(|e| PublishError::Refused(e.to_string()))?;
        let sent = match content {
            Content::Poll { question, options } => {
                let options: Vec<InputPollOption> =
                    options.iter().cloned().map(InputPollOption::new).collect();
                common
                    .bot
                    .send_poll(chat, question.clone(), options)
                    .await?
            }
            Content::Album { images, caption } => {
                // The caption rides on the first image, cut to Telegram's
                // 1,024 UTF-16 units.
                let images: Vec<InputMedia> = images
                    .iter()
                    .filter_map(|u| u.parse().ok())
                    .take(10)
                    .enumerate()
                    .map(|(index, url)| {
                        let photo = InputMediaPhoto::new(InputFile::url(url));
                        InputMedia::Photo(match index {
                            0 if !caption.is_empty() => {
                                photo.caption(clip_to(caption, MAX_CAPTION))
                            }
                            _ => photo,
                        })
                    })
                    .collect();
                let sent = common.bot.send_media_group(chat, images).await?;
                sent.into_iter().next().ok_or_else(|| {
                    PublishError::Refused("Telegram sent no message for the album".into())
                })?
            }
            Content::Thread { parts } => {
                return Ok(Published::Sent(
                    send_thread(common, job, chat, parts).await?,
                ));
            }
            Content::Pinned { text } => {
                let message = common.bot.send_message(chat, clip(text)).await?;
                let bot = &common.bot;
                let pinned =
                    after_429(|| async { bot.pin_chat_message(chat, message.id).await }).await;
                if let Err(error) = pinned {
                    tracing::warn!(%error, publication = %job.id, "sent but not pinned");
                    let id = format!("{}:{}", chat.0, message.id.0);
                    return Ok(Published::SentNotPinned(id));
                }
                message
            }
            other => {
                let body = other.messages().join("\n\n");
                common.bot.send_message(chat, clip(&body)).await?
            }
        };
        Ok(Published::Sent(format!("{}:{}", chat.0, sent.id.0)))
    }
}

/// A thread's parts in order, each recorded as it goes: sent again, it
/// resumes at the first part not recorded.
async fn send_thread(
    common: &Common,
    job: &Publication,
    chat: ChatId,
    parts: &[String],
) -> Result<String, PublishError> {
    let done = common.store.sent_parts(job.id).await?;
    let mut first = done.first().map(|(_, id)| id.clone());
    for (index, part) in unsent(parts, &done) {
        let message = common.bot.send_message(chat, clip(part)).await?;
        let id = format!("{}:{}", chat.0, message.id.0);
        common
            .store
            .record_sent_part(job.id, index, &id, common.clock.now())
            .await?;
        first.get_or_insert(id);
    }
    first.ok_or_else(|| PublishError::Refused("a thread needs parts".into()))
}

/// The parts of a job not recorded as sent yet, with their index: a job
/// sent again resumes at its first missing part.
fn unsent<'a>(
    parts: &'a [String],
    done: &'a [(u32, String)],
) -> impl Iterator<Item = (u32, &'a String)> + 'a {
    (0_u32..)
        .zip(parts)
        .filter(|(index, _)| !done.iter().any(|(sent, _)| sent == index))
}

/// X: the operation's own account, one post per account per
/// `x.min_post_interval_seconds` (threads excepted): a post that comes too
/// soon is put back until its turn (the wait is in the store, so it
/// survives a restart).
struct XPublisher<'a> {
    common: &'a Common,
    outlets: &'a Outlets,
}

#[async_trait]
impl Publisher for XPublisher<'_> {
    async fn publish(
        &self,
        job: &Publication,
        content: &Content,
    ) -> Result<Published, PublishError> {
        use crate::x::{TokenVault, XClient};
        let (common, outlets) = (self.common, self.outlets);
        if matches!(content, Content::Profile { .. }) {
            return Err(PublishError::NotBuilt(
                "X profile updates are not built yet: change the profile by hand",
            ));
        }
        let args = job.payload.get("args").unwrap_or(&job.payload);
        let named = job
            .account
            .as_deref()
            .or_else(|| args.get("account").and_then(Value::as_str));
        let name = x_destination(&common.store, job.operation_id, named)
            .await
            .map_err(|e| PublishError::Refused(e.to_string()))?;
        let accounts = common.store.x_accounts().await?;
        let account = accounts.iter().find(|a| a.name == name).ok_or_else(|| {
            PublishError::Refused(format!("@{name} is not connected (`ulias x connect`)"))
        })?;
        let now = common.clock.now();
        let interval = chrono::TimeDelta::seconds(i64::from(outlets.x.min_post_interval_seconds));
        if !matches!(content, Content::Thread { .. })
            && let Some(last) = common.store.last_x_post(&account.name).await?
            && now - last < interval
        {
            common
                .store
                .defer_publication(job.id, last + interval)
                .await?;
            tracing::info!(publication = %job.id, account = %account.name, "X post delayed by the one-post-per-interval rule");
            return Ok(Published::Deferred);
        }
        common
            .store
            .set_publication_account(job.id, &account.name)
            .await?;
        let vault = TokenVault::new(outlets.x.token_key.as_ref())?;
        let token = vault.open(account)?;
        let client = XClient::new(outlets.x.api_url.clone(), &outlets.http)?;
        // Each part is recorded as it goes: sent again, a thread resumes at
        // its first missing part, replying to the last one that went out.
        let done = common.store.sent_parts(job.id).await?;
        let mut first: Option<String> = done.first().map(|(_, id)| id.clone());
        let mut previous: Option<String> = done.last().map(|(_, id)| id.clone());
        for (index, part) in unsent(&content.messages(), &done) {
            let id = client.post(&token, part, previous.as_deref()).await?;
            common
                .store
                .record_sent_part(job.id, index, &id, common.clock.now())
                .await?;
            first.get_or_insert_with(|| id.clone());
            previous = Some(id);
        }
        first
            .map(Published::Sent)
            .ok_or_else(|| PublishError::Refused("nothing to post".into()))
    }
}

/// The site host, when one is wired.
struct SitePublisher<'a>(Option<&'a dyn crate::site::SitePublisher>);

#[async_trait]
impl Publisher for SitePublisher<'_> {
    async fn publish(
        &self,
        job: &Publication,
        _content: &Content,
    ) -> Result<Published, PublishError> {
        match self.0 {
            Some(site) => site
                .publish(&job.payload)
                .await
                .map(Published::Sent)
                .map_err(PublishError::Refused),
            None => Err(PublishError::NotBuilt(
                "no site host is wired yet: publish the site by hand",
            )),
        }
    }
}

/// Nothing to send: the team acts by hand (a dossier).
struct ByHand;

#[async_trait]
impl Publisher for ByHand {
    async fn publish(
        &self,
        _job: &Publication,
        _content: &Content,
    ) -> Result<Published, PublishError> {
        Ok(Published::Sent(BY_HAND.to_owned()))
    }
}
