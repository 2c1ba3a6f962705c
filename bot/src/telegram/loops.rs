//! The process's own loops that are not about one surface: the engine with
//! the recurring schedule, the groups' time and answers, and the ntfy
//! pushes.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ulias_agents::scheduler::Scheduler;
use ulias_core::clock::SharedClock;
use ulias_core::settings::HttpSettings;
use ulias_core::store::Store;

use super::groups::Community;
use super::{Common, Roles, Work, group_replies, groups};
use crate::ntfy::Ntfy;

/// Sends the queued ntfy pushes, when ntfy is configured.
pub(super) async fn send_pushes(
    store: Store,
    clock: SharedClock,
    ntfy: Option<Arc<Ntfy>>,
    http: HttpSettings,
) {
    let Some(ntfy) = ntfy else {
        return;
    };
    // Longer than any request may take, so a slow send is never sent twice.
    let longest = (http.connect_timeout_seconds + http.request_timeout_seconds + 60).min(86_400);
    let stale_after = chrono::TimeDelta::seconds(i64::try_from(longest).unwrap_or(86_400));
    crate::ntfy::outbox::run(store, clock, Ntfy::clone(&ntfy), stale_after).await;
}

/// The engine and the recurring schedule (its files in `prompts_dir`),
/// every `every`.
pub(super) async fn engine_loop(
    store: Store,
    clock: SharedClock,
    work: Arc<Work>,
    prompts_dir: PathBuf,
    every: Duration,
) {
    let engine = &work.engine;
    let runner = &engine.runner;
    let scheduler = match Scheduler::load(&prompts_dir, &runner.catalogue) {
        Ok(scheduler) => Some(scheduler),
        Err(error) => {
            tracing::error!(%error, "the recurring schedule is off");
            None
        }
    };
    if let Some(scheduler) = &scheduler
        && let Err(error) = scheduler.sync(&store, clock.now()).await
    {
        tracing::error!(%error, "could not keep the schedule's next runs");
    }
    let mut every = tokio::time::interval(every);
    loop {
        // Every `engine.tick_seconds`, or at once when work was queued for
        // someone waiting (a plan, a group question).
        tokio::select! {
            _ = every.tick() => {}
            () = work.wake.notified() => {}
        }
        if let Some(scheduler) = &scheduler
            && let Err(error) = scheduler.tick(&store, &runner.catalogue, clock.now()).await
        {
            tracing::error!(%error, "the schedule's tick failed");
        }
        match engine.tick().await {
            Ok(report) => {
                tracing::debug!(?report, "engine tick");
                // A tick that hit its bound left work: the next one comes now.
                if report.ran() >= engine.config.max_tasks_per_tick {
                    work.wake.notify_one();
                }
            }
            Err(error) => tracing::error!(%error, "the engine's tick failed"),
        }
    }
}

/// The groups' own time (captcha deadlines, the end of raid mode) and the
/// answers to their questions, every `every` (`engine.notify_seconds`):
/// never behind an engine tick that runs models.
pub(super) async fn groups_loop(
    common: Arc<Common>,
    work: Arc<Work>,
    roles: Arc<Roles>,
    community: Arc<Community>,
    every: Duration,
) {
    let mut every = tokio::time::interval(every);
    loop {
        every.tick().await;
        groups::tick(&common, &roles, &community.guard).await;
        if let Err(error) = group_replies::send(&common, &work, &roles, &community.guard).await {
            tracing::warn!(%error, "could not answer the group questions");
        }
    }
}
