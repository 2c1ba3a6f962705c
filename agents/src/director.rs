//! The Director: an objective becomes a plan of tasks. The plan the model
//! proposes is checked against the agent catalogue (unknown agents,
//! unknown or cyclic dependencies, unknown pipelines are refused); a bad
//! plan is sent back once with its errors; a second bad plan, or a plan
//! that asks to escalate, becomes a decision for the CEO.

use std::collections::HashMap;

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, NewTask, Objective, ObjectiveStatus, Pipeline,
    Priority, Task, TaskId, TaskOutcome,
};
use ulias_core::store::{ObjectiveUpdate, StoreError};

use crate::runner::{RunError, RunMode, Runner};
use crate::schemas::Plan;
use crate::spec::Catalogue;

/// The Director agent's name.
pub const DIRECTOR: &str = "director";

/// What is wrong with a plan; fed back to the Director as is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    #[error("task `{key}` names the agent `{agent}`, which does not exist")]
    UnknownAgent { key: String, agent: String },
    #[error("task `{key}` depends on `{dependency}`, which is not in the plan")]
    UnknownDependency { key: String, dependency: String },
    #[error("the dependencies form a cycle through: {}", keys.join(" → "))]
    Cycle { keys: Vec<String> },
    #[error("task `{key}` uses the pipeline `{pipeline}`, which does not exist")]
    UnknownPipeline { key: String, pipeline: String },
    #[error("the key `{0}` is used by two tasks")]
    DuplicateKey(String),
    #[error("task `{key}` has priority {priority}; priorities are 1 to 10")]
    BadPriority { key: String, priority: u8 },
}

/// Every problem of `plan`, or the order to create its tasks in
/// (dependencies first).
pub fn check_plan(plan: &Plan, catalogue: &Catalogue) -> Result<Vec<usize>, Vec<PlanError>> {
    let mut errors = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, task) in plan.tasks.iter().enumerate() {
        if index.insert(task.key.as_str(), i).is_some() {
            errors.push(PlanError::DuplicateKey(task.key.clone()));
        }
        if catalogue.get(&task.agent).is_none() {
            errors.push(PlanError::UnknownAgent {
                key: task.key.clone(),
                agent: task.agent.clone(),
            });
        }
        if task.pipeline.parse::<Pipeline>().is_err() {
            errors.push(PlanError::UnknownPipeline {
                key: task.key.clone(),
                pipeline: task.pipeline.clone(),
            });
        }
        if Priority::new(i64::from(task.priority)).is_none() {
            errors.push(PlanError::BadPriority {
                key: task.key.clone(),
                priority: task.priority,
            });
        }
    }
    for task in &plan.tasks {
        for dependency in &task.depends_on {
            if !index.contains_key(dependency.as_str()) {
                errors.push(PlanError::UnknownDependency {
                    key: task.key.clone(),
                    dependency: dependency.clone(),
                });
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    topological_order(plan).map_err(|keys| vec![PlanError::Cycle { keys }])
}

/// Kahn's algorithm; on a cycle, the keys left over.
fn topological_order(plan: &Plan) -> Result<Vec<usize>, Vec<String>> {
    let mut waiting: Vec<usize> = plan.tasks.iter().map(|t| t.depends_on.len()).collect();
    let mut order: Vec<usize> = (0..plan.tasks.len()).filter(|i| waiting[*i] == 0).collect();
    let mut next = 0;
    while next < order.len() {
        let done = &plan.tasks[order[next]].key;
        for (i, task) in plan.tasks.iter().enumerate() {
            if task.depends_on.iter().any(|d| d == done) {
                waiting[i] -= 1;
                if waiting[i] == 0 {
                    order.push(i);
                }
            }
        }
        next += 1;
    }
    if order.len() == plan.tasks.len() {
        return Ok(order);
    }
    Err(plan
        .tasks
        .iter()
        .enumerate()
        .filter(|(i, _)| !order.contains(i))
        .map(|(_, task)| task.key.clone())
        .collect())
}

/// How planning ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Planned {
    /// The tasks were created; the objective is in progress.
    Tasks(Vec<Task>),
    /// The CEO was asked; the objective is blocked.
    Escalated { reason: String },
}

/// Why planning could not even reach a plan or an escalation.
#[derive(Debug, thiserror::Error)]
pub enum PlanningError {
    #[error("the Director's run failed: {0}")]
    Run(#[from] RunError),
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
}

/// The kind of the Director's planning tasks.
pub const PLAN_KIND: &str = "plan";

/// Queues the planning of `objective`: a Director task the engine runs like
/// any other (see [`plan_with`]), so a crash or a restart resumes it.
pub async fn queue_planning(runner: &Runner, objective: &Objective) -> Result<Task, StoreError> {
    let new = director_task(runner, objective)?;
    runner.store.create_task(&new, runner.clock.now()).await
}

/// Plans `objective` with the Director agent now, as `worker` (its task is
/// created claimed).
pub async fn plan_objective(
    runner: &Runner,
    objective: &Objective,
    worker: &str,
) -> Result<Planned, PlanningError> {
    let new = director_task(runner, objective)?;
    let task = runner
        .store
        .create_claimed_task(&new, worker, runner.clock.now(), TimeDelta::minutes(15))
        .await?;
    plan_with(runner, objective, &task, worker).await
}

/// Plans `objective` with its Director task `task`, claimed by `worker`.
/// Run again after a crash, it picks up where the objective stands: a plan
/// already laid out is not laid out twice.
pub async fn plan_with(
    runner: &Runner,
    objective: &Objective,
    task: &Task,
    worker: &str,
) -> Result<Planned, PlanningError> {
    let store = &runner.store;
    let now = runner.clock.now();
    match store.objective(objective.id).await?.status {
        ObjectiveStatus::Pending => {
            store
                .set_objective_status(
                    objective.id,
                    ObjectiveStatus::Planning,
                    ObjectiveUpdate::default(),
                    now,
                )
                .await?;
        }
        ObjectiveStatus::Planning => {}
        // Laid out (or settled) before a crash: nothing left to plan.
        _ => {
            let done = TaskOutcome::default();
            store.complete_task(task.id, worker, &done, now).await?;
            return Ok(Planned::Tasks(Vec::new()));
        }
    }
    let catalogue = runner.catalogue.as_ref();
    let mut input = task.input.clone();
    let mut problems = Vec::new();
    for attempt in 0..2 {
        let mut run_task = task.clone();
        run_task.input = input.clone();
        let outcome = runner.run(&run_task, RunMode::Live).await?;
        let plan: Plan = match serde_json::from_value(outcome.output.clone()) {
            Ok(plan) => plan,
            Err(e) => {
                return Err(PlanningError::Run(RunError::InvalidOutput {
                    errors: vec![e.to_string()],
                }));
            }
        };
        // A plan that escalates needs no checking: the CEO is asked either way.
        let checked = match &plan.escalate {
            Some(_) => Ok(None),
            None => check_plan(&plan, catalogue).map(Some),
        };
        match checked {
            Ok(order) => {
                store
                    .complete_task(
                        task.id,
                        worker,
                        &outcome.to_task_outcome(),
                        runner.clock.now(),
                    )
                    .await?;
                return match (order, &plan.escalate) {
                    (Some(order), _) => create_tasks(runner, objective, &plan, &order).await,
                    (None, reason) => {
                        escalate(runner, objective, reason.as_deref().unwrap_or_default()).await
                    }
                };
            }
            Err(errors) => {
                problems = errors.iter().map(ToString::to_string).collect::<Vec<_>>();
                if attempt == 0 {
                    input["plan_errors"] = json!(problems);
                }
            }
        }
    }
    store
        .fail_task(
            task.id,
            worker,
            &format!("no valid plan: {}", problems.join("; ")),
            runner.clock.now(),
        )
        .await?;
    escalate(
        runner,
        objective,
        &format!("The Director could not plan it: {}", problems.join("; ")),
    )
    .await
}

/// The Director's task for `objective`, with what it plans from.
fn director_task(runner: &Runner, objective: &Objective) -> Result<NewTask, StoreError> {
    let now = runner.clock.now();
    let spec = runner.catalogue.get(DIRECTOR);
    let team = spec.map_or(ulias_core::domain::Team::Direction, |s| s.team);
    let agent = DIRECTOR
        .parse()
        .map_err(|e: ulias_core::domain::InvalidAgentName| StoreError::Invalid(e.to_string()))?;
    let mut task = NewTask::new(agent, team, format!("Plan: {}", objective.title), now);
    task.objective_id = Some(objective.id);
    task.kind = Some(PLAN_KIND.to_owned());
    // Attempts are spent by crashes only (a lease that expired): a failed
    // run fails the plan at once, with its reason.
    task.max_attempts = 3;
    task.input = json!({"objective": objective.title, "description": objective.description,
                        "agents": agent_list(runner.catalogue.as_ref())});
    task.priority = objective.priority;
    Ok(task)
}

async fn create_tasks(
    runner: &Runner,
    objective: &Objective,
    plan: &Plan,
    order: &[usize],
) -> Result<Planned, PlanningError> {
    let store = &runner.store;
    let now = runner.clock.now();
    let mut ids: HashMap<&str, TaskId> = HashMap::new();
    let mut created = Vec::new();
    for &i in order {
        let planned = &plan.tasks[i];
        let Some(spec) = runner.catalogue.get(&planned.agent) else {
            continue;
        };
        let mut task = NewTask::new(spec.name.clone(), spec.team, planned.title.clone(), now);
        task.objective_id = Some(objective.id);
        task.input = json!({"description": planned.description});
        task.pipeline = planned.pipeline.parse().unwrap_or(Pipeline::Direct);
        task.priority = Priority::new(i64::from(planned.priority)).unwrap_or_default();
        task.step_key = Some(planned.key.clone());
        task.depends_on = planned
            .depends_on
            .iter()
            .filter_map(|d| ids.get(d.as_str()).copied())
            .collect();
        let task = store.create_task(&task, now).await?;
        ids.insert(planned.key.as_str(), task.id);
        created.push(task);
    }
    store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            ObjectiveUpdate::default(),
            now,
        )
        .await?;
    Ok(Planned::Tasks(created))
}

async fn escalate(
    runner: &Runner,
    objective: &Objective,
    reason: &str,
) -> Result<Planned, PlanningError> {
    let store = &runner.store;
    let now = runner.clock.now();
    let decision = NewDecision {
        objective_id: Some(objective.id),
        operation_id: objective.operation_id,
        context_summary: reason.chars().take(500).collect(),
        recommended: Some(DecisionOption::Replan),
        ..NewDecision::new(DecisionKind::Escalation {
            title: objective.title.clone(),
        })
    };
    store.create_decision(&decision, now).await?;
    store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::Blocked,
            ObjectiveUpdate::default(),
            now,
        )
        .await?;
    Ok(Planned::Escalated {
        reason: reason.to_owned(),
    })
}

fn agent_list(catalogue: &Catalogue) -> Value {
    catalogue
        .agents()
        .filter(|a| a.name.as_str() != DIRECTOR)
        .map(|a| json!({"agent": a.name, "team": a.team, "does": a.description}))
        .collect()
}
