//! A worker's tick and the verification gate.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::alerts::{AlertLevel, keys};
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_core::clock::Clock;
use ulias_core::domain::{DecisionId, DecisionKind, DecisionOption, NewTask, TaskStatus, Team};
use ulias_tests::harness::Harness;

fn report(confidence: f64) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "3 endpoints checked", "findings": [], "confidence": confidence}}]})
}

async fn engine_with(turns: Vec<Value>) -> (Harness, Engine) {
    let h = Harness::new(turns).await;
    let engine = Engine {
        runner: h.runner.clone(),
        config: EngineConfig::default(),
    };
    (h, engine)
}

async fn queue_analyst_task(h: &Harness) -> ulias_core::domain::TaskId {
    let now = h.clock.now();
    let task = NewTask::new(
        "analyst".parse().unwrap(),
        Team::Research,
        "Weekly log trends",
        now,
    );
    h.db.store.create_task(&task, now).await.unwrap().id
}

#[tokio::test]
async fn a_confident_result_completes_its_task() {
    let (h, engine) = engine_with(vec![report(0.9)]).await;
    let id = queue_analyst_task(&h).await;

    let tick = engine.tick().await.unwrap();

    assert_eq!((tick.queued, tick.completed), (1, 1));
    assert_eq!(
        h.db.store.task(id).await.unwrap().status,
        TaskStatus::Completed
    );
}

#[tokio::test]
async fn a_doubtful_result_waits_for_a_ceo_decision() {
    let (h, engine) = engine_with(vec![report(0.4)]).await;
    let id = queue_analyst_task(&h).await;

    let tick = engine.tick().await.unwrap();

    assert_eq!(tick.doubtful, 1);
    let task = h.db.store.task(id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Blocked);
    assert_eq!(task.confidence, Some(0.4));
    let decision = h.db.store.decision(DecisionId::new(1)).await.unwrap();
    assert_eq!(decision.task_id, Some(id));
    assert_eq!(
        decision.kind,
        DecisionKind::Doubt {
            agent: "analyst".into(),
            title: task.title.clone(),
            confidence_pct: 40,
        }
    );
    assert_eq!(
        decision.kind.options(),
        [
            DecisionOption::Accept,
            DecisionOption::Rerun,
            DecisionOption::Cancel
        ]
    );
    assert_eq!(
        decision.option_at(decision.recommended.unwrap()),
        Some(DecisionOption::Rerun)
    );
    assert_eq!(decision.context_summary, "3 endpoints checked");
    assert_eq!(
        decision.timeout_at,
        Some(h.clock.now() + TimeDelta::hours(24))
    );
}

#[tokio::test]
async fn a_failing_task_is_retried_with_backoff_then_reported_once() {
    let down = json!({"status": 503});
    let (h, engine) = engine_with(vec![down.clone(), down.clone(), down]).await;
    let id = queue_analyst_task(&h).await;

    let first = engine.tick().await.unwrap();
    assert_eq!(
        (first.retried, first.failed),
        (1, 0),
        "one attempt per tick, then it waits"
    );
    assert_eq!(
        engine.tick().await.unwrap().retried,
        0,
        "not before its backoff"
    );
    h.clock.advance(TimeDelta::minutes(2));
    assert_eq!(engine.tick().await.unwrap().retried, 1);
    h.clock.advance(TimeDelta::minutes(4));
    let last = engine.tick().await.unwrap();

    assert_eq!(last.failed, 1);
    let task = h.db.store.task(id).await.unwrap();
    assert_eq!((task.status, task.attempts), (TaskStatus::Failed, 3));
    let alerts = h.alerts.alerts();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].level, AlertLevel::Critical);
    assert_eq!(alerts[0].key, keys::TASK_FAILED, "{}", alerts[0]);
    assert_eq!(alerts[0].arg("agent"), Some("analyst"));
    assert_eq!(h.llm.played(), 3);
}

#[tokio::test]
async fn a_task_that_fails_for_good_is_explained_to_the_ceo_in_plain_lines() {
    let invalid = json!({"tool_calls": [{"name": "finish", "arguments": {"nonsense": true}}]});
    let plain = json!({"tool_calls": [{"name": "finish", "arguments": {"lines": [
        "The weekly log check could not finish.",
        "The model kept answering in the wrong shape.",
        "Nothing was changed.",
        "It will run again next week."], "confidence": 0.9}}]});
    let (h, engine) = engine_with(vec![invalid.clone(), invalid, plain]).await;
    queue_analyst_task(&h).await;

    let tick = engine.tick().await.unwrap();

    assert_eq!(tick.failed, 1);
    let alerts = h.alerts.alerts();
    let incident = alerts
        .iter()
        .find(|a| a.level == AlertLevel::Critical)
        .unwrap();
    assert!(
        incident
            .arg("report")
            .unwrap()
            .starts_with("The weekly log check could not finish.\n"),
        "{incident:?}"
    );
    assert!(
        !incident.arg("report").unwrap().contains("schema"),
        "no technical detail for the CEO"
    );
    assert_eq!(
        alerts
            .iter()
            .filter(|a| a.level == AlertLevel::Critical)
            .count(),
        1
    );
}

#[tokio::test]
async fn without_the_simplifiers_lines_the_technical_report_goes_as_it_is() {
    let invalid = json!({"tool_calls": [{"name": "finish", "arguments": {"nonsense": true}}]});
    let (h, engine) = engine_with(vec![invalid.clone(), invalid]).await;
    queue_analyst_task(&h).await;

    engine.tick().await.unwrap();

    let incident = h
        .alerts
        .alerts()
        .into_iter()
        .find(|a| a.level == AlertLevel::Critical)
        .unwrap();
    assert!(
        incident
            .arg("report")
            .unwrap()
            .contains("does not match its schema"),
        "{incident:?}"
    );
}
