//! Typed decisions that always act: each kind's answer is carried out once
//! by the engine's one path, whether it came by button, phone or timeout.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;

use serde_json::{Value, json};
use ulias_agents::engine::{Applied, Engine, EngineConfig};
use ulias_agents::operations::{Candidate, PrereportPurpose, request_prereport};
use ulias_agents::runner::{CONFIRMED_BY, RunMode};
use ulias_core::clock::Clock;
use ulias_core::domain::{
    DecisionAnswer, DecisionKind, DecisionOption, DecisionStatus, NewDecision, NewObjective,
    ObjectiveStatus, OperationStatus, TaskStatus,
};
use ulias_core::playbook::Playbook;
use ulias_core::store::{ObjectiveUpdate, StoreError};
use ulias_tests::fake_chain::{PEP2, reader_of, simulation_chain};
use ulias_tests::harness::{Harness, Options, prompts_dir};

const CONTRACT: &str = PEP2;

fn takeover_playbook() -> Arc<Playbook> {
    let path = prompts_dir().join("playbooks/takeover.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    Arc::new(Playbook::parse(&text, "takeover.toml").unwrap())
}

fn engine_of(h: &Harness, takeover: bool) -> Engine {
    Engine {
        runner: h.runner.clone(),
        config: EngineConfig {
            takeover: takeover.then(takeover_playbook),
            ..EngineConfig::default()
        },
    }
}

async fn answer(h: &Harness, id: ulias_core::domain::DecisionId, option: DecisionOption) {
    let decision = h.db.store.decision(id).await.unwrap();
    let index = decision.kind.index_of(option).unwrap();
    let answer = DecisionAnswer {
        option: index,
        by: "1001".into(),
    };
    h.db.store
        .answer_decision(id, &answer, h.clock.now())
        .await
        .unwrap();
}

/// An objective the Director could not plan, with its escalation.
async fn escalated(
    h: &Harness,
) -> (
    ulias_core::domain::ObjectiveId,
    ulias_core::domain::DecisionId,
) {
    let store = &h.db.store;
    let now = h.clock.now();
    let objective = store
        .create_objective(&NewObjective::from_ceo("Launch the newsletter", ""), now)
        .await
        .unwrap();
    for to in [ObjectiveStatus::Planning, ObjectiveStatus::Blocked] {
        store
            .set_objective_status(objective.id, to, ObjectiveUpdate::default(), now)
            .await
            .unwrap();
    }
    let decision = NewDecision {
        objective_id: Some(objective.id),
        ..NewDecision::new(DecisionKind::Escalation {
            title: objective.title.clone(),
        })
    };
    let decision = store.create_decision(&decision, now).await.unwrap();
    (objective.id, decision.id)
}

#[tokio::test]
async fn a_director_escalation_answered_drop_cancels_the_objective() {
    let h = Harness::new(Vec::new()).await;
    let (objective, decision) = escalated(&h).await;
    answer(&h, decision, DecisionOption::Drop).await;

    let tick = engine_of(&h, false).tick().await.unwrap();

    assert_eq!(tick.decisions_applied, 1);
    let objective = h.db.store.objective(objective).await.unwrap();
    assert_eq!(objective.status, ObjectiveStatus::Cancelled);
    let decision = h.db.store.decision(decision).await.unwrap();
    assert!(decision.applied_at.is_some());
    assert_eq!(
        engine_of(&h, false).tick().await.unwrap().decisions_applied,
        0,
        "carried out once"
    );
}

#[tokio::test]
async fn a_director_escalation_answered_replan_goes_back_to_the_director() {
    let plan = json!({"tool_calls": [{"name": "finish", "arguments": {
        "team": "ops", "rationale": "One check is enough.", "escalate": null, "confidence": 0.9,
        "tasks": [{"key": "check", "agent": "backup", "title": "Check the backups",
                   "description": "rsync and ZFS", "pipeline": "direct", "depends_on": [],
                   "priority": 6}]}}]});
    let h = Harness::new(vec![plan]).await;
    let (objective, decision) = escalated(&h).await;
    answer(&h, decision, DecisionOption::Replan).await;

    engine_of(&h, false).tick().await.unwrap();

    let store = &h.db.store;
    assert_eq!(
        store.objective(objective).await.unwrap().status,
        ObjectiveStatus::InProgress,
        "planned again, and laid out this time"
    );
    let agents: Vec<String> = store
        .tasks_of_objective(objective)
        .await
        .unwrap()
        .iter()
        .map(|t| t.agent.to_string())
        .collect();
    assert_eq!(agents, ["director", "backup"]);
}

#[tokio::test]
async fn one_decision_that_cannot_be_carried_out_does_not_hold_back_the_others() {
    let h = Harness::new(Vec::new()).await;
    let store = &h.db.store;
    let now = h.clock.now();
    let start = NewDecision::new(DecisionKind::OperationStart {
        chain: "base".into(),
        address: CONTRACT.into(),
        name: "Pepe Two".into(),
        ticker: Some("PEP2".into()),
    });
    let start = store.create_decision(&start, now).await.unwrap();
    answer(&h, start.id, DecisionOption::Start).await;
    let (objective, drop) = escalated(&h).await;
    answer(&h, drop, DecisionOption::Drop).await;

    // No playbook loaded: the start cannot be carried out yet.
    let tick = engine_of(&h, false).tick().await.unwrap();

    assert_eq!(tick.decisions_applied, 1);
    assert_eq!(
        store.objective(objective).await.unwrap().status,
        ObjectiveStatus::Cancelled
    );
    assert!(store.decision(start.id).await.unwrap().applied_at.is_none());

    let retried = engine_of(&h, true).tick().await.unwrap();

    assert_eq!(retried.decisions_applied, 1, "tried again at the next tick");
    let live = store
        .live_operation_for("base", CONTRACT)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(live.status, OperationStatus::Running);
}

#[tokio::test]
async fn a_prereport_asked_by_takeover_offers_start_and_start_lays_out_the_playbook() {
    let scan = json!({"tool_calls": [{"name": "finish", "arguments": {
        "verdict": "go", "checks": [], "reasons": [],
        "summary": "Dead but clean: the developer sold and left.", "confidence": 0.9}}]});
    let chain = simulation_chain().await;
    let options = Options {
        chain: Some(reader_of(&chain)),
        ..Options::default()
    };
    let h = Harness::with(options, vec![scan]).await;
    let store = &h.db.store;
    let candidate = Candidate {
        chain: "base".into(),
        address: CONTRACT.into(),
        name: "Pepe Two".into(),
        ticker: Some("PEP2".into()),
    };
    let (objective, task) = request_prereport(
        store,
        &candidate,
        PrereportPurpose::OfferStart,
        h.clock.now(),
    )
    .await
    .unwrap();
    assert_eq!(
        (task.agent.as_str(), task.kind.as_deref()),
        ("scanner", Some("prereport"))
    );
    assert_eq!(
        task.operation_id, None,
        "no operation before the CEO's Start"
    );

    let engine = engine_of(&h, true);
    engine.tick().await.unwrap();

    assert_eq!(
        store.objective(objective.id).await.unwrap().status,
        ObjectiveStatus::Completed,
        "the report is the objective's answer"
    );
    let offered = store.pending_decisions().await.unwrap();
    assert_eq!(offered.len(), 1, "{offered:?}");
    let offer = &offered[0];
    assert_eq!(offer.task_id, Some(task.id));
    assert_eq!(
        offer.kind,
        DecisionKind::OperationStart {
            chain: "base".into(),
            address: CONTRACT.into(),
            name: "Pepe Two".into(),
            ticker: Some("PEP2".into()),
        }
    );
    assert_eq!(
        offer.option_at(offer.recommended.unwrap()),
        Some(DecisionOption::Start)
    );
    assert_eq!(
        offer.option_at(offer.auto_decision.unwrap()),
        Some(DecisionOption::Drop)
    );

    answer(&h, offer.id, DecisionOption::Start).await;
    let decision = store.decision(offer.id).await.unwrap();
    let Applied::OperationStarted(started) = engine.apply_decision(&decision).await.unwrap() else {
        panic!("the start was not carried out");
    };
    assert_eq!(started.operation.status, OperationStatus::Running);
    assert_eq!(started.operation.j0_at, Some(h.clock.now()));
    assert_eq!(started.operation.token_symbol.as_deref(), Some("PEP2"));
    assert_eq!(started.operation.site_subdomain.as_deref(), Some("pep2"));
    assert_eq!(
        started.operation.official_addresses.len(),
        2,
        "the contract and the pair the pre-report read: {:?}",
        started.operation.official_addresses
    );
    assert_eq!(
        started.tasks.len(),
        takeover_playbook().expand(h.clock.now()).len(),
        "every step laid out from J0"
    );
    assert!(
        matches!(
            engine.apply_decision(&decision).await.unwrap(),
            Applied::Nothing
        ),
        "pressed twice, started once"
    );
    let again = request_prereport(
        store,
        &candidate,
        PrereportPurpose::OfferStart,
        h.clock.now(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(again, StoreError::Taken { operation, .. } if operation == started.operation.id.get()),
        "{again}"
    );
}

/// A Docker action on a container (no Docker socket is configured: a call
/// that passes the gate fails saying so).
fn docker(action: &str, container: &str) -> Value {
    json!({"tool_calls": [{"name": "docker", "arguments": {"action": action, "container": container}}]})
}

fn incident_finish() -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "api restarted", "root_cause": "OOM", "actions": [], "needs_decision": false,
        "confidence": 0.9}}]})
}

/// The results the model received for each of its calls, in order.
fn tool_results(h: &Harness) -> Vec<Value> {
    h.llm
        .requests()
        .iter()
        .skip(1)
        .map(|r| {
            let last = r["messages"].as_array().unwrap().last().unwrap().clone();
            serde_json::from_str(last["content"].as_str().unwrap()).unwrap_or(Value::Null)
        })
        .collect()
}

#[tokio::test]
async fn a_confirmation_given_for_one_call_does_not_confirm_another() {
    let turns = vec![
        docker("restart", "api"),
        incident_finish(),
        docker("stop", "postgres"),
        docker("restart", "api"),
        incident_finish(),
    ];
    let h = Harness::new(turns).await;
    let store = &h.db.store;
    let first = h.claimed_task("incident", json!({})).await;
    h.runner.run(&first, RunMode::Live).await.unwrap();

    let asked = store
        .decisions_of_task(first.id, "confirmation")
        .await
        .unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].kind,
        DecisionKind::Confirmation {
            tool: "docker".into(),
            arguments: json!({"action": "restart", "container": "api"}),
        }
    );
    assert_eq!(asked[0].status, DecisionStatus::Pending);
    assert_eq!(tool_results(&h)[0]["dry_run"], true);

    answer(&h, asked[0].id, DecisionOption::Confirm).await;
    let decision = store.decision(asked[0].id).await.unwrap();
    let applied = engine_of(&h, false)
        .apply_decision(&decision)
        .await
        .unwrap();
    assert!(matches!(applied, Applied::Confirmed), "{applied:?}");
    let again = store
        .task_with_step_key(&format!("confirmed.{}", decision.id))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.input[CONFIRMED_BY], decision.id.get());
    assert_eq!(again.status, TaskStatus::Pending);

    store.promote_ready_tasks(h.clock.now()).await.unwrap();
    let claimed = store
        .claim_next_task("worker-1", h.clock.now(), chrono::TimeDelta::minutes(10))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, again.id);
    h.runner.run(&claimed, RunMode::Live).await.unwrap();

    let results = tool_results(&h);
    assert_eq!(
        results[2]["dry_run"], true,
        "another command on the same tool stays dry: {}",
        results[2]
    );
    assert_eq!(
        results[3]["dry_run"],
        Value::Null,
        "the confirmed call passes the gate: {}",
        results[3]
    );
    assert!(
        results[3]["error"]
            .as_str()
            .unwrap_or_default()
            .contains("docker_socket"),
        "the call reached the tool, which says what it lacks: {}",
        results[3]
    );
}
