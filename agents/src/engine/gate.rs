//! The verification gate after each run.

use serde_json::{Value, json};
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, NewValidation, PublicationTarget, Task, TaskStatus,
    Urgency, ValidationKind, ValidationStatus, retry_backoff,
};
use ulias_core::store::StoreError;

use super::{Engine, Settled, answers_now};
use crate::publications::Content;
use crate::runner::{RunError, RunOutcome};

/// The verdict a gate step answers to stop its operation.
const NO_GO: &str = "no_go";

impl Engine {
    /// Decides what a run's result means for its task.
    pub(super) async fn gate(
        &self,
        task: &Task,
        result: Result<RunOutcome, RunError>,
    ) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let worker = &self.config.worker;
        let now = self.runner.clock.now();
        let outcome = match result {
            Ok(outcome) => self.scanner_override(task, outcome).await?,
            Err(error) => return self.failed(task, &error).await,
        };
        // An unsure answer to a group question is the asker's loss, not a
        // decision for the CEO: its caller does not send it.
        if !answers_now(task)
            && outcome
                .confidence
                .is_some_and(|c| c < self.config.confidence_threshold)
        {
            store
                .block_task(task.id, worker, &outcome.to_task_outcome(), now)
                .await?;
            store
                .create_decision(&self.doubt(task, &outcome), now)
                .await?;
            return Ok(Settled::Doubtful);
        }
        if task.gate && outcome.output.get("verdict").and_then(Value::as_str) == Some(NO_GO) {
            store
                .complete_task(task.id, worker, &outcome.to_task_outcome(), now)
                .await?;
            self.stop_for_no_go(task, &summary_of(&outcome.output))
                .await?;
            return Ok(Settled::OperationStopped);
        }
        if self.awaits_validation(task, &outcome.output).await? {
            store
                .block_task(task.id, worker, &outcome.to_task_outcome(), now)
                .await?;
            return Ok(Settled::AwaitingValidation);
        }
        store
            .complete_task(task.id, worker, &outcome.to_task_outcome(), now)
            .await?;
        Ok(Settled::Completed)
    }

    /// Whether the task's public output waits for the team: a publish tool
    /// created a validation during the run, or the step is flagged and gets
    /// one made from its output (so nothing flagged is ever published unseen).
    pub(super) async fn awaits_validation(
        &self,
        task: &Task,
        output: &Value,
    ) -> Result<bool, StoreError> {
        let store = &self.runner.store;
        let validations = store.validations_of_task(task.id).await?;
        if validations
            .iter()
            .any(|v| v.status == ValidationStatus::Pending)
        {
            return Ok(true);
        }
        if !task.requires_validation || !self.validation_required(task).await? {
            return Ok(false);
        }
        let (kind, target) = self.preview_kind(task, output);
        let validation = NewValidation {
            task_id: Some(task.id),
            operation_id: task.operation_id,
            kind,
            target,
            payload: Content::from_output(kind, output)
                .payload(json!({"step": task.step_key, "title": task.title, "output": output})),
        };
        store
            .create_validation(&validation, self.runner.clock.now())
            .await?;
        Ok(true)
    }

    /// Whether the task's operation (if any) still asks for validations.
    async fn validation_required(&self, task: &Task) -> Result<bool, StoreError> {
        match task.operation_id {
            Some(id) => Ok(self.runner.store.operation(id).await?.validation_required),
            None => Ok(true),
        }
    }

    /// How the team previews an output made into a validation, by the
    /// agent's output schema.
    fn preview_kind(&self, task: &Task, output: &Value) -> (ValidationKind, PublicationTarget) {
        let schema = self
            .runner
            .catalogue
            .get(task.agent.as_str())
            .map(|spec| spec.output_for(task.kind.as_deref()));
        match schema {
            Some("post_draft") if output.get("kind").and_then(Value::as_str) == Some("thread") => {
                (ValidationKind::Thread, PublicationTarget::X)
            }
            Some("post_draft") => (ValidationKind::Post, PublicationTarget::X),
            Some("site_draft") => (ValidationKind::Site, PublicationTarget::Site),
            Some("brand_directions") => (ValidationKind::Album, PublicationTarget::Telegram),
            Some("faq_answer") => (ValidationKind::Pinned, PublicationTarget::Telegram),
            Some("utility_plan") => (ValidationKind::Utility, PublicationTarget::Telegram),
            _ => (ValidationKind::Dossier, PublicationTarget::Manual),
        }
    }

    /// A transient failure waits for its backoff while attempts remain;
    /// anything else, or the last attempt, fails the task with an incident.
    async fn failed(&self, task: &Task, error: &RunError) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let worker = &self.config.worker;
        let now = self.runner.clock.now();
        if answers_now(task) {
            // Too late to answer later, too small to report.
            store
                .fail_task(task.id, worker, &error.to_string(), now)
                .await?;
            tracing::warn!(task = %task.id, %error, "a group question went unanswered");
            return Ok(Settled::Failed);
        }
        let status = if error.is_transient() {
            let retry_at = now + retry_backoff(task.attempts);
            store
                .retry_task(task.id, worker, &error.to_string(), now, retry_at)
                .await?
        } else {
            store
                .fail_task(task.id, worker, &error.to_string(), now)
                .await?;
            TaskStatus::Failed
        };
        if status != TaskStatus::Failed {
            return Ok(Settled::Retried);
        }
        self.report_incident(task, &error.to_string()).await;
        Ok(Settled::Failed)
    }

    fn doubt(&self, task: &Task, outcome: &RunOutcome) -> NewDecision {
        let confidence = outcome.confidence.unwrap_or(0.0);
        NewDecision {
            task_id: Some(task.id),
            objective_id: task.objective_id,
            operation_id: task.operation_id,
            context_summary: summary_of(&outcome.output),
            recommended: Some(DecisionOption::Rerun),
            urgency: Urgency::Normal,
            timeout_at: Some(self.runner.clock.now() + self.config.decision_timeout),
            auto_decision: Some(DecisionOption::Rerun),
            kind: DecisionKind::Doubt {
                agent: task.agent.to_string(),
                title: task.title.clone(),
                confidence_pct: (confidence * 100.0).round().clamp(0.0, 100.0) as u32,
            },
        }
    }
}

/// A short reading of an output for people: its summary field, else the JSON.
pub(super) fn summary_of(output: &Value) -> String {
    let text = ["summary", "answer", "why_it_died"]
        .iter()
        .find_map(|field| output.get(field).and_then(Value::as_str))
        .map_or_else(|| output.to_string(), str::to_owned);
    text.chars().take(300).collect()
}
