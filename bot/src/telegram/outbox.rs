//! The publishers' loop: approved outputs are sent exactly once. A job is
//! claimed (sending), sent through its target's [`Publisher`], then
//! recorded with the platform's id (sent). A refusal fails it; a send whose
//! answer never came makes it unknown; either is shown to the team with a
//! button to send it again — never re-sent blindly. A job left `sending` by
//! a crash is found at the next pass and made unknown the same way.
//!
//! [`Publisher`]: super::publishers::Publisher

use std::sync::Arc;
use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_core::domain::{OperationId, Publication, PublicationId, PublicationStatus};
use ulias_core::store::{Store, StoreError};

use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::publishers::{Outlets, PublishError, Published, content_of, publisher_for};
use super::{Common, Roles, Work};
use crate::i18n::arg;

/// A claim older than this belongs to a process that died mid-send.
const SENDING_EXPIRES: chrono::TimeDelta = chrono::TimeDelta::minutes(15);

/// Runs every `every` (`engine.notify_seconds`) until `stop` turns true;
/// a job being sent is always finished first, so a graceful stop never
/// leaves one `sending` (only a crash does).
pub async fn run(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    outlets: Arc<Outlets>,
    every: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let owner = &work.engine.config.worker;
    let mut every = tokio::time::interval(every);
    loop {
        tokio::select! {
            _ = every.tick() => {}
            _ = stop.changed() => return,
        }
        // Between sends: none of ours is in flight, so any of ours still
        // `sending` was interrupted (a crash before this start).
        report_interrupted(&common, &roles, owner).await;
        while !*stop.borrow() {
            match common
                .store
                .claim_publication(owner, common.clock.now())
                .await
            {
                Ok(Some(job)) => publish(&common, &roles, &outlets, &job).await,
                Ok(None) => break,
                Err(error) => {
                    tracing::error!(%error, "could not claim a publication");
                    break;
                }
            }
        }
    }
}

/// Marks unknown the jobs left `sending` by this worker (`owner`) or by a
/// dead one, and tells the team about each.
async fn report_interrupted(common: &Common, roles: &Roles, owner: &str) {
    let expired = common.clock.now() - SENDING_EXPIRES;
    match common
        .store
        .mark_interrupted_publications(owner, expired)
        .await
    {
        Ok(interrupted) => {
            for publication in interrupted {
                if let Err(error) = report(common, roles, &publication, "publication-unknown").await
                {
                    tracing::warn!(%error, "could not report an interrupted publication");
                }
            }
        }
        Err(error) => tracing::error!(%error, "could not look for interrupted publications"),
    }
}

async fn publish(common: &Common, roles: &Roles, outlets: &Outlets, job: &Publication) {
    let sent = match content_of(&common.store, job).await {
        Ok(content) => {
            publisher_for(common, roles, outlets, job.target)
                .publish(job, &content)
                .await
        }
        Err(error) => Err(error),
    };
    let recorded = match sent {
        // Delayed by the posting rule: it waits, pending, for its turn.
        Ok(Published::Deferred) => Ok(()),
        Ok(Published::Sent(external_id)) => common
            .store
            .mark_publication_sent(job.id, &external_id, common.clock.now())
            .await
            .map_err(HandlerError::from),
        Ok(Published::SentWithNotice(external_id, notice)) => {
            let sent = common
                .store
                .mark_publication_sent(job.id, &external_id, common.clock.now())
                .await;
            match sent {
                Ok(()) => tell_notice(common, roles, job, notice).await,
                Err(store) => Err(store.into()),
            }
        }
        Err(error @ PublishError::Lost(_)) => {
            let unknown = common
                .store
                .mark_publication_unknown(job.id, &error.to_string())
                .await;
            match unknown {
                Ok(()) => report(common, roles, job, "publication-unknown").await,
                Err(store) => Err(store.into()),
            }
        }
        Err(error) => {
            let failed = common
                .store
                .mark_publication_failed(job.id, &error.to_string())
                .await;
            match failed {
                Ok(()) => report(common, roles, job, "publication-failed").await,
                Err(store) => Err(store.into()),
            }
        }
    };
    if let Err(error) = recorded {
        tracing::error!(%error, publication = %job.id, "could not record a publication");
    }
}

/// Where a publication goes in Telegram: its operation's community group,
/// or (no operation) the first configured group. Never a chat the payload
/// names: an agent's output cannot redirect a post.
pub async fn telegram_destination(
    store: &Store,
    roles: &Roles,
    operation: Option<OperationId>,
) -> Result<ChatId, HandlerError> {
    let chat = match operation {
        Some(operation) => store
            .groups_of_operation(operation)
            .await?
            .first()
            .copied()
            .ok_or_else(|| {
                format!("operation #{operation} has no community group: /bind it in the group")
            })?,
        None => roles
            .groups
            .first()
            .copied()
            .ok_or("no community group is configured to publish to")?,
    };
    Ok(ChatId(chat))
}

/// The X account a publication goes out from. An operation's post: one of
/// the operation's accounts (the one the payload names if it is one of
/// them, else its first). Otherwise: the account named, or the first.
pub async fn x_destination(
    store: &Store,
    operation: Option<OperationId>,
    named: Option<&str>,
) -> Result<String, HandlerError> {
    let named = named.map(|a| a.trim_start_matches('@'));
    let allowed: Vec<String> = match operation {
        Some(operation) => {
            let own = store.accounts_of_operation(operation).await?;
            if own.is_empty() {
                return Err(format!(
                    "operation #{operation} has no X account (`ulias x connect --operation {operation}`)"
                )
                .into());
            }
            own
        }
        None => store
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

/// Tells the team a job went out but left them something to do by hand
/// (`notice`, a locale key; no button: it is not to be sent again).
async fn tell_notice(
    common: &Common,
    roles: &Roles,
    job: &Publication,
    notice: &str,
) -> HandlerResult {
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let text = common
        .texts
        .with(notice, &[arg("id", job.id), arg("target", job.target)]);
    common.bot.send_message(ChatId(team), clip(&text)).await?;
    Ok(())
}

/// Tells the team about a job that needs them, with a button to send it again.
async fn report(common: &Common, roles: &Roles, job: &Publication, key: &str) -> HandlerResult {
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let job = common.store.publication(job.id).await?;
    let text = common.texts.with(
        key,
        &[
            arg("id", job.id),
            arg("target", job.target),
            arg("error", job.error.clone().unwrap_or_default()),
        ],
    );
    let button = InlineKeyboardButton::callback(
        common.texts.get("button-resend"),
        Button::Resend(job.id.get()).data(),
    );
    common
        .bot
        .send_message(ChatId(team), clip(&text))
        .reply_markup(InlineKeyboardMarkup::new([[button]]))
        .await?;
    Ok(())
}

/// The team's "send again" button: once, from unknown or failed only (a
/// second press while the job is queued or being sent is told so), and
/// the button goes.
pub async fn resend(
    common: &Common,
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    match common
        .store
        .resend_publication(PublicationId::new(id), common.clock.now())
        .await
    {
        Ok(()) => {
            if let Some((chat, message)) = press.message {
                common
                    .bot
                    .edit_message_reply_markup(ChatId(chat), message)
                    .reply_markup(InlineKeyboardMarkup::default())
                    .await?;
            }
            Ok(Some(common.texts.get("publication-resent")))
        }
        Err(StoreError::IllegalTransition { from, .. })
            if from == PublicationStatus::Pending.as_str()
                || from == PublicationStatus::Sending.as_str() =>
        {
            Ok(Some(common.texts.get("publication-on-its-way")))
        }
        Err(StoreError::IllegalTransition { from, .. })
            if from == PublicationStatus::Sent.as_str() =>
        {
            Ok(Some(common.texts.get("publication-gone-already")))
        }
        Err(StoreError::IllegalTransition { .. }) => {
            Ok(Some(common.texts.get("validation-already")))
        }
        Err(error) => Err(error.into()),
    }
}
