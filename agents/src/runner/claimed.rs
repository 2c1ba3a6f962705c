//! One way to run an agent for a caller: the task is claimed (created
//! claimed, so no other worker can take it first), its lease is renewed
//! while the run is alive, and it is settled on every exit — completed
//! with its outcome, or failed with the error. The engine keeps the leases
//! of the tasks it claims from the queue alive the same way.

use std::future::Future;
use std::time::Duration;

use chrono::TimeDelta;
use ulias_core::clock::SharedClock;
use ulias_core::domain::{NewTask, Task, TaskId};
use ulias_core::store::Store;

use super::{RunError, RunMode, RunOutcome, Runner};

/// How long a claim lasts, and how often a live run renews it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseTerms {
    /// How long a claim lasts without renewal (on the store's clock).
    pub length: TimeDelta,
    /// How often a live run renews it (real time).
    pub renew_every: Duration,
}

impl LeaseTerms {
    /// A lease of `length`, renewed every third of it.
    pub fn of(length: TimeDelta) -> Self {
        let renew_every = (length / 3)
            .to_std()
            .unwrap_or(Duration::from_secs(60))
            .max(Duration::from_millis(10));
        Self {
            length,
            renew_every,
        }
    }
}

/// Runs `work` while renewing `worker`'s lease on `task` every
/// `terms.renew_every`. A renewal that fails (the lease was lost, the store
/// is down) is logged and renewal stops: the run's own settle then fails
/// as it should, so a task is never finished by a worker that lost it.
pub async fn keeping_lease<T>(
    store: &Store,
    clock: &SharedClock,
    task: TaskId,
    worker: &str,
    terms: LeaseTerms,
    work: impl Future<Output = T>,
) -> T {
    let renew = async {
        let mut every = tokio::time::interval(terms.renew_every);
        every.tick().await;
        loop {
            every.tick().await;
            if let Err(error) = store
                .renew_lease(task, worker, clock.now(), terms.length)
                .await
            {
                tracing::warn!(%error, %task, "could not renew the lease");
                break;
            }
        }
        // Renewal never ends the run: only `work` does.
        std::future::pending::<T>().await
    };
    tokio::select! {
        done = work => done,
        never = renew => never,
    }
}

impl Runner {
    /// Creates `new` claimed by `worker`, runs its agent with the lease kept
    /// alive, and settles it: completed with the outcome, or failed with
    /// the error (returned).
    pub async fn run_claimed(
        &self,
        new: &NewTask,
        worker: &str,
        terms: LeaseTerms,
    ) -> Result<(Task, RunOutcome), RunError> {
        let task = self
            .store
            .create_claimed_task(new, worker, self.clock.now(), terms.length)
            .await?;
        let run = keeping_lease(
            &self.store,
            &self.clock,
            task.id,
            worker,
            terms,
            self.run(&task, RunMode::Live),
        )
        .await;
        match run {
            Ok(outcome) => {
                self.store
                    .complete_task(
                        task.id,
                        worker,
                        &outcome.to_task_outcome(),
                        self.clock.now(),
                    )
                    .await?;
                Ok((task, outcome))
            }
            Err(error) => {
                self.store
                    .fail_task(task.id, worker, &error.to_string(), self.clock.now())
                    .await?;
                Err(error)
            }
        }
    }
}
