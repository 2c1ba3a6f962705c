//! What waits for people, shown as it appears: new validations in the team
//! chat, new decisions in the CEO's chat, decisions that timed out (edited
//! and announced by the engine's alert), and each objective's progress in
//! its confirmation message. Everything shown is recorded in the store, so
//! a restart shows nothing twice and misses nothing.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::TimeDelta;
use teloxide::prelude::*;
use teloxide::types::MessageId;
use ulias_core::domain::{ObjectiveStatus, TaskStatus};
use ulias_core::settings::{CeoSettings, EngineSettings, GroupSettings};

use super::decisions::post_decision;
use super::edge::clip;
use super::error::HandlerResult;
use super::groups::Community;
use super::previews::post_validation;
use super::{Common, Roles};
use crate::i18n::arg;
use crate::ntfy::Ntfy;

/// Objectives older than this no longer get progress edits.
const PROGRESS_WINDOW: TimeDelta = TimeDelta::days(7);
/// The alert scope that makes a timed-out decision's edit happen once.
const CLOSED_SCOPE: &str = "decision_closed_shown";

/// Runs every `engine.notify_seconds` until the process stops.
pub async fn run(
    common: Arc<Common>,
    roles: Arc<Roles>,
    ntfy: Option<Arc<Ntfy>>,
    community: Arc<Community>,
    engine: EngineSettings,
    ceo: Arc<CeoSettings>,
) {
    let (common, roles, ntfy) = (&*common, &*roles, ntfy.as_deref());
    let groups = &community.groups;
    let mut shown: HashMap<i64, String> = HashMap::new();
    let mut every = tokio::time::interval(Duration::from_secs(engine.notify_seconds));
    loop {
        every.tick().await;
        for (what, result) in [
            (
                "daily summary",
                daily_summary(common, roles, ntfy, &engine).await,
            ),
            (
                "weekly summary",
                weekly_summary(common, roles, ntfy, &ceo).await,
            ),
            (
                "answers",
                super::answers::send_answers(common, ntfy, &ceo).await,
            ),
            ("proposals", super::proposals::show(common, roles).await),
            ("validations", validations(common, roles, groups).await),
            (
                "tied votes",
                super::votes::announce_ties(common, roles).await,
            ),
            ("decisions", decisions(common, roles, ntfy).await),
            ("timed-out decisions", timed_out(common).await),
            (
                "decision outcomes on the phone",
                super::phone::phone_outcomes(common, ntfy).await,
            ),
            ("progress", progress(common, &mut shown).await),
        ] {
            if let Err(error) = result {
                tracing::warn!(%error, "could not show the {what}");
            }
        }
    }
}

async fn validations(common: &Common, roles: &Roles, groups: &[GroupSettings]) -> HandlerResult {
    let Some(chat) = roles.team_chat else {
        return Ok(());
    };
    // One that cannot be shown (tried again next time) never holds up
    // those after it.
    for validation in common.store.unposted_validations().await? {
        match post_validation(common, roles, groups, chat, &validation).await {
            Ok(message) => {
                common
                    .store
                    .set_validation_message(validation.id, chat, i64::from(message.0))
                    .await?;
            }
            Err(error) => {
                tracing::warn!(%error, validation = %validation.id, "a validation could not be shown");
            }
        }
    }
    Ok(())
}

async fn decisions(common: &Common, roles: &Roles, ntfy: Option<&Ntfy>) -> HandlerResult {
    let Some(chat) = roles.ceo_chat else {
        return Ok(());
    };
    for decision in common.store.unposted_decisions().await? {
        // Queued first: a decision is pushed once (the store keeps one
        // push per decision), even if posting it to the chat is retried.
        // A chat that refuses it (the CEO never started the bot) skips
        // neither the push nor the decisions after it.
        super::phone::push_decision(common, ntfy, &decision).await?;
        match post_decision(common, chat, &decision).await {
            Ok(message) => {
                common
                    .store
                    .set_decision_message(decision.id, chat, i64::from(message.0))
                    .await?;
            }
            Err(error) => {
                tracing::warn!(%error, decision = %decision.id, "a decision could not be shown");
            }
        }
    }
    Ok(())
}

/// A decision that timed out: its message shows the automatic choice, and
/// the CEO is told once.
async fn timed_out(common: &Common) -> HandlerResult {
    for (decision, chat, message) in common.store.timed_out_shown_decisions().await? {
        let first = common
            .store
            .mark_alert_sent(CLOSED_SCOPE, &decision.id.to_string(), common.clock.now())
            .await?;
        if !first {
            continue;
        }
        let message = MessageId(i32::try_from(message)?);
        super::decisions::refresh_message(common, chat, message, &decision).await?;
        let option =
            crate::decision_text::option_label(&common.texts, &decision, decision.response);
        common
            .bot
            .send_message(
                ChatId(chat),
                common.texts.with(
                    "decision-timed-out",
                    &[arg("id", decision.id), arg("option", option)],
                ),
            )
            .await?;
    }
    Ok(())
}

/// Edits each recent objective's confirmation as its tasks finish.
async fn progress(common: &Common, shown: &mut HashMap<i64, String>) -> HandlerResult {
    let since = common.clock.now() - PROGRESS_WINDOW;
    for objective in common.store.progress_messages(since).await? {
        let text = progress_text(common, &objective).await?;
        let id = objective.objective_id.get();
        if shown.get(&id) == Some(&text) {
            continue;
        }
        let message = MessageId(i32::try_from(objective.message_id)?);
        // A message that cannot be edited (deleted by the CEO, say) is not
        // tried again until its text changes.
        if let Err(error) = common
            .bot
            .edit_message_text(ChatId(objective.chat_id), message, clip(&text))
            .await
        {
            tracing::warn!(%error, objective = id, "could not edit the progress message");
        }
        shown.insert(id, text);
    }
    Ok(())
}

async fn progress_text(
    common: &Common,
    objective: &ulias_core::store::ProgressMessage,
) -> Result<String, super::error::HandlerError> {
    let head = common.texts.with(
        "progress-line",
        &[
            arg("id", objective.objective_id),
            arg("title", &objective.title),
        ],
    );
    let tasks = common
        .store
        .tasks_of_objective(objective.objective_id)
        .await?;
    let state = match objective.status {
        ObjectiveStatus::Completed => common.texts.get("progress-completed"),
        ObjectiveStatus::Failed => common.texts.get("progress-failed"),
        ObjectiveStatus::Cancelled => common.texts.get("progress-cancelled"),
        ObjectiveStatus::Blocked => common.texts.get("progress-blocked"),
        ObjectiveStatus::Pending | ObjectiveStatus::Planning => {
            common.texts.get("progress-planning")
        }
        _ if tasks.is_empty() => common.texts.get("progress-planning"),
        _ => {
            let done = tasks
                .iter()
                .filter(|t| t.status == TaskStatus::Completed)
                .count();
            let running: Vec<String> = tasks
                .iter()
                .filter(|t| t.status == TaskStatus::Running)
                .map(|t| t.agent.to_string())
                .collect();
            let mut state = common.texts.with(
                "progress-count",
                &[arg("done", done), arg("total", tasks.len())],
            );
            if !running.is_empty() {
                state.push_str(" — ");
                state.push_str(
                    &common
                        .texts
                        .with("progress-running", &[arg("agents", running.join(", "))]),
                );
            }
            state
        }
    };
    Ok(format!("{head}\n{state}"))
}

/// The cursor that records the last day (UTC, `%Y-%m-%d`) the summary was sent.
pub const SUMMARY_CURSOR: &str = "daily_summary";

/// Sends the day's summary once, at `engine.daily_report_hour` (UTC), to
/// the CEO's chat (text and chart) and by ntfy (text).
async fn daily_summary(
    common: &Common,
    roles: &Roles,
    ntfy: Option<&Ntfy>,
    engine: &EngineSettings,
) -> HandlerResult {
    use chrono::Timelike;
    let now = common.clock.now();
    let today = now.format("%Y-%m-%d").to_string();
    if now.hour() < engine.daily_report_hour
        || common.store.cursor(SUMMARY_CURSOR).await?.as_deref() == Some(today.as_str())
    {
        return Ok(());
    }
    let Some(chat) = roles.ceo_chat else {
        return Ok(());
    };
    send_summary(common, ntfy, chat).await?;
    common.store.set_cursor(SUMMARY_CURSOR, &today, now).await?;
    Ok(())
}

/// The cursor that records the last week (ISO, `%G-W%V`) the weekly summary was sent.
pub const WEEKLY_CURSOR: &str = "weekly_summary";

/// Sends the week's figures and chart once, on Sunday from
/// `ceo.weekly_report_hour` (UTC), to the CEO's chat and by ntfy.
async fn weekly_summary(
    common: &Common,
    roles: &Roles,
    ntfy: Option<&Ntfy>,
    ceo: &CeoSettings,
) -> HandlerResult {
    use chrono::{Datelike, Timelike, Weekday};
    use teloxide::types::InputFile;
    let now = common.clock.now();
    let week = now.format("%G-W%V").to_string();
    if now.weekday() != Weekday::Sun
        || now.hour() < ceo.weekly_report_hour
        || common.store.cursor(WEEKLY_CURSOR).await?.as_deref() == Some(week.as_str())
    {
        return Ok(());
    }
    let Some(chat) = roles.ceo_chat else {
        return Ok(());
    };
    let (text, chart) = crate::stats::weekly(&common.store, &common.texts, now).await?;
    common.bot.send_message(ChatId(chat), clip(&text)).await?;
    common
        .bot
        .send_photo(
            ChatId(chat),
            InputFile::memory(chart).file_name("ulias-week.png"),
        )
        .caption(common.texts.get("weekly-chart"))
        .await?;
    common.store.set_cursor(WEEKLY_CURSOR, &week, now).await?;
    push_summary(common, ntfy, &text).await?;
    Ok(())
}

/// Queues a summary for ntfy (its first line as the title).
async fn push_summary(common: &Common, ntfy: Option<&Ntfy>, text: &str) -> HandlerResult {
    if ntfy.is_some() {
        let title = text.lines().next().unwrap_or_default();
        let push = crate::ntfy::compose::alert(
            &common.texts,
            title,
            text,
            ulias_core::domain::Urgency::Low,
        );
        common.store.queue_push(&push, common.clock.now()).await?;
    }
    Ok(())
}

/// Today's summary (UTC), as text.
pub async fn summary_text(common: &Common) -> Result<String, super::error::HandlerError> {
    Ok(today_summary(common).await?.render(&common.texts))
}

async fn today_summary(
    common: &Common,
) -> Result<crate::report::Summary, super::error::HandlerError> {
    let now = common.clock.now();
    let day_start = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|midnight| midnight.and_utc())
        .unwrap_or(now);
    Ok(crate::report::Summary::of_day(&common.store, day_start).await?)
}

/// Sends today's summary to `chat` (text, then the chart) and by ntfy.
pub async fn send_summary(common: &Common, ntfy: Option<&Ntfy>, chat: i64) -> HandlerResult {
    use teloxide::types::InputFile;
    let summary = today_summary(common).await?;
    let text = summary.render(&common.texts);
    common.bot.send_message(ChatId(chat), clip(&text)).await?;
    let chart = summary.chart_png()?;
    common
        .bot
        .send_photo(
            ChatId(chat),
            InputFile::memory(chart).file_name("ulias-14-days.png"),
        )
        .caption(common.texts.get("report-chart"))
        .await?;
    push_summary(common, ntfy, &text).await?;
    Ok(())
}
