//! Child tasks: a pipeline's runs by other agents, each with its own row.

use chrono::TimeDelta;
use serde_json::Value;
use ulias_core::domain::{NewTask, Task};

use crate::runner::{LeaseTerms, RunError, RunOutcome, Runner};

/// The agent that picks a horse race's winner.
pub const JUDGE: &str = "judge";

/// How long a child's claim lasts.
const CHILD_LEASE: TimeDelta = TimeDelta::minutes(15);

/// Runs child tasks of one parent, as one worker.
pub(super) struct Children<'a> {
    runner: &'a Runner,
    parent: &'a Task,
    worker: &'a str,
}

impl<'a> Children<'a> {
    pub(super) fn new(runner: &'a Runner, parent: &'a Task, worker: &'a str) -> Self {
        Self {
            runner,
            parent,
            worker,
        }
    }

    /// Creates a child task for `agent`, claims it and runs it to its end
    /// (completed with its output, or failed with the error, returned).
    pub(super) async fn run(
        &self,
        agent: &str,
        title: &str,
        input: Value,
        temperature: Option<f32>,
    ) -> Result<RunOutcome, RunError> {
        let spec = self
            .runner
            .catalogue
            .get(agent)
            .ok_or_else(|| RunError::UnknownAgent(agent.to_owned()))?;
        let now = self.runner.clock.now();
        let mut new = NewTask::new(spec.name.clone(), spec.team, title, now);
        new.objective_id = self.parent.objective_id;
        new.operation_id = self.parent.operation_id;
        new.kind = self.parent.kind.clone();
        new.priority = self.parent.priority;
        new.parent_task_id = Some(self.parent.id);
        new.input = input;
        new.max_attempts = 1;
        let mut runner = self.runner.clone();
        if temperature.is_some() {
            runner.config.temperature = temperature;
        }
        let (_, outcome) = runner
            .run_claimed(&new, self.worker, LeaseTerms::of(CHILD_LEASE))
            .await?;
        Ok(outcome)
    }
}
