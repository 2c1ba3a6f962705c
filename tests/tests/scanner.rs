//! The Scanner's go/no-go through the engine, a scripted model and the
//! loopback chain: the deterministic checks overrule the model.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::engine::Settled;
use ulias_core::clock::Clock;
use ulias_core::domain::{NewTask, Task, TaskStatus, Team};
use ulias_tests::fake_chain::{FakeChain, PEP2, reader_of, simulation_chain};
use ulias_tests::harness::{Harness, Options};

const DEPLOYER: &str = "0xd3b1e0a5c2f4d6e8a0b2c4d6e8f0a2b4c6d8e0f2";

/// The model's answer: `go`, sure of itself.
fn model_says_go() -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "verdict": "go",
        "checks": [{"name": "vibes", "ok": true, "detail": "the community is loud", "hard": true}],
        "reasons": ["people still talk about it"],
        "summary": "Go.\nThe holders stayed.",
        "confidence": 0.9}}]})
}

async fn harness(chain: Option<&FakeChain>) -> Harness {
    let options = Options {
        chain: chain.map(reader_of),
        ..Options::default()
    };
    Harness::with(options, vec![model_says_go()]).await
}

/// A claimed Scanner task of `kind` about PEP2 on Base.
async fn claimed(h: &Harness, kind: &str) -> Task {
    let store = &h.db.store;
    let now = h.clock.now();
    let mut task = NewTask::new(
        "scanner".parse().unwrap(),
        Team::Takeover,
        "Pre-report",
        now,
    );
    task.kind = Some(kind.to_owned());
    task.input = json!({"chain": "base", "address": PEP2});
    store.create_task(&task, now).await.unwrap();
    store.promote_ready_tasks(now).await.unwrap();
    store
        .claim_next_task("worker-1", now, TimeDelta::minutes(10))
        .await
        .unwrap()
        .unwrap()
}

fn names(checks: &Value) -> Vec<&str> {
    checks
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn a_deployer_holding_six_percent_is_no_go_even_when_the_model_says_go() {
    let chain = simulation_chain().await;
    chain.update(|fixture| {
        let token = fixture.token_mut(PEP2).unwrap();
        let deployer = token
            .balances
            .iter_mut()
            .find(|b| b.address == DEPLOYER)
            .unwrap();
        deployer.tokens = 25_241_400_000; // 6 % of the supply
    });
    let h = harness(Some(&chain)).await;
    let task = claimed(&h, "prereport").await;

    let settled = h.engine().execute(&task).await.unwrap();

    assert_eq!(settled, Settled::Completed, "no gate on a pre-report");
    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["verdict"], "no_go");
    let reason = result["reasons"][0].as_str().unwrap();
    assert!(reason.starts_with("deployer_bag: deployer"), "{reason}");
    assert!(
        reason.contains("holds 6.00% of the supply (max 5%)"),
        "{reason}"
    );
    assert_eq!(
        result["reasons"][1], "people still talk about it",
        "the model's reasons follow"
    );
    assert_eq!(result["confidence"], 1.0, "the code's no-go is certain");
    assert_eq!(
        names(&result["checks"]),
        [
            "contract",
            "deployer_bag",
            "top10_holders",
            "liquidity",
            "pair_age",
            "vibes"
        ]
    );
    assert_eq!(
        result["checks"][5]["hard"], false,
        "the model cannot pass off its check as hard"
    );
    assert_eq!(
        result["facts"]["deployer"]["share_pct"]["source"]["kind"],
        "rpc"
    );
}

#[tokio::test]
async fn a_healthy_token_keeps_the_models_go_with_the_facts_and_checks_first() {
    let chain = simulation_chain().await;
    let h = harness(Some(&chain)).await;
    let task = claimed(&h, "go_nogo").await;

    h.engine().execute(&task).await.unwrap();

    let task = h.db.store.task(task.id).await.unwrap();
    assert_eq!(task.status, TaskStatus::Completed);
    let result = task.result.unwrap();
    assert_eq!(result["verdict"], "go");
    assert_eq!(task.confidence, Some(0.9));
    let checks = names(&result["checks"]);
    assert_eq!(
        checks[..5],
        [
            "contract",
            "deployer_bag",
            "top10_holders",
            "liquidity",
            "pair_age"
        ]
    );
    assert_eq!(checks[5], "vibes");
    assert_eq!(result["checks"][5]["hard"], false);
    assert_eq!(
        result["facts"]["market"]["liquidity_usd"]["value"],
        12_000.0
    );
    let request = h.llm.requests()[0].to_string();
    assert!(
        request.contains("Filled by code: leave it out."),
        "the task's kind picks the go_nogo schema"
    );
}

#[tokio::test]
async fn a_chain_that_cannot_be_read_is_no_go_whatever_the_model_says() {
    let h = harness(None).await;
    let task = claimed(&h, "prereport").await;

    h.engine().execute(&task).await.unwrap();

    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["verdict"], "no_go");
    let reason = result["reasons"][0].as_str().unwrap();
    assert!(reason.starts_with("chain data unavailable: "), "{reason}");
    assert!(result["facts"].is_null());
}
