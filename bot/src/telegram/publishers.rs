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
use teloxide::types::InputPollOption;
use ulias_agents::publications::{Content, Profile};
use ulias_core::domain::{PollPlatform, Publication, PublicationTarget, ValidationKind};
use ulias_core::settings::{HttpSettings, XSettings};
use ulias_core::store::{NewPoll, Store, StoreError};

use super::album;
use super::edge::clip;
use super::outbox::{telegram_destination, x_destination};
use super::retry::after_429;
use super::{Common, Roles};

/// Where approved outputs go out besides Telegram: X (its settings and
/// the HTTP timeouts of its client) and the site host.
pub struct Outlets {
    pub x: XSettings,
    pub http: HttpSettings,
    /// Where approved sites are read from and go live.
    pub site: SiteOutlet,
    /// Where made files are kept (`data_dir`): released utilities go there.
    pub data_dir: std::path::PathBuf,
}

/// Sites: the folder their bundles are in, how projects are named, and
/// the host (none without `[cloudflare]`).
pub struct SiteOutlet {
    pub data_dir: std::path::PathBuf,
    pub project_prefix: String,
    pub host: Option<Arc<dyn crate::site::SitePublisher>>,
    /// The public API the live widgets read (`[public_api].public_url`),
    /// for a build made here (a released page rebuilds the site).
    pub api: Option<String>,
}

/// What a manual publication records as its external id.
const BY_HAND: &str = "manual";

/// How a publication went out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    /// Sent: the platform's id of it (its first message or post).
    Sent(String),
    /// Sent, with something the team must do by hand (the locale key that
    /// says what: a pin Telegram refused, X's "automated" label); never
    /// sent again for that.
    SentWithNotice(String, &'static str),
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
        PublicationTarget::Telegram => Box::new(TelegramPublisher {
            common,
            roles,
            data_dir: &outlets.data_dir,
            site: &outlets.site,
        }),
        PublicationTarget::X => Box::new(XPublisher {
            common,
            roles,
            outlets,
        }),
        PublicationTarget::Site => Box::new(SiteOut {
            common,
            outlet: &outlets.site,
        }),
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

/// Notes a poll the platform accepted, so its votes can be counted.
async fn record_poll(
    common: &Common,
    job: &Publication,
    platform: PollPlatform,
    external_id: &str,
) -> Result<(), PublishError> {
    let Content::Poll { question, options } = content_of(&common.store, job).await? else {
        return Ok(());
    };
    let poll = NewPoll {
        operation_id: job.operation_id,
        publication_id: job.id,
        platform,
        external_id: external_id.to_owned(),
        question,
        options,
    };
    common.store.record_poll(&poll, common.clock.now()).await?;
    Ok(())
}

/// An image of the operation's kit: its bytes and type. An asset of
/// another operation is refused (an output cannot post someone else's).
async fn asset_bytes(
    store: &Store,
    job: &Publication,
    asset: i64,
) -> Result<(Vec<u8>, String), PublishError> {
    let file = store.asset_file(asset).await?;
    if file.operation_id.is_some() && file.operation_id != job.operation_id {
        return Err(PublishError::Refused(format!(
            "asset #{asset} belongs to another operation"
        )));
    }
    let bytes = tokio::fs::read(&file.path).await.map_err(|e| {
        PublishError::Refused(format!(
            "asset #{asset} ({}) cannot be read: {e}",
            file.path
        ))
    })?;
    Ok((bytes, file.mime))
}

/// Telegram: the operation's own community group.
struct TelegramPublisher<'a> {
    common: &'a Common,
    roles: &'a Roles,
    /// Where an approved utility is released.
    data_dir: &'a std::path::Path,
    /// The site a released page joins.
    site: &'a SiteOutlet,
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
                let choices: Vec<InputPollOption> =
                    options.iter().cloned().map(InputPollOption::new).collect();
                let sent = common
                    .bot
                    .send_poll(chat, question.clone(), choices)
                    .await?;
                // Its votes come back as `poll` updates, by this id.
                if let Some(poll) = sent.poll() {
                    record_poll(common, job, PollPlatform::Telegram, &poll.id.0).await?;
                }
                sent
            }
            Content::Album {
                images,
                caption,
                assets,
            } => {
                let id = send_album(common, job, chat, images, assets, caption).await?;
                return Ok(match set_group_photo(common, job, chat, assets).await? {
                    true => Published::Sent(id),
                    false => Published::SentWithNotice(id, "publication-group-photo-not-set"),
                });
            }
            Content::Thread { parts } => {
                return Ok(Published::Sent(
                    send_thread(common, job, chat, parts).await?,
                ));
            }
            Content::Utility { template, config } => {
                let release = super::utilities::Release {
                    data_dir: self.data_dir,
                    site: self.site,
                    chat,
                };
                return release.publish(common, job, template, config).await;
            }
            Content::Pinned { text } => {
                let message = common.bot.send_message(chat, clip(text)).await?;
                let bot = &common.bot;
                let pinned =
                    after_429(|| async { bot.pin_chat_message(chat, message.id).await }).await;
                if let Err(error) = pinned {
                    tracing::warn!(%error, publication = %job.id, "sent but not pinned");
                    let id = format!("{}:{}", chat.0, message.id.0);
                    return Ok(Published::SentWithNotice(id, "publication-not-pinned"));
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

/// An album in groups of 2–10 (the kit has more images than one group
/// holds), each group recorded as it goes: sent again, it resumes at the
/// first group not recorded.
async fn send_album(
    common: &Common,
    job: &Publication,
    chat: ChatId,
    urls: &[String],
    assets: &[i64],
    caption: &str,
) -> Result<String, PublishError> {
    let items = album::items(&common.store, job.operation_id, urls, assets)
        .await
        .map_err(|e| PublishError::Refused(e.to_string()))?;
    let done = common.store.sent_parts(job.id).await?;
    let mut first = done.first().map(|(_, id)| id.clone());
    let groups = album::groups(items.len());
    let ranges: Vec<String> = groups.iter().map(|_| String::new()).collect();
    for (index, _) in unsent(&ranges, &done) {
        let Some(range) = groups.get(index as usize) else {
            continue;
        };
        let caption = (index == 0).then_some(caption);
        let sent = album::send_group(&common.bot, chat, &items[range.clone()], caption).await?;
        let message = sent.first().ok_or_else(|| {
            PublishError::Refused("Telegram sent no message for the album".into())
        })?;
        let id = format!("{}:{}", chat.0, message.id.0);
        common
            .store
            .record_sent_part(job.id, index, &id, common.clock.now())
            .await?;
        first.get_or_insert(id);
    }
    first.ok_or_else(|| PublishError::Refused("an album needs images".into()))
}

/// The kit's group photo (an asset of kind `group_photo`) set as the
/// operation's group's photo once its album is out; false when Telegram
/// refused (the bot may not change the group's info): the team is told.
async fn set_group_photo(
    common: &Common,
    job: &Publication,
    chat: ChatId,
    assets: &[i64],
) -> Result<bool, PublishError> {
    if job.operation_id.is_none() {
        return Ok(true);
    }
    for &id in assets {
        let file = common.store.asset_file(id).await?;
        if file.kind != ulias_agents::brand::Template::GroupPhoto.kind() {
            continue;
        }
        let photo = teloxide::types::InputFile::file(std::path::PathBuf::from(&file.path));
        if let Err(error) = common.bot.set_chat_photo(chat, photo).await {
            tracing::warn!(%error, publication = %job.id, "the group photo was not set");
            return Ok(false);
        }
        return Ok(true);
    }
    Ok(true)
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
/// `x.min_post_interval_seconds` (threads and profile updates excepted): a
/// post that comes too soon is put back until its turn (the wait is in the
/// store, so it survives a restart). Its token is refreshed shortly before
/// it expires; while the account is paused (a refused refresh) its posts
/// wait too, none is dropped.
struct XPublisher<'a> {
    common: &'a Common,
    roles: &'a Roles,
    outlets: &'a Outlets,
}

/// How long a post waits while its account cannot post.
const X_PAUSED_WAIT: chrono::TimeDelta = chrono::TimeDelta::minutes(15);

#[async_trait]
impl Publisher for XPublisher<'_> {
    async fn publish(
        &self,
        job: &Publication,
        content: &Content,
    ) -> Result<Published, PublishError> {
        use crate::x::{TokenVault, Tokens, XClient};
        let (common, outlets) = (self.common, self.outlets);
        let account = self.account(job).await?;
        let now = common.clock.now();
        let interval = chrono::TimeDelta::seconds(i64::from(outlets.x.min_post_interval_seconds));
        if content.is_post()
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
        let client = XClient::new(outlets.x.api_url.clone(), &outlets.http)?;
        let tokens = Tokens {
            store: &common.store,
            vault: &vault,
            client: &client,
            settings: &outlets.x,
        };
        let token = match tokens.fresh(&account, now).await {
            Ok(token) => token,
            Err(error) => return self.wait_for_token(job, error).await,
        };
        let sender = XSender {
            common,
            client: &client,
            token: &token,
            job,
        };
        match content {
            Content::Profile(profile) => sender.profile(&account.name, profile).await,
            other => sender.posts(other).await,
        }
    }
}

impl XPublisher<'_> {
    /// The account the job goes out from, connected.
    async fn account(
        &self,
        job: &Publication,
    ) -> Result<ulias_core::store::XAccount, PublishError> {
        let store = &self.common.store;
        let args = job.payload.get("args").unwrap_or(&job.payload);
        let named = job
            .account
            .as_deref()
            .or_else(|| args.get("account").and_then(Value::as_str));
        let name = x_destination(store, job.operation_id, named)
            .await
            .map_err(|e| PublishError::Refused(e.to_string()))?;
        store.x_account(&name).await?.ok_or_else(|| {
            PublishError::Refused(format!("@{name} is not connected (`ulias x connect`)"))
        })
    }

    /// No usable token: the job waits (nothing is lost), and a refresh X
    /// refused is told to the team once.
    async fn wait_for_token(
        &self,
        job: &Publication,
        error: crate::x::TokenError,
    ) -> Result<Published, PublishError> {
        use crate::x::TokenError;
        let common = self.common;
        if let TokenError::X(_) | TokenError::Store(_) = &error {
            return Err(PublishError::Refused(error.to_string()));
        }
        // Kept first, told after: when the team reads the alert, the post
        // already waits.
        tracing::info!(publication = %job.id, %error, "X post waits for a usable token");
        common
            .store
            .defer_publication(job.id, common.clock.now() + X_PAUSED_WAIT)
            .await?;
        if let TokenError::RefreshRefused {
            account,
            reason,
            newly: true,
        } = &error
        {
            super::x_watch::tell_refresh_failed(common, self.roles, account, reason).await;
        }
        Ok(Published::Deferred)
    }
}

/// One job's requests to X, with the account's token.
struct XSender<'a> {
    common: &'a Common,
    client: &'a crate::x::XClient,
    token: &'a secrecy::SecretString,
    job: &'a Publication,
}

impl XSender<'_> {
    /// Posts (a thread's parts in order, each replying to the one before,
    /// each recorded as it goes: sent again, it resumes at its first
    /// missing part). Images ride on the first post; a poll is one post.
    async fn posts(&self, content: &Content) -> Result<Published, PublishError> {
        use crate::x::NewPost;
        let (common, job) = (self.common, self.job);
        let done = common.store.sent_parts(job.id).await?;
        let mut first: Option<String> = done.first().map(|(_, id)| id.clone());
        let mut previous: Option<String> = done
            .last()
            .map(|(_, id)| id.clone())
            .or_else(|| content.reply_to().map(str::to_owned));
        let media_ids = match done.is_empty() {
            true => self.upload_images(content.images()).await?,
            false => Vec::new(),
        };
        let poll = match content {
            Content::Poll { options, .. } => Some((options.as_slice(), X_POLL_MINUTES)),
            _ => None,
        };
        for (index, part) in unsent(&content.messages(), &done) {
            let post = NewPost {
                text: part,
                reply_to: previous.as_deref(),
                media_ids: if index == 0 { &media_ids } else { &[] },
                poll,
            };
            let id = self.client.post(self.token, &post).await?;
            common
                .store
                .record_sent_part(job.id, index, &id, common.clock.now())
                .await?;
            if let Content::Poll { .. } = content {
                record_poll(common, job, PollPlatform::X, &id).await?;
            }
            first.get_or_insert_with(|| id.clone());
            previous = Some(id);
        }
        first
            .map(Published::Sent)
            .ok_or_else(|| PublishError::Refused("nothing to post".into()))
    }

    async fn upload_images(&self, images: &[i64]) -> Result<Vec<String>, PublishError> {
        let mut ids = Vec::new();
        for &asset in images {
            let (bytes, mime) = asset_bytes(&self.common.store, self.job, asset).await?;
            ids.push(self.client.upload_image(self.token, &bytes, &mime).await?);
        }
        Ok(ids)
    }

    /// The profile: name and bio, then picture and banner. X has no API
    /// for the "automated" label: the team is told to set it by hand.
    async fn profile(&self, account: &str, profile: &Profile) -> Result<Published, PublishError> {
        let (client, token) = (self.client, self.token);
        if profile.name.is_some() || profile.bio.is_some() {
            client
                .update_profile(token, profile.name.as_deref(), profile.bio.as_deref())
                .await?;
        }
        if let Some(picture) = profile.picture {
            let (bytes, _) = asset_bytes(&self.common.store, self.job, picture).await?;
            client.update_profile_image(token, &bytes).await?;
        }
        if let Some(banner) = profile.banner {
            let (bytes, _) = asset_bytes(&self.common.store, self.job, banner).await?;
            client.update_profile_banner(token, &bytes).await?;
        }
        Ok(Published::SentWithNotice(
            format!("profile:@{account}"),
            "publication-x-automated-label",
        ))
    }
}

/// How long an X poll stays open (a day, like the Telegram vote's step).
const X_POLL_MINUTES: u32 = 1440;

/// The site host: the approved build, checked again against the
/// operation's official address now, goes live under the operation's
/// subdomain (recorded on the operation).
struct SiteOut<'a> {
    common: &'a Common,
    outlet: &'a SiteOutlet,
}

#[async_trait]
impl Publisher for SiteOut<'_> {
    async fn publish(
        &self,
        job: &Publication,
        content: &Content,
    ) -> Result<Published, PublishError> {
        use ulias_agents::site;
        let refused = |message: String| PublishError::Refused(message);
        let Content::Site { build, .. } = content else {
            return Err(refused("only a site goes to the site host".into()));
        };
        let Some(host) = self.outlet.host.as_deref() else {
            return Err(PublishError::NotBuilt(
                "no site host is set (`[cloudflare]`): publish the site by hand",
            ));
        };
        let store = &self.common.store;
        let operation = match job.operation_id {
            Some(id) => store.operation(id).await?,
            None => {
                return Err(refused(
                    "a site is an operation's: this one has none".into(),
                ));
            }
        };
        let build = build.ok_or_else(|| {
            refused("this validation names no checked build: the Webdev must build, check and propose it again".into())
        })?;
        let official = operation.official_address.as_deref().ok_or_else(|| {
            refused(format!(
                "operation #{} has no official address",
                operation.id
            ))
        })?;
        let bundle = site::open(&self.outlet.data_dir, operation.id.get(), Some(build))
            .map_err(|e| refused(e.to_string()))?;
        site::ready_to_publish(&bundle, official).map_err(|e| refused(e.to_string()))?;
        let ticker = operation
            .token_symbol
            .clone()
            .unwrap_or_else(|| operation.name.clone());
        let release = crate::site::SiteRelease::named(
            bundle.site_dir(),
            &self.outlet.project_prefix,
            operation.id.get(),
            &ticker,
            operation.site_subdomain.as_deref(),
        );
        let url = host
            .publish(&release)
            .await
            .map_err(|e| match e.is_lost() {
                true => PublishError::Lost(e.to_string()),
                false => PublishError::Refused(e.to_string()),
            })?;
        if operation.site_subdomain.as_deref() != Some(release.subdomain.as_str()) {
            store
                .set_site_subdomain(operation.id, &release.subdomain, self.common.clock.now())
                .await?;
        }
        Ok(Published::Sent(url))
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
