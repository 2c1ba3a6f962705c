//! A takeover operation on a simulated clock: the playbook laid out from
//! J0, steps in dependency order and on time, validations holding steps,
//! a no-go stopping everything, a restart mid-way, pause and resume.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::sync::Arc;

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::{Value, json};
use ulias_agents::alerts::{RecordingAlerter, keys};
use ulias_agents::chain::ChainReader;
use ulias_agents::engine::{Engine, EngineConfig};
use ulias_agents::operations::start_operation;
use ulias_agents::simulation::{Rehearsal, StandInTeam};
use ulias_core::clock::{Clock, ManualClock};
use ulias_core::domain::{NewOperation, OperationId, OperationStatus, Task, TaskStatus};
use ulias_core::playbook::Playbook;
use ulias_core::settings::BudgetSettings;
use ulias_tests::db::TestDb;
use ulias_tests::fake_chain::{FakeChain, reader_of, simulation_chain};
use ulias_tests::harness::{assemble, scripted_pool, simulation_answers, start};

const TICK: TimeDelta = TimeDelta::minutes(15);

fn takeover_playbook() -> Playbook {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../prompts/playbooks/takeover.toml"
    );
    Playbook::parse(&std::fs::read_to_string(path).unwrap(), path).unwrap()
}

fn team(reject_once: Option<&str>, answer_after: TimeDelta) -> StandInTeam {
    StandInTeam {
        answer_after,
        reject_once: reject_once.map(str::to_owned),
        rejection_reason: "Too generic: name the token and its chain".to_owned(),
    }
}

struct Op {
    db: TestDb,
    chain: FakeChain,
    alerts: Arc<RecordingAlerter>,
    rehearsal: Rehearsal,
    operation: OperationId,
}

impl Op {
    async fn start(script: Value, team: StandInTeam) -> Self {
        let db = TestDb::sqlite().await;
        db.migrated().await;
        let clock = Arc::new(ManualClock::new(start()));
        let alerts = Arc::new(RecordingAlerter::default());
        let chain = simulation_chain().await;
        let engine = engine_on(&db, &script, &clock, &alerts, "worker-1", reader_of(&chain));
        let new = NewOperation {
            name: "PEPE2".to_owned(),
            token_symbol: Some("PEP2".to_owned()),
            chain: Some("base".to_owned()),
            official_address: Some("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed".to_owned()),
            official_addresses: Vec::new(),
            j0_at: clock.now(),
        };
        let started = start_operation(&db.store, &takeover_playbook(), &new, clock.now())
            .await
            .unwrap();
        let mut rehearsal = Rehearsal::new(engine, clock, team);
        rehearsal.operation = Some(started.operation.id);
        Self {
            db,
            chain,
            alerts,
            rehearsal,
            operation: started.operation.id,
        }
    }

    async fn run_for(&mut self, hours: i64) {
        let end = start() + TimeDelta::hours(hours);
        self.rehearsal
            .run_until(end, TICK, &mut |_, _| {})
            .await
            .unwrap();
    }

    async fn steps(&self) -> Vec<Task> {
        self.db
            .store
            .tasks_of_operation(self.operation)
            .await
            .unwrap()
    }

    async fn step(&self, key: &str) -> Task {
        self.steps()
            .await
            .into_iter()
            .find(|t| t.step_key.as_deref() == Some(key))
            .unwrap_or_else(|| panic!("no step {key}"))
    }
}

fn engine_on(
    db: &TestDb,
    script: &Value,
    clock: &Arc<ManualClock>,
    alerts: &Arc<RecordingAlerter>,
    worker: &str,
    chain: ChainReader,
) -> Engine {
    let runner = assemble(
        db,
        vec![scripted_pool(script)],
        clock,
        alerts,
        &BudgetSettings::default(),
        chain,
    );
    Engine {
        runner,
        config: EngineConfig {
            worker: worker.to_owned(),
            ..EngineConfig::default()
        },
    }
}

fn with_verdict(verdict: &str) -> Value {
    let mut script = simulation_answers();
    let turns = script["by_schema"]["go_nogo"].as_array_mut().unwrap();
    let finish = turns.last_mut().unwrap();
    finish["finish"]["verdict"] = json!(verdict);
    script
}

fn completed_at_or_before(task: &Task, at: DateTime<Utc>) -> bool {
    task.status == TaskStatus::Completed && task.completed_at.is_some_and(|c| c <= at)
}

#[tokio::test]
async fn over_72_hours_steps_run_in_dependency_order_and_on_time() {
    let mut op = Op::start(simulation_answers(), team(None, TimeDelta::minutes(30))).await;

    op.run_for(72).await;

    let steps = op.steps().await;
    for task in steps.iter().filter(|t| t.started_at.is_some()) {
        let started = task.started_at.unwrap();
        assert!(
            started >= task.due_at,
            "{:?} started before it was due",
            task.step_key
        );
        for dep in &task.depends_on {
            let dep = steps.iter().find(|t| t.id == *dep).unwrap();
            assert!(
                completed_at_or_before(dep, started),
                "{:?} started before {:?} was done",
                task.step_key,
                dep.step_key
            );
        }
    }
    for key in [
        "scanner.full_report",
        "scanner.go_nogo",
        "designer.directions",
        "cm.account_setup",
        "tg_bot.group_setup",
        "buyback.start",
        "designer.poll",
        "scanner.daily_metrics.d01",
        "scanner.daily_metrics.d02",
        "designer.kit",
        "cto.dossier",
    ] {
        assert_eq!(op.step(key).await.status, TaskStatus::Completed, "{key}");
    }
    assert_eq!(
        op.step("cm.daily_post.d04").await.status,
        TaskStatus::Pending,
        "not due before J+4"
    );
    let check = op.rehearsal.verify(op.operation, TICK).await.unwrap();
    assert!(check.passed(), "{check:?}");
    let validated = steps
        .iter()
        .filter(|t| t.requires_validation && t.status == TaskStatus::Completed)
        .count();
    assert_eq!(
        check.publications, validated as u64,
        "each approved output is queued for publishing once"
    );
}

#[tokio::test]
async fn a_no_go_verdict_stops_the_operation_and_the_buyback_never_queues() {
    let mut op = Op::start(with_verdict("no_go"), team(None, TimeDelta::minutes(30))).await;

    op.run_for(48).await;

    let operation = op.db.store.operation(op.operation).await.unwrap();
    assert_eq!(operation.status, OperationStatus::Stopped);
    let buyback = op.step("buyback.start").await;
    assert_eq!(buyback.status, TaskStatus::Cancelled);
    assert_eq!(buyback.started_at, None, "never queued, never run");
    let ran: Vec<_> = op
        .steps()
        .await
        .into_iter()
        .filter(|t| t.started_at.is_some())
        .filter_map(|t| t.step_key)
        .collect();
    assert_eq!(ran, ["scanner.full_report", "scanner.go_nogo"]);
    assert!(
        op.alerts
            .alerts()
            .iter()
            .any(|a| a.key == keys::OPERATION_STOPPED)
    );
}

#[tokio::test]
async fn the_team_rejecting_the_go_no_go_stops_the_operation() {
    let mut op = Op::start(
        simulation_answers(),
        team(Some("scanner.go_nogo"), TimeDelta::minutes(30)),
    )
    .await;

    op.run_for(48).await;

    let operation = op.db.store.operation(op.operation).await.unwrap();
    assert_eq!(operation.status, OperationStatus::Stopped);
    assert_eq!(op.step("buyback.start").await.started_at, None);
    assert_eq!(
        op.step("designer.directions").await.status,
        TaskStatus::Cancelled
    );
    assert!(op.db.store.pending_validations().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_rejected_step_runs_again_with_the_reason_and_the_agent_learns_it() {
    let mut op = Op::start(
        simulation_answers(),
        team(Some("designer.directions"), TimeDelta::minutes(30)),
    )
    .await;

    op.run_for(24).await;

    let directions = op.step("designer.directions").await;
    assert_eq!(directions.status, TaskStatus::Completed);
    assert_eq!(directions.attempts, 2, "ran, was rejected, ran again");
    assert_eq!(
        directions.input["rejection_reason"],
        "Too generic: name the token and its chain"
    );
    let lessons = op.db.store.lessons().await.unwrap();
    assert!(
        lessons
            .iter()
            .any(|l| l.lesson.agent.as_deref() == Some("designer")
                && l.lesson.lesson.contains("Too generic"))
    );
}

#[tokio::test]
async fn a_restart_in_the_middle_loses_no_step_and_runs_none_twice() {
    let script = simulation_answers();
    let mut op = Op::start(script.clone(), team(None, TimeDelta::minutes(30))).await;
    op.run_for(23).await;
    // J+1: a worker claims a step as it falls due and dies with it.
    let clock = op.rehearsal.clock.clone();
    clock.advance(start() + TimeDelta::hours(24) - clock.now());
    let store = op.db.store.clone();
    store.promote_ready_tasks(clock.now()).await.unwrap();
    let orphan = store
        .claim_next_task("crashed-worker", clock.now(), TimeDelta::minutes(15))
        .await
        .unwrap()
        .expect("a step is due at J+1");
    let Op {
        db,
        chain,
        alerts,
        rehearsal,
        operation,
    } = op;
    let team = rehearsal.team.clone();
    drop(rehearsal);

    let engine = engine_on(&db, &script, &clock, &alerts, "worker-2", reader_of(&chain));
    let mut rehearsal = Rehearsal::new(engine, clock, team);
    rehearsal.operation = Some(operation);
    rehearsal
        .run_until(start() + TimeDelta::hours(72), TICK, &mut |_, _| {})
        .await
        .unwrap();

    let steps = db.store.tasks_of_operation(operation).await.unwrap();
    for task in &steps {
        let expected = if task.id == orphan.id {
            2
        } else {
            u32::from(task.started_at.is_some())
        };
        assert_eq!(task.attempts, expected, "{:?}", task.step_key);
        let validations = db.store.validations_of_task(task.id).await.unwrap();
        assert!(
            validations.len() <= 1,
            "{:?} asked the team twice",
            task.step_key
        );
        if task.due_at <= start() + TimeDelta::hours(60) {
            assert_eq!(
                task.status,
                TaskStatus::Completed,
                "{:?} was lost",
                task.step_key
            );
        }
    }
    assert!(rehearsal.verify(operation, TICK).await.unwrap().passed());
}

#[tokio::test]
async fn a_validation_waiting_over_two_hours_alerts_the_team_once() {
    let mut op = Op::start(simulation_answers(), team(None, TimeDelta::hours(3))).await;

    op.run_for(8).await;

    let waiting: Vec<_> = op
        .alerts
        .alerts()
        .into_iter()
        .filter(|a| a.key == keys::VALIDATION_WAITING)
        .collect();
    let go_nogo = op
        .db
        .store
        .validations_of_task(op.step("scanner.go_nogo").await.id)
        .await
        .unwrap();
    let flagged = go_nogo[0].id.to_string();
    assert_eq!(
        waiting
            .iter()
            .filter(|a| a.arg("id") == Some(flagged.as_str()))
            .count(),
        1
    );
}

#[tokio::test]
async fn a_paused_operation_starts_no_step_until_resumed() {
    let mut op = Op::start(simulation_answers(), team(None, TimeDelta::minutes(30))).await;
    let now = op.rehearsal.clock.now();
    op.db
        .store
        .set_operation_status(op.operation, OperationStatus::Paused, now)
        .await
        .unwrap();

    op.run_for(6).await;
    assert!(op.steps().await.iter().all(|t| t.started_at.is_none()));

    let now = op.rehearsal.clock.now();
    op.db
        .store
        .set_operation_status(op.operation, OperationStatus::Running, now)
        .await
        .unwrap();
    op.run_for(12).await;
    assert_eq!(
        op.step("scanner.go_nogo").await.status,
        TaskStatus::Completed
    );
}

#[tokio::test]
async fn with_validation_off_outputs_publish_directly_and_are_still_logged() {
    let mut op = Op::start(simulation_answers(), team(None, TimeDelta::minutes(30))).await;
    let now = op.rehearsal.clock.now();
    op.db
        .store
        .set_validation_required(op.operation, false, now)
        .await
        .unwrap();

    op.run_for(6).await;

    let setup = op.step("cm.account_setup").await;
    assert_eq!(
        setup.status,
        TaskStatus::Completed,
        "nothing waits for the team"
    );
    assert!(
        op.db
            .store
            .validations_of_task(setup.id)
            .await
            .unwrap()
            .is_empty()
    );
    let (publications, without_validation) = op.db.store.publication_counts().await.unwrap();
    assert!(
        publications >= 1 && publications == without_validation,
        "{publications} {without_validation}"
    );
    let log = op.db.store.log_of_task(setup.id).await.unwrap();
    assert!(
        log.iter()
            .any(|row| row.entry.summary.contains("published directly")),
        "still logged"
    );
}
