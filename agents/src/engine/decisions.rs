//! The one path that carries out a decision's answer, whatever its kind and
//! however it came (a button, the phone, the timeout). Every step checks
//! where its record stands first, so carrying an answer out twice changes
//! nothing the second time; the store records it as applied once done.

use ulias_core::domain::{
    Decision, DecisionKind, DecisionOption, NewTask, ObjectiveStatus, Operation, OperationStatus,
    TaskStatus,
};
use ulias_core::store::{ObjectiveUpdate, StoreError};

use super::Engine;
use crate::director::queue_planning;
use crate::operations::{Candidate, Started, start_takeover};
use crate::schemas::GoNoGo;

/// What carrying out an answer did, for the surface to tell.
#[derive(Debug, Clone)]
pub enum Applied {
    /// Nothing to do: no answer yet, or already carried out.
    Nothing,
    /// A doubtful task moved on.
    Task,
    /// An objective was dropped.
    ObjectiveDropped,
    /// An objective goes back to the Director.
    Replanned,
    /// A destructive call may now run: its work was queued again.
    Confirmed,
    /// A takeover started.
    OperationStarted(Box<Started>),
    /// A takeover was refused: its contract is already in this operation.
    AlreadyRunning(Operation),
    /// An operation stopped.
    OperationStopped(Operation),
    /// An operation's outputs are published without validation now.
    ValidationOff(Operation),
}

/// Why an answer could not be carried out (it is tried again next tick).
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("no takeover playbook is loaded: cannot start an operation")]
    NoPlaybook,
}

impl Engine {
    /// Carries out every answered or timed-out decision not carried out
    /// yet, one at a time: one that fails is logged and tried again at the
    /// next tick, and does not hold back the others. Returns how many were
    /// carried out now.
    pub(super) async fn apply_answered_decisions(&self) -> Result<usize, StoreError> {
        let store = &self.runner.store;
        store
            .time_out_due_decisions(self.runner.clock.now())
            .await?;
        let mut applied = 0;
        for decision in store.unapplied_decisions().await? {
            match self.apply_decision(&decision).await {
                Ok(_) => applied += 1,
                Err(error) => {
                    tracing::warn!(decision = %decision.id, %error, "decision not carried out; trying again next tick");
                }
            }
        }
        Ok(applied)
    }

    /// Carries out one decision's answer, once: a decision already carried
    /// out, or not answered, gives [`Applied::Nothing`].
    pub async fn apply_decision(&self, decision: &Decision) -> Result<Applied, ApplyError> {
        let store = &self.runner.store;
        let current = store.decision(decision.id).await?;
        if current.applied_at.is_some() {
            return Ok(Applied::Nothing);
        }
        let Some(choice) = current.chosen() else {
            // Answered with no typed option (a decision stored before
            // kinds): nothing to carry out, and nothing to try again.
            if current.response.is_some() {
                store
                    .mark_decision_applied(current.id, self.runner.clock.now())
                    .await?;
            }
            return Ok(Applied::Nothing);
        };
        let applied = self.carry_out(&current, choice).await?;
        store
            .mark_decision_applied(current.id, self.runner.clock.now())
            .await?;
        tracing::info!(decision = %current.id, kind = current.kind.name(), %choice, "decision carried out");
        Ok(applied)
    }

    async fn carry_out(
        &self,
        decision: &Decision,
        choice: DecisionOption,
    ) -> Result<Applied, ApplyError> {
        match &decision.kind {
            DecisionKind::Doubt { .. } => Ok(self.settle_doubt(decision, choice).await?),
            DecisionKind::Escalation { .. } => Ok(self.answer_escalation(decision, choice).await?),
            DecisionKind::Confirmation { .. } => {
                Ok(self.answer_confirmation(decision, choice).await?)
            }
            DecisionKind::OperationStart {
                chain,
                address,
                name,
                ticker,
            } if choice == DecisionOption::Start => {
                let candidate = Candidate {
                    chain: chain.clone(),
                    address: address.clone(),
                    name: name.clone(),
                    ticker: ticker.clone(),
                };
                self.start_candidate(&candidate, decision).await
            }
            DecisionKind::OperationStop { operation, .. } if choice == DecisionOption::Stop => {
                let store = &self.runner.store;
                let current = store.operation(*operation).await?;
                if matches!(
                    current.status,
                    OperationStatus::Stopped | OperationStatus::Completed
                ) {
                    return Ok(Applied::Nothing);
                }
                store
                    .stop_operation(*operation, self.runner.clock.now())
                    .await?;
                Ok(Applied::OperationStopped(
                    store.operation(*operation).await?,
                ))
            }
            DecisionKind::ValidationOff { operation, .. } if choice == DecisionOption::Confirm => {
                let store = &self.runner.store;
                let now = self.runner.clock.now();
                let operation = store
                    .set_validation_required(*operation, false, now)
                    .await?;
                Ok(Applied::ValidationOff(operation))
            }
            DecisionKind::Incident {
                incident, actions, ..
            } if choice == DecisionOption::Act => {
                self.act_on_incident(*incident, actions).await?;
                Ok(Applied::Task)
            }
            DecisionKind::OperationStart { .. }
            | DecisionKind::OperationStop { .. }
            | DecisionKind::ValidationOff { .. }
            | DecisionKind::Incident { .. }
            | DecisionKind::Legacy { .. } => Ok(Applied::Nothing),
        }
    }

    /// A doubtful result: accepted, run again, or cancelled. A task no
    /// longer blocked (already moved on) is left as it is.
    async fn settle_doubt(
        &self,
        decision: &Decision,
        choice: DecisionOption,
    ) -> Result<Applied, StoreError> {
        let store = &self.runner.store;
        let Some(task_id) = decision.task_id else {
            return Ok(Applied::Nothing);
        };
        if store.task(task_id).await?.status != TaskStatus::Blocked {
            return Ok(Applied::Nothing);
        }
        let to = match choice {
            DecisionOption::Accept => TaskStatus::Completed,
            DecisionOption::Rerun => TaskStatus::Queued,
            _ => TaskStatus::Cancelled,
        };
        let task = store
            .unblock_task(task_id, to, None, self.runner.clock.now())
            .await?;
        if to != TaskStatus::Queued {
            self.after_finish(&task).await?;
        }
        Ok(Applied::Task)
    }

    /// The Director could not plan: drop the objective, or plan it again.
    async fn answer_escalation(
        &self,
        decision: &Decision,
        choice: DecisionOption,
    ) -> Result<Applied, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let Some(id) = decision.objective_id else {
            return Ok(Applied::Nothing);
        };
        if store.objective(id).await?.status != ObjectiveStatus::Blocked {
            return Ok(Applied::Nothing);
        }
        if choice == DecisionOption::Drop {
            store.stop_objective(id, now).await?;
            return Ok(Applied::ObjectiveDropped);
        }
        let objective = store
            .set_objective_status(
                id,
                ObjectiveStatus::Planning,
                ObjectiveUpdate::default(),
                now,
            )
            .await?;
        queue_planning(&self.runner, &objective).await?;
        Ok(Applied::Replanned)
    }

    /// A destructive call confirmed: the task's work runs again as a new
    /// task carrying the decision, and the runner lets exactly that call
    /// through (see `runner::dispatch`). Refused: the dry run stands.
    async fn answer_confirmation(
        &self,
        decision: &Decision,
        choice: DecisionOption,
    ) -> Result<Applied, StoreError> {
        let store = &self.runner.store;
        let (Some(task_id), DecisionOption::Confirm) = (decision.task_id, choice) else {
            return Ok(Applied::Nothing);
        };
        let key = format!("confirmed.{}", decision.id);
        if store.task_with_step_key(&key).await?.is_some() {
            return Ok(Applied::Nothing);
        }
        let task = store.task(task_id).await?;
        let mut again = NewTask::new(
            task.agent.clone(),
            task.team,
            task.title.clone(),
            self.runner.clock.now(),
        );
        again.objective_id = task.objective_id;
        again.operation_id = task.operation_id;
        again.kind = task.kind.clone();
        again.priority = task.priority;
        again.step_key = Some(key);
        let mut input = task.input.clone();
        if let Some(fields) = input.as_object_mut() {
            fields.insert(
                crate::runner::CONFIRMED_BY.to_owned(),
                serde_json::json!(decision.id.get()),
            );
        }
        again.input = input;
        let key = again.step_key.clone().unwrap_or_default();
        match store.create_task(&again, self.runner.clock.now()).await {
            Ok(_) => Ok(Applied::Confirmed),
            // Created at the same moment by another path (a unique index).
            Err(_) if store.task_with_step_key(&key).await?.is_some() => Ok(Applied::Nothing),
            Err(error) => Err(error),
        }
    }

    /// Starts the takeover of a candidate, its pre-report (the decision's
    /// task) giving the official addresses it read.
    async fn start_candidate(
        &self,
        candidate: &Candidate,
        decision: &Decision,
    ) -> Result<Applied, ApplyError> {
        let store = &self.runner.store;
        let playbook = self
            .config
            .takeover
            .as_ref()
            .ok_or(ApplyError::NoPlaybook)?;
        let prereport = match decision.task_id {
            Some(task) => store
                .task(task)
                .await?
                .result
                .and_then(|r| serde_json::from_value::<GoNoGo>(r).ok()),
            None => None,
        };
        let now = self.runner.clock.now();
        match start_takeover(store, playbook, candidate, prereport.as_ref(), now).await {
            Ok(started) => Ok(Applied::OperationStarted(Box::new(started))),
            Err(StoreError::Taken { operation, .. }) => {
                let running = store
                    .operation(ulias_core::domain::OperationId::new(operation))
                    .await?;
                Ok(Applied::AlreadyRunning(running))
            }
            Err(error) => Err(error.into()),
        }
    }
}
