//! The phone, through ntfy: each decision shown to the CEO is also pushed
//! with signed A/B/C buttons, and its outcome once it ends; the reply topic
//! is followed, each validly signed answer applied once, anything else
//! refused and audited.

use std::sync::Arc;
use std::time::Duration;

use teloxide::types::MessageId;
use ulias_core::store::Store;

use super::decisions::decision_text;
use super::error::HandlerResult;
use super::{Common, Work};
use crate::i18n::arg;
use crate::ntfy::Ntfy;

/// Queues a decision's push with its signed A/B/C buttons.
pub async fn push_decision(
    common: &Common,
    ntfy: Option<&Ntfy>,
    decision: &ulias_core::domain::Decision,
) -> HandlerResult {
    let Some(ntfy) = ntfy else {
        return Ok(());
    };
    let text = decision_text(&common.texts, decision);
    let push = match ntfy.signer() {
        Some(signer) => crate::ntfy::compose::decision(&common.texts, signer, decision, &text),
        // No key: the phone is told, and answers in the chat.
        None => crate::ntfy::compose::alert(
            &common.texts,
            &common
                .texts
                .with("ntfy-decision-title", &[arg("id", decision.id)]),
            &text,
            decision.urgency,
        ),
    };
    common.store.queue_push(&push, common.clock.now()).await?;
    Ok(())
}

/// Each decision pushed to the phone that has ended (answered by button or
/// phone, timed out, cancelled) gets its outcome pushed once: its buttons
/// on the phone no longer look open.
pub async fn phone_outcomes(common: &Common, ntfy: Option<&Ntfy>) -> HandlerResult {
    if ntfy.is_none() {
        return Ok(());
    }
    for id in common.store.decisions_awaiting_outcome_push().await? {
        let decision = common.store.decision(id).await?;
        if let Some(push) = crate::ntfy::compose::outcome(&common.texts, &decision) {
            common.store.queue_push(&push, common.clock.now()).await?;
        }
    }
    Ok(())
}

/// The cursor of the ntfy reply topic's stream.
const NTFY_CURSOR: &str = "ntfy_replies";

/// Follows the ntfy reply topic: each validly signed
/// `decision:<id>:<letter>:<expiry>:<signature>` answers its decision once
/// (a repeat is refused by the store and ignored); anything else is
/// refused and audited. The last
/// event read is kept, so a dropped stream or a restart resumes after it.
pub async fn ntfy_replies(common: Arc<Common>, work: Arc<Work>, ntfy: Option<Arc<Ntfy>>) {
    let Some(ntfy) = ntfy else {
        return;
    };
    let Some(signer) = ntfy.signer().cloned() else {
        tracing::warn!("`ntfy.signing_key` is not set: decisions are pushed without buttons");
        return;
    };
    let mut backoff = RECONNECT_MIN;
    loop {
        match open_stream(&common.store, &ntfy).await {
            // Refused or unreachable: wait longer each time (ntfy limits
            // requests per IP; retrying every second gets the pushes
            // blocked too).
            Err(error) => {
                tracing::warn!(%error, ?backoff, "the ntfy reply stream cannot be opened; trying again later");
                let nanos = common.clock.now().timestamp_subsec_nanos();
                tokio::time::sleep(with_jitter(backoff, nanos)).await;
                backoff = next_backoff(backoff);
            }
            Ok(response) => {
                backoff = RECONNECT_MIN;
                if let Err(error) = follow(&common, &work, &signer, response).await {
                    tracing::warn!(%error, "the ntfy reply stream stopped; reconnecting");
                }
                tokio::time::sleep(RECONNECT_MIN).await;
            }
        }
    }
}

/// The first wait before reconnecting, and the longest.
const RECONNECT_MIN: Duration = Duration::from_secs(1);
const RECONNECT_MAX: Duration = Duration::from_secs(300);

/// The wait after `current` failed too: twice as long, at most [`RECONNECT_MAX`].
fn next_backoff(current: Duration) -> Duration {
    (current * 2).min(RECONNECT_MAX)
}

/// `wait` plus up to a quarter more, picked by `nanos` (the clock's), so
/// several processes do not retry in step.
fn with_jitter(wait: Duration, nanos: u32) -> Duration {
    wait + wait.mul_f64(f64::from(nanos % 1000) / 4000.0)
}

/// Opens the reply stream after the last event read.
async fn open_stream(
    store: &Store,
    ntfy: &Ntfy,
) -> Result<reqwest::Response, super::error::HandlerError> {
    let since = store.cursor(NTFY_CURSOR).await?;
    Ok(ntfy
        .subscribe(Some(since.as_deref().unwrap_or("all")))
        .await?)
}

async fn follow(
    common: &Common,
    work: &Work,
    signer: &crate::ntfy::Signer,
    mut response: reqwest::Response,
) -> HandlerResult {
    let mut pending = String::new();
    while let Some(chunk) = response.chunk().await? {
        pending.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = pending.find('\n') {
            let line: String = pending.drain(..=end).collect();
            let Ok(event) = serde_json::from_str::<crate::ntfy::StreamEvent>(line.trim()) else {
                continue;
            };
            if event.event != "message" {
                continue;
            }
            let body = event.message.as_deref().unwrap_or_default();
            match signer.verify(body, common.clock.now()) {
                Ok(answer) => apply_phone_answer(common, work, answer).await?,
                Err(refusal) => refuse_reply(common, body, &refusal).await?,
            }
            common
                .store
                .set_cursor(NTFY_CURSOR, &event.id, common.clock.now())
                .await?;
        }
    }
    Ok(())
}

/// A reply without a valid signature, or expired, changes nothing: it is
/// logged and audited.
async fn refuse_reply(
    common: &Common,
    body: &str,
    refusal: &crate::ntfy::Refusal,
) -> HandlerResult {
    use serde_json::json;
    use ulias_core::store::{ActorRole, AuditEntry};
    let body: String = body.chars().take(200).collect();
    tracing::warn!(%refusal, %body, "an ntfy reply was refused");
    let entry = AuditEntry {
        actor: "ntfy",
        role: ActorRole::Unknown,
        action: "ntfy_reply_refused",
        target_kind: Some("decision"),
        target_id: body.split(':').nth(1).map(str::to_owned),
        details: json!({"reason": refusal.to_string(), "body": body}),
    };
    common.store.audit(&entry, common.clock.now()).await?;
    Ok(())
}

async fn apply_phone_answer(
    common: &Common,
    work: &Work,
    answer: crate::ntfy::Answer,
) -> HandlerResult {
    use ulias_core::domain::{DecisionAnswer, DecisionId};
    use ulias_core::store::StoreError;
    let id = DecisionId::new(answer.decision);
    let reply = DecisionAnswer {
        option: answer.option,
        by: "ntfy".to_owned(),
    };
    let decision = match common
        .store
        .answer_decision(id, &reply, common.clock.now())
        .await
    {
        Ok(decision) => decision,
        // Answered already (by button, by an earlier tap, or timed out), or
        // not an option of this decision: nothing to apply.
        Err(
            StoreError::IllegalTransition { .. }
            | StoreError::Invalid(_)
            | StoreError::NotFound { .. },
        ) => return Ok(()),
        Err(error) => return Err(error.into()),
    };
    let applied = match work.engine.apply_decision(&decision).await {
        Ok(applied) => Some(applied),
        Err(error) => {
            tracing::warn!(decision = %id, %error, "decision answered, not carried out yet");
            None
        }
    };
    if let Some((chat, message)) = common.store.decision_message(id).await? {
        let message = MessageId(i32::try_from(message)?);
        super::decisions::refresh_message(common, chat, message, &decision).await?;
        super::operations::tell_applied(common, chat, applied.as_ref()).await?;
    }
    Ok(())
}
