//! `ulias simulate`: rehearse on a simulated clock against a throwaway
//! in-memory database. Today it rehearses the settings, the schema and the
//! task queue (dependencies, due times, leases), and says plainly which
//! parts of the takeover it cannot simulate yet.

use std::io::Write;

use anyhow::Context;
use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use serde_json::json;
use ulias_core::clock::{Clock, ManualClock, SystemClock};
use ulias_core::domain::{
    NewObjective, NewTask, ObjectiveSource, Task, TaskOutcome, TaskStatus, Team,
};
use ulias_core::settings::{Settings, SettingsSource};
use ulias_core::store::Store;

use super::Outcome;
use crate::cli::SimulateArgs;

/// How far the simulated clock moves per engine tick.
const TICK: TimeDelta = TimeDelta::minutes(15);
/// How long a claimed task is leased.
const LEASE: TimeDelta = TimeDelta::minutes(10);
const WORKER: &str = "rehearsal-worker";

/// What the rehearsal saw.
#[derive(Debug, Default)]
struct Tally {
    ticks: u64,
    completed: u64,
    late: u64,
    leases_recovered: usize,
}

/// Runs the rehearsal and prints what it did and what it could not do.
pub async fn run(
    _settings: &Settings,
    source: &SettingsSource,
    args: &SimulateArgs,
    out: &mut impl Write,
) -> anyhow::Result<Outcome> {
    let start = SystemClock
        .now()
        .duration_trunc(TimeDelta::hours(1))
        .context("Failed to round the start time")?;
    let clock = ManualClock::new(start);
    let store = Store::connect("sqlite::memory:", 1).await?;
    let migrations = store.migrate().await?;
    writeln!(
        out,
        "Ulias simulation — {} day(s) from {start} (simulated clock)",
        args.days
    )?;
    writeln!(out, "settings   {source}: valid")?;
    writeln!(
        out,
        "store      in-memory SQLite, {} migration(s) applied; your database is not touched",
        migrations.applied_now.len()
    )?;

    let tasks = plan_rehearsal(&store, &clock, args.days).await?;
    let tally = drive(
        &store,
        &clock,
        start + TimeDelta::days(i64::from(args.days)),
    )
    .await?;
    let all = store.tasks_of_objective(tasks).await?;
    let done = all
        .iter()
        .filter(|t| t.status == TaskStatus::Completed)
        .count();

    writeln!(
        out,
        "queue      {} ticks of {} min: {done}/{} tasks completed in dependency order, \
         {} late, {} crashed run(s) recovered from an expired lease",
        tally.ticks,
        TICK.num_minutes(),
        all.len(),
        tally.late,
        tally.leases_recovered
    )?;
    writeln!(out, "cost       $0.0000 — this rehearsal calls no model")?;
    writeln!(
        out,
        "not simulated yet (not built): the takeover playbook and its agents' runs on \
         recorded answers, validations and publishing, Telegram and ntfy"
    )?;
    store.close().await;
    anyhow::ensure!(
        done == all.len() && tally.completed == done as u64,
        "the rehearsal left {} task(s) unfinished",
        all.len() - done
    );
    Ok(Outcome::Done)
}

/// One objective: a scan at J0, then a daily step per day, each depending on
/// the one before. Returns the objective's id.
async fn plan_rehearsal(
    store: &Store,
    clock: &ManualClock,
    days: u32,
) -> anyhow::Result<ulias_core::domain::ObjectiveId> {
    let mut objective = NewObjective::from_ceo(
        "Rehearsal: daily steps on schedule",
        "A chain of dated tasks run by a stand-in worker; no agent is involved.",
    );
    objective.source = ObjectiveSource::Playbook;
    let objective = store.create_objective(&objective, clock.now()).await?;
    let mut previous: Option<Task> = None;
    for day in 0..=i64::from(days) {
        let due = clock.now() + TimeDelta::days(day) + TimeDelta::hours(9);
        let agent = if day == 0 { "scanner" } else { "cm" };
        let mut task = NewTask::new(agent.parse()?, Team::Takeover, format!("day {day}"), due);
        task.objective_id = Some(objective.id);
        task.step_key = Some(format!("rehearsal.day{day}"));
        task.depends_on = previous.iter().map(|t| t.id).collect();
        previous = Some(store.create_task(&task, clock.now()).await?);
    }
    Ok(objective.id)
}

/// Ticks the clock to `end`. On day 2 the stand-in worker "crashes" once:
/// it claims a task and never answers, so its lease must expire.
async fn drive(store: &Store, clock: &ManualClock, end: DateTime<Utc>) -> anyhow::Result<Tally> {
    let mut tally = Tally::default();
    let crash_day = clock.now() + TimeDelta::days(2);
    let mut crashed = false;
    while clock.now() <= end + TimeDelta::hours(12) {
        let now = clock.now();
        tally.leases_recovered += store.requeue_expired_leases(now).await?.requeued.len();
        store.promote_ready_tasks(now).await?;
        while let Some(task) = store.claim_next_task(WORKER, now, LEASE).await? {
            if !crashed && now >= crash_day {
                crashed = true;
                break;
            }
            if now - task.due_at > TICK {
                tally.late += 1;
            }
            let outcome = TaskOutcome {
                result: json!({ "rehearsal": true }),
                ..TaskOutcome::default()
            };
            store.complete_task(task.id, WORKER, &outcome, now).await?;
            tally.completed += 1;
        }
        clock.advance(TICK);
        tally.ticks += 1;
    }
    Ok(tally)
}
