//! The Director's planning as an engine task: claimed from the queue like
//! any other (so a crash or a restart resumes it), its lease kept alive
//! while the Director runs, and a failure that ends the objective with its
//! reason — which the CEO reads as the objective's answer.

use ulias_core::domain::{ObjectiveStatus, Task, TaskStatus};
use ulias_core::store::{ObjectiveUpdate, StoreError};

use super::{Engine, Settled};
use crate::director::plan_with;
use crate::runner::keeping_lease;

impl Engine {
    /// Plans the objective of a claimed planning task.
    pub(super) async fn plan(&self, task: &Task) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let worker = &self.config.worker;
        let Some(objective_id) = task.objective_id else {
            store
                .fail_task(
                    task.id,
                    worker,
                    "a plan without an objective",
                    self.runner.clock.now(),
                )
                .await?;
            return Ok(Settled::Failed);
        };
        let objective = store.objective(objective_id).await?;
        let planned = keeping_lease(
            store,
            &self.runner.clock,
            task.id,
            worker,
            self.config.lease_terms(),
            plan_with(&self.runner, &objective, task, worker),
        )
        .await;
        let Err(error) = planned else {
            return Ok(Settled::Completed);
        };
        tracing::error!(%error, objective = %objective.id, "planning failed");
        let now = self.runner.clock.now();
        // The Director's run may have ended the task already (a plan it
        // could not make valid); otherwise it fails here.
        if store.task(task.id).await?.status == TaskStatus::Running {
            store
                .fail_task(task.id, worker, &error.to_string(), now)
                .await?;
        }
        let update = ObjectiveUpdate {
            error: Some(error.to_string()),
            ..ObjectiveUpdate::default()
        };
        match store
            .set_objective_status(objective.id, ObjectiveStatus::Failed, update, now)
            .await
        {
            Ok(_) | Err(StoreError::IllegalTransition { .. }) => Ok(Settled::Failed),
            Err(other) => Err(other),
        }
    }
}
