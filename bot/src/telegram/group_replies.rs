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
use ulias_agents::schemas::FaqAnswer;
use ulias_antispam::answer_check::{AnswerProblem, check_answer};
use ulias_core::domain::Task;

use super::edge::clip;
use super::error::HandlerResult;
use super::groups::Guard;
use super::groups::{ASKED, REPLY_TO, ReplyTo, allowances};
use super::{Common, Roles, Work};
use crate::i18n::arg;

/// An answer that comes later than this is not sent (the talk moved on).
const STALE_AFTER: TimeDelta = TimeDelta::minutes(10);
/// The alert scope that makes each answer go out once.
const REPLIED_SCOPE: &str = "group_question_replied";

/// Replies to every group question answered since the last pass.
pub async fn send(common: &Common, work: &Work, roles: &Roles, guard: &Guard) -> HandlerResult {
    let now = common.clock.now();
    let threshold = work.engine.config.confidence_threshold;
    for task in common
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
        let reply = task
            .result
            .as_ref()
            .and_then(|r| serde_json::from_value::<FaqAnswer>(r.clone()).ok());
        let answer = reply
            .as_ref()
            .map(|r| r.answer.trim())
            .filter(|a| !a.is_empty());
        let sure = task.confidence.is_none_or(|c| c >= threshold);
        if !common
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
        let sources = reply
            .as_ref()
            .map(|r| r.sources.clone())
            .unwrap_or_default();
        let Some((official, domains, group)) = allowances(guard, reply_to.chat_id) else {
            continue;
        };
        let problems = check_answer(answer, &sources, &official, &domains);
        if !problems.is_empty() {
            hold(common, roles, &task, &group, answer, &problems).await?;
            continue;
        }
        common
            .bot
            .send_message(ChatId(reply_to.chat_id), clip(answer))
            .reply_parameters(
                ReplyParameters::new(MessageId(reply_to.message_id)).allow_sending_without_reply(),
            )
            .await?;
    }
    Ok(())
}

/// An answer the check held: the team reads the question, the answer and
/// why, and answers the group itself if it should be.
async fn hold(
    common: &Common,
    roles: &Roles,
    task: &Task,
    group: &str,
    answer: &str,
    problems: &[AnswerProblem],
) -> HandlerResult {
    let why: Vec<String> = problems.iter().map(ToString::to_string).collect();
    tracing::warn!(task = %task.id, problems = %why.join("; "), "a group answer was held for the team");
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let asked = task
        .input
        .get(ASKED)
        .and_then(Value::as_str)
        .unwrap_or_default();
    let text = common.texts.with(
        "group-answer-held",
        &[
            arg("group", group),
            arg("problems", why.join("; ")),
            arg("question", asked),
            arg("answer", answer),
        ],
    );
    common.bot.send_message(ChatId(team), clip(&text)).await?;
    Ok(())
}
