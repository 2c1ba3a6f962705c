//! The pipelines a task can run through (seed 003):
//!
//! - `direct`: the task's agent, once;
//! - `verification_chain`: the agent (the coder) → reviewer → tester →
//!   deployer; a failed review or failed tests go back to the coder with
//!   the findings, at most [`MAX_CYCLES`] times, then the result goes to the
//!   CEO as doubtful;
//! - `horse_race`: two runs with different approaches, then the judge picks;
//! - `cisc`: three samples at different temperatures, voted with weights
//!   from each sample's own confidence;
//! - `cross_validation`: a second agent solves it blind (without the first
//!   answer); agreement raises the confidence, disagreement has the
//!   strategist analyse both and puts the result to the CEO.
//!
//! Every run by another agent is a child task (its own row, messages, log
//! and cost), claimed by the same worker; a task row carries the cost of
//! the runs made on it only, so summing task costs never counts one twice.

mod child;
pub mod vote;

use serde_json::{Value, json};
use ulias_core::domain::{Pipeline, Task};

use self::child::Children;
use crate::runner::{RunError, RunMode, RunOutcome, Runner};

/// Review-and-fix cycles of a verification chain before the CEO is asked.
pub const MAX_CYCLES: u32 = 3;
/// CISC's sampling temperatures.
pub const CISC_TEMPERATURES: [f32; 3] = [0.2, 0.7, 1.1];
/// The horse race's two approaches, as temperatures and as told to the agent.
const RACE: [(f32, &str); 2] = [
    (0.2, "A: the safe, conventional way"),
    (0.9, "B: a bolder, different way"),
];

/// Runs `task` through its pipeline; `worker` claims any child task.
pub async fn run(runner: &Runner, task: &Task, worker: &str) -> Result<RunOutcome, RunError> {
    let children = Children::new(runner, task, worker);
    match task.pipeline {
        Pipeline::Direct => runner.run(task, RunMode::Live).await,
        Pipeline::Cisc => cisc(runner, task).await,
        Pipeline::HorseRace => horse_race(&children, task).await,
        Pipeline::VerificationChain => verification_chain(runner, &children, task).await,
        Pipeline::CrossValidation => cross_validation(runner, &children, task).await,
    }
}

/// A runner that samples at `temperature`.
fn at_temperature(runner: &Runner, temperature: f32) -> Runner {
    let mut runner = runner.clone();
    runner.config.temperature = Some(temperature);
    runner
}

async fn cisc(runner: &Runner, task: &Task) -> Result<RunOutcome, RunError> {
    let mut samples = Vec::new();
    for temperature in CISC_TEMPERATURES {
        samples.push(
            at_temperature(runner, temperature)
                .run(task, RunMode::Live)
                .await?,
        );
    }
    let votes: Vec<_> = samples
        .iter()
        .map(|s| (s.output.clone(), s.confidence))
        .collect();
    let vote = vote::weighted_vote(&votes)
        .ok_or_else(|| RunError::Pipeline("CISC took no sample".to_owned()))?;
    let mut outcome = total(&samples, samples[vote.winner].clone());
    outcome.confidence = Some(vote.confidence);
    Ok(outcome)
}

async fn horse_race(children: &Children<'_>, task: &Task) -> Result<RunOutcome, RunError> {
    let mut runs = Vec::new();
    for (temperature, approach) in RACE {
        let input = with(&task.input, "approach", json!(approach));
        let title = format!("{} — approach {}", task.title, &approach[..1]);
        runs.push(
            children
                .run(task.agent.as_str(), &title, input, Some(temperature))
                .await?,
        );
    }
    let judge_input = json!({"task": task.title, "input": task.input,
                             "A": runs[0].output, "B": runs[1].output});
    let judgement = children
        .run(
            child::JUDGE,
            &format!("Judge: {}", task.title),
            judge_input,
            None,
        )
        .await?;
    let pick = match judgement.output.get("choice").and_then(Value::as_str) {
        Some(choice) if choice.trim().eq_ignore_ascii_case("B") => 1,
        _ => 0,
    };
    // The runs were the children's: their costs are on their own rows.
    let mut outcome = total(&[], runs[pick].clone());
    outcome.confidence = min_confidence(&[&runs[pick], &judgement]);
    Ok(outcome)
}

async fn verification_chain(
    runner: &Runner,
    children: &Children<'_>,
    task: &Task,
) -> Result<RunOutcome, RunError> {
    let mut coder_runs = Vec::new();
    let mut feedback: Option<Value> = None;
    for cycle in 1..=MAX_CYCLES {
        let mut coder_task = task.clone();
        if let Some(findings) = &feedback {
            coder_task.input = with(&task.input, "fix", findings.clone());
        }
        let change = runner.run(&coder_task, RunMode::Live).await?;
        coder_runs.push(change.clone());
        let review_input = json!({"task": task.title, "change": change.output});
        let review = children
            .run(
                "reviewer",
                &format!("Review {cycle}: {}", task.title),
                review_input,
                None,
            )
            .await?;
        if review.output.get("approved") != Some(&Value::Bool(true)) {
            feedback = Some(json!({"review": review.output}));
            continue;
        }
        let test_input = json!({"task": task.title, "change": change.output});
        let tests = children
            .run(
                "tester",
                &format!("Tests {cycle}: {}", task.title),
                test_input,
                None,
            )
            .await?;
        if tests.output.get("passed") != Some(&Value::Bool(true)) {
            feedback = Some(json!({"tests": tests.output}));
            continue;
        }
        let deploy_input =
            json!({"task": task.title, "change": change.output, "tests": tests.output});
        let deploy = children
            .run(
                "deployer",
                &format!("Deploy: {}", task.title),
                deploy_input,
                None,
            )
            .await?;
        let mut outcome = total(&coder_runs, change.clone());
        outcome.output = json!({"change": change.output, "review": review.output,
                                "tests": tests.output, "deploy": deploy.output,
                                "cycles": cycle, "confidence": change.confidence});
        outcome.confidence = min_confidence(&[&change, &review, &tests, &deploy]);
        return Ok(outcome);
    }
    // Still failing after every cycle: the CEO decides (confidence 0).
    let last = coder_runs
        .last()
        .cloned()
        .ok_or_else(|| RunError::Pipeline("the chain ran no cycle".to_owned()))?;
    let mut outcome = total(&coder_runs, last);
    outcome.output = json!({"summary": format!("still failing after {MAX_CYCLES} cycles"),
                            "findings": feedback, "confidence": 0.0});
    outcome.confidence = Some(0.0);
    Ok(outcome)
}

async fn cross_validation(
    runner: &Runner,
    children: &Children<'_>,
    task: &Task,
) -> Result<RunOutcome, RunError> {
    let first = runner.run(task, RunMode::Live).await?;
    let checker = task
        .input
        .get("checker")
        .and_then(Value::as_str)
        .unwrap_or(task.agent.as_str())
        .to_owned();
    let blind = children
        .run(
            &checker,
            &format!("Blind check: {}", task.title),
            task.input.clone(),
            Some(0.9),
        )
        .await?;
    if vote::agree(&first.output, &blind.output) {
        let mut outcome = first.clone();
        let (a, b) = (
            first.confidence.unwrap_or(0.5),
            blind.confidence.unwrap_or(0.5),
        );
        outcome.confidence = Some(1.0 - (1.0 - a) * (1.0 - b));
        return Ok(outcome);
    }
    let analysis_input = json!({"task": task.title, "input": task.input,
                                "answer_a": first.output, "answer_b": blind.output,
                                "question": "The two answers disagree: why, and which holds?"});
    let analysis = children
        .run(
            "strategist",
            &format!("Why the answers differ: {}", task.title),
            analysis_input,
            None,
        )
        .await?;
    let mut outcome = first.clone();
    outcome.output = json!({"summary": "two teams disagree; the strategist's analysis is attached",
                            "answer_a": first.output, "answer_b": blind.output,
                            "analysis": analysis.output, "confidence": 0.0});
    outcome.confidence = Some(0.0);
    Ok(outcome)
}

/// `base` with the tokens, money and time of the runs made on the task itself.
fn total(runs: &[RunOutcome], base: RunOutcome) -> RunOutcome {
    let mut outcome = base;
    outcome.tokens_in = runs.iter().map(|r| r.tokens_in).sum();
    outcome.tokens_out = runs.iter().map(|r| r.tokens_out).sum();
    outcome.cost = runs.iter().map(|r| r.cost).sum();
    outcome.cloud_equivalent_cost = runs.iter().map(|r| r.cloud_equivalent_cost).sum();
    outcome.duration_ms = runs.iter().map(|r| r.duration_ms).sum();
    outcome.turns = runs.iter().map(|r| r.turns).sum();
    outcome
}

fn min_confidence(runs: &[&RunOutcome]) -> Option<f64> {
    runs.iter().filter_map(|r| r.confidence).reduce(f64::min)
}

/// `input` with `field` set (an input that is not an object is wrapped).
fn with(input: &Value, field: &str, value: Value) -> Value {
    let mut input = match input {
        Value::Object(_) => input.clone(),
        other => json!({"input": other}),
    };
    if let Value::Object(fields) = &mut input {
        fields.insert(field.to_owned(), value);
    }
    input
}
