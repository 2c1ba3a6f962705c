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
use ulias_agents::alerts::{Alert, AlertLevel, keys};
use ulias_core::domain::{ObjectiveStatus, TaskStatus};

use super::App;
use super::edge::clip;
use super::error::HandlerResult;
use super::previews::{decision_text, post_decision, post_validation};
use crate::i18n::arg;

/// Objectives older than this no longer get progress edits.
const PROGRESS_WINDOW: TimeDelta = TimeDelta::days(7);
/// The alert scope that makes a timed-out decision's edit happen once.
const CLOSED_SCOPE: &str = "decision_closed_shown";

/// Runs every `engine.notify_seconds` until the process stops.
pub async fn run(app: Arc<App>) {
    let mut shown: HashMap<i64, String> = HashMap::new();
    let mut every = tokio::time::interval(Duration::from_secs(app.settings.engine.notify_seconds));
    loop {
        every.tick().await;
        for (what, result) in [
            ("daily summary", daily_summary(&app).await),
            ("weekly summary", weekly_summary(&app).await),
            ("answers", super::answers::send_answers(&app).await),
            ("proposals", super::proposals::show(&app).await),
            ("validations", validations(&app).await),
            ("decisions", decisions(&app).await),
            ("timed-out decisions", timed_out(&app).await),
            (
                "decision outcomes on the phone",
                super::phone::phone_outcomes(&app).await,
            ),
            ("progress", progress(&app, &mut shown).await),
        ] {
            if let Err(error) = result {
                tracing::warn!(%error, "could not show the {what}");
            }
        }
    }
}

async fn validations(app: &App) -> HandlerResult {
    let Some(chat) = app.roles.team_chat else {
        return Ok(());
    };
    for validation in app.store.unposted_validations().await? {
        let message = post_validation(app, chat, &validation).await?;
        app.store
            .set_validation_message(validation.id, chat, i64::from(message.0))
            .await?;
    }
    Ok(())
}

async fn decisions(app: &App) -> HandlerResult {
    let Some(chat) = app.roles.ceo_chat else {
        return Ok(());
    };
    for decision in app.store.unposted_decisions().await? {
        // Queued first: a decision is pushed once (the store keeps one
        // push per decision), even if posting it to the chat is retried.
        super::phone::push_decision(app, &decision).await?;
        let message = post_decision(app, chat, &decision).await?;
        app.store
            .set_decision_message(decision.id, chat, i64::from(message.0))
            .await?;
    }
    Ok(())
}

/// A decision that timed out: its message shows the automatic choice, and
/// the CEO is told once.
async fn timed_out(app: &App) -> HandlerResult {
    for (decision, chat, message) in app.store.timed_out_shown_decisions().await? {
        let first = app
            .store
            .mark_alert_sent(CLOSED_SCOPE, &decision.id.to_string(), app.clock.now())
            .await?;
        if !first {
            continue;
        }
        let message = MessageId(i32::try_from(message)?);
        app.bot
            .edit_message_text(ChatId(chat), message, clip(&decision_text(app, &decision)))
            .await?;
        let option = crate::decision_text::option_label(&app.texts, &decision, decision.response);
        app.bot
            .send_message(
                ChatId(chat),
                app.texts.with(
                    "decision-timed-out",
                    &[arg("id", decision.id), arg("option", option)],
                ),
            )
            .await?;
    }
    Ok(())
}

/// Edits each recent objective's confirmation as its tasks finish.
async fn progress(app: &App, shown: &mut HashMap<i64, String>) -> HandlerResult {
    let since = app.clock.now() - PROGRESS_WINDOW;
    for objective in app.store.progress_messages(since).await? {
        let text = progress_text(app, &objective).await?;
        let id = objective.objective_id.get();
        if shown.get(&id) == Some(&text) {
            continue;
        }
        let message = MessageId(i32::try_from(objective.message_id)?);
        // A message that cannot be edited (deleted by the CEO, say) is not
        // tried again until its text changes.
        if let Err(error) = app
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
    app: &App,
    objective: &ulias_core::store::ProgressMessage,
) -> Result<String, super::error::HandlerError> {
    let head = app.texts.with(
        "progress-line",
        &[
            arg("id", objective.objective_id),
            arg("title", &objective.title),
        ],
    );
    let tasks = app.store.tasks_of_objective(objective.objective_id).await?;
    let state = match objective.status {
        ObjectiveStatus::Completed => app.texts.get("progress-completed"),
        ObjectiveStatus::Failed => app.texts.get("progress-failed"),
        ObjectiveStatus::Cancelled => app.texts.get("progress-cancelled"),
        ObjectiveStatus::Blocked => app.texts.get("progress-blocked"),
        ObjectiveStatus::Pending | ObjectiveStatus::Planning => app.texts.get("progress-planning"),
        _ if tasks.is_empty() => app.texts.get("progress-planning"),
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
            let mut state = app.texts.with(
                "progress-count",
                &[arg("done", done), arg("total", tasks.len())],
            );
            if !running.is_empty() {
                state.push_str(" — ");
                state.push_str(
                    &app.texts
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
async fn daily_summary(app: &App) -> HandlerResult {
    use chrono::Timelike;
    let now = app.clock.now();
    let today = now.format("%Y-%m-%d").to_string();
    if now.hour() < app.settings.engine.daily_report_hour
        || app.store.cursor(SUMMARY_CURSOR).await?.as_deref() == Some(today.as_str())
    {
        return Ok(());
    }
    let Some(chat) = app.roles.ceo_chat else {
        return Ok(());
    };
    send_summary(app, chat).await?;
    app.store.set_cursor(SUMMARY_CURSOR, &today, now).await?;
    Ok(())
}

/// The cursor that records the last week (ISO, `%G-W%V`) the weekly summary was sent.
pub const WEEKLY_CURSOR: &str = "weekly_summary";

/// Sends the week's figures and chart once, on Sunday from
/// `ceo.weekly_report_hour` (UTC), to the CEO's chat and by ntfy.
async fn weekly_summary(app: &App) -> HandlerResult {
    use chrono::{Datelike, Timelike, Weekday};
    use teloxide::types::InputFile;
    let now = app.clock.now();
    let week = now.format("%G-W%V").to_string();
    if now.weekday() != Weekday::Sun
        || now.hour() < app.settings.ceo.weekly_report_hour
        || app.store.cursor(WEEKLY_CURSOR).await?.as_deref() == Some(week.as_str())
    {
        return Ok(());
    }
    let Some(chat) = app.roles.ceo_chat else {
        return Ok(());
    };
    let (text, chart) = crate::stats::weekly(&app.store, &app.texts, now).await?;
    app.bot.send_message(ChatId(chat), clip(&text)).await?;
    app.bot
        .send_photo(
            ChatId(chat),
            InputFile::memory(chart).file_name("ulias-week.png"),
        )
        .caption(app.texts.get("weekly-chart"))
        .await?;
    app.store.set_cursor(WEEKLY_CURSOR, &week, now).await?;
    push_summary(app, &text).await?;
    Ok(())
}

/// Queues a summary for ntfy (its first line as the title).
async fn push_summary(app: &App, text: &str) -> HandlerResult {
    if app.ntfy.is_some() {
        let title = text.lines().next().unwrap_or_default();
        let push =
            crate::ntfy::compose::alert(&app.texts, title, text, ulias_core::domain::Urgency::Low);
        app.store.queue_push(&push, app.clock.now()).await?;
    }
    Ok(())
}

/// Today's summary (UTC), as text.
pub async fn summary_text(app: &App) -> Result<String, super::error::HandlerError> {
    Ok(today_summary(app).await?.render(&app.texts))
}

async fn today_summary(app: &App) -> Result<crate::report::Summary, super::error::HandlerError> {
    let now = app.clock.now();
    let day_start = now
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .map(|midnight| midnight.and_utc())
        .unwrap_or(now);
    Ok(crate::report::Summary::of_day(&app.store, day_start).await?)
}

/// Sends today's summary to `chat` (text, then the chart) and by ntfy.
pub async fn send_summary(app: &App, chat: i64) -> HandlerResult {
    use teloxide::types::InputFile;
    let summary = today_summary(app).await?;
    let text = summary.render(&app.texts);
    app.bot.send_message(ChatId(chat), clip(&text)).await?;
    let chart = summary.chart_png()?;
    app.bot
        .send_photo(
            ChatId(chat),
            InputFile::memory(chart).file_name("ulias-14-days.png"),
        )
        .caption(app.texts.get("report-chart"))
        .await?;
    push_summary(app, &text).await?;
    Ok(())
}

/// Reads each connected X account's mentions every
/// `x.mentions_poll_seconds`. Nothing in a mention is ever acted on; one
/// that carries instructions (an address to post, funds to send, rules to
/// drop) is reported to the CEO and logged.
pub async fn x_mentions(app: Arc<App>) {
    let Ok(vault) = crate::x::TokenVault::new(app.settings.x.token_key.as_ref()) else {
        return;
    };
    let client = match crate::x::XClient::new(app.settings.x.api_url.clone(), &app.settings.http) {
        Ok(client) => client,
        Err(error) => {
            tracing::error!(%error, "the X mentions are not read");
            return;
        }
    };
    let mut every = tokio::time::interval(Duration::from_secs(u64::from(
        app.settings.x.mentions_poll_seconds,
    )));
    loop {
        every.tick().await;
        if let Err(error) = read_mentions(&app, &vault, &client).await {
            tracing::warn!(%error, "could not read the X mentions");
        }
    }
}

async fn read_mentions(
    app: &App,
    vault: &crate::x::TokenVault,
    client: &crate::x::XClient,
) -> HandlerResult {
    use ulias_core::domain::{LogKind, LogScope, NewLogEntry};
    for account in app.store.x_accounts().await? {
        let token = vault.open(&account)?;
        let mentions = client
            .mentions(&token, &account.user_id, account.last_mention_id.as_deref())
            .await?;
        for mention in &mentions {
            if crate::x::is_instruction(&mention.text) {
                let summary = format!(
                    "@{}: a mention with instructions was ignored: {}",
                    account.name,
                    mention.text.chars().take(200).collect::<String>()
                );
                let entry = NewLogEntry::event(
                    LogScope {
                        agent: Some("cm".to_owned()),
                        ..LogScope::default()
                    },
                    LogKind::System,
                    summary,
                );
                app.store.append_log(&entry, app.clock.now()).await?;
                let alert = Alert::new(AlertLevel::Warning, keys::X_MENTION)
                    .with("account", &account.name)
                    .with("text", mention.text.chars().take(500).collect::<String>());
                if let Err(error) = app.engine.runner.alerter.alert(alert).await {
                    tracing::warn!(%error, "could not alert about a mention");
                }
            }
            app.store
                .set_last_mention(&account.name, &mention.id)
                .await?;
        }
    }
    Ok(())
}
