//! The Interpreter: a CEO message becomes an objective, or — when the
//! message is short and the reading unsure — one question with guesses.

use chrono::TimeDelta;
use serde_json::json;
use ulias_core::domain::{NewObjective, NewTask, Objective, ObjectiveId, Priority, Team};

use crate::director::PlanningError;
use crate::runner::{LeaseTerms, RunError, Runner};
use crate::schemas::{Interpretation, Relation, TakeoverAsk};

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
    /// A question the continued objective's result answers: no agent runs.
    Answer(String, Interpretation),
    /// The continued objective was understood wrong: this is what was meant.
    Correction(Interpretation),
    /// A takeover asked in words: nothing is created until the CEO confirms.
    Takeover(TakeoverAsk, Interpretation),
}

/// The objective a message may continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Continuing {
    pub objective: ObjectiveId,
    /// The CEO replied to its message (else it was answered a moment ago).
    pub replied: bool,
}

/// What a reading becomes, given the objective the message may continue:
/// the Interpreter's `relation` decides; a reply it leaves unqualified
/// continues the objective it replies to.
pub fn intent_of(
    reading: &Interpretation,
    message: &str,
    continuing: Option<Continuing>,
) -> Intent {
    let answer = reading
        .answer
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty());
    match (continuing, reading.relation, answer) {
        (Some(_), Some(Relation::Question), Some(answer)) => Intent::Answer(answer.to_owned()),
        (Some(c), Some(Relation::Correction), _) => Intent::Correct(c.objective),
        (Some(c), Some(Relation::FollowUp | Relation::Question), _) => {
            Intent::Objective(Some(c.objective))
        }
        (Some(c), None, _) if c.replied => Intent::Objective(Some(c.objective)),
        _ if message.split_whitespace().count() < SHORT_MESSAGE_WORDS
            && reading.confidence < ASK_BELOW =>
        {
            Intent::Ask
        }
        _ => Intent::Objective(None),
    }
}

/// What to do with a reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// Create an objective (following up the given one).
    Objective(Option<ObjectiveId>),
    /// Ask which meaning was meant.
    Ask,
    /// Reply with this answer.
    Answer(String),
    /// Correct this objective.
    Correct(ObjectiveId),
}

/// Runs the Interpreter on `message` as `worker`; `context` (the CEO's
/// profile, the last interactions, the objective it may continue) goes
/// with it. See [`intent_of`] for what the reading becomes; an objective is
/// stored pending (linked to the one it follows up).
pub async fn interpret(
    runner: &Runner,
    message: &str,
    context: serde_json::Value,
    worker: &str,
    continuing: Option<Continuing>,
) -> Result<Interpreted, PlanningError> {
    let reading = read(runner, message, context, worker).await?;
    if let Some(ask) = reading.takeover.clone() {
        return Ok(Interpreted::Takeover(ask, reading));
    }
    Ok(match intent_of(&reading, message, continuing) {
        Intent::Ask => Interpreted::Ask(reading),
        Intent::Answer(answer) => Interpreted::Answer(answer, reading),
        Intent::Correct(_) => Interpreted::Correction(reading),
        Intent::Objective(parent) => {
            let mut new = objective_of(&reading);
            new.parent = parent;
            let objective = runner
                .store
                .create_objective(&new, runner.clock.now())
                .await?;
            Interpreted::Objective(objective, reading)
        }
    })
}

/// The Interpreter's reading of `message`, and nothing more (a correction
/// rewrites an objective with it).
pub async fn read(
    runner: &Runner,
    message: &str,
    context: serde_json::Value,
    worker: &str,
) -> Result<Interpretation, PlanningError> {
    let now = runner.clock.now();
    let spec = runner
        .catalogue
        .get(INTERPRETER)
        .ok_or_else(|| RunError::UnknownAgent(INTERPRETER.to_owned()))?;
    let mut task = NewTask::new(spec.name.clone(), spec.team, "Interpret a CEO message", now);
    task.input = json!({"message": message, "context": context});
    task.priority = Priority::new(9).unwrap_or_default();
    let (_, outcome) = runner
        .run_claimed(&task, worker, LeaseTerms::of(TimeDelta::minutes(5)))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(
        confidence: f64,
        relation: Option<Relation>,
        answer: Option<&str>,
    ) -> Interpretation {
        Interpretation {
            title: "Vérifier les backups de la VM 104".into(),
            description: String::new(),
            priority: 5,
            team: "ops".into(),
            guesses: Vec::new(),
            confidence,
            relation,
            answer: answer.map(str::to_owned),
            takeover: None,
        }
    }

    const FIRST: ObjectiveId = ObjectiveId::new(1);

    #[test]
    fn a_reply_continues_its_objective_unless_the_reading_says_otherwise() {
        let replied = Some(Continuing {
            objective: FIRST,
            replied: true,
        });
        let recent = Some(Continuing {
            objective: FIRST,
            replied: false,
        });
        let plain = reading(0.9, None, None);
        assert_eq!(
            intent_of(&plain, "et pour la vm 104 ?", replied),
            Intent::Objective(Some(FIRST))
        );
        assert_eq!(
            intent_of(&plain, "et pour la vm 104 ?", recent),
            Intent::Objective(None)
        );
        let new = reading(0.9, Some(Relation::New), None);
        assert_eq!(
            intent_of(&new, "redémarre nginx stp", replied),
            Intent::Objective(None)
        );
        let follow = reading(0.9, Some(Relation::FollowUp), None);
        assert_eq!(
            intent_of(&follow, "et la 104", recent),
            Intent::Objective(Some(FIRST))
        );
        let fix = reading(0.9, Some(Relation::Correction), None);
        assert_eq!(
            intent_of(&fix, "non, la 104", replied),
            Intent::Correct(FIRST)
        );
        let asked = reading(0.9, Some(Relation::Question), Some("Oui, 3 sur 4."));
        assert_eq!(
            intent_of(&asked, "tout est ok ?", replied),
            Intent::Answer("Oui, 3 sur 4.".into())
        );
        let unanswered = reading(0.9, Some(Relation::Question), Some("  "));
        assert_eq!(
            intent_of(&unanswered, "tout est ok ?", replied),
            Intent::Objective(Some(FIRST)),
            "a question without an answer becomes work on it"
        );
        assert_eq!(
            intent_of(&asked, "tout est ok ?", None),
            Intent::Objective(None),
            "nothing to answer from"
        );
        let unsure = reading(0.3, None, None);
        assert_eq!(intent_of(&unsure, "backups ?", None), Intent::Ask);
    }
}
