//! One agent end to end against a real model server, through the real
//! client and runner in the JSON protocol, plus one embedding. Runs only
//! when `ULIAS_REAL_LLM_URL` names an OpenAI-compatible server (see
//! `scripts/real-llm-smoke.sh`, which starts llama.cpp's server with
//! SmolLM2-135M); otherwise it says it was skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use ulias_agents::model::{ModelClient, OpenAiClient, Timeouts};
use ulias_agents::pools::{ModelPool, Pools};
use ulias_agents::runner::{RunError, RunMode};
use ulias_core::domain::{LogKind, MessageRole};
use ulias_core::settings::{Settings, ToolProtocol};
use ulias_tests::harness::Harness;

#[allow(clippy::disallowed_methods)] // tests are configured by their environment
fn server_url() -> Option<String> {
    std::env::var("ULIAS_REAL_LLM_URL").ok()
}

#[tokio::test]
async fn a_real_small_model_runs_an_agent_in_the_json_protocol_and_embeds_text() {
    let Some(url) = server_url() else {
        eprintln!("skipped: ULIAS_REAL_LLM_URL is not set (scripts/real-llm-smoke.sh sets it)");
        return;
    };
    let client = Arc::new(
        OpenAiClient::new(
            &url,
            None,
            "smollm2",
            Timeouts {
                connect: Duration::from_secs(5),
                total: Duration::from_secs(120),
            },
        )
        .unwrap(),
    );

    let vectors = client
        .embed(&["Les backups ZFS ont échoué cette nuit.".to_owned()])
        .await
        .unwrap();
    assert_eq!(vectors.len(), 1);
    assert!(vectors[0].len() >= 64, "{} dims", vectors[0].len());
    assert!(vectors[0].iter().any(|x| *x != 0.0));

    let mut h = Harness::new(Vec::new()).await;
    let mut pool = Settings::default().models.pools[1].clone();
    pool.protocol = ToolProtocol::Json;
    pool.base_url = url.parse().unwrap();
    h.runner.pools = Pools::new(vec![ModelPool::new(pool, client)]);
    h.runner.config.max_output_tokens = 256;
    let task = h
        .claimed_task(
            "simplifier",
            json!({"report": "connectors-api was OOM killed at 03:47 and restarted."}),
        )
        .await;

    let outcome = h.runner.run(&task, RunMode::Live).await;
    eprintln!("real model run: {outcome:?}");

    // A 135M model rarely produces a good summary (it tends to loop inside
    // a string); what is proven here is the path: real HTTP, the server's
    // own usage, schema-constrained JSON turns, every call logged.
    let messages = h.db.store.messages_of_task(task.id).await.unwrap();
    let answers: Vec<_> = messages
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect();
    assert!(!answers.is_empty(), "the model answered");
    for answer in &answers {
        assert!(!answer.usage_estimated, "llama.cpp reports usage");
        assert!(answer.tokens_in > 0 && answer.tokens_out > 0);
        let text = answer.content.as_deref().unwrap_or_default().trim_start();
        // The server applied the JSON schema: every answer is a protocol
        // object (or its beginning, when the token limit cut it short),
        // never the prose an unconstrained 135M model writes.
        let head: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(9)
            .collect();
        // serde_json sorts keys, so the grammar asks for "args" before "tool".
        let protocol = ["{\"args\"", "{\"tool\"", "{\"finish\""];
        assert!(
            protocol.iter().any(|start| head.starts_with(start)),
            "{text}"
        );
        if serde_json::from_str::<serde_json::Value>(text).is_err() {
            assert_eq!(
                answer.tokens_out, 256,
                "neither an object nor cut short: {text}"
            );
        }
    }
    let model_rows =
        h.db.store
            .log_of_task(task.id)
            .await
            .unwrap()
            .iter()
            .filter(|row| row.entry.kind == LogKind::ModelCall)
            .count();
    assert_eq!(model_rows, answers.len());
    match outcome {
        Ok(outcome) => assert!(outcome.output["lines"].is_array()),
        // The schema's numeric ranges are not all enforced by the grammar.
        Err(
            RunError::InvalidOutput { .. } | RunError::MaxTurns { .. } | RunError::Stuck { .. },
        ) => {}
        Err(other) => panic!("the run failed on the path itself: {other}"),
    }
}
