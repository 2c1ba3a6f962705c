//! From finding to work, end to end with scripted models: the engineering
//! chain fixes a failing test in a real repository (read → edit → tests in
//! the sandbox → commit on a work branch); the Monitor's checks of two
//! loopback services open one incident for the one down, the incident
//! agent runs, and the incident closes when the service is back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::alerts::keys;
use ulias_agents::engine::Settled;
use ulias_agents::sandbox::Sandbox;
use ulias_agents::tools::{Checks, Hosts, Workspace};
use ulias_core::clock::Clock;
use ulias_core::domain::{
    DecisionAnswer, DecisionKind, DecisionOption, NewTask, Pipeline, Task, TaskId, TaskStatus,
};
use ulias_core::settings::{SandboxSettings, ServiceSettings, WorkspaceSettings};
use ulias_tests::fake_service::FakeService;
use ulias_tests::harness::{Harness, Options};
use ulias_tests::repo::git;

fn finish(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": arguments}]})
}

fn call(tool: &str, arguments: Value) -> Value {
    json!({"tool_calls": [{"name": tool, "arguments": arguments}]})
}

async fn claimed(h: &Harness, agent: &str, pipeline: Pipeline) -> Task {
    let store = &h.db.store;
    let now = h.clock.now();
    let team = h.runner.catalogue.get(agent).unwrap().team;
    let mut task = NewTask::new(agent.parse().unwrap(), team, "Fix add()".to_owned(), now);
    task.pipeline = pipeline;
    let task = store.create_task(&task, now).await.unwrap();
    store.queue_task(task.id, now).await.unwrap();
    store
        .claim_task(task.id, "worker-1", now, TimeDelta::minutes(10))
        .await
        .unwrap()
}

const BUGGY: &str = "def add(a, b):\n    return a - b\n";
const TEST: &str = "import unittest\n\nfrom calc import add\n\n\nclass AddTest(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(add(2, 3), 5)\n";

#[tokio::test]
async fn the_verification_chain_fixes_a_failing_test_and_commits_it_on_a_work_branch() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("calc");
    std::fs::create_dir_all(repo.join("tests")).unwrap();
    std::fs::write(repo.join("calc.py"), BUGGY).unwrap();
    std::fs::write(repo.join("tests/__init__.py"), "").unwrap();
    std::fs::write(repo.join("tests/test_calc.py"), TEST).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "--all"]);
    git(&repo, &["commit", "--quiet", "-m", "add() subtracts"]);
    let workspace = Workspace::from_settings(&WorkspaceSettings {
        roots: vec![repo.clone()],
        ..WorkspaceSettings::default()
    })
    .unwrap();
    let turns = vec![
        call("repo_read", json!({"path": "calc.py"})),
        call(
            "repo_edit",
            json!({"path": "calc.py", "old": "a - b", "new": "a + b"}),
        ),
        finish(json!({"summary": "add() adds", "files_changed": ["calc.py"], "confidence": 0.9})),
        call("git_diff", json!({})),
        finish(json!({"approved": true, "issues": [], "confidence": 0.9})),
        call("run_tests", json!({})),
        call("git_branch", json!({})),
        call("git_commit", json!({"message": "Fix add(): it subtracted"})),
        finish(
            json!({"passed": true, "total": 1, "failed": 0, "summary": "1 passed", "confidence": 0.9}),
        ),
        finish(json!({"summary": "not deployed: a library", "findings": [], "confidence": 0.8})),
    ];
    let options = Options {
        workspace: Some(workspace),
        sandbox: Some(Sandbox::new(SandboxSettings::default())),
        ..Options::default()
    };
    let h = Harness::with(options, turns).await;
    let task = claimed(&h, "coder", Pipeline::VerificationChain).await;

    let settled = h.engine().execute(&task).await.unwrap();

    assert_eq!(settled, Settled::Completed);
    let requests = h.llm.requests();
    let run_tests: Value = serde_json::from_str(
        requests[6]["messages"].as_array().unwrap().last().unwrap()["content"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(run_tests["passed"], true, "{run_tests}");
    assert_eq!(
        run_tests["result"]["command"],
        "python3 -m unittest discover -v"
    );
    assert!(
        run_tests["result"]["stderr"]
            .as_str()
            .unwrap()
            .contains("Ran 1 test"),
        "{run_tests}"
    );
    let branches = git(
        &repo,
        &["branch", "--list", "ulias/*", "--format=%(refname:short)"],
    );
    let branch = branches.trim();
    assert!(branch.starts_with("ulias/"), "{branches}");
    assert_eq!(
        git(&repo, &["log", "-1", "--format=%s", branch]).trim(),
        "Fix add(): it subtracted"
    );
    assert_eq!(
        git(&repo, &["show", &format!("{branch}:calc.py")]),
        "def add(a, b):\n    return a + b\n"
    );
    assert_eq!(
        git(&repo, &["show", "main:calc.py"]),
        BUGGY,
        "main is untouched"
    );
    let result = h.db.store.task(task.id).await.unwrap().result.unwrap();
    assert_eq!(result["tests"]["passed"], true);
}

fn monitor_report(status: &str) -> Value {
    finish(json!({"status": status, "checks": [], "confidence": 0.9}))
}

fn service(name: &str, url: url::Url) -> ServiceSettings {
    ServiceSettings {
        name: name.into(),
        health_url: Some(url),
        expect: None,
        deploy_command: None,
        rollback_command: None,
        deploy_dir: None,
        deploy_timeout_seconds: 60,
    }
}

/// Queues the Monitor's job as the scheduler does every five minutes.
async fn monitor_job(h: &Harness) {
    let now = h.clock.now();
    let spec = h.runner.catalogue.get("monitor").unwrap();
    let task = NewTask::new(
        spec.name.clone(),
        spec.team,
        "Healthcheck every endpoint and container".to_owned(),
        now,
    );
    h.db.store.create_task(&task, now).await.unwrap();
}

#[tokio::test]
async fn a_service_down_opens_one_incident_the_incident_agent_runs_and_it_closes_when_back() {
    let api = FakeService::start().await;
    let web = FakeService::start().await;
    web.set_down(true);
    let checks = Checks::new(
        vec![
            service("api", api.health_url()),
            service("web", web.health_url()),
        ],
        Hosts::none(),
    );
    let turns = vec![
        // 09:00 — the Monitor sees web down (its own report even says ok).
        call("http_check", json!({})),
        monitor_report("ok"),
        // The incident agent, queued by event:incident.
        finish(
            json!({"summary": "web answers 503", "root_cause": "suspected: the app crashed",
                      "actions": ["restart web"], "needs_decision": false, "confidence": 0.8}),
        ),
        // 09:05 — still down: nothing new opens.
        call("http_check", json!({})),
        monitor_report("down"),
        // 09:10 — back.
        call("http_check", json!({})),
        monitor_report("ok"),
    ];
    let options = Options {
        checks: Some(checks),
        ..Options::default()
    };
    let h = Harness::with(options, turns).await;
    let engine = h.engine();

    for _ in 0..2 {
        monitor_job(&h).await;
        engine.drain().await.unwrap();
        engine.drain().await.unwrap();
        h.clock.advance(TimeDelta::minutes(5));
    }
    let incidents = h.db.store.incidents(10).await.unwrap();
    assert_eq!(
        incidents.len(),
        1,
        "one incident while web stays down: {incidents:?}"
    );
    let incident = &incidents[0];
    assert_eq!(
        (incident.service.as_str(), incident.resolved_at),
        ("web", None)
    );
    let agent_task = h.db.store.task(incident.task_id.unwrap()).await.unwrap();
    assert_eq!(agent_task.agent.as_str(), "incident");
    assert_eq!(agent_task.status, TaskStatus::Completed);
    assert_eq!(agent_task.input["service"], "web");
    let opened: Vec<_> = h
        .alerts
        .alerts()
        .into_iter()
        .filter(|a| a.key == keys::INCIDENT_OPENED)
        .collect();
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0].arg("service"), Some("web"));

    web.set_down(false);
    monitor_job(&h).await;
    engine.drain().await.unwrap();

    let incident = h.db.store.incident(incident.id).await.unwrap();
    assert_eq!(incident.resolved_at, Some(h.clock.now()));
    let resolved: Vec<_> = h
        .alerts
        .alerts()
        .into_iter()
        .filter(|a| a.key == keys::INCIDENT_RESOLVED)
        .collect();
    assert_eq!(resolved.len(), 1);
    assert_eq!(
        (resolved[0].arg("service"), resolved[0].arg("minutes")),
        (Some("web"), Some("10"))
    );
    assert_eq!(
        h.llm.played(),
        7,
        "every scripted turn was used, and no other run happened"
    );
    assert!(api.hits() >= 3 && web.hits() >= 3);
}

#[tokio::test]
async fn a_diagnosis_that_needs_the_ceo_asks_with_buttons_and_do_it_queues_the_approved_fix() {
    let web = FakeService::start().await;
    web.set_down(true);
    let checks = Checks::new(vec![service("web", web.health_url())], Hosts::none());
    let turns = vec![
        call("http_check", json!({"service": "web"})),
        monitor_report("down"),
        finish(
            json!({"summary": "The disk of web is full.", "root_cause": "logs filled /var",
                      "actions": ["delete logs older than 30 days"], "needs_decision": true, "confidence": 0.8}),
        ),
        finish(
            json!({"summary": "logs cleared", "root_cause": "logs filled /var",
                      "actions": [], "needs_decision": false, "confidence": 0.8}),
        ),
    ];
    let options = Options {
        checks: Some(checks),
        ..Options::default()
    };
    let h = Harness::with(options, turns).await;
    let engine = h.engine();
    monitor_job(&h).await;
    engine.drain().await.unwrap();
    engine.drain().await.unwrap();

    let incident = h.db.store.incidents(1).await.unwrap().remove(0);
    let decision =
        h.db.store
            .decision(incident.decision_id.unwrap())
            .await
            .unwrap();
    assert_eq!(
        decision.kind,
        DecisionKind::Incident {
            incident: incident.id,
            service: "web".into(),
            summary: "The disk of web is full.".into(),
            actions: "delete logs older than 30 days".into(),
        }
    );
    assert_eq!(
        decision.kind.options(),
        [DecisionOption::Act, DecisionOption::Wait]
    );

    let answer = DecisionAnswer {
        option: decision.kind.index_of(DecisionOption::Act).unwrap(),
        by: "ceo".into(),
    };
    h.db.store
        .answer_decision(decision.id, &answer, h.clock.now())
        .await
        .unwrap();
    engine.drain().await.unwrap();

    let first = incident.task_id.unwrap();
    let fix = h.db.store.task(TaskId::new(first.get() + 1)).await.unwrap();
    assert_eq!(fix.agent.as_str(), "incident");
    assert_eq!(
        fix.input["approved_by_ceo"],
        "delete logs older than 30 days"
    );
    assert_eq!(fix.status, TaskStatus::Completed);
    assert_eq!(h.llm.played(), 4);
}

#[tokio::test]
async fn an_incident_left_without_its_agent_by_a_crash_is_attended_at_a_later_check() {
    let web = FakeService::start().await;
    web.set_down(true);
    let checks = Checks::new(vec![service("web", web.health_url())], Hosts::none());
    let turns = vec![
        call("http_check", json!({})),
        monitor_report("down"),
        finish(
            json!({"summary": "web answers 503", "root_cause": "suspected: a crash",
                      "actions": [], "needs_decision": false, "confidence": 0.8}),
        ),
    ];
    let options = Options {
        checks: Some(checks),
        ..Options::default()
    };
    let h = Harness::with(options, turns).await;
    // Opened, then the process died before its event was written.
    let orphan =
        h.db.store
            .open_incident("web", "answered 503", h.clock.now())
            .await
            .unwrap()
            .unwrap();
    h.clock.advance(TimeDelta::minutes(15));

    monitor_job(&h).await;
    let engine = h.engine();
    engine.drain().await.unwrap();
    engine.drain().await.unwrap();

    let incident = h.db.store.incident(orphan.id).await.unwrap();
    let agent_task =
        h.db.store
            .task(incident.task_id.expect("the incident agent was queued"))
            .await
            .unwrap();
    assert_eq!(
        (agent_task.agent.as_str(), agent_task.status),
        ("incident", TaskStatus::Completed)
    );
    assert_eq!(
        h.db.store.incidents(10).await.unwrap().len(),
        1,
        "still one incident"
    );
    assert_eq!(h.llm.played(), 3);
}
