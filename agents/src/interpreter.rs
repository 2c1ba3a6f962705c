//! The Interpreter: a CEO message becomes an objective, or — when the
//! message is short and the reading unsure — one question with guesses.

use chrono::TimeDelta;
use serde_json::json;
use ulias_core::domain::{NewObjective, NewTask, Objective, Priority, Team};

use crate::director::PlanningError;
use crate::runner::{RunError, RunMode, Runner};
use crate::schemas::Interpretation;

/// The Interpreter agent's name.
pub const INTERPRETER: &str = "interpreter";
/// Under this many words, an unsure reading becomes a question.
pub const SHORT_MESSAGE_WORDS: usize = 4;
/// Under this confidence, a short message's reading becomes a question.
pub const ASK_BELOW: f64 = 0.6;

/// What a CEO message became.
#[derive(Debug, Clone, PartialEq)]
pub enum Interpreted {
    /// An objective, stored and pending.
    Objective(Objective, Interpretation),
    /// Too short and unsure: ask which of these was meant.
    Ask(Interpretation),
}

/// Runs the Interpreter on `message` as `worker`; `context` (the CEO's
/// profile, the last interactions) goes with it. A confident reading, or a
/// long message, becomes a pending objective; a short unsure one, a question.
pub async fn interpret(
    runner: &Runner,
    message: &str,
    context: serde_json::Value,
    worker: &str,
) -> Result<Interpreted, PlanningError> {
    let reading = read(runner, message, context, worker).await?;
    if message.split_whitespace().count() < SHORT_MESSAGE_WORDS && reading.confidence < ASK_BELOW {
        return Ok(Interpreted::Ask(reading));
    }
    let objective = runner
        .store
        .create_objective(&objective_of(&reading), runner.clock.now())
        .await?;
    Ok(Interpreted::Objective(objective, reading))
}

/// The Interpreter's reading of `message`, and nothing more (a correction
/// rewrites an objective with it).
pub async fn read(
    runner: &Runner,
    message: &str,
    context: serde_json::Value,
    worker: &str,
) -> Result<Interpretation, PlanningError> {
    let store = &runner.store;
    let now = runner.clock.now();
    let spec = runner
        .catalogue
        .get(INTERPRETER)
        .ok_or_else(|| RunError::UnknownAgent(INTERPRETER.to_owned()))?;
    let mut task = NewTask::new(spec.name.clone(), spec.team, "Interpret a CEO message", now);
    task.input = json!({"message": message, "context": context});
    task.priority = Priority::new(9).unwrap_or_default();
    let task = store
        .create_claimed_task(&task, worker, now, TimeDelta::minutes(5))
        .await?;
    let outcome = match runner.run(&task, RunMode::Live).await {
        Ok(outcome) => outcome,
        Err(error) => {
            store
                .fail_task(task.id, worker, &error.to_string(), runner.clock.now())
                .await?;
            return Err(error.into());
        }
    };
    store
        .complete_task(
            task.id,
            worker,
            &outcome.to_task_outcome(),
            runner.clock.now(),
        )
        .await?;
    serde_json::from_value(outcome.output).map_err(|e| {
        PlanningError::Run(RunError::InvalidOutput {
            errors: vec![e.to_string()],
        })
    })
}

/// The objective a reading describes.
pub fn objective_of(reading: &Interpretation) -> NewObjective {
    let mut objective = NewObjective::from_ceo(reading.title.clone(), reading.description.clone());
    objective.priority = Priority::new(i64::from(reading.priority)).unwrap_or_default();
    objective.team = reading.team.parse::<Team>().ok();
    objective
}
