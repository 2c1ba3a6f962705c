//! The non-AI steps of a playbook, carried out by the engine itself. The
//! action is named in the task's input (`"action": "cto_dossier"`).

use serde_json::{Value, json};
use ulias_core::domain::{
    LogKind, LogScope, NewLogEntry, NewValidation, PublicationTarget, Task, TaskOutcome,
    ValidationKind,
};
use ulias_core::playbook::StepAction;
use ulias_core::store::StoreError;

use super::{Engine, Settled};
use crate::alerts::{Alert, AlertLevel, keys};

/// The operation-file sections a dossier gathers.
const DOSSIER_SECTIONS: [&str; 4] = ["scan", "identity", "site", "x"];

impl Engine {
    /// Carries out a non-AI step this worker claimed.
    pub(super) async fn perform_action(&self, task: &Task) -> Result<Settled, StoreError> {
        let named = task.input.get("action").and_then(Value::as_str);
        let action = match named.map(str::parse::<StepAction>) {
            Some(Ok(action)) => action,
            Some(Err(e)) => return self.refuse_action(task, &e.to_string()).await,
            None => return self.refuse_action(task, "the step names no action").await,
        };
        match action {
            StepAction::BuybackStart => self.buyback_not_built(task).await,
            StepAction::CtoDossier | StepAction::Handover => self.manual_step(task, action).await,
            StepAction::VoteCount => self.count_vote(task).await,
        }
    }

    /// The buyback is not built: the team is told to start it by hand, the
    /// log says so, and the step is done (what depends on it may go on).
    async fn buyback_not_built(&self, task: &Task) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let note = "the buyback is not built in Ulias yet: start it by hand";
        let entry = NewLogEntry {
            public: task.operation_id.is_some(),
            ..NewLogEntry::event(
                scope_of(task),
                LogKind::System,
                format!("buyback.start: {note}"),
            )
        };
        store.append_log(&entry, now).await?;
        self.tell(Alert::new(AlertLevel::Warning, keys::BUYBACK_BY_HAND).with("step", &task.title))
            .await;
        let outcome = TaskOutcome {
            result: json!({"not_built": note}),
            ..TaskOutcome::default()
        };
        store
            .complete_task(task.id, &self.config.worker, &outcome, now)
            .await?;
        self.after_finish(task).await?;
        Ok(Settled::Completed)
    }

    /// A step people carry out: a validation for manual handling, with the
    /// operation's facts and file; the step waits for it.
    async fn manual_step(&self, task: &Task, action: StepAction) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let mut sections = serde_json::Map::new();
        for section in DOSSIER_SECTIONS {
            if let Some(file) = store.latest_section(task.operation_id, section).await? {
                sections.insert(section.to_owned(), file.content);
            }
        }
        let operation = match task.operation_id {
            Some(id) => {
                let op = store.operation(id).await?;
                json!({"name": op.name, "token": op.token_symbol, "chain": op.chain,
                       "official_address": op.official_address})
            }
            None => Value::Null,
        };
        let validation = NewValidation {
            task_id: Some(task.id),
            operation_id: task.operation_id,
            kind: ValidationKind::Dossier,
            target: PublicationTarget::Manual,
            payload: json!({"step": task.step_key, "action": action, "title": task.title,
                            "operation": operation, "sections": sections}),
        };
        store.create_validation(&validation, now).await?;
        let outcome = TaskOutcome {
            result: json!({"manual": action, "waiting_for": "the team"}),
            ..TaskOutcome::default()
        };
        store
            .block_task(task.id, &self.config.worker, &outcome, now)
            .await?;
        Ok(Settled::AwaitingValidation)
    }

    pub(super) async fn refuse_action(
        &self,
        task: &Task,
        problem: &str,
    ) -> Result<Settled, StoreError> {
        let now = self.runner.clock.now();
        self.runner
            .store
            .fail_task(task.id, &self.config.worker, problem, now)
            .await?;
        self.tell(
            Alert::new(AlertLevel::Critical, keys::STEP_REFUSED)
                .with("id", task.id)
                .with("title", &task.title)
                .with("problem", problem),
        )
        .await;
        self.after_finish(task).await?;
        Ok(Settled::Failed)
    }
}

/// The log scope of a task.
pub(super) fn scope_of(task: &Task) -> LogScope {
    LogScope {
        operation_id: task.operation_id,
        objective_id: task.objective_id,
        task_id: Some(task.id),
        agent: Some(task.agent.to_string()),
    }
}
