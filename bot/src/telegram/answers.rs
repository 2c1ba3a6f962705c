//! Every CEO objective ends with its answer: the result in plain lines (or,
//! failed or stopped, why), as a reply to the objective's message, with
//! Details / Redo and — when the result leaves something to do — its
//! follow-up as one tap. The same text goes by ntfy when the CEO is away.
//!
//! The answer is sent, then recorded on the objective: a crash in between
//! sends it again after the restart rather than never.

use chrono::TimeDelta;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ReplyParameters};
use ulias_agents::answer::Answer;
use ulias_core::domain::{NewObjective, Objective, ObjectiveId, ObjectiveStatus, Urgency};
use ulias_core::settings::CeoSettings;
use ulias_core::store::ProgressMessage;

use super::buttons::Button;
use super::ceo::confirm;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{Common, Work};
use crate::i18n::{Texts, arg};
use crate::ntfy::Ntfy;

/// Objectives older than this are not answered any more (a database
/// restored from long ago does not flood the chat).
const ANSWER_WINDOW: TimeDelta = TimeDelta::days(7);
/// The cursor that keeps when the CEO last wrote (RFC 3339).
pub const CEO_SEEN_CURSOR: &str = "ceo_last_seen";

/// Sends the answer of every finished CEO objective not answered yet.
pub async fn send_answers(
    common: &Common,
    ntfy: Option<&Ntfy>,
    ceo: &CeoSettings,
) -> HandlerResult {
    let since = common.clock.now() - ANSWER_WINDOW;
    for pending in common.store.unanswered_objectives(since).await? {
        answer(common, ntfy, ceo, &pending).await?;
    }
    Ok(())
}

async fn answer(
    common: &Common,
    ntfy: Option<&Ntfy>,
    ceo: &CeoSettings,
    pending: &ProgressMessage,
) -> HandlerResult {
    let objective = common.store.objective(pending.objective_id).await?;
    let answer = Answer::from_result(objective.result.as_ref()).unwrap_or_default();
    let text = answer_text(&common.texts, &objective, &answer);
    let sent = common
        .bot
        .send_message(ChatId(pending.chat_id), clip(&text))
        .reply_parameters(
            ReplyParameters::new(MessageId(i32::try_from(pending.message_id)?))
                .allow_sending_without_reply(),
        )
        .reply_markup(keyboard(&common.texts, &objective, &answer))
        .await?;
    common
        .store
        .record_answer(objective.id, i64::from(sent.id.0), common.clock.now())
        .await?;
    if ceo_away(common, ceo).await? {
        push(common, ntfy, &objective, &text).await?;
    }
    Ok(())
}

/// The answer's text: a head line by outcome, then the lines.
pub fn answer_text(t: &Texts, objective: &Objective, answer: &Answer) -> String {
    let id = arg("id", objective.id);
    let title = arg("title", &objective.title);
    let mut lines = match objective.status {
        ObjectiveStatus::Completed => vec![t.with("answer-completed", &[id, title])],
        ObjectiveStatus::Cancelled => vec![t.with("answer-cancelled", &[id, title])],
        _ => vec![t.with("answer-failed", &[id, title])],
    };
    let reason = objective.error.as_deref().filter(|e| !e.is_empty());
    match (objective.status, reason) {
        (ObjectiveStatus::Completed, _) => {}
        (_, Some(reason)) => lines.push(t.with("answer-reason", &[arg("reason", reason)])),
        (ObjectiveStatus::Cancelled, None) => lines.push(t.get("answer-reason-stopped")),
        (_, None) => {}
    }
    if answer.lines.is_empty() && objective.status == ObjectiveStatus::Completed {
        lines.push(t.get("answer-nothing"));
    }
    lines.extend(answer.lines.iter().cloned());
    if let Some(follow_up) = &answer.follow_up {
        lines.push(t.with("answer-follow-up", &[arg("title", follow_up)]));
    }
    lines.join("\n")
}

fn keyboard(t: &Texts, objective: &Objective, answer: &Answer) -> InlineKeyboardMarkup {
    let id = objective.id.get();
    let mut row = vec![
        InlineKeyboardButton::callback(t.get("button-details"), Button::Details(id).data()),
        InlineKeyboardButton::callback(t.get("button-redo"), Button::Redo(id).data()),
    ];
    if answer.follow_up.is_some() {
        row.push(InlineKeyboardButton::callback(
            t.get("button-follow-up"),
            Button::FollowUp(id).data(),
        ));
    }
    InlineKeyboardMarkup::new([row])
}

/// Whether the CEO wrote nothing for `ceo.away_after_minutes`.
async fn ceo_away(common: &Common, ceo: &CeoSettings) -> Result<bool, HandlerError> {
    let away = TimeDelta::minutes(i64::from(ceo.away_after_minutes));
    let seen = common
        .store
        .cursor(CEO_SEEN_CURSOR)
        .await?
        .and_then(|at| chrono::DateTime::parse_from_rfc3339(&at).ok());
    Ok(seen.is_none_or(|at| common.clock.now() - at.to_utc() >= away))
}

/// Records that the CEO just wrote.
pub async fn ceo_seen(common: &Common) -> HandlerResult {
    let now = common.clock.now();
    common
        .store
        .set_cursor(CEO_SEEN_CURSOR, &now.to_rfc3339(), now)
        .await?;
    Ok(())
}

/// Queues the answer for ntfy: its first line as the title.
async fn push(
    common: &Common,
    ntfy: Option<&Ntfy>,
    objective: &Objective,
    text: &str,
) -> HandlerResult {
    if ntfy.is_none() {
        return Ok(());
    }
    let title = text.lines().next().unwrap_or(&objective.title);
    let body = text.lines().skip(1).collect::<Vec<_>>().join("\n");
    let push = crate::ntfy::compose::alert(&common.texts, title, &body, Urgency::Normal);
    common.store.queue_push(&push, common.clock.now()).await?;
    Ok(())
}

/// Details: each task with its outcome, confidence and cost.
pub async fn details(
    common: &Common,
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    let t = &common.texts;
    let objective = common.store.objective(ObjectiveId::new(id)).await?;
    let mut lines = vec![t.with(
        "details-title",
        &[arg("id", objective.id), arg("title", &objective.title)],
    )];
    let tasks = common.store.tasks_of_objective(objective.id).await?;
    let mut total = ulias_core::money::Usd::ZERO;
    for task in &tasks {
        total += task.cost;
        let result = task
            .result
            .as_ref()
            .and_then(|r| r.get("summary").or_else(|| r.get("lines")))
            .map(|r| match r {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .or_else(|| task.error.clone())
            .unwrap_or_default();
        lines.push(
            t.with(
                "details-line",
                &[
                    arg("id", task.id),
                    arg("agent", &task.agent),
                    arg("title", &task.title),
                    arg("status", task.status),
                    arg(
                        "confidence",
                        task.confidence
                            .map_or("—".to_owned(), |c| format!("{c:.2}")),
                    ),
                    arg("cost", task.cost),
                    arg("tokens", task.tokens_in + task.tokens_out),
                ],
            ),
        );
        if !result.is_empty() {
            lines.push(format!(
                "   {}",
                result.chars().take(300).collect::<String>()
            ));
        }
    }
    lines.push(t.with(
        "details-total",
        &[arg("cost", total), arg("tasks", tasks.len())],
    ));
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    common
        .bot
        .send_message(ChatId(chat), clip(&lines.join("\n")))
        .await?;
    Ok(None)
}

/// Redo: the same objective again, as a new one linked to it.
pub async fn redo(
    common: &Common,
    work: &Work,
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    if !first_press(common, "objective_redo", id).await? {
        return Ok(Some(common.texts.get("decision-already")));
    }
    let objective = common.store.objective(ObjectiveId::new(id)).await?;
    let mut again = NewObjective::from_ceo(objective.title.clone(), objective.description.clone())
        .following(objective.id);
    again.priority = objective.priority;
    again.team = objective.team;
    start(common, work, press, &again).await
}

/// The follow-up the result names, as an objective linked to it.
pub async fn follow_up(
    common: &Common,
    work: &Work,
    press: &Press,
    id: i64,
) -> Result<Option<String>, HandlerError> {
    if !first_press(common, "objective_follow_up", id).await? {
        return Ok(Some(common.texts.get("decision-already")));
    }
    let objective = common.store.objective(ObjectiveId::new(id)).await?;
    let Some(title) = Answer::from_result(objective.result.as_ref()).and_then(|a| a.follow_up)
    else {
        return Ok(Some(common.texts.get("decision-already")));
    };
    let mut next = NewObjective::from_ceo(title.clone(), title).following(objective.id);
    next.team = objective.team;
    start(common, work, press, &next).await
}

/// Whether this is the first press of a one-time button (a double tap
/// creates one objective, not two).
async fn first_press(common: &Common, scope: &str, id: i64) -> Result<bool, HandlerError> {
    Ok(common
        .store
        .mark_alert_sent(scope, &id.to_string(), common.clock.now())
        .await?)
}

async fn start(
    common: &Common,
    work: &Work,
    press: &Press,
    new: &NewObjective,
) -> Result<Option<String>, HandlerError> {
    let objective = common
        .store
        .create_objective(new, common.clock.now())
        .await?;
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    confirm(common, work, chat, &objective).await?;
    Ok(None)
}
