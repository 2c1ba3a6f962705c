//! The engine's worker loop, one tick at a time: expired leases back to the
//! queue, due CEO decisions applied, validations waiting too long flagged,
//! due tasks with finished dependencies queued, then each claimed task run
//! (through its pipeline, or as a non-AI action) and put through the
//! verification gate:
//!
//! - success completes the task — unless its public output waits for the
//!   team (a validation), or it is a gate whose verdict is `no_go`, which
//!   stops its operation;
//! - doubt (confidence under the threshold) blocks it behind a CEO decision;
//! - failure retries it (within its attempts), then reports an incident.
//!
//! When a task finishes, its objective (and operation) may be done: the CEO
//! is told and the Learner gets a task to extract the lessons.

mod actions;
mod decisions;
mod effects;
mod finish;
mod gate;
mod incident;
mod outages;
mod planning;
mod prereport;
mod review;
mod scanner;
mod upkeep;
mod vote;

use chrono::TimeDelta;
use ulias_core::domain::{Task, TaskStatus};
use ulias_core::playbook::SYSTEM_AGENT;
use ulias_core::store::StoreError;

use crate::alerts::Alert;
use crate::director::PLAN_KIND;
use crate::pipelines;
use crate::runner::{LeaseTerms, Runner, keeping_lease};

pub use self::decisions::{Applied, ApplyError};
pub use self::effects::{CONNECTOR, ProposalPolicy};
pub use self::incident::SIMPLIFIER;
pub use self::scanner::{GO_NOGO_KINDS, SCANNER, overrule_go_nogo};
pub use self::vote::{TieError, VOTE_SECTION};

/// The kind of a community group's question: someone is waiting for its
/// answer now (see [`answers_now`]).
pub const GROUP_QUESTION: &str = "group_question";

/// The kind of the CM's reply to an X mention: its input names the
/// mention ([`REPLY_TO_MENTION`]), and the reply the team approves answers it.
pub const MENTION_REPLY: &str = "mention_reply";

/// The input field holding the X post a mention reply answers.
pub const REPLY_TO_MENTION: &str = "reply_to_mention";

/// Whether someone is waiting on this task right now (a group question):
/// its answer is sent or dropped by its caller, never put to the CEO as a
/// doubt, retried later or reported as an incident.
pub fn answers_now(task: &Task) -> bool {
    task.kind.as_deref() == Some(GROUP_QUESTION)
}

/// How a worker runs tasks.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// This worker's name (leases carry it).
    pub worker: String,
    /// How long a claim lasts without renewal.
    pub lease: TimeDelta,
    /// How often a live run renews its claim (real time).
    pub renew_every: std::time::Duration,
    /// Under this confidence, a result waits for the CEO.
    pub confidence_threshold: f64,
    /// How long the CEO has before the automatic choice applies.
    pub decision_timeout: TimeDelta,
    /// A validation pending longer than this is flagged to the team.
    pub validation_reminder: TimeDelta,
    /// When the organisation's proposals may become objectives unasked.
    pub proposals: ProposalPolicy,
    /// The most tasks one tick runs (the rest wait for the next), so a
    /// tick's length stays bounded.
    pub max_tasks_per_tick: usize,
    /// The playbook a takeover starts with (`prompts/playbooks/takeover.toml`).
    pub takeover: Option<std::sync::Arc<ulias_core::playbook::Playbook>>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            worker: "worker-1".to_owned(),
            lease: TimeDelta::minutes(15),
            renew_every: std::time::Duration::from_secs(5 * 60),
            confidence_threshold: 0.7,
            decision_timeout: TimeDelta::hours(24),
            validation_reminder: TimeDelta::hours(2),
            proposals: ProposalPolicy::default(),
            max_tasks_per_tick: 32,
            takeover: None,
        }
    }
}

/// What one tick did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TickReport {
    pub requeued: usize,
    pub decisions_applied: usize,
    pub validations_flagged: usize,
    pub queued: usize,
    pub completed: usize,
    /// Finished runs whose output waits for the team's validation.
    pub awaiting_validation: usize,
    pub doubtful: usize,
    pub retried: usize,
    pub failed: usize,
    /// Tasks that ended with their operation stopped (a no-go).
    pub stopped: usize,
    /// Events turned into their agents' tasks.
    pub events_dispatched: usize,
}

impl EngineConfig {
    /// The lease a claimed task is held with.
    pub fn lease_terms(&self) -> LeaseTerms {
        LeaseTerms {
            length: self.lease,
            renew_every: self.renew_every,
        }
    }
}

impl TickReport {
    /// How many tasks the tick ran (whatever became of them).
    pub fn ran(&self) -> usize {
        self.completed
            + self.awaiting_validation
            + self.doubtful
            + self.retried
            + self.failed
            + self.stopped
    }

    /// Adds another tick's figures to these.
    pub fn add(&mut self, other: &TickReport) {
        self.requeued += other.requeued;
        self.decisions_applied += other.decisions_applied;
        self.validations_flagged += other.validations_flagged;
        self.queued += other.queued;
        self.completed += other.completed;
        self.awaiting_validation += other.awaiting_validation;
        self.doubtful += other.doubtful;
        self.retried += other.retried;
        self.failed += other.failed;
        self.stopped += other.stopped;
        self.events_dispatched += other.events_dispatched;
    }
}

/// A worker.
pub struct Engine {
    pub runner: Runner,
    pub config: EngineConfig,
}

/// What became of one task run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    Completed,
    AwaitingValidation,
    Doubtful,
    Retried,
    Failed,
    /// A gate said no-go: the operation is stopped.
    OperationStopped,
}

impl Engine {
    /// One pass over the queue.
    pub async fn tick(&self) -> Result<TickReport, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let mut report = TickReport {
            requeued: store.requeue_expired_leases(now).await?.requeued.len(),
            decisions_applied: self.apply_answered_decisions().await?,
            events_dispatched: self.dispatch_events().await?,
            validations_flagged: self.flag_waiting_validations().await?,
            queued: store.promote_ready_tasks(now).await?.len(),
            ..TickReport::default()
        };
        for _ in 0..self.config.max_tasks_per_tick {
            let Some(task) = store
                .claim_next_task(
                    &self.config.worker,
                    self.runner.clock.now(),
                    self.config.lease,
                )
                .await?
            else {
                break;
            };
            match self.execute(&task).await? {
                Settled::Completed => report.completed += 1,
                Settled::AwaitingValidation => report.awaiting_validation += 1,
                Settled::Doubtful => report.doubtful += 1,
                Settled::Retried => report.retried += 1,
                Settled::Failed => report.failed += 1,
                Settled::OperationStopped => report.stopped += 1,
            }
        }
        self.measure_finished_tasks().await?;
        Ok(report)
    }

    /// Ticks until a tick finds less than its bound to run: the queue as it
    /// stands, drained.
    pub async fn drain(&self) -> Result<TickReport, StoreError> {
        let mut total = TickReport::default();
        loop {
            let report = self.tick().await?;
            total.add(&report);
            if report.ran() < self.config.max_tasks_per_tick {
                return Ok(total);
            }
        }
    }

    /// Runs a task this worker claimed — a non-AI action, or its agent
    /// through its pipeline — and puts the result through the gate.
    pub async fn execute(&self, task: &Task) -> Result<Settled, StoreError> {
        if task.agent.as_str() == SYSTEM_AGENT {
            return self.perform_action(task).await;
        }
        if task.kind.as_deref() == Some(PLAN_KIND) {
            return self.plan(task).await;
        }
        let result = keeping_lease(
            &self.runner.store,
            &self.runner.clock,
            task.id,
            &self.config.worker,
            self.config.lease_terms(),
            pipelines::run(&self.runner, task, &self.config.worker),
        )
        .await;
        let settled = self.gate(task, result).await?;
        // What the run's checks saw counts whatever became of its report.
        self.follow_checks(task).await?;
        if matches!(settled, Settled::Completed | Settled::Failed) {
            self.after_finish(task).await?;
        }
        Ok(settled)
    }

    /// Sends an alert; failing to is logged, never fatal.
    async fn tell(&self, alert: Alert) {
        if let Err(problem) = self.runner.alerter.alert(alert).await {
            tracing::error!(%problem, "could not send an alert");
        }
    }
}

impl Settled {
    /// The task status this outcome leaves.
    pub fn status(self) -> TaskStatus {
        match self {
            Self::Completed | Self::OperationStopped => TaskStatus::Completed,
            Self::AwaitingValidation | Self::Doubtful => TaskStatus::Blocked,
            Self::Retried => TaskStatus::Pending,
            Self::Failed => TaskStatus::Failed,
        }
    }
}
