//! What follows a finished task: its objective and operation may be done
//! (the CEO is told, the Learner gets the lessons to draw), and a no-go
//! stops an operation.

use chrono::TimeDelta;
use serde_json::json;
use ulias_core::domain::{
    LogKind, NewLogEntry, NewTask, ObjectiveId, ObjectiveSource, ObjectiveStatus, OperationStatus,
    Priority, Task,
};
use ulias_core::store::{ObjectiveUpdate, StoreError};

use super::Engine;
use super::actions::scope_of;
use super::effects::CONNECTOR;
use crate::alerts::{Alert, AlertLevel, keys};
use crate::answer::{Answer, answer_of, failures_of};

/// The agent that draws lessons from finished objectives.
pub const LEARNER: &str = "learner";

/// The Learner's and the Connector's tasks come after the day's work.
pub(super) const FOLLOWER_PRIORITY: i64 = 3;

impl Engine {
    /// Called once a task reached a final status.
    pub(crate) async fn after_finish(&self, task: &Task) -> Result<(), StoreError> {
        self.apply_output(task).await?;
        if let Some(objective) = task.objective_id {
            self.close_objective_if_done(objective).await?;
        }
        if let Some(operation) = task.operation_id {
            let progress = self.runner.store.operation_progress(operation).await?;
            let op = self.runner.store.operation(operation).await?;
            if progress.is_finished() && op.status == OperationStatus::Running {
                self.runner
                    .store
                    .set_operation_status(
                        operation,
                        OperationStatus::Completed,
                        self.runner.clock.now(),
                    )
                    .await?;
            }
        }
        Ok(())
    }

    async fn close_objective_if_done(&self, id: ObjectiveId) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let progress = store.objective_progress(id).await?;
        let objective = store.objective(id).await?;
        if !progress.is_finished() || objective.status != ObjectiveStatus::InProgress {
            return Ok(());
        }
        let tasks = store.tasks_of_objective(id).await?;
        let (status, update) = if progress.failed == 0 {
            let answer = answer_of(&tasks);
            (
                ObjectiveStatus::Completed,
                ObjectiveUpdate {
                    result: serde_json::to_value(answer).ok(),
                    ..Default::default()
                },
            )
        } else {
            let error = format!("{} of {} tasks failed", progress.failed, progress.total);
            let answer = Answer {
                lines: failures_of(&tasks),
                ..Answer::default()
            };
            (
                ObjectiveStatus::Failed,
                ObjectiveUpdate {
                    result: serde_json::to_value(answer).ok(),
                    error: Some(error),
                },
            )
        };
        let now = self.runner.clock.now();
        store.set_objective_status(id, status, update, now).await?;
        // Objectives confirmed in a chat (the CEO's own, accepted proposals)
        // end with their answer there; the others are announced.
        if !store.shown_in_chat(id).await? {
            self.tell(
                Alert::new(AlertLevel::Info, keys::OBJECTIVE_FINISHED)
                    .with("id", id)
                    .with("status", status)
                    .with("title", &objective.title)
                    .with("completed", progress.completed)
                    .with("total", progress.total),
            )
            .await;
        }
        let summary: Vec<_> = tasks
            .iter()
            .map(|t| {
                json!({"task": t.id, "agent": t.agent, "team": t.team, "title": t.title,
                       "status": t.status, "attempts": t.attempts, "confidence": t.confidence,
                       "error": t.error, "result": t.result})
            })
            .collect();
        let input = json!({"objective": id, "title": objective.title, "team": objective.team,
                           "status": status, "tasks": summary});
        store
            .emit_event(super::outages::OBJECTIVE_DONE_EVENT, &input, now)
            .await?;
        self.queue_after(
            LEARNER,
            "lessons",
            format!("Lessons from objective #{id}: {}", objective.title),
            &input,
        )
        .await?;
        // The Connector looks for what this work means to the other teams
        // (an operation's steps are the playbook's business, not its).
        if objective.source != ObjectiveSource::Playbook {
            self.queue_after(
                CONNECTOR,
                "connections",
                format!("Follow-ups of objective #{id}: {}", objective.title),
                &input,
            )
            .await?;
        }
        Ok(())
    }

    /// One task for `agent` about a finished objective, a minute later and
    /// after the day's work (its own tasks belong to no objective, so this
    /// never loops).
    async fn queue_after(
        &self,
        agent: &str,
        kind: &str,
        title: String,
        input: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let Some(spec) = self.runner.catalogue.get(agent) else {
            return Ok(());
        };
        let now = self.runner.clock.now();
        let mut task = NewTask::new(
            spec.name.clone(),
            spec.team,
            title,
            now + TimeDelta::minutes(1),
        );
        task.kind = Some(kind.to_owned());
        task.priority = Priority::new(FOLLOWER_PRIORITY).unwrap_or_default();
        task.input = input.clone();
        self.runner.store.create_task(&task, now).await?;
        Ok(())
    }

    /// A gate said no-go: the operation stops, its open steps are cancelled
    /// (nothing after the gate, the buyback included, ever runs).
    pub(super) async fn stop_for_no_go(&self, task: &Task, reason: &str) -> Result<(), StoreError> {
        let Some(operation) = task.operation_id else {
            return Ok(());
        };
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let stopped = store.stop_operation(operation, now).await?;
        if let Some(objective) = task.objective_id {
            let update = ObjectiveUpdate {
                error: Some(format!("no-go: {reason}")),
                ..Default::default()
            };
            store
                .set_objective_status(objective, ObjectiveStatus::Cancelled, update, now)
                .await?;
        }
        let summary = format!(
            "operation stopped at \"{}\" (no-go): {} step(s) cancelled",
            task.title, stopped.tasks_cancelled
        );
        let entry = NewLogEntry {
            public: true,
            ..NewLogEntry::event(scope_of(task), LogKind::System, summary.clone())
        };
        store.append_log(&entry, now).await?;
        self.tell(
            Alert::new(AlertLevel::Warning, keys::OPERATION_STOPPED)
                .with("operation", operation)
                .with("step", &task.title)
                .with("cancelled", stopped.tasks_cancelled)
                .with("reason", reason),
        )
        .await;
        Ok(())
    }
}
