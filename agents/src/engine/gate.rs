//! The verification gate after each run.

use serde_json::{Value, json};
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, NewValidation, PublicationTarget, Task, TaskStatus,
    Urgency, ValidationKind, ValidationStatus, retry_backoff,
};
use ulias_core::store::{StoreError, UtilityRunStatus};

use super::{Engine, Settled, answers_now};
use crate::publications::Content;
use crate::runner::{RunError, RunOutcome};

/// The X post a mention-reply task answers.
fn mention_of(task: &Task) -> Option<String> {
    (task.kind.as_deref() == Some(super::MENTION_REPLY))
        .then(|| {
            task.input
                .get(super::REPLY_TO_MENTION)?
                .as_str()
                .map(str::to_owned)
        })
        .flatten()
}

/// The tool that vets a site before the team sees it.
const SITE_PUBLISH: &str = "site_publish";

/// What a finished run's public output waits for.
pub(super) enum Awaiting {
    /// Nothing: the task completes.
    Nothing,
    /// The team's answer to a validation.
    Team,
    /// Nothing, ever: it may not be proposed (why).
    Refused(String),
}

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
        match self.awaits_validation(task, &outcome.output).await? {
            Awaiting::Team => {
                store
                    .block_task(task.id, worker, &outcome.to_task_outcome(), now)
                    .await?;
                return Ok(Settled::AwaitingValidation);
            }
            Awaiting::Refused(reason) => {
                store.fail_task(task.id, worker, &reason, now).await?;
                self.report_incident(task, &reason).await;
                return Ok(Settled::Failed);
            }
            Awaiting::Nothing => {}
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
    ) -> Result<Awaiting, StoreError> {
        let store = &self.runner.store;
        let validations = store.validations_of_task(task.id).await?;
        if validations
            .iter()
            .any(|v| v.status == ValidationStatus::Pending)
        {
            return Ok(Awaiting::Team);
        }
        if !task.requires_validation || !self.validation_required(task).await? {
            return Ok(Awaiting::Nothing);
        }
        let (kind, target) = self.preview_kind(task, output);
        let proposed = match kind {
            // A site is proposed only as a checked bundle, vetted as a
            // `site_publish` call would be.
            ValidationKind::Site => match self.vetted_site(task, output).await {
                Ok(content) => content,
                Err(reason) => return Ok(Awaiting::Refused(reason)),
            },
            _ => Content::from_output(kind, output),
        };
        let content = match (proposed, mention_of(task)) {
            // A reply to a mention answers that mention (the task's, never
            // one the model names).
            (Content::Post { text, images, .. }, Some(mention)) => Content::Post {
                text,
                images,
                reply_to: Some(mention),
            },
            (content, _) => content,
        };
        // A utility without a green run of that config is never proposed
        // (a skipped one was already told to the team).
        if let Content::Utility { template, config } = &content {
            use crate::tools::utility::release::{NotReleasable, releasable};
            match releasable(store, task.operation_id, template, config).await {
                Ok(_) => {}
                Err(NotReleasable::Store(e)) => return Err(e),
                // Skipped after three failures: the team was told, the
                // operation goes on without it.
                Err(NotReleasable::NotPassed {
                    status: UtilityRunStatus::Skipped,
                    ..
                }) => return Ok(Awaiting::Nothing),
                Err(why) => return Ok(Awaiting::Refused(why.to_string())),
            }
        }
        let validation = NewValidation {
            task_id: Some(task.id),
            operation_id: task.operation_id,
            kind,
            target,
            payload: content
                .payload(json!({"step": task.step_key, "title": task.title, "output": output})),
        };
        store
            .create_validation(&validation, self.runner.clock.now())
            .await?;
        Ok(Awaiting::Team)
    }

    /// The site a step's output proposes, through the `site_publish`
    /// tool's vetting of the build it names: refused (with the reason)
    /// when that build's latest check did not pass.
    async fn vetted_site(&self, task: &Task, output: &Value) -> Result<Content, String> {
        let runner = &self.runner;
        let (Some(tool), Some(spec)) = (
            runner.tools.built(SITE_PUBLISH),
            runner.catalogue.get(task.agent.as_str()),
        ) else {
            return Err("no site can be proposed here: site_publish is not built".to_owned());
        };
        let build = output.get("build").cloned().unwrap_or(Value::Null);
        let ctx = runner.tool_context(task, spec);
        let args = tool
            .run(&ctx, json!({"build": build}))
            .await
            .map_err(|e| format!("the site was not proposed: {e}"))?;
        Content::from_tool(SITE_PUBLISH, ValidationKind::Site, &args).map_err(|e| e.to_string())
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
            Some("brand_directions" | "brand_kit") => {
                (ValidationKind::Album, PublicationTarget::Telegram)
            }
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
