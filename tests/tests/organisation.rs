//! The organisation's own loop in the engine: proposals that wait for the
//! CEO or, from a proposer the CEO trusts, start on their own; a finished
//! objective stores its answer and queues the Learner and the Connector;
//! every finished task leaves a metrics row.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_agents::alerts::keys;
use ulias_agents::answer::Answer;
use ulias_core::clock::Clock;
use ulias_core::domain::{
    NewObjective, NewProposal, NewTask, ObjectiveSource, ObjectiveStatus, Priority, ProposalId,
    ProposalStatus, Team,
};
use ulias_core::store::ObjectiveUpdate;
use ulias_tests::harness::Harness;

fn finish(arguments: Value) -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": arguments}]})
}

fn proposals() -> Value {
    finish(
        json!({"objectives": [{"title": "Cache the Docker layers of connectors-api",
        "description": "Multi-stage build.", "team": "engineering", "priority": 5,
        "rationale": "Each build downloads 200 MB."}], "confidence": 0.8}),
    )
}

fn escalating_plan() -> Value {
    finish(
        json!({"team": "engineering", "rationale": "Which repository?",
        "escalate": "Which repository?", "confidence": 0.4, "tasks": [{"key": "a", "agent": "coder",
        "title": "t", "description": "d", "pipeline": "direct", "depends_on": [], "priority": 5}]}),
    )
}

/// `accepted` proposals of the Strategist, the first `days_ago` days ago.
async fn strategist_record(h: &Harness, accepted: u32, days_ago: i64) {
    let then = h.clock.now() - TimeDelta::days(days_ago);
    for _ in 0..accepted {
        let new = NewProposal {
            proposer: "strategist".parse().unwrap(),
            task_id: None,
            title: "An earlier idea".into(),
            description: String::new(),
            team: Some(Team::Ops),
            priority: Priority::DEFAULT,
            rationale: String::new(),
        };
        let p = h.db.store.create_proposal(&new, None, then).await.unwrap();
        h.db.store
            .decide_proposal(p.id, ProposalStatus::Accepted, None, then)
            .await
            .unwrap();
    }
}

async fn queue_strategist(h: &Harness) {
    let now = h.clock.now();
    let task = NewTask::new(
        "strategist".parse().unwrap(),
        Team::Transversal,
        "Analyse the metrics and propose improvement objectives",
        now,
    );
    h.db.store.create_task(&task, now).await.unwrap();
}

#[tokio::test]
async fn a_proposal_in_the_supervised_weeks_waits_for_the_ceo() {
    let h = Harness::new(vec![proposals()]).await;
    strategist_record(&h, 12, 3).await;
    queue_strategist(&h).await;

    h.engine().tick().await.unwrap();

    let proposal = h.db.store.proposal(ProposalId::new(13)).await.unwrap();
    assert_eq!(
        proposal.status,
        ProposalStatus::Pending,
        "3 days of record is not enough"
    );
    assert_eq!(proposal.title, "Cache the Docker layers of connectors-api");
    assert_eq!(proposal.team, Some(Team::Engineering));
    let objectives =
        h.db.store
            .objectives_since(h.clock.now() - TimeDelta::days(1), 10)
            .await
            .unwrap();
    assert!(objectives.is_empty(), "nothing starts without the CEO");
    assert!(
        h.alerts
            .alerts()
            .iter()
            .all(|a| a.key != keys::PROPOSAL_AUTOMATIC)
    );
}

#[tokio::test]
async fn a_trusted_proposer_starts_its_objective_unasked_and_the_ceo_is_told() {
    let h = Harness::new(vec![proposals(), escalating_plan()]).await;
    strategist_record(&h, 10, 20).await;
    queue_strategist(&h).await;

    // The proposal, then the planning it queued.
    h.engine().tick().await.unwrap();
    h.engine().tick().await.unwrap();

    let proposal = h.db.store.proposal(ProposalId::new(11)).await.unwrap();
    assert_eq!(proposal.status, ProposalStatus::Automatic);
    let objective =
        h.db.store
            .objective(proposal.objective_id.unwrap())
            .await
            .unwrap();
    assert_eq!(objective.title, "Cache the Docker layers of connectors-api");
    assert_eq!(objective.source, ObjectiveSource::Strategist);
    assert_eq!(objective.source_agent.as_deref(), Some("strategist"));
    assert_eq!(
        objective.status,
        ObjectiveStatus::Blocked,
        "planned on the next tick (the Director asked)"
    );
    let told = h
        .alerts
        .alerts()
        .into_iter()
        .find(|a| a.key == keys::PROPOSAL_AUTOMATIC)
        .unwrap();
    assert!(told.args.contains(&("rate", "100".to_owned())), "{told:?}");
    assert_eq!(h.llm.played(), 2);
}

#[tokio::test]
async fn a_finished_objective_keeps_its_answer_and_queues_the_learner_and_the_connector() {
    let report = finish(json!({"summary": "Two disks are nearly full.",
        "findings": ["sda 91 %", "sdb 88 %"], "confidence": 0.9}));
    let h = Harness::new(vec![report]).await;
    let store = &h.db.store;
    let now = h.clock.now();
    let objective = store
        .create_objective(&NewObjective::from_ceo("Check the disks", ""), now)
        .await
        .unwrap();
    store
        .set_objective_status(
            objective.id,
            ObjectiveStatus::InProgress,
            ObjectiveUpdate::default(),
            now,
        )
        .await
        .unwrap();
    let task = NewTask {
        objective_id: Some(objective.id),
        ..NewTask::new(
            "analyst".parse().unwrap(),
            Team::Research,
            "Disk usage",
            now,
        )
    };
    store.create_task(&task, now).await.unwrap();

    h.engine().tick().await.unwrap();

    let done = store.objective(objective.id).await.unwrap();
    assert_eq!(done.status, ObjectiveStatus::Completed);
    let answer = Answer::from_result(done.result.as_ref()).unwrap();
    assert_eq!(
        answer.lines,
        ["Two disks are nearly full.", "• sda 91 %", "• sdb 88 %"]
    );
    let queued: Vec<String> = store
        .unmeasured_tasks(10)
        .await
        .unwrap()
        .iter()
        .map(|t| t.agent.to_string())
        .collect();
    assert!(
        queued.is_empty(),
        "the analyst's run was measured in the same tick: {queued:?}"
    );
    let later = store
        .counts(now - TimeDelta::hours(1), now + TimeDelta::hours(1))
        .await
        .unwrap();
    assert_eq!((later.tasks_finished, later.tasks_autonomous), (1, 1));
    for follower in ["connector", "learner"] {
        let sql = format!(
            "SELECT COUNT(*) FROM tasks WHERE objective_id IS NULL AND agent = '{follower}' \
             AND input LIKE '%Two disks are nearly full.%'"
        );
        assert_eq!(
            h.db.scalar(&sql).await,
            1,
            "{follower} gets the objective and its results"
        );
    }
}
