//! The answers to community questions, sent as they come: the engine runs
//! each question's task like any other; this loop replies to the question
//! with the answer when the agent was sure enough. Each task's answer is
//! marked before it is sent: a crash in between loses one answer, never
//! posts it twice; an answer later than [`STALE_AFTER`] is not sent.

use chrono::TimeDelta;
use serde_json::Value;
use teloxide::prelude::*;
use teloxide::types::{MessageId, ReplyParameters};
use ulias_agents::engine::GROUP_QUESTION;

use super::App;
use super::edge::clip;
use super::groups::{REPLY_TO, ReplyTo};
use super::handlers::HandlerResult;

/// An answer that comes later than this is not sent (the talk moved on).
const STALE_AFTER: TimeDelta = TimeDelta::minutes(10);
/// The alert scope that makes each answer go out once.
const REPLIED_SCOPE: &str = "group_question_replied";

/// Replies to every group question answered since the last pass.
pub async fn send(app: &App) -> HandlerResult {
    let now = app.clock.now();
    let threshold = app.engine.config.confidence_threshold;
    for task in app
        .store
        .completed_tasks_of_kind(GROUP_QUESTION, now - STALE_AFTER)
        .await?
    {
        let Some(reply_to) = task
            .input
            .get(REPLY_TO)
            .and_then(|r| serde_json::from_value::<ReplyTo>(r.clone()).ok())
        else {
            continue;
        };
        let answer = task
            .result
            .as_ref()
            .and_then(|r| r.get("answer"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|a| !a.is_empty());
        let sure = task.confidence.is_none_or(|c| c >= threshold);
        if !app
            .store
            .mark_alert_sent(REPLIED_SCOPE, &task.id.to_string(), now)
            .await?
        {
            continue;
        }
        let (Some(answer), true) = (answer, sure) else {
            tracing::info!(task = %task.id, "a group question's answer was too unsure to send");
            continue;
        };
        app.bot
            .send_message(ChatId(reply_to.chat_id), clip(answer))
            .reply_parameters(
                ReplyParameters::new(MessageId(reply_to.message_id)).allow_sending_without_reply(),
            )
            .await?;
    }
    Ok(())
}
