//! The commands, registered in French (the default) and English, and
//! answered in the configured language.

use chrono::{Datelike, TimeZone, Utc};
use teloxide::prelude::*;
use teloxide::types::BotCommand;
use teloxide::utils::command::BotCommands;
use ulias_core::clock::SharedClock;
use ulias_core::domain::{ObjectiveId, ObjectiveStatus, TaskStatus};
use ulias_core::settings::{BudgetSettings, Locale};

use super::edge::{Incoming, clip};
use super::error::{HandlerError, HandlerResult};
use super::{Common, Role, Roles, TgBot, Work, operations};
use crate::i18n::{Texts, arg};
use crate::ntfy::Ntfy;
use ulias_agents::operations::PrereportPurpose;

/// What the bot understands after a `/`.
#[derive(BotCommands, Clone, Debug, PartialEq)]
#[command(rename_rule = "lowercase")]
pub enum Command {
    Status,
    Objectives,
    Decisions,
    Validations,
    Pause(String),
    Resume(String),
    Stop(String),
    Takeover(String),
    Prereport(String),
    Ops,
    Op(String),
    Budget,
    Log(String),
    Report,
    Validation(String),
    Stats(String),
    Profile,
    Help,
    Start,
}

/// The commands as the menu shows them, with their description key.
const MENU: [(&str, &str); 18] = [
    ("status", "cmd-status"),
    ("takeover", "cmd-takeover"),
    ("prereport", "cmd-prereport"),
    ("ops", "cmd-ops"),
    ("op", "cmd-op"),
    ("objectives", "cmd-objectives"),
    ("decisions", "cmd-decisions"),
    ("validations", "cmd-validations"),
    ("pause", "cmd-pause"),
    ("resume", "cmd-resume"),
    ("stop", "cmd-stop"),
    ("budget", "cmd-budget"),
    ("log", "cmd-log"),
    ("report", "cmd-report"),
    ("validation", "cmd-validation"),
    ("stats", "cmd-stats"),
    ("profile", "cmd-profile"),
    ("help", "cmd-help"),
];

/// Registers the menu: French by default, English for English clients.
pub async fn register(bot: &TgBot) {
    for (locale, language) in [(Locale::Fr, None), (Locale::En, Some("en"))] {
        let texts = Texts::new(locale);
        let menu: Vec<BotCommand> = MENU
            .iter()
            .map(|(name, key)| BotCommand::new(*name, texts.get(key)))
            .collect();
        let mut request = bot.set_my_commands(menu);
        if let Some(language) = language {
            request = request.language_code(language);
        }
        if let Err(error) = request.await {
            tracing::warn!(%error, "could not register the command menu");
        }
    }
}

/// Answers a command from the CEO or the team; `username` is the bot's
/// (`/status@username`).
pub async fn answer(
    common: &Common,
    work: &Work,
    roles: &Roles,
    ntfy: Option<&Ntfy>,
    budgets: &BudgetSettings,
    username: &str,
    incoming: &Incoming,
) -> HandlerResult {
    let role = roles.of(incoming.user_id);
    let text = match Command::parse(&incoming.text, username) {
        Ok(Command::Report) => {
            return super::notify::send_summary(common, ntfy, incoming.chat_id).await;
        }
        Ok(Command::Profile) if role == Role::Ceo => {
            return super::profile::show(common, incoming.chat_id).await;
        }
        Ok(Command::Takeover(args)) if role == Role::Ceo => {
            let purpose = PrereportPurpose::OfferStart;
            operations::ask_prereport(common, work, incoming.chat_id, &args, purpose).await?;
            return Ok(());
        }
        Ok(Command::Prereport(args)) if role == Role::Ceo => {
            let purpose = PrereportPurpose::ReportOnly;
            operations::ask_prereport(common, work, incoming.chat_id, &args, purpose).await?;
            return Ok(());
        }
        Ok(Command::Validation(args)) if role != Role::Stranger => {
            audit_setting(common, roles, incoming, &args).await?;
            toggle_validation(common, roles, &args, incoming, role).await?
        }
        Ok(command) if allowed(&command, role) => run(common, work, budgets, command).await?,
        Ok(_) => common.texts.get("not-allowed"),
        Err(_) => common.texts.get("unknown-command"),
    };
    common
        .bot
        .send_message(ChatId(incoming.chat_id), clip(&text))
        .await?;
    Ok(())
}

/// The team may look; only the CEO may change course.
fn allowed(command: &Command, role: Role) -> bool {
    match command {
        Command::Pause(_)
        | Command::Resume(_)
        | Command::Stop(_)
        | Command::Takeover(_)
        | Command::Prereport(_)
        | Command::Profile => role == Role::Ceo,
        _ => role != Role::Stranger,
    }
}

async fn run(
    common: &Common,
    work: &Work,
    budgets: &BudgetSettings,
    command: Command,
) -> Result<String, HandlerError> {
    let t = &common.texts;
    let store = &common.store;
    let now = common.clock.now();
    Ok(match command {
        Command::Status => status(common, work).await?,
        Command::Objectives => {
            let mut objectives = store
                .objectives_with_status(ObjectiveStatus::InProgress)
                .await?;
            objectives.extend(
                store
                    .objectives_with_status(ObjectiveStatus::Planning)
                    .await?,
            );
            objectives.extend(
                store
                    .objectives_with_status(ObjectiveStatus::Blocked)
                    .await?,
            );
            let lines: Vec<String> = objectives
                .iter()
                .map(|o| {
                    t.with(
                        "objectives-line",
                        &[
                            arg("id", o.id),
                            arg("title", &o.title),
                            arg("status", o.status),
                        ],
                    )
                })
                .collect();
            listing(t, "objectives-title", "objectives-empty", lines)
        }
        Command::Decisions => {
            let lines = store
                .pending_decisions()
                .await?
                .iter()
                .map(|d| {
                    t.with(
                        "decisions-line",
                        &[
                            arg("id", d.id),
                            arg("question", crate::decision_text::question(t, d)),
                        ],
                    )
                })
                .collect();
            listing(t, "decisions-title", "decisions-empty", lines)
        }
        Command::Validations => {
            let lines = store
                .pending_validations()
                .await?
                .iter()
                .map(|v| {
                    let step = v
                        .payload
                        .get("step")
                        .and_then(|s| s.as_str())
                        .unwrap_or_default()
                        .to_owned();
                    t.with(
                        "validations-line",
                        &[arg("id", v.id), arg("kind", v.kind), arg("step", step)],
                    )
                })
                .collect();
            listing(t, "validations-title", "validations-empty", lines)
        }
        Command::Pause(op) if !op.trim().is_empty() => operations::hold(common, &op, true).await?,
        Command::Resume(op) if !op.trim().is_empty() => {
            operations::hold(common, &op, false).await?
        }
        Command::Pause(_) => t.with(
            "paused",
            &[arg("count", store.pause_all_objectives(now).await?)],
        ),
        Command::Resume(_) => t.with(
            "resumed",
            &[arg("count", store.resume_all_objectives().await?)],
        ),
        Command::Stop(op) if op.trim().to_lowercase().starts_with("op") => {
            operations::ask_stop(common, &op).await?
        }
        // Answered with their own message (the report replies to it).
        Command::Takeover(_) | Command::Prereport(_) => t.get("not-allowed"),
        Command::Ops => operations::list(common, budgets).await?,
        Command::Op(args) => operations::show(common, &args).await?,
        Command::Stop(id) => match id.trim().trim_start_matches('#').parse::<i64>() {
            Ok(id) => match store.stop_objective(ObjectiveId::new(id), now).await {
                Ok(tasks) => t.with("stopped", &[arg("id", id), arg("tasks", tasks)]),
                Err(_) => t.with("not-found", &[arg("id", id)]),
            },
            Err(_) => t.get("stop-usage"),
        },
        Command::Budget => budget(common, budgets).await?,
        Command::Log(id) => match id.trim().trim_start_matches('#').parse::<i64>() {
            Ok(id) => objective_log(common, ObjectiveId::new(id)).await?,
            Err(_) => t.get("log-usage"),
        },
        Command::Report => super::notify::summary_text(common).await?,
        // Answered before this point, with who asks.
        Command::Validation(_) => t.get("not-allowed"),
        Command::Stats(args) => match args.trim() {
            "help" | "aide" => crate::stats::help(t),
            _ => crate::stats::Stats::at(store, now).await?.render(t),
        },
        // Shown with its buttons before this point; reached by no one else.
        Command::Profile => t.get("not-allowed"),
        Command::Help | Command::Start => {
            let mut lines = vec![t.get("help-title")];
            lines.extend(
                MENU.iter()
                    .map(|(name, key)| format!("/{name} — {}", t.get(key))),
            );
            lines.join("\n")
        }
    })
}

/// A team member's `/validation <op> off`: a decision for the CEO.
async fn ask_ceo_validation_off(
    common: &Common,
    operation: &ulias_core::domain::Operation,
    incoming: &Incoming,
) -> Result<String, HandlerError> {
    use ulias_core::domain::{DecisionKind, DecisionOption, NewDecision};
    let decision = NewDecision {
        operation_id: Some(operation.id),
        recommended: Some(DecisionOption::Refuse),
        ..NewDecision::new(DecisionKind::ValidationOff {
            operation: operation.id,
            name: operation.name.clone(),
            asked_by: incoming.user_name.clone(),
        })
    };
    let asked = common
        .store
        .create_decision(&decision, common.clock.now())
        .await?;
    Ok(common.texts.with(
        "validation-off-asked",
        &[arg("id", operation.id), arg("decision", asked.id)],
    ))
}

/// Every change of a setting from the chat is audited.
async fn audit_setting(
    common: &Common,
    roles: &Roles,
    incoming: &Incoming,
    args: &str,
) -> HandlerResult {
    use ulias_core::store::{ActorRole, AuditEntry};
    let role = match roles.of(incoming.user_id) {
        Role::Ceo => ActorRole::Ceo,
        Role::Team => ActorRole::Team,
        Role::Stranger => ActorRole::Unknown,
    };
    let entry = AuditEntry {
        actor: &incoming.user_id.to_string(),
        role,
        action: "validation_required_changed",
        target_kind: Some("operation"),
        target_id: args.split_whitespace().next().map(str::to_owned),
        details: serde_json::json!({"command": incoming.text}),
    };
    common.store.audit(&entry, common.clock.now()).await?;
    Ok(())
}

/// `/validation <operation> on|off`: the team's validation of an
/// operation's public outputs (when off, they publish directly, still logged).
///
/// Turning it off takes the CEO: a team member's request becomes a CEO
/// decision; turning it back on is the team's to do, and the CEO is told.
async fn toggle_validation(
    common: &Common,
    roles: &Roles,
    args: &str,
    incoming: &Incoming,
    role: Role,
) -> Result<String, HandlerError> {
    let t = &common.texts;
    let mut words = args.split_whitespace();
    let operation = words
        .next()
        .map(|w| w.trim_start_matches('#').parse::<i64>());
    let required = match words.next() {
        Some("on") => Some(true),
        Some("off") => Some(false),
        _ => None,
    };
    let (Some(Ok(operation)), Some(required)) = (operation, required) else {
        return Ok(t.get("validation-usage"));
    };
    let id = ulias_core::domain::OperationId::new(operation);
    let current = match common.store.operation(id).await {
        Ok(current) => current,
        Err(ulias_core::store::StoreError::NotFound { .. }) => {
            return Ok(t.with("not-found", &[arg("id", operation)]));
        }
        Err(error) => return Err(error.into()),
    };
    if !required && role != Role::Ceo {
        return ask_ceo_validation_off(common, &current, incoming).await;
    }
    common
        .store
        .set_validation_required(id, required, common.clock.now())
        .await?;
    if role != Role::Ceo
        && let Some(ceo) = roles.ceo_chat
    {
        let told = t.with(
            "validation-changed-by",
            &[arg("id", operation), arg("who", &incoming.user_name)],
        );
        common.bot.send_message(ChatId(ceo), clip(&told)).await?;
    }
    let state = t.get(if required {
        "validation-state-on"
    } else {
        "validation-state-off"
    });
    Ok(t.with(
        "validation-toggled",
        &[arg("id", operation), arg("state", state)],
    ))
}

fn listing(t: &Texts, title: &str, empty: &str, lines: Vec<String>) -> String {
    if lines.is_empty() {
        return t.get(empty);
    }
    let mut text = vec![t.get(title)];
    text.extend(lines);
    text.join("\n")
}

async fn status(common: &Common, work: &Work) -> Result<String, HandlerError> {
    let t = &common.texts;
    let counts = common.store.task_counts().await?;
    let count = |status: TaskStatus| {
        counts
            .iter()
            .find(|(s, _)| *s == status)
            .map_or(0, |(_, n)| *n)
    };
    let running = common
        .store
        .objectives_with_status(ObjectiveStatus::InProgress)
        .await?
        .len();
    let pools = work.engine.runner.pools.all();
    let total: usize = pools.iter().map(|p| p.settings.slots as usize).sum();
    let free: usize = pools.iter().map(|p| p.slots.free()).sum();
    let (today, month) = spend(common).await?;
    Ok([
        t.get("status-title"),
        t.with("status-objectives", &[arg("count", running)]),
        t.with(
            "status-tasks",
            &[
                arg(
                    "queued",
                    count(TaskStatus::Queued) + count(TaskStatus::Pending),
                ),
                arg("running", count(TaskStatus::Running)),
                arg("blocked", count(TaskStatus::Blocked)),
            ],
        ),
        t.with(
            "status-slots",
            &[arg("busy", total.saturating_sub(free)), arg("total", total)],
        ),
        t.with("status-money", &[arg("today", today), arg("month", month)]),
    ]
    .join("\n"))
}

async fn budget(common: &Common, budgets: &BudgetSettings) -> Result<String, HandlerError> {
    let t = &common.texts;
    let (today, month) = spend(common).await?;
    let cloud = common
        .store
        .cloud_spend_since(month_start(&common.clock))
        .await?;
    let cap =
        ulias_core::money::Usd::from_dollars(budgets.monthly_cloud_cap_usd).unwrap_or_default();
    Ok([
        t.get("budget-title"),
        t.with("budget-today", &[arg("amount", today)]),
        t.with("budget-month", &[arg("amount", month)]),
        t.with("budget-cloud", &[arg("spent", cloud), arg("cap", cap)]),
    ]
    .join("\n"))
}

async fn spend(
    common: &Common,
) -> Result<(ulias_core::money::Usd, ulias_core::money::Usd), HandlerError> {
    let now = common.clock.now();
    let day = Utc
        .with_ymd_and_hms(now.year(), now.month(), now.day(), 0, 0, 0)
        .single()
        .unwrap_or(now);
    Ok((
        common.store.spend_since(day).await?,
        common.store.spend_since(month_start(&common.clock)).await?,
    ))
}

fn month_start(clock: &SharedClock) -> chrono::DateTime<Utc> {
    let now = clock.now();
    Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

async fn objective_log(common: &Common, id: ObjectiveId) -> Result<String, HandlerError> {
    let t = &common.texts;
    let mut lines = vec![t.with("log-title", &[arg("id", id)])];
    for task in common.store.tasks_of_objective(id).await? {
        for row in common.store.log_of_task(task.id).await? {
            lines.push(t.with(
                "log-line",
                &[
                    arg("agent", &task.agent),
                    arg("summary", &row.entry.summary),
                    arg("cost", row.entry.cost),
                ],
            ));
        }
    }
    if lines.len() == 1 {
        return Ok(t.with("log-empty", &[arg("id", id)]));
    }
    Ok(lines.join("\n"))
}
