//! What the bot reads from X on its own, every `x.mentions_poll_seconds`:
//! each connected account's mentions (every page since the last one read)
//! and the votes of the X polls it ran.
//!
//! A mention that carries instructions (an address to post, funds to send,
//! rules to drop) is never acted on: it is reported to the team and logged.
//! Any other mention of an account bound to a running operation becomes a
//! reply task for the CM (a few per look: no mass replies); the reply goes
//! out only once the team approves it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use ulias_agents::alerts::{Alert, AlertLevel, keys};
use ulias_agents::engine::{MENTION_REPLY, REPLY_TO_MENTION};
use ulias_agents::untrusted::wrap_untrusted;
use ulias_core::domain::{
    LogKind, LogScope, NewLogEntry, NewTask, OperationStatus, PollPlatform, Priority,
};
use ulias_core::settings::{HttpSettings, XSettings};
use ulias_core::store::XAccount;

use teloxide::prelude::*;

use super::edge::clip;
use super::error::HandlerResult;
use super::{Common, Roles, Work};
use crate::i18n::arg;
use crate::x::{Mention, TokenError, TokenVault, Tokens, XClient, is_instruction};

/// The most mentions of one account answered per look; the others are
/// read (and instructions among them reported) but get no reply.
const REPLIES_PER_LOOK: usize = 3;
/// The CM's agent name.
const CM: &str = "cm";
/// X polls are read for this long after they are sent (they last a day).
const POLL_READ_WINDOW: chrono::TimeDelta = chrono::TimeDelta::days(3);

/// Runs the X reader until the process stops (nothing to do without a key).
pub async fn run(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    x: XSettings,
    http: HttpSettings,
) {
    let Ok(vault) = TokenVault::new(x.token_key.as_ref()) else {
        return;
    };
    let client = match XClient::new(x.api_url.clone(), &http) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "X is not read");
            return;
        }
    };
    let mut every = tokio::time::interval(Duration::from_secs(u64::from(x.mentions_poll_seconds)));
    loop {
        every.tick().await;
        let tokens = Tokens {
            store: &common.store,
            vault: &vault,
            client: &client,
            settings: &x,
        };
        if let Err(error) = read_accounts(&common, &work, &roles, &tokens).await {
            tracing::warn!(%error, "could not read X");
        }
    }
}

async fn read_accounts(
    common: &Common,
    work: &Work,
    roles: &Roles,
    tokens: &Tokens<'_>,
) -> HandlerResult {
    for account in common.store.x_accounts().await? {
        let token = match tokens.fresh(&account, common.clock.now()).await {
            Ok(token) => token,
            Err(error) => {
                if let TokenError::RefreshRefused {
                    account,
                    reason,
                    newly: true,
                } = &error
                {
                    tell_refresh_failed(common, roles, account, reason).await;
                }
                tracing::warn!(account = %account.name, %error, "X account not read");
                continue;
            }
        };
        let mentions = tokens
            .client
            .mentions(&token, &account.user_id, account.last_mention_id.as_deref())
            .await?;
        read_mentions(common, work, &account, &mentions).await?;
        count_polls(common, tokens.client, &token).await?;
    }
    Ok(())
}

async fn read_mentions(
    common: &Common,
    work: &Work,
    account: &XAccount,
    mentions: &[Mention],
) -> HandlerResult {
    let operation = common
        .store
        .operation_of_account(&account.name)
        .await?
        .filter(|op| op.status == OperationStatus::Running);
    let mut replies = 0;
    for mention in mentions {
        let own = mention.author_id.as_deref() == Some(account.user_id.as_str());
        if is_instruction(&mention.text) {
            report_instruction(common, work, account, mention).await?;
        } else if let Some(op) = &operation
            && !own
            && replies < REPLIES_PER_LOOK
        {
            queue_reply(common, work, account, op.id, mention).await?;
            replies += 1;
        }
        common
            .store
            .set_last_mention(&account.name, &mention.id)
            .await?;
    }
    Ok(())
}

async fn report_instruction(
    common: &Common,
    work: &Work,
    account: &XAccount,
    mention: &Mention,
) -> HandlerResult {
    let summary = format!(
        "@{}: a mention with instructions was ignored: {}",
        account.name,
        mention.text.chars().take(200).collect::<String>()
    );
    let entry = NewLogEntry::event(
        LogScope {
            agent: Some(CM.to_owned()),
            ..LogScope::default()
        },
        LogKind::System,
        summary,
    );
    common.store.append_log(&entry, common.clock.now()).await?;
    let alert = Alert::new(AlertLevel::Warning, keys::X_MENTION)
        .with("account", &account.name)
        .with("text", mention.text.chars().take(500).collect::<String>());
    if let Err(error) = work.engine.runner.alerter.alert(alert).await {
        tracing::warn!(%error, "could not alert about a mention");
    }
    Ok(())
}

/// A reply task for the CM: the mention reaches it as untrusted text; the
/// post it answers is fixed here, not by the model.
async fn queue_reply(
    common: &Common,
    work: &Work,
    account: &XAccount,
    operation: ulias_core::domain::OperationId,
    mention: &Mention,
) -> HandlerResult {
    let Some(spec) = work.engine.runner.catalogue.get(CM) else {
        return Ok(());
    };
    let now = common.clock.now();
    let mut task = NewTask::new(
        spec.name.clone(),
        spec.team,
        format!("Reply to a mention of @{}", account.name),
        now,
    );
    task.kind = Some(MENTION_REPLY.to_owned());
    task.operation_id = Some(operation);
    task.priority = Priority::new(6).unwrap_or_default();
    task.requires_validation = true;
    task.input = json!({
        "mention": wrap_untrusted(&format!("x mention of @{}", account.name), &mention.text),
        "account": account.name,
        REPLY_TO_MENTION: mention.id,
        "sections": ["scan", "identity", "site", "x", "faq"],
        "reply": "one post (kind post), at most 280 weighted characters, or finish with confidence 0 if it deserves no reply",
    });
    common.store.create_task(&task, now).await?;
    work.wake.notify_one();
    Ok(())
}

/// Tells the team X refused to refresh an account's token (once: when
/// the refusal paused the account), so they connect it again.
pub async fn tell_refresh_failed(common: &Common, roles: &Roles, account: &str, reason: &str) {
    tracing::error!(%account, %reason, "X refused to refresh a token: the account's posts are paused");
    let Some(team) = roles.team_chat else {
        return;
    };
    let text = common.texts.with(
        "x-refresh-failed",
        &[arg("account", account), arg("reason", reason)],
    );
    if let Err(error) = common.bot.send_message(ChatId(team), clip(&text)).await {
        tracing::warn!(%error, "could not tell the team about a failed X refresh");
    }
}

/// Reads the votes of the X polls sent in the last days.
async fn count_polls(
    common: &Common,
    client: &XClient,
    token: &secrecy::SecretString,
) -> HandlerResult {
    let now = common.clock.now();
    let polls = common
        .store
        .recent_polls(PollPlatform::X, now - POLL_READ_WINDOW)
        .await?;
    for poll in polls {
        match client.poll_results(token, &poll.external_id).await {
            Ok(mut options) => {
                options.sort_by_key(|o| o.position);
                let counts: Vec<u64> = options.iter().map(|o| o.votes).collect();
                common
                    .store
                    .set_poll_counts(
                        PollPlatform::X,
                        &poll.external_id,
                        &counts,
                        now.timestamp_millis(),
                        now,
                    )
                    .await?;
            }
            Err(error) => {
                tracing::warn!(poll = %poll.external_id, %error, "could not read an X poll's votes");
            }
        }
    }
    Ok(())
}
