//! Claims that survive long runs and crashes: a live run renews its lease,
//! so a second worker never starts it again; the Director's planning is a
//! task, so a worker that died mid-plan leaves it for the next one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::time::Duration;

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::director::queue_planning;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_core::clock::Clock;
use ulias_core::domain::{NewObjective, NewTask, ObjectiveStatus, TaskStatus, Team};
use ulias_tests::harness::Harness;

fn finish(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": arguments}]})
}

fn engine(h: &Harness, worker: &str) -> Engine {
    Engine {
        runner: h.runner.clone(),
        config: EngineConfig {
            worker: worker.to_owned(),
            lease: TimeDelta::minutes(10),
            renew_every: Duration::from_millis(100),
            ..EngineConfig::default()
        },
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_outlives_its_first_lease_is_not_started_a_second_time() {
    // The model takes 2 s, during which 30 minutes pass on the store's clock.
    let mut slow =
        finish(json!({"summary": "3 endpoints checked", "findings": [], "confidence": 0.9}));
    slow["delay_ms"] = json!(2_000);
    let h = Harness::new(vec![slow]).await;
    let now = h.clock.now();
    let task = NewTask::new(
        "analyst".parse().unwrap(),
        Team::Research,
        "Weekly trends",
        now,
    );
    let id = h.db.store.create_task(&task, now).await.unwrap().id;
    let (first, second) = (engine(&h, "worker-a"), engine(&h, "worker-b"));

    let running = tokio::spawn(async move { first.tick().await.unwrap() });
    let mut others = Vec::new();
    for _ in 0..6 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        h.clock.advance(TimeDelta::minutes(5));
        others.push(second.tick().await.unwrap());
    }
    let report = running.await.unwrap();

    assert_eq!(report.completed, 1);
    assert!(
        others.iter().all(|r| r.requeued == 0 && r.ran() == 0),
        "{others:?}"
    );
    assert_eq!(h.llm.played(), 1, "run once");
    assert_eq!(
        h.db.store.task(id).await.unwrap().status,
        TaskStatus::Completed
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_worker_that_dies_while_planning_leaves_the_plan_to_the_next_one() {
    let plan = finish(
        json!({"team": "research", "rationale": "One look.", "escalate": null,
        "confidence": 0.9, "tasks": [{"key": "a", "agent": "analyst", "title": "Read the logs",
        "description": "Errors", "pipeline": "direct", "depends_on": [], "priority": 6}]}),
    );
    let h = Harness::new(vec![plan]).await;
    let store = &h.db.store;
    let now = h.clock.now();
    let objective = store
        .create_objective(&NewObjective::from_ceo("Analyse the errors", ""), now)
        .await
        .unwrap();
    let planning = queue_planning(&h.runner, &objective).await.unwrap();
    // A worker claims the plan, then its process dies.
    store.promote_ready_tasks(now).await.unwrap();
    let claimed = store
        .claim_next_task("dead-worker", now, TimeDelta::minutes(15))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, planning.id);

    h.clock.advance(TimeDelta::minutes(16));
    let report = engine(&h, "worker-b").tick().await.unwrap();

    assert_eq!(report.requeued, 1);
    let planned = store.objective(objective.id).await.unwrap();
    assert_eq!(planned.status, ObjectiveStatus::InProgress);
    let tasks = store.tasks_of_objective(objective.id).await.unwrap();
    assert_eq!(tasks.len(), 2, "the plan and its one task: {tasks:?}");
    assert_eq!(
        tasks[0].status,
        TaskStatus::Completed,
        "the plan, done by worker-b"
    );
    assert_eq!(tasks[1].title, "Read the logs");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plan_that_cannot_be_made_fails_its_objective_with_the_reason() {
    // The model server is down for the Director.
    let h = Harness::new(vec![json!({"status": 400})]).await;
    let store = &h.db.store;
    let now = h.clock.now();
    let objective = store
        .create_objective(&NewObjective::from_ceo("Analyse the errors", ""), now)
        .await
        .unwrap();
    queue_planning(&h.runner, &objective).await.unwrap();

    engine(&h, "worker-a").tick().await.unwrap();

    let failed = store.objective(objective.id).await.unwrap();
    assert_eq!(failed.status, ObjectiveStatus::Failed);
    assert!(
        failed.error.unwrap().contains("Director"),
        "the reason is kept"
    );
}
