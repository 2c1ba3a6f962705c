//! Starting a playbook operation: the operation, its objective, and one
//! task per expanded step, dependencies linked by step key. Laying out is
//! resumable: steps already stored (a crash mid-way) are not created twice.
//!
//! A takeover starts in two moves, whoever asks (the CEO's `/takeover`, or
//! `ulias simulate`): [`request_prereport`] queues the Scanner's pre-report
//! on the candidate token, with no operation yet; the CEO's Start (an
//! `OperationStart` decision) calls [`start_takeover`], which lays the
//! playbook out from J0 = now.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use ulias_core::domain::{
    AgentName, NewObjective, NewOperation, NewTask, Objective, ObjectiveSource, ObjectiveStatus,
    Operation, OperationStatus, Priority, Task, TaskId, Team,
};
use ulias_core::playbook::{PlannedStep, Playbook};
use ulias_core::store::{ObjectiveUpdate, Store, StoreError};

use crate::schemas::GoNoGo;

/// An operation under way.
#[derive(Debug, Clone)]
pub struct Started {
    pub operation: Operation,
    pub objective: Objective,
    pub tasks: Vec<Task>,
}

/// A token proposed for a takeover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub chain: String,
    pub address: String,
    pub name: String,
    pub ticker: Option<String>,
}

/// The kind of the Scanner's task on a candidate (no operation yet).
pub const PREREPORT: &str = "prereport";
/// The agent that writes it.
pub const SCANNER: &str = "scanner";

/// What a pre-report is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrereportPurpose {
    /// `/prereport`: the report only.
    ReportOnly,
    /// `/takeover`: the report, then Start / Drop.
    OfferStart,
}

/// Queues the Scanner's pre-report on a candidate as a CEO objective with
/// one task (its answer is the report). A contract already in a live
/// operation is refused with [`StoreError::Taken`].
pub async fn request_prereport(
    store: &Store,
    candidate: &Candidate,
    purpose: PrereportPurpose,
    now: DateTime<Utc>,
) -> Result<(Objective, Task), StoreError> {
    if let Some(live) = store
        .live_operation_for(&candidate.chain, &candidate.address)
        .await?
    {
        return Err(StoreError::Taken {
            what: "contract",
            operation: live.id.get(),
        });
    }
    let title = format!(
        "Pre-report: {} ({} {})",
        candidate.name, candidate.chain, candidate.address
    );
    let mut new = NewObjective::from_ceo(title.clone(), String::new());
    new.team = Some(Team::Takeover);
    let objective = store.create_objective(&new, now).await?;
    let scanner: AgentName = SCANNER
        .parse()
        .map_err(|e: ulias_core::domain::InvalidAgentName| StoreError::Invalid(e.to_string()))?;
    let mut task = NewTask::new(scanner, Team::Takeover, title, now);
    task.objective_id = Some(objective.id);
    task.kind = Some(PREREPORT.to_owned());
    task.priority = Priority::new(9).unwrap_or(Priority::DEFAULT);
    task.input = json!({
        "chain": candidate.chain,
        "address": candidate.address,
        "name": candidate.name,
        "ticker": candidate.ticker,
        "offer_start": purpose == PrereportPurpose::OfferStart,
    });
    let task = store.create_task(&task, now).await?;
    let objective = store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            ObjectiveUpdate::default(),
            now,
        )
        .await?;
    Ok((objective, task))
}

/// The candidate a pre-report task was about, if it offers a start.
pub fn offered_candidate(task: &Task) -> Option<Candidate> {
    let input = &task.input;
    if task.kind.as_deref() != Some(PREREPORT)
        || input.get("offer_start").and_then(Value::as_bool) != Some(true)
    {
        return None;
    }
    let text = |field: &str| input.get(field).and_then(Value::as_str).map(str::to_owned);
    Some(Candidate {
        chain: text("chain")?,
        address: text("address")?,
        name: text("name")?,
        ticker: text("ticker"),
    })
}

/// Starts a takeover of `candidate` with `playbook`, J0 = now: the same
/// path for the CEO's Start and for the simulation. The official addresses
/// are the contract and those the pre-report read (its pair); the site's
/// subdomain is the ticker.
pub async fn start_takeover(
    store: &Store,
    playbook: &Playbook,
    candidate: &Candidate,
    prereport: Option<&GoNoGo>,
    now: DateTime<Utc>,
) -> Result<Started, StoreError> {
    let pair = prereport
        .and_then(|r| r.facts.as_ref())
        .and_then(|f| f.market.as_ref())
        .map(|m| m.pair_address.value.clone());
    let new = NewOperation {
        name: candidate.name.clone(),
        token_symbol: candidate.ticker.clone(),
        chain: Some(candidate.chain.clone()),
        official_address: Some(candidate.address.clone()),
        official_addresses: pair.into_iter().collect(),
        j0_at: now,
    };
    let mut started = start_operation(store, playbook, &new, now).await?;
    if let Some(ticker) = &candidate.ticker {
        started.operation = store
            .set_site_subdomain(started.operation.id, &ticker.to_lowercase(), now)
            .await?;
    }
    Ok(started)
}

/// Creates the operation and its objective, lays out the playbook's steps
/// from the operation's J0, and sets both running.
pub async fn start_operation(
    store: &Store,
    playbook: &Playbook,
    new: &NewOperation,
    now: DateTime<Utc>,
) -> Result<Started, StoreError> {
    let operation = store.create_operation(new, now).await?;
    let mut objective = NewObjective::from_ceo(
        format!("{}: {}", playbook.name, new.name),
        playbook.description.clone(),
    );
    objective.source = ObjectiveSource::Playbook;
    objective.team = Some(playbook.team);
    objective.operation_id = Some(operation.id);
    let objective = store.create_objective(&objective, now).await?;
    let tasks = lay_out(store, playbook, &operation, &objective, now).await?;
    let operation = store
        .set_operation_status(operation.id, OperationStatus::Running, now)
        .await?;
    let objective = store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            ObjectiveUpdate::default(),
            now,
        )
        .await?;
    Ok(Started {
        operation,
        objective,
        tasks,
    })
}

/// Creates the tasks of every step not stored yet, in due order.
pub async fn lay_out(
    store: &Store,
    playbook: &Playbook,
    operation: &Operation,
    objective: &Objective,
    now: DateTime<Utc>,
) -> Result<Vec<Task>, StoreError> {
    let j0 = operation.j0_at.unwrap_or(now);
    let mut ids: HashMap<String, TaskId> = store
        .tasks_of_operation(operation.id)
        .await?
        .into_iter()
        .filter_map(|t| Some((t.step_key?, t.id)))
        .collect();
    let mut created = Vec::new();
    for step in playbook.expand(j0) {
        if ids.contains_key(&step.key) {
            continue;
        }
        let task = store
            .create_task(&new_task(&step, operation, objective, playbook, &ids), now)
            .await?;
        ids.insert(step.key.clone(), task.id);
        created.push(task);
    }
    Ok(created)
}

fn new_task(
    step: &PlannedStep,
    operation: &Operation,
    objective: &Objective,
    playbook: &Playbook,
    ids: &HashMap<String, TaskId>,
) -> NewTask {
    let mut task = NewTask::new(
        step.agent.clone(),
        playbook.team,
        step.title.clone(),
        step.due_at,
    );
    task.objective_id = Some(objective.id);
    task.operation_id = Some(operation.id);
    task.step_key = Some(step.key.clone());
    task.kind = Some(step.kind.clone());
    task.priority = step.priority;
    task.requires_validation = step.requires_validation;
    task.gate = step.gate;
    task.depends_on = step
        .depends_on
        .iter()
        .filter_map(|k| ids.get(k).copied())
        .collect();
    let mut input = step.input.clone();
    if let (Some(action), Value::Object(fields)) = (step.action, &mut input) {
        fields.insert(
            "action".to_owned(),
            Value::String(action.as_str().to_owned()),
        );
    }
    task.input = input;
    task
}
