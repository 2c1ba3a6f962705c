//! The engine's worker loop, one tick at a time: expired leases back to the
//! queue, due tasks with finished dependencies queued, then each claimed
//! task run and put through the verification gate — success completes it,
//! doubt (confidence under the threshold) blocks it behind a CEO decision,
//! failure retries it (within its attempts) and then reports an incident.

use chrono::TimeDelta;
use serde_json::Value;
use ulias_core::domain::{NewDecision, Task, TaskStatus, Urgency, retry_backoff};
use ulias_core::store::StoreError;

use crate::alerts::{Alert, AlertLevel};
use crate::runner::{RunError, RunMode, RunOutcome, Runner};

/// How a worker runs tasks.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// This worker's name (leases carry it).
    pub worker: String,
    /// How long a claim lasts without renewal.
    pub lease: TimeDelta,
    /// Under this confidence, a result waits for the CEO.
    pub confidence_threshold: f64,
    /// How long the CEO has before the automatic choice applies.
    pub decision_timeout: TimeDelta,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            worker: "worker-1".to_owned(),
            lease: TimeDelta::minutes(15),
            confidence_threshold: 0.7,
            decision_timeout: TimeDelta::hours(24),
        }
    }
}

/// What one tick did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickReport {
    pub requeued: usize,
    pub queued: usize,
    pub completed: usize,
    pub doubtful: usize,
    pub retried: usize,
    pub failed: usize,
}

/// A worker.
pub struct Engine {
    pub runner: Runner,
    pub config: EngineConfig,
}

/// The options a doubtful result is put to the CEO with.
pub const DOUBT_OPTIONS: [&str; 3] = ["Accept the result", "Run it again", "Cancel the task"];

impl Engine {
    /// One pass over the queue.
    pub async fn tick(&self) -> Result<TickReport, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let mut report = TickReport {
            requeued: store.requeue_expired_leases(now).await?.requeued.len(),
            queued: store.promote_ready_tasks(now).await?.len(),
            ..TickReport::default()
        };
        while let Some(task) = store
            .claim_next_task(
                &self.config.worker,
                self.runner.clock.now(),
                self.config.lease,
            )
            .await?
        {
            match self.execute(&task).await? {
                TaskStatus::Completed => report.completed += 1,
                TaskStatus::Blocked => report.doubtful += 1,
                TaskStatus::Failed => report.failed += 1,
                _ => report.retried += 1,
            }
        }
        Ok(report)
    }

    /// Runs a task this worker claimed and puts the result through the
    /// gate. Returns the task's new status.
    pub async fn execute(&self, task: &Task) -> Result<TaskStatus, StoreError> {
        let result = self.runner.run(task, RunMode::Live).await;
        self.gate(task, result).await
    }

    /// The verification gate.
    async fn gate(
        &self,
        task: &Task,
        result: Result<RunOutcome, RunError>,
    ) -> Result<TaskStatus, StoreError> {
        let store = &self.runner.store;
        let worker = &self.config.worker;
        let now = self.runner.clock.now();
        let outcome = match result {
            Ok(outcome) => outcome,
            Err(error) => return self.failed(task, &error).await,
        };
        if outcome
            .confidence
            .is_some_and(|c| c < self.config.confidence_threshold)
        {
            store
                .block_task(task.id, worker, &outcome.to_task_outcome(), now)
                .await?;
            store
                .create_decision(&self.doubt(task, &outcome), now)
                .await?;
            return Ok(TaskStatus::Blocked);
        }
        store
            .complete_task(task.id, worker, &outcome.to_task_outcome(), now)
            .await?;
        Ok(TaskStatus::Completed)
    }

    /// A transient failure waits for its backoff while attempts remain;
    /// anything else, or the last attempt, fails the task with an incident.
    async fn failed(&self, task: &Task, error: &RunError) -> Result<TaskStatus, StoreError> {
        let store = &self.runner.store;
        let worker = &self.config.worker;
        let now = self.runner.clock.now();
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
        if status == TaskStatus::Failed {
            self.incident(task, error).await;
        }
        Ok(status)
    }

    fn doubt(&self, task: &Task, outcome: &RunOutcome) -> NewDecision {
        let confidence = outcome.confidence.unwrap_or(0.0);
        NewDecision {
            task_id: Some(task.id),
            objective_id: task.objective_id,
            question: format!(
                "{} is only {:.0}% sure of its result for \"{}\". Accept it?",
                task.agent,
                confidence * 100.0,
                task.title
            ),
            context_summary: summary_of(&outcome.output),
            options: DOUBT_OPTIONS.iter().map(|o| (*o).to_owned()).collect(),
            recommended: Some(1),
            urgency: Urgency::Normal,
            timeout_at: Some(self.runner.clock.now() + self.config.decision_timeout),
            auto_decision: Some(1),
        }
    }

    async fn incident(&self, task: &Task, error: &RunError) {
        let alert = Alert {
            level: AlertLevel::Critical,
            title: format!("Task #{} ({}) failed", task.id, task.agent),
            body: format!("\"{}\": {error}", task.title),
        };
        if let Err(problem) = self.runner.alerter.alert(alert).await {
            tracing::error!(%problem, task = %task.id, "could not send the incident report");
        }
    }
}

/// A short reading of an output for the CEO: its summary field, else the JSON.
fn summary_of(output: &Value) -> String {
    let text = output
        .get("summary")
        .or_else(|| output.get("answer"))
        .and_then(Value::as_str)
        .map_or_else(|| output.to_string(), str::to_owned);
    text.chars().take(300).collect()
}
