//! `scheduler`: the Anticipator schedules an objective for later — once at
//! a time, or recurring on a cron slot. Nothing runs on the agent's word:
//! the call records a proposal the CEO sees with Accept / Decline / Later
//! buttons, with when it would run in its text, and it is never made
//! automatic, whatever the proposer's record.

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::domain::{NewProposal, Priority, Team};
use ulias_core::schedule::next_cron_run;

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// How far ahead a one-off may be scheduled.
const HORIZON_DAYS: i64 = 90;

/// Schedules an objective, through the CEO.
pub struct Scheduler;

/// Arguments of `scheduler`: give `at` for a one-off or `cron` for a
/// recurring entry, not both.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleArgs {
    /// The objective's title, short and imperative.
    pub title: String,
    /// What to do, with its inputs.
    #[serde(default)]
    pub description: String,
    /// The team that should do it.
    #[serde(default)]
    pub team: Option<String>,
    /// 1–10 (default 5).
    #[serde(default = "default_priority")]
    pub priority: i64,
    /// Why: the pattern and its occurrences.
    pub rationale: String,
    /// One-off: when, RFC 3339 (e.g. 2026-12-06T22:00:00+01:00), within 90 days.
    #[serde(default)]
    pub at: Option<String>,
    /// Recurring: a cron expression, 5 fields, minute first (e.g. `0 22 * * 0`).
    #[serde(default)]
    pub cron: Option<String>,
    /// The cron expression's time zone (default Europe/Paris).
    #[serde(default = "default_zone")]
    pub timezone: String,
}

fn default_priority() -> i64 {
    5
}

fn default_zone() -> String {
    "Europe/Paris".to_owned()
}

/// What was recorded.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Scheduled {
    /// The proposal the CEO will see.
    pub proposal_id: i64,
    /// one_off or recurring.
    pub kind: String,
    /// The (first) run, RFC 3339 UTC.
    pub first_run: String,
    /// Always "pending": nothing runs until the CEO accepts it.
    pub status: String,
}

#[async_trait]
impl TypedTool for Scheduler {
    const NAME: &'static str = "scheduler";
    const DESCRIPTION: &'static str = "Schedule an objective for later (once at a time, or on a cron slot): the CEO gets it as a proposal to accept.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["anticipator"]);
    type Args = ScheduleArgs;
    type Output = Scheduled;

    async fn call(&self, ctx: &ToolContext, args: ScheduleArgs) -> Result<Scheduled, ToolError> {
        let now = ctx.clock.now();
        let (kind, first_run, when) = timing(&args, now)?;
        if args.title.trim().is_empty() {
            return Err(invalid("the title is empty".into()));
        }
        let team = args
            .team
            .as_deref()
            .map(str::parse::<Team>)
            .transpose()
            .map_err(|e| invalid(e.to_string()))?;
        let priority = Priority::new(args.priority)
            .ok_or_else(|| invalid(format!("priority {} is not 1–10", args.priority)))?;
        let description = if args.description.trim().is_empty() {
            when
        } else {
            format!("{}\n\n{when}", args.description.trim())
        };
        let new = NewProposal {
            proposer: ctx.task.agent.clone(),
            task_id: Some(ctx.task.id),
            title: args.title.trim().to_owned(),
            description,
            team,
            priority,
            rationale: args.rationale,
        };
        // Never `automatic`: a schedule always waits for the CEO's yes.
        let proposal = ctx.store.create_proposal(&new, None, now).await?;
        Ok(Scheduled {
            proposal_id: proposal.id.get(),
            kind: kind.to_owned(),
            first_run: first_run.to_rfc3339(),
            status: proposal.status.to_string(),
        })
    }
}

/// The kind, the first run and the line that tells the CEO when.
fn timing(
    args: &ScheduleArgs,
    now: DateTime<Utc>,
) -> Result<(&'static str, DateTime<Utc>, String), ToolError> {
    match (&args.at, &args.cron) {
        (Some(at), None) => {
            let at = DateTime::parse_from_rfc3339(at)
                .map_err(|e| invalid(format!("`at` is not an RFC 3339 time: {e}")))?
                .with_timezone(&Utc);
            if at <= now {
                return Err(invalid(format!("`at` ({at}) is not in the future")));
            }
            if at > now + TimeDelta::days(HORIZON_DAYS) {
                return Err(invalid(format!(
                    "`at` is more than {HORIZON_DAYS} days ahead"
                )));
            }
            let line = format!("Quand : une fois, le {}.", at.format("%Y-%m-%d %H:%M UTC"));
            Ok(("one_off", at, line))
        }
        (None, Some(cron)) => {
            let first = next_cron_run(cron, &args.timezone, now).map_err(invalid)?;
            let line = format!(
                "Quand : récurrent, `{cron}` ({}), première fois le {} — à confirmer.",
                args.timezone,
                first.format("%Y-%m-%d %H:%M UTC")
            );
            Ok(("recurring", first, line))
        }
        _ => Err(invalid(
            "give either `at` (once) or `cron` (recurring), not both".into(),
        )),
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: "scheduler",
        message,
    }
}
