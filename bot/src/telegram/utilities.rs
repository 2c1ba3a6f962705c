//! The Builder's utilities on Telegram: an approved utility is released
//! (its tested `dist/` copied to its target, refused unless its latest run
//! passed with that config) and a command is announced in the operation's
//! group; the group's members then use it: `/quiz` posts one of the quiz's
//! questions as a native quiz poll, `/price` shows the price alerts set up.
//! A page released into the operation's site (a mini-game, a leaderboard)
//! goes online with the site: once the site has a build, the next one is
//! made with the page, checked, and proposed to the team like the
//! Webdev's.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::json;
use teloxide::prelude::*;
use teloxide::types::{InputPollOption, PollType, ReplyParameters};
use ulias_agents::publications::Content;
use ulias_agents::site::{self, SiteOperation};
use ulias_agents::tools::utility::release::{self, ReleaseError};
use ulias_agents::tools::utility::templates::PublishKind;
use ulias_core::domain::{
    NewValidation, OperationId, Publication, PublicationTarget, ValidationKind,
};
use ulias_core::store::UtilityRun;

use super::Common;
use super::edge::clip;
use super::error::HandlerResult;
use super::publishers::{PublishError, Published, SiteOutlet};
use crate::i18n::arg;

/// Where an approved utility goes.
pub(super) struct Release<'a> {
    /// Where utilities are released.
    pub data_dir: &'a Path,
    /// The site a page joins.
    pub site: &'a SiteOutlet,
    /// The operation's group, where a command is announced.
    pub chat: ChatId,
}

impl Release<'_> {
    /// Releases an approved utility: a command is announced in the group,
    /// a page is proposed with the site's next build.
    pub(super) async fn publish(
        &self,
        common: &Common,
        job: &Publication,
        template: &str,
        config: &serde_json::Value,
    ) -> Result<Published, PublishError> {
        let released = release::release(
            &common.store,
            self.data_dir,
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
            if let Some(operation) = job.operation_id {
                propose_site_with_page(common, self.site, operation, &released.template).await?;
            }
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
        let sent = common.bot.send_message(self.chat, clip(&text)).await?;
        Ok(Published::Sent(format!("{}:{}", self.chat.0, sent.id.0)))
    }
}

/// The operation's site made again with the pages released since (from
/// its latest build's template and fields), checked, and proposed to the
/// team. Nothing before a first build (the first build carries the page),
/// without an official address (no site can be checked yet), or when the
/// latest build has the page already (a retry after the proposal).
async fn propose_site_with_page(
    common: &Common,
    site_outlet: &SiteOutlet,
    id: OperationId,
    page: &str,
) -> Result<(), PublishError> {
    let operation = common.store.operation(id).await?;
    let Some(official) = operation.official_address.clone() else {
        return Ok(());
    };
    let shown = SiteOperation {
        id: id.get(),
        ticker: operation
            .token_symbol
            .clone()
            .unwrap_or_else(|| operation.name.clone()),
        chain: operation.chain.clone().unwrap_or_default(),
        name: operation.name.clone(),
        api: site_outlet.api.clone(),
    };
    let data_dir = site_outlet.data_dir.clone();
    let folder = format!("{page}/");
    let built = tokio::task::spawn_blocking(move || {
        match site::open(&data_dir, shown.id, None) {
            Ok(latest) if latest.files.iter().any(|f| f.starts_with(&folder)) => return Ok(None),
            Ok(_) => {}
            Err(site::SiteError::NoBuilds { .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
        let Some(bundle) = site::rebuild(&data_dir, &shown)? else {
            return Ok(None);
        };
        site::check(&bundle, &official)?;
        site::ready_to_publish(&bundle, &official).map(|_| Some(bundle))
    })
    .await
    .map_err(|e| PublishError::Refused(e.to_string()))?
    .map_err(|e: site::SiteError| {
        PublishError::Refused(format!("the site with this page cannot be proposed: {e}"))
    })?;
    let Some(bundle) = built else {
        return Ok(());
    };
    let fields =
        serde_json::to_value(&bundle.fields).map_err(|e| PublishError::Refused(e.to_string()))?;
    let content = Content::Site {
        template: bundle.template.clone(),
        fields,
        url: None,
        build: Some(bundle.build),
    };
    let validation = NewValidation {
        task_id: None,
        operation_id: Some(id),
        kind: ValidationKind::Site,
        target: PublicationTarget::Site,
        payload: content.payload(json!({"tool": "site_publish", "args": {"build": bundle.build}})),
    };
    common
        .store
        .create_validation(&validation, common.clock.now())
        .await?;
    tracing::info!(operation = %id, build = bundle.build, "the site with a released page is proposed");
    Ok(())
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

/// What a released price-alert utility watches (its `alerts.json`).
#[derive(Deserialize)]
pub(super) struct AlertsFile {
    pub token_address: String,
    pub chain: String,
    pub thresholds: Vec<Threshold>,
    /// How long a threshold stays quiet after it fired.
    #[serde(default = "default_cooldown")]
    pub cooldown_minutes: u32,
}

fn default_cooldown() -> u32 {
    60
}

#[derive(Debug, Clone, Deserialize)]
pub(super) struct Threshold {
    /// "above" or "below".
    pub direction: String,
    pub price_usd: f64,
}

/// The released price alerts of `operation`, if it has them.
pub(super) async fn released_alerts(
    common: &Common,
    operation: OperationId,
) -> Result<Option<AlertsFile>, ulias_core::store::StoreError> {
    let released = common.store.released_utilities(operation).await?;
    let Some(run) = released
        .iter()
        .find(|r| r.released_to.as_deref() == Some("/price"))
    else {
        return Ok(None);
    };
    let path = dist_of(run).join("alerts.json");
    let alerts = read_json::<AlertsFile>(&path);
    if alerts.is_none() {
        tracing::warn!(path = %path.display(), "released price alerts cannot be read");
    }
    Ok(alerts)
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
