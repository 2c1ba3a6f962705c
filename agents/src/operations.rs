//! Starting a playbook operation: the operation, its objective, and one
//! task per expanded step, dependencies linked by step key. Laying out is
//! resumable: steps already stored (a crash mid-way) are not created twice.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::Value;
use ulias_core::domain::{
    NewObjective, NewOperation, NewTask, Objective, ObjectiveSource, ObjectiveStatus, Operation,
    OperationStatus, Task, TaskId,
};
use ulias_core::playbook::{PlannedStep, Playbook};
use ulias_core::store::{ObjectiveUpdate, Store, StoreError};

/// An operation under way.
#[derive(Debug, Clone)]
pub struct Started {
    pub operation: Operation,
    pub objective: Objective,
    pub tasks: Vec<Task>,
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
