//! The Builder's utilities: the sandbox's allowlist (a relay to the
//! allowlisted pairs, nothing else routed), each template built and tested
//! in the sandbox with its fixture config, a failing template retried with
//! the next and the utility skipped after three failures with an alert,
//! and `utility_publish` refused for a utility without a green run.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{DateTime, TimeDelta, TimeZone, Utc};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use ulias_agents::alerts::keys;
use ulias_agents::runner::RunMode;
use ulias_agents::sandbox::Sandbox;
use ulias_agents::tools::utility::release::{self, NotReleasable, ReleaseError};
use ulias_agents::tools::{ToolRegistry, Toolbox};
use ulias_core::clock::Clock;
use ulias_core::domain::{
    NewOperation, NewTask, OperationId, OperationStatus, Task, ValidationKind, ValidationStatus,
};
use ulias_core::settings::{HostPort, SandboxSettings};
use ulias_core::store::{NewUtilityRun, Store, UtilityRunStatus};
use ulias_tests::db::TestDb;
use ulias_tests::fake_chain::offline_reader;
use ulias_tests::harness::{Harness, Options};
use ulias_tests::on_both_backends;

/// The test build of the forwarder (`ulias sandbox-forward`'s code).
fn forwarder() -> PathBuf {
    env!("CARGO_BIN_EXE_sandbox-forward").into()
}

fn sandbox() -> Sandbox {
    Sandbox::new(SandboxSettings {
        timeout_seconds: 60,
        forwarder: Some(forwarder()),
        ..SandboxSettings::default()
    })
}

/// A loopback service that answers each line with `<name>: <line>`.
async fn stand_in(name: &'static str) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let (read, mut write) = stream.into_split();
                let mut lines = BufReader::new(read).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let _ = write
                        .write_all(format!("{name}: {line}\n").as_bytes())
                        .await;
                }
            });
        }
    });
    port
}

/// Inside the sandbox: the allowlisted pair through its local port and
/// through the `CONNECT` proxy, the other service through the proxy and
/// directly, and an address on the internet.
const PROBE: &str = r#"
import os, socket
def talk(sock):
    sock.sendall(b"ping\n")
    return sock.makefile().readline().strip() or "closed"
def direct(host, port):
    try:
        return talk(socket.create_connection((host, port), timeout=3))
    except OSError as e:
        return "error " + type(e).__name__
def proxied(target):
    try:
        sock = socket.create_connection(("127.0.0.1", 18080), timeout=3)
        sock.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            byte = sock.recv(1)
            if not byte:
                break
            head += byte
        status = head.split(b" ")[1].decode() if head else "none"
        return status + " " + (talk(sock) if status == "200" else "refused")
    except OSError as e:
        return "error " + type(e).__name__
pair, local = os.environ["ULIAS_ALLOW_0"].split("=")
host, port = local.split(":")
print("mapped", direct(host, int(port)))
print("proxied", proxied(pair))
print("other-proxied", proxied("127.0.0.1:" + os.environ["OTHER"]))
print("other-direct", direct("127.0.0.1", int(os.environ["OTHER"])))
print("internet", direct("1.1.1.1", 443))
print("proxy-env", os.environ.get("HTTPS_PROXY"))
"#;

#[tokio::test]
async fn inside_the_sandbox_only_the_allowlisted_stand_in_is_reached() {
    let allowed = stand_in("stand-in").await;
    let other = stand_in("other").await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("probe.py"), PROBE).unwrap();
    let allow: Vec<HostPort> = vec![format!("127.0.0.1:{allowed}").parse().unwrap()];

    let ran = sandbox()
        .run_allowing(
            dir.path(),
            &format!("OTHER={other} python3 probe.py"),
            &allow,
        )
        .await
        .unwrap();

    assert!(ran.succeeded(), "{ran:?}");
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "mapped stand-in: ping",
            "proxied 200 stand-in: ping",
            "other-proxied 403 refused",
            "other-direct error ConnectionRefusedError",
            "internet error OSError",
            "proxy-env http://127.0.0.1:18080",
        ],
        "{ran:?}"
    );
    assert!(
        !dir.path().join(".ulias-sandbox.sock").exists(),
        "the proxy's socket is removed after the run"
    );
}

#[tokio::test]
async fn without_a_forwarder_an_allowlist_is_refused_and_nothing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let sandbox = Sandbox::new(SandboxSettings::default());
    let allow: Vec<HostPort> = vec!["api.dexscreener.com:443".parse().unwrap()];

    let refused = sandbox
        .run_allowing(dir.path(), &format!("touch {}", marker.display()), &allow)
        .await;

    assert!(refused.unwrap_err().to_string().contains("forwarder"));
    assert!(!marker.exists());
}

// ---- the tool: templates built and tested, retried, skipped ----

/// A fixture config of `fixtures/utilities/`.
fn fixture(template: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/utilities")
        .join(format!("{template}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A quiz whose answer is not one of its options: it fits the schema,
/// and its build fails.
fn broken_quiz() -> Value {
    let mut config = fixture("tg-quiz-bot");
    config["questions"][0]["answer"] = json!(7);
    config
}

/// A harness whose tools build utilities under a data folder of its own.
async fn builder_harness(turns: Vec<Value>) -> (Harness, tempfile::TempDir) {
    let mut h = Harness::with(Options::default(), turns).await;
    let data = tempfile::tempdir().unwrap();
    let toolbox = Toolbox::offline(offline_reader())
        .with_sandbox(sandbox())
        .with_data_dir(data.path().to_owned());
    h.runner.tools = Arc::new(ToolRegistry::standard(&toolbox));
    (h, data)
}

/// An operation, and a claimed Builder task in it.
async fn builder_task(h: &Harness) -> Task {
    let store = &h.db.store;
    let now = h.clock.now();
    let operation = new_operation(store, now).await;
    let team = h.runner.catalogue.get("builder").unwrap().team;
    let mut task = NewTask::new("builder".parse().unwrap(), team, "builder.utility", now);
    task.operation_id = Some(operation);
    task.requires_validation = true;
    let task = store.create_task(&task, now).await.unwrap();
    store.promote_ready_tasks(now).await.unwrap();
    let claimed = store
        .claim_next_task("worker-1", now, TimeDelta::minutes(10))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, task.id);
    claimed
}

async fn new_operation(store: &Store, now: DateTime<Utc>) -> OperationId {
    let operation = NewOperation {
        name: "Pepe Two".into(),
        token_symbol: Some("PEP2".into()),
        chain: None,
        official_address: None,
        official_addresses: Vec::new(),
        j0_at: now,
    };
    let id = store.create_operation(&operation, now).await.unwrap().id;
    store
        .set_operation_status(id, OperationStatus::Running, now)
        .await
        .unwrap();
    id
}

async fn build(h: &Harness, task: &Task, args: Value) -> Value {
    let ctx = h.tool_context(task, "builder");
    let tool = h.runner.tools.built("utility_build_and_test").unwrap();
    tool.run(&ctx, args).await.unwrap()
}

#[tokio::test]
async fn each_template_builds_and_passes_its_tests_with_its_fixture_config() {
    let (h, data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;
    let operation = task.operation_id.unwrap();
    let expected = [
        ("tg-quiz-bot", "quiz.json", "/quiz"),
        ("tg-price-alerts", "price_alerts.py", "/price"),
        ("web-minigame", "index.html", "site page"),
        ("holders-leaderboard", "index.html", "site page"),
    ];

    for (template, file, publish_to) in expected {
        let built = build(
            &h,
            &task,
            json!({"template": template, "config": fixture(template)}),
        )
        .await;

        assert_eq!(built["status"], "passed", "{template}: {built:#}");
        assert_eq!(built["publish_to"], publish_to);
        let run =
            h.db.store
                .latest_utility_run(operation, template)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(run.status, UtilityRunStatus::Passed);
        assert!(run.output_tail.contains("OK"), "{}", run.output_tail);
        let dir = PathBuf::from(run.dir.unwrap());
        assert!(
            dir.starts_with(
                data.path()
                    .join(format!("utilities/operation-{}", operation.get()))
            )
        );
        assert!(
            dir.join("dist").join(file).is_file(),
            "{template}: no dist/{file}"
        );
        assert!(!dir.join("dist/__pycache__").exists());
    }
}

#[tokio::test]
async fn a_config_outside_the_schema_is_refused_before_anything_runs() {
    let (h, _data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;
    let ctx = h.tool_context(&task, "builder");
    let tool = h.runner.tools.built("utility_build_and_test").unwrap();

    let refused = tool
        .run(&ctx, json!({"template": "web-minigame", "config": {"title": "x", "ticker": "pep2", "palette": ["#fff"]}}))
        .await
        .unwrap_err()
        .to_string();

    assert!(
        refused.contains("does not fit web-minigame's schema"),
        "{refused}"
    );
    assert!(refused.contains("/ticker"), "{refused}");
    let runs =
        h.db.store
            .utility_runs_of_task(task.operation_id.unwrap(), task.id)
            .await
            .unwrap();
    assert!(runs.is_empty());
}

#[tokio::test]
async fn a_failing_template_is_retried_with_the_next_of_its_kind() {
    let (h, _data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;

    let built = build(
        &h,
        &task,
        json!({"template": "tg-quiz-bot", "config": broken_quiz(),
               "fallbacks": [{"template": "tg-price-alerts", "config": fixture("tg-price-alerts")}]}),
    )
    .await;

    assert_eq!(built["status"], "passed", "{built:#}");
    assert_eq!(built["template"], "tg-price-alerts");
    let runs = built["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (runs[0]["template"].as_str(), runs[0]["status"].as_str()),
        (Some("tg-quiz-bot"), Some("failed"))
    );
    assert!(
        runs[0]["output_tail"]
            .as_str()
            .unwrap()
            .contains("answer 7 is not one of its 3 options")
    );
    assert_eq!(runs[1]["attempt"], 2);
    assert_eq!(built["failures"], 1);

    let alone = build(
        &h,
        &task,
        json!({"template": "tg-quiz-bot", "config": broken_quiz()}),
    )
    .await;
    assert_eq!(alone["status"], "failed");
    assert_eq!(
        alone["next_template"]["template"], "tg-price-alerts",
        "the next template of the same kind, with its schema"
    );
    assert!(alone["next_template"]["schema"]["properties"]["thresholds"].is_object());
}

#[tokio::test]
async fn a_utility_is_skipped_after_three_failed_runs_and_the_team_is_alerted_once() {
    let (h, _data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;
    let mut twice = fixture("tg-quiz-bot");
    twice["questions"][1]["options"] = json!(["0% / 0%", "0% / 0%"]);

    let first = build(
        &h,
        &task,
        json!({"template": "tg-quiz-bot", "config": broken_quiz()}),
    )
    .await;
    let second = build(
        &h,
        &task,
        json!({"template": "tg-quiz-bot", "config": twice,
               "fallbacks": [{"template": "tg-quiz-bot", "config": broken_quiz()},
                             {"template": "tg-price-alerts", "config": fixture("tg-price-alerts")}]}),
    )
    .await;
    let third = build(
        &h,
        &task,
        json!({"template": "tg-price-alerts", "config": fixture("tg-price-alerts")}),
    )
    .await;

    assert_eq!(first["status"], "failed");
    assert_eq!(second["status"], "skipped", "{second:#}");
    assert_eq!(second["failures"], 3);
    let statuses: Vec<&str> = second["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["failed", "failed", "skipped"],
        "the price alerts never ran"
    );
    assert_eq!(third["status"], "skipped");
    assert_eq!(third["runs"].as_array().unwrap().len(), 1);
    let runs =
        h.db.store
            .utility_runs_of_task(task.operation_id.unwrap(), task.id)
            .await
            .unwrap();
    let statuses: Vec<UtilityRunStatus> = runs.iter().map(|r| r.status).collect();
    use UtilityRunStatus::{Failed, Skipped};
    assert_eq!(statuses, [Failed, Failed, Failed, Skipped]);
    let alerts: Vec<_> = h
        .alerts
        .alerts()
        .into_iter()
        .filter(|a| a.key == keys::UTILITY_SKIPPED)
        .collect();
    assert_eq!(alerts.len(), 1, "one alert, not one per call");
    assert_eq!(alerts[0].arg("attempts"), Some("3"));
    assert_eq!(
        alerts[0].arg("error"),
        Some("question 1: answer 7 is not one of its 3 options")
    );
}

// ---- the publish gate and the release ----

fn call(name: &str, arguments: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": arguments}]})
}

/// The tool result the model received in its `index`th request.
fn tool_result(h: &Harness, index: usize) -> Value {
    let requests = h.llm.requests();
    let messages = requests[index]["messages"].as_array().unwrap();
    serde_json::from_str(messages.last().unwrap()["content"].as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn utility_publish_of_an_untested_failed_or_other_config_utility_is_refused() {
    let quiz = fixture("tg-quiz-bot");
    let mut other = quiz.clone();
    other["title"] = json!("Another quiz");
    let publish = |config: &Value| {
        call(
            "utility_publish",
            json!({"template": "tg-quiz-bot", "config": config}),
        )
    };
    let turns = vec![
        publish(&quiz),
        call(
            "utility_build_and_test",
            json!({"template": "tg-quiz-bot", "config": broken_quiz()}),
        ),
        publish(&broken_quiz()),
        call(
            "utility_build_and_test",
            json!({"template": "tg-quiz-bot", "config": quiz}),
        ),
        publish(&other),
        publish(&quiz),
        call(
            "finish",
            json!({"template": "tg-quiz-bot", "config": quiz, "confidence": 0.8}),
        ),
    ];
    let (h, _data) = builder_harness(turns).await;
    let task = builder_task(&h).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let untested = tool_result(&h, 1);
    assert!(
        untested["error"]
            .as_str()
            .unwrap()
            .contains("never built and tested"),
        "{untested}"
    );
    let failed = tool_result(&h, 3);
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("latest run of tg-quiz-bot failed"),
        "{failed}"
    );
    let other_config = tool_result(&h, 5);
    assert!(
        other_config["error"]
            .as_str()
            .unwrap()
            .contains("not the one its passing run tested"),
        "{other_config}"
    );
    let proposed = tool_result(&h, 6);
    assert!(proposed["validation_id"].is_i64(), "{proposed}");
    let validations = h.db.store.validations_of_task(task.id).await.unwrap();
    assert_eq!(validations.len(), 1, "only the tested config is proposed");
    assert_eq!(validations[0].status, ValidationStatus::Pending);
}

#[tokio::test]
async fn an_approved_utility_is_released_to_its_target_once_and_only_while_its_latest_run_passed() {
    let (h, data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;
    let operation = task.operation_id;
    let store = &h.db.store;
    let now = h.clock.now();
    for template in ["tg-quiz-bot", "web-minigame"] {
        build(
            &h,
            &task,
            json!({"template": template, "config": fixture(template)}),
        )
        .await;
    }

    let quiz = release::release(
        store,
        data.path(),
        operation,
        "tg-quiz-bot",
        &fixture("tg-quiz-bot"),
        now,
    )
    .await
    .unwrap();
    let page = release::release(
        store,
        data.path(),
        operation,
        "web-minigame",
        &fixture("web-minigame"),
        now,
    )
    .await
    .unwrap();
    let again = release::release(
        store,
        data.path(),
        operation,
        "tg-quiz-bot",
        &fixture("tg-quiz-bot"),
        now,
    )
    .await
    .unwrap();

    assert_eq!(quiz.to, "/quiz");
    assert!(quiz.newly && !again.newly, "released once");
    assert!(quiz.folder.join("quiz.json").is_file());
    let site = data.path().join(format!(
        "sites/operation-{}/utilities/web-minigame",
        operation.unwrap().get()
    ));
    assert_eq!(page.folder, site);
    assert!(site.join("index.html").is_file());
    let released = store.released_utilities(operation.unwrap()).await.unwrap();
    assert_eq!(released.len(), 2);

    // A later failed run of the page: publishing it again is refused.
    let mut broken = fixture("web-minigame");
    broken["title"] = json!("Play at http://example.com");
    let failed = build(
        &h,
        &task,
        json!({"template": "web-minigame", "config": broken}),
    )
    .await;
    assert_eq!(failed["status"], "failed");
    let refused = release::release(
        store,
        data.path(),
        operation,
        "web-minigame",
        &fixture("web-minigame"),
        now,
    )
    .await;
    assert!(
        matches!(
            refused,
            Err(ReleaseError::NotReleasable(NotReleasable::NotPassed { .. }))
        ),
        "{refused:?}"
    );
}

/// A Builder step of a running operation, queued for the engine.
#[tokio::test]
async fn released_site_pages_are_served_by_the_next_site_build_and_pass_its_check() {
    use ulias_agents::site::{self, SiteFields, SiteOperation};
    let (h, data) = builder_harness(Vec::new()).await;
    let task = builder_task(&h).await;
    let operation = task.operation_id;
    let pages = ["web-minigame", "holders-leaderboard"];
    for template in pages {
        build(
            &h,
            &task,
            json!({"template": template, "config": fixture(template)}),
        )
        .await;
        let now = h.clock.now();
        release::release(
            &h.db.store,
            data.path(),
            operation,
            template,
            &fixture(template),
            now,
        )
        .await
        .unwrap();
    }
    let fields: SiteFields =
        serde_json::from_str(include_str!("../../fixtures/sites/pepe2.json")).unwrap();
    let shown = SiteOperation {
        id: operation.unwrap().get(),
        name: "Pepe Two".into(),
        ticker: "PEP2".into(),
        chain: "base".into(),
        api: None,
    };

    let bundle = site::build(data.path(), "classic", &fields, &shown).unwrap();

    for template in pages {
        let page = format!("{template}/index.html");
        assert!(bundle.files.contains(&page), "{page}: {:?}", bundle.files);
        assert!(bundle.site_dir().join(&page).is_file());
    }
    assert!(
        !bundle.files.iter().any(|f| f.ends_with(".py")),
        "the leaderboard's rank.py is no page: {:?}",
        bundle.files
    );
    let report = site::check(&bundle, ulias_tests::fake_chain::PEP2).unwrap();
    assert!(report.passed, "{report:#?}");
}

async fn queued_builder_step(h: &Harness) -> ulias_core::domain::TaskId {
    let store = &h.db.store;
    let now = h.clock.now();
    let operation = new_operation(store, now).await;
    let team = h.runner.catalogue.get("builder").unwrap().team;
    let mut task = NewTask::new("builder".parse().unwrap(), team, "builder.utility", now);
    task.operation_id = Some(operation);
    task.requires_validation = true;
    store.create_task(&task, now).await.unwrap().id
}

#[tokio::test]
async fn a_builder_step_is_put_to_the_team_only_with_a_green_run_behind_it() {
    let page = fixture("web-minigame");
    let plan = json!({"template": "web-minigame", "config": page, "confidence": 0.9});
    let (tested, _data) = builder_harness(vec![
        call(
            "utility_build_and_test",
            json!({"template": "web-minigame", "config": page}),
        ),
        call("finish", plan.clone()),
    ])
    .await;
    let (untested, _other) = builder_harness(vec![call("finish", plan)]).await;
    let tested_step = queued_builder_step(&tested).await;
    let untested_step = queued_builder_step(&untested).await;

    let green = tested.engine().tick().await.unwrap();
    let none = untested.engine().tick().await.unwrap();

    assert_eq!(green.awaiting_validation, 1, "{green:?}");
    let validations = tested
        .db
        .store
        .validations_of_task(tested_step)
        .await
        .unwrap();
    assert_eq!(validations.len(), 1);
    assert_eq!(validations[0].kind, ValidationKind::Utility);
    assert_eq!(none.awaiting_validation, 0, "{none:?}");
    assert!(
        untested
            .db
            .store
            .validations_of_task(untested_step)
            .await
            .unwrap()
            .is_empty(),
        "an untested utility is never proposed"
    );
}

// ---- the store, on both backends ----

on_both_backends!(
    utility_runs_are_kept_per_utility_and_a_run_is_released_once,
    only_a_passed_run_can_be_released,
);

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, 9, 0, 0).unwrap()
}

fn new_run(
    operation: OperationId,
    template: &str,
    status: UtilityRunStatus,
    attempt: u32,
) -> NewUtilityRun {
    NewUtilityRun {
        operation_id: operation,
        task_id: None,
        template: template.into(),
        config: json!({"title": "PEP2", "top_n": 50, "price": 0.0000042, "exclude": ["a", "b"]}),
        status,
        output_tail: format!("run {attempt}"),
        attempt,
        dir: Some(format!("/data/run-{attempt}")),
    }
}

async fn utility_runs_are_kept_per_utility_and_a_run_is_released_once(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let operation = new_operation(store, t0()).await;
    let first = store
        .record_utility_run(
            &new_run(operation, "tg-quiz-bot", UtilityRunStatus::Failed, 1),
            t0(),
        )
        .await
        .unwrap();
    let second = store
        .record_utility_run(
            &new_run(operation, "tg-quiz-bot", UtilityRunStatus::Passed, 2),
            t0(),
        )
        .await
        .unwrap();

    let latest = store
        .latest_utility_run(operation, "tg-quiz-bot")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(latest, second);
    assert_eq!(
        latest.config,
        new_run(operation, "", UtilityRunStatus::Passed, 1).config,
        "the config reads back as written"
    );
    assert_eq!(first.attempt, 1);
    assert!(
        store
            .latest_utility_run(operation, "web-minigame")
            .await
            .unwrap()
            .is_none()
    );

    let later = t0() + TimeDelta::minutes(5);
    assert!(
        store
            .mark_utility_released(second.id, "/quiz", later)
            .await
            .unwrap()
    );
    assert!(
        !store
            .mark_utility_released(second.id, "/other", later)
            .await
            .unwrap(),
        "released once"
    );
    let released = store.released_utilities(operation).await.unwrap();
    assert_eq!(released.len(), 1);
    assert_eq!(released[0].released_to.as_deref(), Some("/quiz"));
    assert_eq!(released[0].released_at, Some(later));
}

async fn only_a_passed_run_can_be_released(db: &TestDb) {
    db.migrated().await;
    let store = &db.store;
    let operation = new_operation(store, t0()).await;
    let failed = store
        .record_utility_run(
            &new_run(operation, "web-minigame", UtilityRunStatus::Failed, 1),
            t0(),
        )
        .await
        .unwrap();
    let skipped = store
        .record_utility_run(
            &new_run(operation, "web-minigame", UtilityRunStatus::Skipped, 2),
            t0(),
        )
        .await
        .unwrap();

    assert!(
        !store
            .mark_utility_released(failed.id, "/x", t0())
            .await
            .unwrap()
    );
    assert!(
        !store
            .mark_utility_released(skipped.id, "/x", t0())
            .await
            .unwrap()
    );
    assert!(
        store
            .released_utilities(operation)
            .await
            .unwrap()
            .is_empty()
    );
}
