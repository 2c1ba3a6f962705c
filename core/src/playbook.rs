//! Playbooks (`prompts/playbooks/*.toml`): an operation as a fixed table of
//! steps with offsets from J0, dependencies and validation flags. Pure: the
//! file and J0 give the rows; the engine does the rest.
//!
//! A step names an agent, or a non-AI `action` the engine carries out
//! itself. A recurring step (`every_days`) is expanded from its `day` up to
//! its `until_day` (the playbook's horizon by default); instance keys carry
//! their day (`cm.daily_post.d04`). A step may depend only on steps declared
//! above it, so the file's order is always a valid order; a dependency on a
//! recurring step means its latest instance due at or before the dependant.

use std::collections::HashMap;

use chrono::{DateTime, TimeDelta, Utc};
use serde::Deserialize;
use serde_json::Value;

use crate::domain::{AgentName, Priority, Team};

/// The agent name non-AI steps are stored under.
pub const SYSTEM_AGENT: &str = "system";

text_enum! {
    /// A step the engine carries out without a model.
    pub enum StepAction as "step action" {
        /// Start the token buyback (not built: the team is told to do it by hand).
        BuybackStart => "buyback_start",
        /// The community-takeover dossier, a validation for manual submission.
        CtoDossier => "cto_dossier",
        /// Hand the operation over, a manual step the team confirms.
        Handover => "handover",
        /// Count the community vote over both platforms (a tie the X
        /// votes cannot break waits for the team's choice).
        VoteCount => "vote_count",
    }
}

/// One row of an expanded playbook: a task to create.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlannedStep {
    pub key: String,
    /// The agent, or [`SYSTEM_AGENT`] for an action.
    pub agent: AgentName,
    pub action: Option<StepAction>,
    pub kind: String,
    pub title: String,
    pub due_at: DateTime<Utc>,
    /// Keys of earlier rows.
    pub depends_on: Vec<String>,
    pub requires_validation: bool,
    /// A gate: a `no_go` verdict, or a rejected validation, stops the operation.
    pub gate: bool,
    pub priority: Priority,
    pub input: Value,
}

/// A checked playbook.
#[derive(Debug, Clone)]
pub struct Playbook {
    pub name: String,
    pub description: String,
    pub team: Team,
    pub horizon_days: u32,
    steps: Vec<Step>,
}

/// A checked step: its raw fields and who carries it out.
#[derive(Debug, Clone)]
struct Step {
    raw: RawStep,
    agent: AgentName,
    action: Option<StepAction>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlaybook {
    name: String,
    description: String,
    team: String,
    horizon_days: u32,
    #[serde(default, rename = "step")]
    steps: Vec<RawStep>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    key: String,
    #[serde(default)]
    agent: Option<String>,
    #[serde(default)]
    action: Option<String>,
    kind: String,
    title: String,
    #[serde(default)]
    day: u32,
    /// Hours after the day's start (J0's time of day).
    #[serde(default)]
    hour: u32,
    #[serde(default)]
    every_days: Option<u32>,
    #[serde(default)]
    until_day: Option<u32>,
    #[serde(default)]
    depends_on: Vec<String>,
    #[serde(default)]
    validation: bool,
    #[serde(default)]
    gate: bool,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    input: Option<toml::Table>,
}

/// A playbook that cannot be used; each problem names its step and field.
#[derive(Debug, thiserror::Error)]
#[error("invalid playbook {source_name}:\n{}", problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
pub struct PlaybookError {
    pub source_name: String,
    pub problems: Vec<String>,
}

impl Playbook {
    /// Parses and checks a playbook file.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, PlaybookError> {
        let fail = |problems| PlaybookError {
            source_name: source_name.to_owned(),
            problems,
        };
        let raw: RawPlaybook =
            toml::from_str(text).map_err(|e| fail(vec![e.message().to_owned()]))?;
        let mut problems = Vec::new();
        let team = raw.team.parse::<Team>().unwrap_or_else(|e| {
            problems.push(format!("`team`: {e}"));
            Team::Takeover
        });
        let mut seen: Vec<&str> = Vec::new();
        let mut steps = Vec::new();
        for (i, step) in raw.steps.iter().enumerate() {
            if let Some((agent, action)) =
                check_step(i, step, &seen, raw.horizon_days, &mut problems)
            {
                steps.push(Step {
                    raw: step.clone(),
                    agent,
                    action,
                });
            }
            seen.push(&step.key);
        }
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        Ok(Self {
            name: raw.name,
            description: raw.description,
            team,
            horizon_days: raw.horizon_days,
            steps,
        })
    }

    /// The rows for an operation starting at `j0`, in due order (ties keep
    /// the file's order, so dependencies always come first).
    pub fn expand(&self, j0: DateTime<Utc>) -> Vec<PlannedStep> {
        let mut rows: Vec<(usize, PlannedStep)> = Vec::new();
        let mut instances: HashMap<&str, Vec<(DateTime<Utc>, String)>> = HashMap::new();
        for (order, checked) in self.steps.iter().enumerate() {
            let step = &checked.raw;
            for day in self.days_of(step) {
                let due_at = j0 + TimeDelta::days(i64::from(day)) + hours(step.hour);
                let key = match step.every_days {
                    Some(_) => format!("{}.d{day:02}", step.key),
                    None => step.key.clone(),
                };
                let depends_on = step
                    .depends_on
                    .iter()
                    .filter_map(|dep| latest_instance(&instances, dep, due_at))
                    .collect();
                rows.push((order, row(checked, key.clone(), due_at, depends_on)));
                instances
                    .entry(step.key.as_str())
                    .or_default()
                    .push((due_at, key));
            }
        }
        rows.sort_by_key(|(order, row)| (row.due_at, *order));
        rows.into_iter().map(|(_, row)| row).collect()
    }

    fn days_of(&self, step: &RawStep) -> Vec<u32> {
        match step.every_days {
            Some(every) => {
                let until = step.until_day.unwrap_or(self.horizon_days);
                (step.day..=until).step_by(every.max(1) as usize).collect()
            }
            None => vec![step.day],
        }
    }
}

fn row(checked: &Step, key: String, due_at: DateTime<Utc>, depends_on: Vec<String>) -> PlannedStep {
    let step = &checked.raw;
    PlannedStep {
        key,
        agent: checked.agent.clone(),
        action: checked.action,
        kind: step.kind.clone(),
        title: step.title.clone(),
        due_at,
        depends_on,
        requires_validation: step.validation,
        gate: step.gate,
        priority: step
            .priority
            .and_then(Priority::new)
            .unwrap_or(Priority::DEFAULT),
        input: step
            .input
            .as_ref()
            .and_then(|table| serde_json::to_value(table).ok())
            .unwrap_or_else(|| Value::Object(Default::default())),
    }
}

fn hours(hours: u32) -> TimeDelta {
    TimeDelta::hours(i64::from(hours))
}

/// The key of `dep`'s latest instance due at or before `due_at`.
fn latest_instance(
    instances: &HashMap<&str, Vec<(DateTime<Utc>, String)>>,
    dep: &str,
    due_at: DateTime<Utc>,
) -> Option<String> {
    instances
        .get(dep)?
        .iter()
        .rev()
        .find(|(due, _)| *due <= due_at)
        .map(|(_, key)| key.clone())
}

/// Checks one step; its agent and action when they are usable.
fn check_step(
    i: usize,
    step: &RawStep,
    above: &[&str],
    horizon: u32,
    problems: &mut Vec<String>,
) -> Option<(AgentName, Option<StepAction>)> {
    let at = |field: &str| format!("`step[{i}].{field}` ({})", step.key);
    if above.contains(&step.key.as_str()) {
        problems.push(format!("{}: the key is used twice", at("key")));
    }
    let doer = match (&step.agent, &step.action) {
        (Some(agent), None) if agent == SYSTEM_AGENT => {
            problems.push(format!(
                "{}: `{SYSTEM_AGENT}` is reserved for actions",
                at("agent")
            ));
            None
        }
        (Some(agent), None) => match agent.parse::<AgentName>() {
            Ok(agent) => Some((agent, None)),
            Err(e) => {
                problems.push(format!("{}: {e}", at("agent")));
                None
            }
        },
        (None, Some(action)) => match (action.parse::<StepAction>(), SYSTEM_AGENT.parse()) {
            (Ok(action), Ok(system)) => Some((system, Some(action))),
            (Err(e), _) => {
                problems.push(format!("{}: {e}", at("action")));
                None
            }
            (_, Err(e)) => {
                problems.push(format!("{}: {e}", at("action")));
                None
            }
        },
        _ => {
            problems.push(format!("{}: give either `agent` or `action`", at("agent")));
            None
        }
    };
    for dep in &step.depends_on {
        if !above.contains(&dep.as_str()) {
            problems.push(format!(
                "{}: `{dep}` is not a step declared above this one",
                at("depends_on")
            ));
        }
    }
    if step.every_days == Some(0) {
        problems.push(format!("{}: must be at least 1", at("every_days")));
    }
    if step.day > horizon || step.until_day.is_some_and(|until| until > horizon) {
        problems.push(format!(
            "{}: beyond the horizon of {horizon} days",
            at("day")
        ));
    }
    if step.until_day.is_some() && step.every_days.is_none() {
        problems.push(format!(
            "{}: only a recurring step has one",
            at("until_day")
        ));
    }
    if let Some(priority) = step.priority
        && Priority::new(priority).is_none()
    {
        problems.push(format!("{}: {priority} is not within 1–10", at("priority")));
    }
    if step.hour >= 24 {
        problems.push(format!("{}: {} is not within 0–23", at("hour"), step.hour));
    }
    doer
}

#[cfg(test)]
mod tests;
