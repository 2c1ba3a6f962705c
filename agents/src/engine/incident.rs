//! Incident reports: a task that failed for good is reported to the CEO in
//! 3–4 plain lines written by the Simplifier (its own task, run at once);
//! when it cannot write them, the technical report goes as it is.

use serde_json::{Value, json};
use ulias_core::domain::{NewTask, Priority, Task};

use super::Engine;
use crate::alerts::{Alert, AlertLevel, keys};

/// The agent that writes for the CEO.
pub const SIMPLIFIER: &str = "simplifier";
/// The kind of the Simplifier's incident tasks (never themselves simplified).
const INCIDENT_KIND: &str = "incident_summary";

impl Engine {
    /// Tells the CEO a task failed for good.
    pub(super) async fn report_incident(&self, task: &Task, error: &str) {
        let raw = format!("\"{}\": {error}", task.title);
        let plain = if task.kind.as_deref() == Some(INCIDENT_KIND) {
            None
        } else {
            self.simplify(task, &raw).await
        };
        self.tell(
            Alert::new(AlertLevel::Critical, keys::TASK_FAILED)
                .with("id", task.id)
                .with("agent", &task.agent)
                .with("report", plain.unwrap_or(raw)),
        )
        .await;
    }

    /// The Simplifier's lines for an incident, or `None` when it could not.
    async fn simplify(&self, task: &Task, raw: &str) -> Option<String> {
        let runner = &self.runner;
        let spec = runner.catalogue.get(SIMPLIFIER)?;
        let now = runner.clock.now();
        let mut new = NewTask::new(
            spec.name.clone(),
            spec.team,
            format!("Explain the failure of task #{}", task.id),
            now,
        );
        new.kind = Some(INCIDENT_KIND.to_owned());
        new.priority = Priority::new(9).unwrap_or_default();
        new.max_attempts = 1;
        new.input = json!({"incident": raw, "task": task.title, "agent": task.agent, "attempts": task.attempts});
        let worker = &self.config.worker;
        match runner
            .run_claimed(&new, worker, self.config.lease_terms())
            .await
        {
            Ok((_, outcome)) => {
                let lines: Vec<&str> = outcome
                    .output
                    .get("lines")?
                    .as_array()?
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                (!lines.is_empty()).then(|| lines.join("\n"))
            }
            Err(error) => {
                tracing::warn!(%error, "the Simplifier could not explain an incident");
                None
            }
        }
    }
}
