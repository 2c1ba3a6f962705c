//! The Builder's utilities on Telegram: an approved utility is released
//! (its tested `dist/` copied to its target, refused unless its latest run
//! passed with that config) and a command is announced in the operation's
//! group; the group's members then use it: `/quiz` posts one of the quiz's
//! questions as a native quiz poll, `/price` shows the price alerts set up.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use teloxide::prelude::*;
use teloxide::types::{InputPollOption, PollType, ReplyParameters};
use ulias_agents::tools::utility::release::{self, ReleaseError};
use ulias_agents::tools::utility::templates::PublishKind;
use ulias_core::domain::{OperationId, Publication};
use ulias_core::store::UtilityRun;

use super::Common;
use super::edge::clip;
use super::error::HandlerResult;
use super::publishers::{PublishError, Published};
use crate::i18n::arg;

/// Releases an approved utility; a command is announced in `chat`.
pub(super) async fn publish(
    common: &Common,
    data_dir: &Path,
    chat: ChatId,
    job: &Publication,
    template: &str,
    config: &serde_json::Value,
) -> Result<Published, PublishError> {
    let released = release::release(
        &common.store,
        data_dir,
        job.operation_id,
        template,
        config,
        common.clock.now(),
    )
    .await
    .map_err(|e| match e {
        ReleaseError::NotReleasable(release::NotReleasable::Store(e)) => PublishError::Store(e),
        other => PublishError::Refused(other.to_string()),
    })?;
    if released.kind == PublishKind::Site {
        return Ok(Published::Sent(format!(
            "utility:{}",
            released.folder.display()
        )));
    }
    let text = common.texts.with(
        "utility-released-command",
        &[
            arg("command", &released.to),
            arg("description", &released.description),
        ],
    );
    let sent = common.bot.send_message(chat, clip(&text)).await?;
    Ok(Published::Sent(format!("{}:{}", chat.0, sent.id.0)))
}

/// The command a group message calls (`/quiz`, `/quiz@bot`), if any.
pub(super) fn command_of(text: &str) -> Option<String> {
    let word = text.split_whitespace().next()?.strip_prefix('/')?;
    let name = word.split('@').next()?;
    (!name.is_empty()).then(|| format!("/{}", name.to_ascii_lowercase()))
}

/// Answers a released utility's command in its operation's group; false
/// when the operation released no such command.
pub(super) async fn serve(
    common: &Common,
    operation: OperationId,
    message: &Message,
    command: &str,
) -> Result<bool, super::error::HandlerError> {
    let released = common.store.released_utilities(operation).await?;
    let Some(run) = released
        .iter()
        .find(|r| r.released_to.as_deref() == Some(command))
    else {
        return Ok(false);
    };
    let dist = dist_of(run);
    match command {
        "/quiz" => quiz(common, message, &dist).await?,
        "/price" => price(common, message, &dist).await?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn dist_of(run: &UtilityRun) -> PathBuf {
    run.dir
        .as_deref()
        .map(|dir| Path::new(dir).join("dist"))
        .unwrap_or_default()
}

#[derive(Deserialize)]
struct QuizFile {
    polls: Vec<QuizPoll>,
}

#[derive(Deserialize)]
struct QuizPoll {
    question: String,
    options: Vec<String>,
    correct_option_id: u8,
    #[serde(default)]
    explanation: String,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Option<T> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// One question of the quiz, in turn (by the asking message's id), as a
/// native quiz poll answering the message.
async fn quiz(common: &Common, message: &Message, dist: &Path) -> HandlerResult {
    let Some(file) = read_json::<QuizFile>(&dist.join("quiz.json")) else {
        tracing::warn!(dist = %dist.display(), "a released quiz cannot be read");
        return Ok(());
    };
    let turn = usize::try_from(message.id.0).unwrap_or(0) % file.polls.len().max(1);
    let Some(poll) = file.polls.get(turn) else {
        return Ok(());
    };
    let options: Vec<InputPollOption> = poll
        .options
        .iter()
        .cloned()
        .map(InputPollOption::new)
        .collect();
    let mut request = common
        .bot
        .send_poll(message.chat.id, poll.question.clone(), options)
        .type_(PollType::Quiz)
        .correct_option_id(poll.correct_option_id)
        .is_anonymous(false)
        .reply_parameters(ReplyParameters::new(message.id));
    if !poll.explanation.is_empty() {
        request = request.explanation(poll.explanation.clone());
    }
    request.await?;
    Ok(())
}

#[derive(Deserialize)]
struct AlertsFile {
    token_address: String,
    chain: String,
    thresholds: Vec<Threshold>,
}

#[derive(Deserialize)]
struct Threshold {
    direction: String,
    price_usd: f64,
}

/// The price alerts set up for the token, answering the message.
async fn price(common: &Common, message: &Message, dist: &Path) -> HandlerResult {
    let Some(file) = read_json::<AlertsFile>(&dist.join("alerts.json")) else {
        tracing::warn!(dist = %dist.display(), "released price alerts cannot be read");
        return Ok(());
    };
    let thresholds = file
        .thresholds
        .iter()
        .map(|t| {
            let sign = if t.direction == "above" { "≥" } else { "≤" };
            format!("{sign} ${}", t.price_usd)
        })
        .collect::<Vec<_>>()
        .join(", ");
    let text = common.texts.with(
        "utility-price-alerts",
        &[
            arg("address", &file.token_address),
            arg("chain", &file.chain),
            arg("thresholds", thresholds),
        ],
    );
    common
        .bot
        .send_message(message.chat.id, clip(&text))
        .reply_parameters(ReplyParameters::new(message.id))
        .await?;
    Ok(())
}
