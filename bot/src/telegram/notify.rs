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
use super::handlers::HandlerResult;
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
            ("decision outcomes on the phone", phone_outcomes(&app).await),
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
        push_decision(app, &decision).await?;
        let message = post_decision(app, chat, &decision).await?;
        app.store
            .set_decision_message(decision.id, chat, i64::from(message.0))
            .await?;
    }
    Ok(())
}

/// Queues a decision's push with its signed A/B/C buttons.
async fn push_decision(app: &App, decision: &ulias_core::domain::Decision) -> HandlerResult {
    let Some(ntfy) = &app.ntfy else {
        return Ok(());
    };
    let text = decision_text(app, decision);
    let push = match ntfy.signer() {
        Some(signer) => crate::ntfy::compose::decision(&app.texts, signer, decision, &text),
        // No key: the phone is told, and answers in the chat.
        None => crate::ntfy::compose::alert(
            &app.texts,
            &app.texts
                .with("ntfy-decision-title", &[arg("id", decision.id)]),
            &text,
            decision.urgency,
        ),
    };
    app.store.queue_push(&push, app.clock.now()).await?;
    Ok(())
}

/// Each decision pushed to the phone that has ended (answered by button or
/// phone, timed out, cancelled) gets its outcome pushed once: its buttons
/// on the phone no longer look open.
async fn phone_outcomes(app: &App) -> HandlerResult {
    if app.ntfy.is_none() {
        return Ok(());
    }
    for id in app.store.decisions_awaiting_outcome_push().await? {
        let decision = app.store.decision(id).await?;
        if let Some(push) = crate::ntfy::compose::outcome(&app.texts, &decision) {
            app.store.queue_push(&push, app.clock.now()).await?;
        }
    }
    Ok(())
}

/// The cursor of the ntfy reply topic's stream.
const NTFY_CURSOR: &str = "ntfy_replies";

/// Follows the ntfy reply topic: each `decision:<id>:<letter>` answers its
/// decision once (a repeat is refused by the store and ignored). The last
/// event read is kept, so a dropped stream or a restart resumes after it.
pub async fn ntfy_replies(app: Arc<App>) {
    let Some(ntfy) = app.ntfy.clone() else {
        return;
    };
    let Some(signer) = ntfy.signer().cloned() else {
        tracing::warn!("`ntfy.signing_key` is not set: decisions are pushed without buttons");
        return;
    };
    let mut backoff = RECONNECT_MIN;
    loop {
        match open_stream(&app, &ntfy).await {
            // Refused or unreachable: wait longer each time (ntfy limits
            // requests per IP; retrying every second gets the pushes
            // blocked too).
            Err(error) => {
                tracing::warn!(%error, ?backoff, "the ntfy reply stream cannot be opened; trying again later");
                let nanos = app.clock.now().timestamp_subsec_nanos();
                tokio::time::sleep(with_jitter(backoff, nanos)).await;
                backoff = next_backoff(backoff);
            }
            Ok(response) => {
                backoff = RECONNECT_MIN;
                if let Err(error) = follow(&app, &signer, response).await {
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
    app: &App,
    ntfy: &crate::ntfy::Ntfy,
) -> Result<reqwest::Response, super::handlers::HandlerError> {
    let since = app.store.cursor(NTFY_CURSOR).await?;
    Ok(ntfy
        .subscribe(Some(since.as_deref().unwrap_or("all")))
        .await?)
}

async fn follow(
    app: &App,
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
            match signer.verify(body, app.clock.now()) {
                Ok(answer) => apply_phone_answer(app, answer).await?,
                Err(refusal) => refuse_reply(app, body, &refusal).await?,
            }
            app.store
                .set_cursor(NTFY_CURSOR, &event.id, app.clock.now())
                .await?;
        }
    }
    Ok(())
}

/// A reply without a valid signature, or expired, changes nothing: it is
/// logged and audited.
async fn refuse_reply(app: &App, body: &str, refusal: &crate::ntfy::Refusal) -> HandlerResult {
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
    app.store.audit(&entry, app.clock.now()).await?;
    Ok(())
}

async fn apply_phone_answer(app: &App, answer: crate::ntfy::Answer) -> HandlerResult {
    use ulias_core::domain::{DecisionAnswer, DecisionId};
    use ulias_core::store::StoreError;
    let id = DecisionId::new(answer.decision);
    let reply = DecisionAnswer {
        option: answer.option,
        by: "ntfy".to_owned(),
    };
    let decision = match app.store.answer_decision(id, &reply, app.clock.now()).await {
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
    let applied = match app.engine.apply_decision(&decision).await {
        Ok(applied) => Some(applied),
        Err(error) => {
            tracing::warn!(decision = %id, %error, "decision answered, not carried out yet");
            None
        }
    };
    if let Some((chat, message)) = app.store.decision_message(id).await? {
        let message = MessageId(i32::try_from(message)?);
        app.bot
            .edit_message_text(ChatId(chat), message, clip(&decision_text(app, &decision)))
            .await?;
        let told = applied
            .as_ref()
            .and_then(|a| super::operations::applied_text(&app.texts, a, app.clock.now()));
        if let Some(text) = told {
            app.bot.send_message(ChatId(chat), clip(&text)).await?;
        }
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
) -> Result<String, super::handlers::HandlerError> {
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
pub async fn summary_text(app: &App) -> Result<String, super::handlers::HandlerError> {
    Ok(today_summary(app).await?.render(&app.texts))
}

async fn today_summary(app: &App) -> Result<crate::report::Summary, super::handlers::HandlerError> {
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
