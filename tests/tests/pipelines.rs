//! The pipelines with scripted answers: CISC's weighted vote, the horse
//! race's judge, the verification chain's fix cycles, cross validation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::engine::Settled;
use ulias_core::clock::Clock;
use ulias_core::domain::{NewTask, Pipeline, Task, TaskId, TaskStatus};
use ulias_tests::harness::Harness;

fn finish(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": arguments}]})
}

fn scan(verdict: &str, confidence: f64) -> Value {
    finish(
        json!({"checks": [], "timeline": ["a", "b", "c", "d"], "why_it_died": "LP pulled.",
                  "cm_summary": "Dead.", "verdict": verdict, "confidence": confidence}),
    )
}

fn report(summary: &str, confidence: f64) -> Value {
    finish(json!({"summary": summary, "findings": [], "confidence": confidence}))
}

async fn claimed(h: &Harness, agent: &str, pipeline: Pipeline) -> Task {
    let store = &h.db.store;
    let now = h.clock.now();
    let team = h.runner.catalogue.get(agent).unwrap().team;
    let mut task = NewTask::new(agent.parse().unwrap(), team, format!("{agent} task"), now);
    task.pipeline = pipeline;
    let task = store.create_task(&task, now).await.unwrap();
    store.queue_task(task.id, now).await.unwrap();
    store
        .claim_task(task.id, "worker-1", now, TimeDelta::minutes(10))
        .await
        .unwrap()
}

#[tokio::test]
async fn cisc_picks_the_confident_minority_when_the_weights_say_so() {
    let h = Harness::new(vec![scan("go", 0.3), scan("no_go", 0.95), scan("go", 0.35)]).await;
    let task = claimed(&h, "scanner", Pipeline::Cisc).await;

    let settled = h.engine().execute(&task).await.unwrap();

    let task = h.db.store.task(task.id).await.unwrap();
    assert_eq!(task.result.unwrap()["verdict"], "no_go");
    let confidence = task.confidence.unwrap();
    assert!(
        (confidence - 0.95 * 0.95 / 1.6).abs() < 1e-6,
        "{confidence}"
    );
    assert_eq!(settled, Settled::Doubtful, "a split vote goes to the CEO");
    assert_eq!(h.llm.requests().len(), 3, "three samples");
    let temperatures: Vec<_> = h
        .llm
        .requests()
        .iter()
        .map(|r| r["temperature"].clone())
        .collect();
    assert_eq!(temperatures.len(), 3);
    assert_ne!(
        temperatures[0], temperatures[2],
        "samples at different temperatures"
    );
}

#[tokio::test]
async fn a_horse_race_keeps_the_answer_the_judge_picks() {
    let judge = finish(
        json!({"choice": "B", "reason": "B names the failing endpoint.", "confidence": 0.9}),
    );
    let h = Harness::new(vec![
        report("A: logs look fine", 0.8),
        report("B: /api/users is slow", 0.85),
        judge,
    ])
    .await;
    let task = claimed(&h, "analyst", Pipeline::HorseRace).await;

    let settled = h.engine().execute(&task).await.unwrap();

    assert_eq!(settled, Settled::Completed);
    let mut tasks = Vec::new();
    for id in task.id.get() + 1..=task.id.get() + 3 {
        tasks.push(h.db.store.task(TaskId::new(id)).await.unwrap());
    }
    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["summary"], "B: /api/users is slow");
    let agents: Vec<_> = tasks
        .iter()
        .map(|t| (t.agent.to_string(), t.status))
        .collect();
    assert!(
        agents.contains(&("judge".to_owned(), TaskStatus::Completed)),
        "{agents:?}"
    );
}

#[tokio::test]
async fn a_verification_chain_sends_a_failed_review_back_to_the_coder() {
    let change = |s: &str| {
        finish(json!({"summary": s, "files_changed": ["src/api.ts"], "confidence": 0.85}))
    };
    let review = |ok: bool| {
        finish(json!({"approved": ok, "issues": if ok { json!([]) } else {
            json!([{"file": "src/api.ts", "line": 12, "severity": "blocker", "message": "maxWidth must be a string"}]) },
            "confidence": 0.9}))
    };
    let tests = finish(
        json!({"passed": true, "total": 12, "failed": 0, "summary": "all passed", "confidence": 0.9}),
    );
    let deploy = report("deployed to staging", 0.88);
    let h = Harness::new(vec![
        change("first try"),
        review(false),
        change("maxWidth as a string"),
        review(true),
        tests,
        deploy,
    ])
    .await;
    let task = claimed(&h, "coder", Pipeline::VerificationChain).await;

    let settled = h.engine().execute(&task).await.unwrap();

    assert_eq!(settled, Settled::Completed);
    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["cycles"], 2);
    assert_eq!(result["change"]["summary"], "maxWidth as a string");
    let second_coder_call = h.llm.requests()[2].to_string();
    assert!(
        second_coder_call.contains("maxWidth must be a string"),
        "the coder sees the review"
    );
}

#[tokio::test]
async fn cross_validation_disagreement_goes_to_the_strategist_then_the_ceo() {
    let analysis = finish(json!({"objectives": [], "confidence": 0.6}));
    let h = Harness::new(vec![
        report("disk full", 0.8),
        report("memory leak", 0.8),
        analysis,
    ])
    .await;
    let task = claimed(&h, "analyst", Pipeline::CrossValidation).await;

    let settled = h.engine().execute(&task).await.unwrap();

    assert_eq!(settled, Settled::Doubtful);
    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["answer_a"]["summary"], "disk full");
    assert_eq!(result["answer_b"]["summary"], "memory leak");
    assert_eq!(h.llm.requests().len(), 3, "A, B blind, then the strategist");
    let blind = h.llm.requests()[1].to_string();
    assert!(!blind.contains("disk full"), "B never sees A's answer");
}
