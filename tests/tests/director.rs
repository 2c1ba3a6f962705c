//! The Director: plans checked against the catalogue, re-asked once, or escalated.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use serde_json::{Value, json};
use ulias_agents::director::{Planned, plan_objective};
use ulias_core::clock::Clock;
use ulias_core::domain::{NewObjective, ObjectiveStatus, TaskStatus};
use ulias_tests::harness::Harness;

fn plan(tasks: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "team": "engineering", "rationale": "code, review, test", "tasks": tasks,
        "escalate": null, "confidence": 0.8}}]})
}

fn task(key: &str, agent: &str, depends_on: &[&str]) -> Value {
    json!({"key": key, "agent": agent, "title": format!("{key} step"), "description": "…",
           "pipeline": "direct", "depends_on": depends_on, "priority": 6})
}

async fn objective(h: &Harness) -> ulias_core::domain::Objective {
    let new = NewObjective::from_ceo("Validate query params on /api/fetch", "with zod");
    h.db.store
        .create_objective(&new, h.clock.now())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_valid_plan_becomes_tasks_with_their_dependencies() {
    let tasks = json!([
        task("test", "tester", &["review"]),
        task("code", "coder", &[]),
        task("review", "reviewer", &["code"])
    ]);
    let h = Harness::new(vec![plan(tasks)]).await;
    let objective = objective(&h).await;

    let planned = plan_objective(&h.runner, &objective, "w").await.unwrap();

    let Planned::Tasks(created) = planned else {
        panic!("{planned:?}")
    };
    let agents: Vec<&str> = created.iter().map(|t| t.agent.as_str()).collect();
    assert_eq!(
        agents,
        ["coder", "reviewer", "tester"],
        "dependencies first"
    );
    assert_eq!(created[1].depends_on, vec![created[0].id]);
    assert_eq!(created[2].depends_on, vec![created[1].id]);
    assert!(
        created
            .iter()
            .all(|t| t.status == TaskStatus::Pending && t.objective_id == Some(objective.id))
    );
    let objective = h.db.store.objective(objective.id).await.unwrap();
    assert_eq!(objective.status, ObjectiveStatus::InProgress);
}

#[tokio::test]
async fn a_plan_with_a_cycle_is_sent_back_once_with_its_error() {
    let cyclic = json!([task("a", "coder", &["b"]), task("b", "reviewer", &["a"])]);
    let fixed = json!([task("a", "coder", &[]), task("b", "reviewer", &["a"])]);
    let h = Harness::new(vec![plan(cyclic), plan(fixed)]).await;
    let objective = objective(&h).await;

    let planned = plan_objective(&h.runner, &objective, "w").await.unwrap();

    assert!(
        matches!(planned, Planned::Tasks(ref tasks) if tasks.len() == 2),
        "{planned:?}"
    );
    let second_ask = h.llm.requests()[1]["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        second_ask.contains("the dependencies form a cycle through: a → b"),
        "{second_ask}"
    );
}

#[tokio::test]
async fn an_unknown_agent_twice_escalates_to_the_ceo() {
    let bad = json!([task("a", "wizard", &[])]);
    let h = Harness::new(vec![plan(bad.clone()), plan(bad)]).await;
    let objective = objective(&h).await;

    let planned = plan_objective(&h.runner, &objective, "w").await.unwrap();

    let Planned::Escalated { reason } = planned else {
        panic!("{planned:?}")
    };
    assert!(
        reason.contains("`wizard`, which does not exist"),
        "{reason}"
    );
    let objective = h.db.store.objective(objective.id).await.unwrap();
    assert_eq!(objective.status, ObjectiveStatus::Blocked);
    assert_eq!(h.db.scalar("SELECT COUNT(*) FROM decisions").await, 1);
    assert_eq!(
        h.db.scalar("SELECT COUNT(*) FROM tasks WHERE agent = 'wizard'")
            .await,
        0
    );
}
