//! The publishers' loop: approved outputs are sent exactly once. A job is
//! claimed (sending), sent, then recorded with the platform's id (sent). A
//! job found `sending` at start was interrupted mid-send: it is marked
//! unknown and shown to the team with a button to send it again — never
//! re-sent blindly. Telegram is built (a post, a thread, a pinned message, a
//! poll, an album, in the operation's community group); X and site
//! publishing are not built yet and say so to the team.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use teloxide::prelude::*;
use teloxide::types::{
    InlineKeyboardButton, InlineKeyboardMarkup, InputFile, InputMedia, InputMediaPhoto,
    InputPollOption,
};
use ulias_core::domain::{
    OperationId, Publication, PublicationId, PublicationStatus, PublicationTarget, ValidationKind,
};
use ulias_core::store::StoreError;

use super::App;
use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use crate::i18n::arg;

/// What a manual publication records as its external id.
const BY_HAND: &str = "manual";

/// A claim older than this belongs to a process that died mid-send.
const SENDING_EXPIRES: chrono::TimeDelta = chrono::TimeDelta::minutes(15);

/// Runs until `stop` turns true; a job being sent is always finished first,
/// so a graceful stop never leaves one `sending` (only a crash does).
pub async fn run(app: Arc<App>, mut stop: tokio::sync::watch::Receiver<bool>) {
    let mut every = tokio::time::interval(Duration::from_secs(app.settings.engine.notify_seconds));
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = stop.changed() => return,
        }
        // Between sends: none of ours is in flight, so any of ours still
        // `sending` was interrupted (a crash before this start).
        report_interrupted(&app).await;
        while !*stop.borrow() {
            let owner = &app.engine.config.worker;
            match app.store.claim_publication(owner, app.clock.now()).await {
                Ok(Some(job)) => publish(&app, &job).await,
                Ok(None) => break,
                Err(error) => {
                    tracing::error!(%error, "could not claim a publication");
                    break;
                }
            }
        }
    }
}

/// Marks unknown the jobs left `sending` by this worker or by a dead one,
/// and tells the team about each.
async fn report_interrupted(app: &App) {
    let expired = app.clock.now() - SENDING_EXPIRES;
    let owner = &app.engine.config.worker;
    match app
        .store
        .mark_interrupted_publications(owner, expired)
        .await
    {
        Ok(interrupted) => {
            for publication in interrupted {
                if let Err(error) = report(app, &publication, "publication-unknown").await {
                    tracing::warn!(%error, "could not report an interrupted publication");
                }
            }
        }
        Err(error) => tracing::error!(%error, "could not look for interrupted publications"),
    }
}

async fn publish(app: &App, job: &Publication) {
    let sent = match job.target {
        PublicationTarget::Telegram => send_telegram(app, job).await,
        PublicationTarget::Manual => Ok(BY_HAND.to_owned()),
        PublicationTarget::X => match send_x(app, job).await {
            Ok(Some(id)) => Ok(id),
            // Delayed by the posting rule: it waits, pending, for its turn.
            Ok(None) => return,
            Err(error) => Err(error),
        },
        PublicationTarget::Site => match &app.site {
            Some(site) => site.publish(&job.payload).await.map_err(HandlerError::from),
            None => Err("no site host is wired yet: publish the site by hand".into()),
        },
    };
    let recorded = match sent {
        Ok(external_id) => app
            .store
            .mark_publication_sent(job.id, &external_id, app.clock.now())
            .await
            .map_err(HandlerError::from),
        Err(error) if maybe_delivered(&error) => {
            let unknown = app
                .store
                .mark_publication_unknown(job.id, &error.to_string())
                .await;
            match unknown {
                Ok(()) => report(app, job, "publication-unknown").await,
                Err(store) => Err(store.into()),
            }
        }
        Err(error) => {
            let failed = app
                .store
                .mark_publication_failed(job.id, &error.to_string())
                .await;
            match failed {
                Ok(()) => report(app, job, "publication-failed").await,
                Err(store) => Err(store.into()),
            }
        }
    };
    if let Err(error) = recorded {
        tracing::error!(%error, publication = %job.id, "could not record a publication");
    }
}

/// Whether a send that failed may still have been delivered: the request
/// left and no answer came back (a timeout, a reset connection, an answer
/// that could not be read). A refusal, or a connection never opened, was not.
fn maybe_delivered(error: &HandlerError) -> bool {
    let lost = |e: &reqwest::Error| !e.is_connect() && !e.is_builder();
    match error {
        HandlerError::Telegram(teloxide::RequestError::Network(network)) => {
            !network.is_connect() && !network.is_builder()
        }
        HandlerError::Telegram(
            teloxide::RequestError::Io(_) | teloxide::RequestError::InvalidJson { .. },
        ) => true,
        HandlerError::X(crate::x::XError::Http(http)) => lost(http),
        _ => false,
    }
}

/// Where a publication goes in Telegram: its operation's community group,
/// or (no operation) the first configured group. Never a chat the payload
/// names: an agent's output cannot redirect a post.
pub async fn telegram_destination(
    app: &App,
    operation: Option<OperationId>,
) -> Result<ChatId, HandlerError> {
    let chat = match operation {
        Some(operation) => app
            .store
            .groups_of_operation(operation)
            .await?
            .first()
            .copied()
            .ok_or_else(|| {
                format!("operation #{operation} has no community group: /bind it in the group")
            })?,
        None => app
            .roles
            .groups
            .first()
            .copied()
            .ok_or("no community group is configured to publish to")?,
    };
    Ok(ChatId(chat))
}

/// Sends to the operation's community group; returns the first message's id.
async fn send_telegram(app: &App, job: &Publication) -> Result<String, HandlerError> {
    let content = job
        .payload
        .get("args")
        .or_else(|| job.payload.get("output"))
        .unwrap_or(&job.payload);
    let chat = telegram_destination(app, job.operation_id).await?;
    let kind = match job.validation_id {
        Some(id) => app.store.validation(id).await?.kind,
        // A direct publication (validation off) carries its kind.
        None => job
            .payload
            .get("kind")
            .and_then(Value::as_str)
            .and_then(|kind| kind.parse().ok())
            .unwrap_or(ValidationKind::Post),
    };
    let text = |fields: &[&str]| {
        fields
            .iter()
            .find_map(|f| content.get(f).and_then(Value::as_str))
            .map(str::to_owned)
    };
    let sent = match kind {
        ValidationKind::Poll => {
            let question = text(&["question"]).ok_or("a poll needs a question")?;
            let options: Vec<InputPollOption> = content
                .get("options")
                .and_then(Value::as_array)
                .map(|o| {
                    o.iter()
                        .filter_map(Value::as_str)
                        .map(InputPollOption::new)
                        .collect()
                })
                .unwrap_or_default();
            app.bot.send_poll(chat, question, options).await?
        }
        ValidationKind::Album => {
            let images: Vec<InputMedia> = content
                .get("images")
                .and_then(Value::as_array)
                .map(|i| {
                    i.iter()
                        .filter_map(Value::as_str)
                        .filter_map(|u| u.parse().ok())
                })
                .into_iter()
                .flatten()
                .take(10)
                .map(|url| InputMedia::Photo(InputMediaPhoto::new(InputFile::url(url))))
                .collect();
            let sent = app.bot.send_media_group(chat, images).await?;
            sent.into_iter()
                .next()
                .ok_or("Telegram sent no message for the album")?
        }
        ValidationKind::Thread => {
            let parts = parts(content);
            let done = app.store.sent_parts(job.id).await?;
            let mut first = done.first().map(|(_, id)| id.clone());
            for (index, part) in parts.iter().enumerate() {
                let index = u32::try_from(index)?;
                if done.iter().any(|(sent, _)| *sent == index) {
                    continue;
                }
                let message = app.bot.send_message(chat, clip(part)).await?;
                let id = format!("{}:{}", chat.0, message.id.0);
                app.store
                    .record_sent_part(job.id, index, &id, app.clock.now())
                    .await?;
                first.get_or_insert(id);
            }
            return first.ok_or_else(|| "a thread needs parts".into());
        }
        _ => {
            let body = parts(content).join("\n\n");
            let message = app.bot.send_message(chat, clip(&body)).await?;
            if kind == ValidationKind::Pinned {
                app.bot.pin_chat_message(chat, message.id).await?;
            }
            message
        }
    };
    Ok(format!("{}:{}", chat.0, sent.id.0))
}

/// The X account a publication goes out from. An operation's post: one of
/// the operation's accounts (the one the payload names if it is one of
/// them, else its first). Otherwise: the account named, or the first.
pub async fn x_destination(
    app: &App,
    operation: Option<OperationId>,
    named: Option<&str>,
) -> Result<String, HandlerError> {
    let named = named.map(|a| a.trim_start_matches('@'));
    let allowed: Vec<String> = match operation {
        Some(operation) => {
            let own = app.store.accounts_of_operation(operation).await?;
            if own.is_empty() {
                return Err(format!(
                    "operation #{operation} has no X account (`ulias x connect --operation {operation}`)"
                )
                .into());
            }
            own
        }
        None => app
            .store
            .x_accounts()
            .await?
            .into_iter()
            .map(|a| a.name)
            .collect(),
    };
    named
        .and_then(|n| allowed.iter().find(|a| a.as_str() == n))
        .or_else(|| allowed.first())
        .cloned()
        .ok_or_else(|| "no X account is connected for this post (`ulias x connect`)".into())
}

/// Posts to X from the account [`x_destination`] names.
/// One post per account per `x.min_post_interval_seconds` (threads
/// excepted): a post that comes too soon is put back until its turn (the
/// wait is in the store, so it survives a restart). `None` when delayed.
async fn send_x(app: &App, job: &Publication) -> Result<Option<String>, HandlerError> {
    use crate::x::{TokenVault, XClient};
    let content = job
        .payload
        .get("args")
        .or_else(|| job.payload.get("output"))
        .unwrap_or(&job.payload);
    let kind = match job.validation_id {
        Some(id) => app.store.validation(id).await?.kind,
        None => job
            .payload
            .get("kind")
            .and_then(Value::as_str)
            .and_then(|k| k.parse().ok())
            .unwrap_or(ValidationKind::Post),
    };
    if kind == ValidationKind::Profile {
        return Err("X profile updates are not built yet: change the profile by hand".into());
    }
    let vault = TokenVault::new(app.settings.x.token_key.as_ref())?;
    let named = job
        .account
        .as_deref()
        .or_else(|| content.get("account").and_then(Value::as_str));
    let name = x_destination(app, job.operation_id, named).await?;
    let accounts = app.store.x_accounts().await?;
    let account = accounts
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| format!("@{name} is not connected (`ulias x connect`)"))?;
    let now = app.clock.now();
    let interval = chrono::TimeDelta::seconds(i64::from(app.settings.x.min_post_interval_seconds));
    if kind != ValidationKind::Thread
        && let Some(last) = app.store.last_x_post(&account.name).await?
        && now - last < interval
    {
        app.store.defer_publication(job.id, last + interval).await?;
        tracing::info!(publication = %job.id, account = %account.name, "X post delayed by the one-post-per-interval rule");
        return Ok(None);
    }
    app.store
        .set_publication_account(job.id, &account.name)
        .await?;
    let token = vault.open(account)?;
    let client = XClient::new(app.settings.x.api_url.clone(), &app.settings.http)?;
    // Each part is recorded as it goes: sent again, a thread resumes at its
    // first missing part, replying to the last one that went out.
    let done = app.store.sent_parts(job.id).await?;
    let mut first: Option<String> = done.first().map(|(_, id)| id.clone());
    let mut previous: Option<String> = done.last().map(|(_, id)| id.clone());
    for (index, part) in parts(content).iter().enumerate() {
        let index = u32::try_from(index)?;
        if done.iter().any(|(sent, _)| *sent == index) {
            continue;
        }
        let id = client.post(&token, part, previous.as_deref()).await?;
        app.store
            .record_sent_part(job.id, index, &id, app.clock.now())
            .await?;
        first.get_or_insert_with(|| id.clone());
        previous = Some(id);
    }
    first.map(Some).ok_or_else(|| "nothing to post".into())
}

fn parts(content: &Value) -> Vec<String> {
    for field in ["parts", "texts", "tweets"] {
        if let Some(parts) = content.get(field).and_then(Value::as_array) {
            return parts
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
        }
    }
    ["text", "caption", "answer", "message"]
        .iter()
        .find_map(|f| content.get(f).and_then(Value::as_str))
        .map(|t| vec![t.to_owned()])
        .unwrap_or_default()
}

/// Tells the team about a job that needs them, with a button to send it again.
async fn report(app: &App, job: &Publication, key: &str) -> HandlerResult {
    let Some(team) = app.roles.team_chat else {
        return Ok(());
    };
    let job = app.store.publication(job.id).await?;
    let text = app.texts.with(
        key,
        &[
            arg("id", job.id),
            arg("target", job.target),
            arg("error", job.error.clone().unwrap_or_default()),
        ],
    );
    let button = InlineKeyboardButton::callback(
        app.texts.get("button-resend"),
        Button::Resend(job.id.get()).data(),
    );
    app.bot
        .send_message(ChatId(team), clip(&text))
        .reply_markup(InlineKeyboardMarkup::new([[button]]))
        .await?;
    Ok(())
}

/// The team's "send again" button: once, from unknown or failed only (a
/// second press while the job is queued or being sent is told so), and
/// the button goes.
pub async fn resend(app: &App, press: &Press, id: i64) -> Result<Option<String>, HandlerError> {
    match app
        .store
        .resend_publication(PublicationId::new(id), app.clock.now())
        .await
    {
        Ok(()) => {
            if let Some((chat, message)) = press.message {
                app.bot
                    .edit_message_reply_markup(ChatId(chat), message)
                    .reply_markup(InlineKeyboardMarkup::default())
                    .await?;
            }
            Ok(Some(app.texts.get("publication-resent")))
        }
        Err(StoreError::IllegalTransition { from, .. })
            if from == PublicationStatus::Pending.as_str()
                || from == PublicationStatus::Sending.as_str() =>
        {
            Ok(Some(app.texts.get("publication-on-its-way")))
        }
        Err(StoreError::IllegalTransition { .. }) => Ok(Some(app.texts.get("validation-already"))),
        Err(error) => Err(error.into()),
    }
}
