//! The recurring schedule at work: each tick turns the jobs that are due
//! into tasks. A job's next run is computed from now, so runs missed while
//! the process was down happen once, not once per missed slot.

use std::path::Path;

use chrono::{DateTime, Utc};
use ulias_core::domain::{NewTask, Task};
use ulias_core::schedule::{Schedule, ScheduleError};
use ulias_core::store::{Store, StoreError};

use crate::spec::Catalogue;

/// The schedule file, next to the agents.
pub const SCHEDULE_FILE: &str = "schedule.toml";

/// Why the schedule cannot run.
#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error(transparent)]
    Invalid(#[from] ScheduleError),
    #[error("schedule job `{job}` names the agent `{agent}`, which has no file")]
    UnknownAgent { job: String, agent: String },
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
}

/// Jobs, checked against the agents.
#[derive(Debug, Clone)]
pub struct Scheduler {
    pub schedule: Schedule,
}

impl Scheduler {
    /// Reads `prompts_dir/schedule.toml` and checks every job's agent exists.
    pub fn load(prompts_dir: &Path, catalogue: &Catalogue) -> Result<Self, SchedulerError> {
        let path = prompts_dir.join(SCHEDULE_FILE);
        let text = std::fs::read_to_string(&path).map_err(|source| SchedulerError::Read {
            path: path.display().to_string(),
            source,
        })?;
        let schedule = Schedule::parse(&text, &path.display().to_string())?;
        for job in &schedule.jobs {
            if catalogue.get(job.agent.as_str()).is_none() {
                return Err(SchedulerError::UnknownAgent {
                    job: job.name.clone(),
                    agent: job.agent.to_string(),
                });
            }
        }
        Ok(Self { schedule })
    }

    /// Records every job in the store (keeping next runs already there).
    pub async fn sync(&self, store: &Store, now: DateTime<Utc>) -> Result<(), SchedulerError> {
        let timezone = self.schedule.timezone.name();
        for job in &self.schedule.jobs {
            let next = self.schedule.next_run(job, now).unwrap_or(now);
            store
                .upsert_schedule(
                    &job.name,
                    &job.cron_text,
                    timezone,
                    job.agent.as_str(),
                    next,
                    now,
                )
                .await?;
        }
        Ok(())
    }

    /// Creates a task for every job due at `now` that this caller won.
    pub async fn tick(
        &self,
        store: &Store,
        catalogue: &Catalogue,
        now: DateTime<Utc>,
    ) -> Result<Vec<Task>, SchedulerError> {
        let mut created = Vec::new();
        for (name, due) in store.due_schedules(now).await? {
            let Some(job) = self.schedule.jobs.iter().find(|job| job.name == name) else {
                continue; // a job removed from the file
            };
            let next = self.schedule.next_run(job, now).unwrap_or(now);
            if !store.advance_schedule(&name, due, next, now).await? {
                continue;
            }
            let Some(spec) = catalogue.get(job.agent.as_str()) else {
                continue;
            };
            let mut task = NewTask::new(job.agent.clone(), spec.team, job.task.clone(), now);
            task.kind = Some(format!("schedule:{}", job.name));
            created.push(store.create_task(&task, now).await?);
        }
        Ok(created)
    }
}
