//! The agent runner end to end: a real HTTP client against a scripted
//! OpenAI-compatible server, the shipped prompts, a real SQLite store.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use serde_json::{Value, json};
use ulias_agents::alerts::keys;
use ulias_agents::model::ReplayClient;
use ulias_agents::pools::{ModelPool, Pools};
use ulias_agents::runner::{RunError, RunMode, recorded_answers, recorded_tool_results};
use ulias_core::domain::{LogKind, LogScope, MessageRole, NewLogEntry, TaskStatus, ValidationKind};
use ulias_core::money::Usd;
use ulias_core::settings::{BudgetSettings, ToolProtocol};
use ulias_tests::fake_llm::FakeLlm;
use ulias_tests::harness::{Harness, Options};

fn fixture(name: &str) -> Vec<Value> {
    FakeLlm::fixture(name)
}

/// The text of the last message of the `index`th request the model received.
fn last_content(h: &Harness, index: usize) -> String {
    let requests = h.llm.requests();
    let messages = requests[index]["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn a_three_turn_tool_loop_ends_on_finish_and_its_log_costs_add_up_to_the_ledger() {
    let h = Harness::new(fixture("three_turn_loop")).await;
    let task = h.claimed_task("scanner", json!({"token": "0xabc"})).await;

    let status = h.engine().execute(&task).await.unwrap().status();

    assert_eq!(status, TaskStatus::Completed);
    let log = h.db.store.log_of_task(task.id).await.unwrap();
    let kinds: Vec<LogKind> = log.iter().map(|row| row.entry.kind).collect();
    assert_eq!(
        kinds,
        [
            LogKind::ModelCall,
            LogKind::ToolCall,
            LogKind::ModelCall,
            LogKind::ModelCall
        ]
    );
    // $0.01 / $0.03 per 1k: (1000, 100) + (1200, 50) + (1500, 300) tokens
    let logged: Usd = log.iter().map(|row| row.entry.cost).sum();
    assert_eq!(logged, Usd::from_micros(13_000 + 13_500 + 24_000));
    let done = h.db.store.task(task.id).await.unwrap();
    assert_eq!(
        done.cost, logged,
        "the task's ledger total is the sum of its rows"
    );
    assert_eq!(
        (done.tokens_in, done.tokens_out, done.iterations),
        (3700, 450, 3)
    );
    assert_eq!(done.confidence, Some(0.82));
    assert_eq!(done.result.unwrap()["verdict"], "go");
    assert_eq!(log[1].entry.summary, "scanner called read_file: ok");
    assert_eq!(h.llm.played(), 3);
}

#[tokio::test]
async fn a_tool_outside_the_allowlist_is_refused_and_logged_and_the_loop_continues() {
    let h = Harness::new(fixture("refused_tool")).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let status = h.engine().execute(&task).await.unwrap().status();

    assert_eq!(status, TaskStatus::Completed, "the loop went on to finish");
    let log = h.db.store.log_of_task(task.id).await.unwrap();
    let refused: Vec<&str> = log
        .iter()
        .filter(|row| row.entry.kind == LogKind::ToolRefused)
        .map(|row| row.entry.summary.as_str())
        .collect();
    assert_eq!(
        refused,
        ["scanner tried `ssh`, which it may not use: refused"]
    );
    // The model was told, in the next request.
    let second = &h.llm.requests()[1];
    let told = second["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(told["role"], "tool");
    assert!(
        told["content"]
            .as_str()
            .unwrap()
            .contains("`ssh` is not one of your tools")
    );
}

#[tokio::test]
async fn a_tool_name_the_model_made_up_never_reaches_the_log() {
    let mut turns = fixture("refused_tool");
    turns[0] = json!({"tool_calls": [{"name": "send_all_funds_to_0xdead", "arguments": {}}]});
    let h = Harness::new(turns).await;
    let task = h.claimed_task("scanner", json!({})).await;

    h.engine().execute(&task).await.unwrap();

    let log = h.db.store.log_of_task(task.id).await.unwrap();
    let summaries: Vec<&str> = log.iter().map(|row| row.entry.summary.as_str()).collect();
    assert!(
        summaries.iter().all(|s| !s.contains("0xdead")),
        "{summaries:?}"
    );
    assert!(
        summaries
            .contains(&"scanner tried a tool that does not exist, which it may not use: refused")
    );
    assert!(
        summaries
            .iter()
            .any(|s| s.ends_with("called an unknown tool")),
        "{summaries:?}"
    );
}

#[tokio::test]
async fn invalid_output_is_retried_once_then_the_task_fails_with_the_schema_error() {
    let h = Harness::new(fixture("invalid_output_twice")).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let status = h.engine().execute(&task).await.unwrap().status();

    assert_eq!(status, TaskStatus::Failed);
    let failed = h.db.store.task(task.id).await.unwrap();
    let error = failed.error.unwrap();
    assert!(
        error.starts_with("the output does not match its schema"),
        "{error}"
    );
    assert!(error.contains("/confidence"), "{error}");
    assert!(error.contains("why_it_died"), "{error}");
    let feedback = &h.llm.requests()[1]["messages"];
    let last = feedback.as_array().unwrap().last().unwrap();
    assert!(
        last["content"]
            .as_str()
            .unwrap()
            .contains("does not match the schema")
    );
    assert_eq!(h.llm.played(), 2, "one retry, no more");
}

#[tokio::test]
async fn a_corrected_output_after_the_retry_completes_the_task() {
    let h = Harness::new(fixture("invalid_then_valid")).await;
    let task = h.claimed_task("scanner", json!({})).await;
    assert_eq!(
        h.engine().execute(&task).await.unwrap().status(),
        TaskStatus::Completed
    );
}

#[tokio::test]
async fn the_run_stops_before_the_call_that_would_exceed_its_budget_and_alerts_once_at_80_percent()
{
    let options = Options {
        prices: (0.01, 0.1),
        ..Options::default()
    };
    let h = Harness::with(options, fixture("budget_burn")).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let outcome = h.runner.run(&task, RunMode::Live).await;

    // $0.35 then $0.05 spent of $0.50; the next call's estimate ($0.10+) would pass it.
    assert!(matches!(outcome, Err(RunError::Budget(_))), "{outcome:?}");
    assert_eq!(h.llm.played(), 2, "the third call was never made");
    let alerts = h.alerts.alerts();
    assert_eq!(alerts.len(), 1, "{alerts:?}");
    assert_eq!(alerts[0].key, keys::RUN_BUDGET);
    assert_eq!(
        (alerts[0].arg("agent"), alerts[0].arg("percent")),
        (Some("scanner"), Some("80"))
    );
}

#[tokio::test]
async fn a_stuck_loop_stops_at_the_third_identical_call() {
    let h = Harness::new(fixture("stuck")).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let outcome = h.runner.run(&task, RunMode::Live).await;

    match outcome {
        Err(RunError::Stuck { tool, count, .. }) => {
            assert_eq!((tool.as_str(), count), ("read_file", 3))
        }
        other => panic!("expected a stuck error, got {other:?}"),
    }
    assert_eq!(h.llm.played(), 3);
    let tool_rows =
        h.db.store
            .log_of_task(task.id)
            .await
            .unwrap()
            .into_iter()
            .filter(|row| row.entry.kind == LogKind::ToolCall)
            .count();
    assert_eq!(tool_rows, 2, "the third identical call is not run");
}

#[tokio::test]
async fn the_json_protocol_asks_for_one_constrained_object_per_turn() {
    let options = Options {
        protocol: ToolProtocol::Json,
        ..Options::default()
    };
    let h = Harness::with(options, fixture("json_protocol")).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let outcome = h.runner.run(&task, RunMode::Live).await.unwrap();

    assert_eq!(outcome.output["verdict"], "go");
    let requests = h.llm.requests();
    let first = &requests[0];
    assert!(
        first.get("tools").is_none(),
        "no native tools in the JSON protocol"
    );
    assert_eq!(first["response_format"]["type"], "json_schema");
    let choices = &first["response_format"]["json_schema"]["schema"]["oneOf"];
    assert_eq!(choices[0]["properties"]["tool"]["enum"][0], "read_file");
    assert!(choices[1]["properties"]["finish"]["required"].is_array());
    let system = first["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("## How to answer"), "{system}");
    let result = requests[1]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(result["role"], "user");
    assert!(
        result["content"]
            .as_str()
            .unwrap()
            .starts_with("Result of read_file: ")
    );
}

#[tokio::test]
async fn quirky_local_server_answers_read_as_tool_calls() {
    let llm = FakeLlm::start(fixture("quirks")).await;
    let client = ulias_agents::model::OpenAiClient::new(
        &llm.base_url,
        None,
        "any",
        ulias_agents::model::Timeouts {
            connect: std::time::Duration::from_secs(5),
            total: std::time::Duration::from_secs(5),
        },
    )
    .unwrap();
    use ulias_agents::model::{ChatMessage, ChatRequest, ModelClient};
    let request = ChatRequest {
        messages: vec![ChatMessage::text(
            MessageRole::User,
            "read the scan section",
        )],
        ..ChatRequest::default()
    };
    for quirk in [
        "object arguments",
        "no type, no id",
        "<tool_call> in text",
        "<function=> in text",
        "no usage",
    ] {
        let answer = client.chat(&request).await.unwrap();
        assert_eq!(answer.tool_calls.len(), 1, "{quirk}: {answer:?}");
        assert_eq!(answer.tool_calls[0].name, "read_file", "{quirk}");
        assert_eq!(
            answer.tool_calls[0].arguments,
            json!({"section": "scan"}),
            "{quirk}"
        );
        assert!(
            !answer.content.contains("<tool_call>") && !answer.content.contains("<function"),
            "{quirk}"
        );
        assert_eq!(answer.usage.estimated, quirk == "no usage", "{quirk}");
    }
}

#[tokio::test]
async fn cloud_fallback_serves_a_failing_local_pool_while_under_the_monthly_cap() {
    let options = Options {
        cloud_turns: Some(fixture("refused_tool")[1..].to_vec()),
        ..Options::default()
    };
    let h = Harness::with(options, vec![json!({"status": 503})]).await;
    let task = h.claimed_task("scanner", json!({})).await;

    let outcome = h.runner.run(&task, RunMode::Live).await.unwrap();

    assert_eq!(outcome.output["verdict"], "go");
    assert_eq!(h.cloud.as_ref().unwrap().played(), 1);
    let log = h.db.store.log_of_task(task.id).await.unwrap();
    assert_eq!(log[0].entry.pool.as_deref(), Some("cloud"));
    assert!(log[0].entry.cloud);
}

#[tokio::test]
async fn cloud_fallback_is_refused_once_the_monthly_cap_is_reached() {
    let options = Options {
        cloud_turns: Some(fixture("refused_tool")[1..].to_vec()),
        budgets: BudgetSettings {
            monthly_cloud_cap_usd: 20.0,
            ..BudgetSettings::default()
        },
        ..Options::default()
    };
    let h = Harness::with(options, vec![json!({"status": 503})]).await;
    let spent = NewLogEntry {
        cloud: true,
        cost: Usd::from_micros(20_000_000),
        ..NewLogEntry::event(
            LogScope::default(),
            LogKind::ModelCall,
            "earlier cloud calls",
        )
    };
    h.db.store.append_log(&spent, h.clock_now()).await.unwrap();
    let task = h.claimed_task("scanner", json!({})).await;

    let outcome = h.runner.run(&task, RunMode::Live).await;

    let message = outcome.map(|_| ()).unwrap_err().to_string();
    assert!(
        message.contains("cloud's monthly cap of $20.0000 is reached"),
        "{message}"
    );
    assert_eq!(
        h.cloud.as_ref().unwrap().played(),
        0,
        "the cloud was never called"
    );
}

#[tokio::test]
async fn a_publish_tool_creates_a_validation_and_never_publishes() {
    let turns = vec![
        json!({"tool_calls": [{"name": "x_post", "arguments": {"text": "We are back."}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "kind": "post", "parts": ["We are back."], "confidence": 0.9}}]}),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("cm", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let result = last_content(&h, 1);
    let result: Value = serde_json::from_str(&result).unwrap();
    let id = result["validation_id"].as_i64().unwrap();
    let validation =
        h.db.store
            .validation(ulias_core::domain::ValidationId::new(id))
            .await
            .unwrap();
    assert_eq!(validation.kind, ValidationKind::Post);
    assert_eq!(validation.payload["args"]["text"], "We are back.");
    assert_eq!(
        validation.payload["content"],
        json!({"kind": "post", "text": "We are back."}),
        "the typed content the preview and the publisher both read"
    );
    assert_eq!(h.db.scalar("SELECT COUNT(*) FROM publications").await, 0);
}

#[tokio::test]
async fn a_publish_call_whose_arguments_are_not_its_content_is_refused_and_proposes_nothing() {
    let turns = vec![
        json!({"tool_calls": [{"name": "x_post", "arguments": {"body": "We are back.", "chat_id": -100}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "kind": "post", "parts": ["We are back."], "confidence": 0.8}}]}),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("cm", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let refused = last_content(&h, 1);
    assert!(
        refused.contains("invalid arguments for x_post"),
        "{refused}"
    );
    assert!(h.db.store.pending_validations().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_destructive_tool_runs_dry_without_the_ceos_confirmation() {
    let turns = vec![
        json!({"tool_calls": [{"name": "docker", "arguments": {"action": "restart", "container": "api"}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "summary": "restart needed", "root_cause": "OOM", "actions": [], "needs_decision": true,
            "confidence": 0.6}}]}),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("incident", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let result = last_content(&h, 1);
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(result["dry_run"], true);
    assert_eq!(result["would_run"], "docker");
    assert_eq!(result["command"], "docker restart api");
}

#[tokio::test]
async fn an_agent_cannot_write_another_agents_section() {
    let turns = vec![
        json!({"tool_calls": [{"name": "write_file", "arguments": {"section": "identity", "content": {"name": "x"}}}]}),
        json!({"tool_calls": [{"name": "write_file", "arguments": {"section": "scan", "content": {"liquidity": "pulled"}}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "checks": [], "timeline": ["a", "b", "c", "d"], "why_it_died": "LP pulled.",
            "cm_summary": "Dead.", "verdict": "no_go", "confidence": 0.7}}]}),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("scanner", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let forbidden = last_content(&h, 1);
    assert!(forbidden.contains("belongs to designer"), "{forbidden}");
    assert!(
        h.db.store
            .latest_section(None, "identity")
            .await
            .unwrap()
            .is_none()
    );
    let scan =
        h.db.store
            .latest_section(None, "scan")
            .await
            .unwrap()
            .unwrap();
    assert_eq!((scan.version, scan.author_agent.as_str()), (1, "scanner"));
}

#[tokio::test]
async fn memory_store_then_search_finds_the_closest_lesson() {
    let turns = vec![
        json!({"tool_calls": [{"name": "memory_store", "arguments": {
            "lesson": "connectors-api query params must be strings", "category": "pitfall"}}]}),
        json!({"tool_calls": [{"name": "memory_store", "arguments": {
            "lesson": "friday deploys fail during the zfs backup", "category": "pattern"}}]}),
        json!({"tool_calls": [{"name": "memory_search", "arguments": {"query": "query params strings", "k": 1}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {"lessons": [], "confidence": 0.9}}]}),
    ];
    let h = Harness::new(turns).await;
    let task = h.claimed_task("learner", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let found = last_content(&h, 3);
    let found: Value = serde_json::from_str(&found).unwrap();
    let results = found["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0]["lesson"],
        "connectors-api query params must be strings"
    );
    assert_eq!(h.db.store.lessons().await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_replay_against_the_recorded_answers_reaches_the_same_output_and_writes_nothing() {
    let h = Harness::new(fixture("three_turn_loop")).await;
    let task = h.claimed_task("scanner", json!({})).await;
    let original = h.runner.run(&task, RunMode::Live).await.unwrap();
    let rows_before = h.db.scalar("SELECT COUNT(*) FROM log_entries").await;

    let recorded = recorded_answers(&h.db.store, task.id).await.unwrap();
    assert_eq!(recorded.len(), 3);
    let replay = std::sync::Arc::new(ReplayClient::new(recorded));
    let mut runner = h.runner.clone();
    let pool = runner.pools.all()[0].clone();
    runner.pools = Pools::new(vec![ModelPool::new(pool.settings, replay.clone())]);
    let results = recorded_tool_results(&h.db.store, task.id).await.unwrap();

    let replayed = runner.run(&task, RunMode::Replay(results)).await.unwrap();

    assert_eq!(replayed.output, original.output);
    assert_eq!(replayed.cost, original.cost);
    assert_eq!(replay.used(), 3);
    assert_eq!(
        h.db.scalar("SELECT COUNT(*) FROM log_entries").await,
        rows_before
    );
}

trait ClockNow {
    fn clock_now(&self) -> chrono::DateTime<chrono::Utc>;
}

impl ClockNow for Harness {
    fn clock_now(&self) -> chrono::DateTime<chrono::Utc> {
        use ulias_core::clock::Clock;
        self.clock.now()
    }
}

#[tokio::test]
async fn each_monthly_cloud_threshold_alerts_once() {
    let mut finish = fixture("refused_tool")[1].clone();
    finish["usage"] = json!({"prompt_tokens": 1000, "completion_tokens": 200});
    let options = Options {
        // The cloud call costs $0.02: from $4.99 it crosses the $5 threshold.
        prices: (0.01, 0.05),
        cloud_turns: Some(vec![finish.clone(), finish]),
        ..Options::default()
    };
    let h = Harness::with(
        options,
        vec![json!({"status": 503}), json!({"status": 503})],
    )
    .await;
    let spent = NewLogEntry {
        cloud: true,
        cost: Usd::from_micros(4_990_000),
        ..NewLogEntry::event(
            LogScope::default(),
            LogKind::ModelCall,
            "earlier cloud calls",
        )
    };
    h.db.store.append_log(&spent, h.clock_now()).await.unwrap();

    for _ in 0..2 {
        let task = h.claimed_task("scanner", json!({})).await;
        h.runner.run(&task, RunMode::Live).await.unwrap();
    }

    let alerts: Vec<(&str, Option<String>)> = h
        .alerts
        .alerts()
        .iter()
        .map(|a| (a.key, a.arg("threshold").map(str::to_owned)))
        .collect();
    assert_eq!(
        alerts,
        [(keys::CLOUD_MONTH, Some("$5.0000".to_owned()))],
        "once, not per call"
    );
}

/// A loopback server whose accept queue is full: a new connection is never
/// accepted (the kernel drops its SYN), as with a dead host.
async fn server_that_never_accepts() -> (std::net::SocketAddr, Vec<tokio::net::TcpStream>) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let address = listener.local_addr().unwrap();
    let mut held = Vec::new();
    for _ in 0..16 {
        let connect = tokio::net::TcpStream::connect(address);
        match tokio::time::timeout(std::time::Duration::from_millis(300), connect).await {
            Ok(stream) => held.push(stream.unwrap()),
            Err(_) => {
                // The queue is full: the listener is kept alive, unread.
                std::mem::forget(listener);
                return (address, held);
            }
        }
    }
    panic!("the accept queue never filled");
}

#[tokio::test]
async fn a_model_server_that_never_accepts_the_connection_fails_after_the_connect_timeout() {
    let (address, _held) = server_that_never_accepts().await;
    let client = ulias_agents::model::OpenAiClient::new(
        &format!("http://{address}/v1"),
        None,
        "any",
        ulias_agents::model::Timeouts {
            connect: std::time::Duration::from_secs(1),
            total: std::time::Duration::from_secs(3600),
        },
    )
    .unwrap();
    use ulias_agents::model::{ChatMessage, ChatRequest, ModelClient};
    let request = ChatRequest {
        messages: vec![ChatMessage::text(MessageRole::User, "hello")],
        ..ChatRequest::default()
    };

    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), client.chat(&request))
        .await
        .expect("the connect timeout, not the hour-long total, ends the call");

    assert!(answer.is_err(), "{answer:?}");
}
