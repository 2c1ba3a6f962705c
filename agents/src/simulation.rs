//! A rehearsal on a simulated clock: the engine, the recurring schedule and
//! a stand-in team that answers each validation after a delay (and rejects
//! one chosen step once, to show the loop). What `ulias simulate` runs, and
//! what the operation tests drive. All its state is in the store, so a
//! rehearsal can be dropped and resumed on the same database.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Timelike, Utc};
use ulias_core::clock::{Clock, ManualClock};
use ulias_core::domain::{
    OperationId, PollPlatform, PublicationId, Task, TaskId, TaskStatus, ValidationKind,
    ValidationStatus,
};
use ulias_core::store::{NewPoll, Store, StoreError};

use crate::director::{Planned, PlanningError, plan_objective};
use crate::engine::Engine;
use crate::interpreter::{Interpreted, interpret};
use crate::publications::Content;
use crate::scheduler::{Scheduler, SchedulerError};

/// The stand-in team's name on approvals.
pub const TEAM: &str = "team (simulated)";

/// How the stand-in team answers validations.
#[derive(Debug, Clone)]
pub struct StandInTeam {
    /// A validation is answered this long after it appeared.
    pub answer_after: TimeDelta,
    /// The step whose first validation is rejected (then approved on the re-run).
    pub reject_once: Option<String>,
    pub rejection_reason: String,
}

/// Why a rehearsal stopped.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Schedule(#[from] SchedulerError),
    #[error(transparent)]
    Planning(#[from] PlanningError),
}

/// A rehearsal.
pub struct Rehearsal {
    pub engine: Engine,
    pub clock: Arc<ManualClock>,
    pub team: StandInTeam,
    /// The recurring schedule, while it runs.
    pub scheduler: Option<Scheduler>,
    /// The operation whose steps are reported.
    pub operation: Option<OperationId>,
    seen: HashMap<TaskId, TaskStatus>,
    scheduled: BTreeMap<String, usize>,
}

/// Where an operation's step stood at the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Verification {
    pub steps: usize,
    pub completed: usize,
    /// Steps that started more than one tick after they could have.
    pub late: Vec<String>,
    /// Steps flagged for validation that finished without an approved one.
    pub unvalidated_steps: Vec<String>,
    /// Publication jobs with no approved validation behind them.
    pub unvalidated_publications: u64,
    pub publications: u64,
}

impl Verification {
    /// Every step ran on schedule and every public output was validated.
    pub fn passed(&self) -> bool {
        self.late.is_empty()
            && self.unvalidated_steps.is_empty()
            && self.unvalidated_publications == 0
    }
}

impl Rehearsal {
    pub fn new(engine: Engine, clock: Arc<ManualClock>, team: StandInTeam) -> Self {
        Self {
            engine,
            clock,
            team,
            scheduler: None,
            operation: None,
            seen: HashMap::new(),
            scheduled: BTreeMap::new(),
        }
    }

    fn store(&self) -> &Store {
        &self.engine.runner.store
    }

    /// Ticks every `tick` until `end` (inclusive); `say` gets each line.
    pub async fn run_until(
        &mut self,
        end: DateTime<Utc>,
        tick: TimeDelta,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<(), SimulationError> {
        while self.clock.now() <= end {
            self.step(say).await?;
            self.clock.advance(tick);
        }
        Ok(())
    }

    /// One tick: the team answers what is due, the schedule adds its tasks,
    /// the engine works.
    pub async fn step(
        &mut self,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<(), SimulationError> {
        let now = self.clock.now();
        let answered = self.answer_validations(say).await?;
        if now.minute() == 0 {
            self.say_scheduled(now, say);
        }
        if let Some(scheduler) = &self.scheduler {
            let catalogue = self.engine.runner.catalogue.clone();
            for task in scheduler.tick(self.store(), &catalogue, now).await? {
                *self.scheduled.entry(task.agent.to_string()).or_default() += 1;
            }
        }
        let report = self.engine.tick().await?;
        let busy = answered > 0
            || report.completed
                + report.awaiting_validation
                + report.doubtful
                + report.failed
                + report.retried
                + report.stopped
                + report.requeued
                > 0;
        if busy {
            self.report_steps(say).await?;
        }
        Ok(())
    }

    /// The recurring jobs queued since the last time this was said.
    fn say_scheduled(&mut self, now: DateTime<Utc>, say: &mut dyn FnMut(DateTime<Utc>, String)) {
        if self.scheduled.is_empty() {
            return;
        }
        let jobs: Vec<_> = self
            .scheduled
            .iter()
            .map(|(agent, n)| format!("{agent} ×{n}"))
            .collect();
        say(
            now,
            format!(
                "schedule   recurring jobs in the last hour: {}",
                jobs.join(", ")
            ),
        );
        self.scheduled.clear();
    }

    /// A CEO message: the Interpreter reads it, the Director plans it.
    pub async fn ceo_message(
        &self,
        text: &str,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<(), SimulationError> {
        let runner = &self.engine.runner;
        let worker = &self.engine.config.worker;
        let now = self.clock.now();
        say(now, format!("ceo        \"{text}\""));
        match interpret(runner, text, serde_json::Value::Null, worker, None).await? {
            // Nothing to continue in the simulation: no answer, no correction;
            // its takeover is started by `simulate` itself.
            Interpreted::Answer(..) | Interpreted::Correction(_) | Interpreted::Takeover(..) => {}
            Interpreted::Ask(reading) => {
                say(
                    now,
                    format!("interpret  unsure; asking: {}", reading.guesses.join(" / ")),
                );
            }
            Interpreted::Objective(objective, _) => {
                say(
                    now,
                    format!(
                        "interpret  objective #{}: {}",
                        objective.id, objective.title
                    ),
                );
                match plan_objective(runner, &objective, worker).await? {
                    Planned::Tasks(tasks) => {
                        let plan: Vec<_> = tasks.iter().map(|t| t.agent.to_string()).collect();
                        say(
                            now,
                            format!("director   {} task(s): {}", tasks.len(), plan.join(" → ")),
                        );
                    }
                    Planned::Escalated { reason } => {
                        say(now, format!("director   asks the CEO: {reason}"))
                    }
                }
            }
        }
        Ok(())
    }

    /// Answers every validation that has waited long enough.
    async fn answer_validations(
        &self,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<usize, SimulationError> {
        let now = self.clock.now();
        let mut answered = 0;
        for validation in self.store().pending_validations().await? {
            if now - validation.created_at < self.team.answer_after {
                break;
            }
            let task = match validation.task_id {
                Some(id) => Some(self.store().task(id).await?),
                None => None,
            };
            let what = format!(
                "validation #{} {} for {}",
                validation.id,
                validation.kind,
                label(task.as_ref())
            );
            if self.rejects(task.as_ref()).await? {
                self.engine
                    .reject(validation.id, TEAM, &self.team.rejection_reason)
                    .await?;
                say(
                    now,
                    format!(
                        "team       ✗ rejected {what}: \"{}\"",
                        self.team.rejection_reason
                    ),
                );
            } else {
                let publication = self.engine.approve(validation.id, TEAM).await?;
                say(now, format!("team       ✓ approved {what}"));
                if validation.kind == ValidationKind::Poll {
                    self.community_votes(publication, say).await?;
                }
            }
            answered += 1;
        }
        Ok(answered)
    }

    /// The approved poll, as if the community had voted on it: it is
    /// recorded as sent on Telegram and its options get votes, most for
    /// the first (nothing leaves the process in a rehearsal).
    async fn community_votes(
        &self,
        publication: PublicationId,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<(), SimulationError> {
        let now = self.clock.now();
        let job = self.store().publication(publication).await?;
        let Ok(Content::Poll { question, options }) =
            Content::of(ValidationKind::Poll, &job.payload)
        else {
            return Ok(());
        };
        let external_id = format!("simulated-{publication}");
        let votes = simulated_votes(options.len());
        let poll = NewPoll {
            operation_id: job.operation_id,
            publication_id: publication,
            platform: PollPlatform::Telegram,
            external_id: external_id.clone(),
            question,
            options,
        };
        self.store().record_poll(&poll, now).await?;
        self.store()
            .set_poll_counts(PollPlatform::Telegram, &external_id, &votes, 1, now)
            .await?;
        say(
            now,
            format!("community  votes on poll #{publication}: {votes:?}"),
        );
        Ok(())
    }

    /// Whether this is the first validation of the step chosen for rejection.
    async fn rejects(&self, task: Option<&Task>) -> Result<bool, StoreError> {
        let (Some(task), Some(step)) = (task, self.team.reject_once.as_deref()) else {
            return Ok(false);
        };
        if task.step_key.as_deref() != Some(step) {
            return Ok(false);
        }
        let earlier = self.store().validations_of_task(task.id).await?;
        Ok(!earlier
            .iter()
            .any(|v| v.status == ValidationStatus::Rejected))
    }

    /// Says which of the operation's steps changed status.
    async fn report_steps(
        &mut self,
        say: &mut dyn FnMut(DateTime<Utc>, String),
    ) -> Result<(), StoreError> {
        let Some(operation) = self.operation else {
            return Ok(());
        };
        let now = self.clock.now();
        for task in self.store().tasks_of_operation(operation).await? {
            if self.seen.get(&task.id) == Some(&task.status) {
                continue;
            }
            self.seen.insert(task.id, task.status);
            if task.status == TaskStatus::Pending {
                continue;
            }
            let cost = if task.cost.micros() > 0 {
                format!(" — {}", task.cost)
            } else {
                String::new()
            };
            say(
                now,
                format!(
                    "step       {:<10} {}{cost}",
                    task.status.to_string(),
                    label(Some(&task))
                ),
            );
        }
        Ok(())
    }

    /// Checks the operation's steps at the end of a rehearsal.
    pub async fn verify(
        &self,
        operation: OperationId,
        tick: TimeDelta,
    ) -> Result<Verification, StoreError> {
        let store = self.store();
        let tasks = store.tasks_of_operation(operation).await?;
        let by_id: HashMap<TaskId, &Task> = tasks.iter().map(|t| (t.id, t)).collect();
        let mut late = Vec::new();
        let mut unvalidated_steps = Vec::new();
        for task in &tasks {
            if let Some(started) = task.started_at {
                let ready = task
                    .depends_on
                    .iter()
                    .filter_map(|d| by_id.get(d).and_then(|t| t.completed_at))
                    .fold(task.due_at, DateTime::max);
                if started > ready + tick {
                    late.push(label(Some(task)));
                }
            }
            if task.requires_validation && task.status == TaskStatus::Completed {
                let approved = store
                    .validations_of_task(task.id)
                    .await?
                    .iter()
                    .any(|v| v.status == ValidationStatus::Approved);
                if !approved {
                    unvalidated_steps.push(label(Some(task)));
                }
            }
        }
        let (publications, unvalidated_publications) = store.publication_counts().await?;
        Ok(Verification {
            steps: tasks.len(),
            completed: tasks
                .iter()
                .filter(|t| t.status == TaskStatus::Completed)
                .count(),
            late,
            unvalidated_steps,
            unvalidated_publications,
            publications,
        })
    }
}

/// How a task is named in the rehearsal's lines.
/// The rehearsal's votes: 40 for the first option, 10 fewer for each next.
fn simulated_votes(options: usize) -> Vec<u64> {
    (0..options)
        .map(|i| 40_u64.saturating_sub(10 * i as u64))
        .collect()
}

fn label(task: Option<&Task>) -> String {
    match task {
        Some(task) => match &task.step_key {
            Some(step) => format!("{step} ({})", task.agent),
            None => format!("#{} {} ({})", task.id, task.title, task.agent),
        },
        None => "an output with no task".to_owned(),
    }
}
