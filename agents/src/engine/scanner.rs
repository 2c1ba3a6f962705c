//! The Scanner's figures are the code's: after a Scanner run and before the
//! gate sees its output, the chain is read again and
//!
//! - `prereport` / `go_nogo`: the deterministic checks go first in the
//!   output with the facts; a failed hard check, or a chain that cannot be
//!   read, makes the verdict `no_go` with the reasons, whatever the model
//!   said (fail closed);
//! - `daily_metrics`: the day's figures and J0's are filled in;
//! - `verdict`: revived or dead_again is the day-7 arithmetic's.

use serde_json::Value;
use ulias_core::domain::{OperationId, Task, TaskStatus};
use ulias_core::settings::TakeoverThresholds;
use ulias_core::store::StoreError;

use super::Engine;
use crate::chain::{DailyFigures, TokenFacts, day7_verdict, precheck};
use crate::runner::RunOutcome;
use crate::schemas::{DailyMetrics, Day7Verdict, GoNoGo, GoNoGoVerdict};
use crate::tools::token_of;

/// The agent whose outputs are checked.
pub const SCANNER: &str = "scanner";
/// The task kinds whose output is a go/no-go.
pub const GO_NOGO_KINDS: [&str; 2] = ["prereport", "go_nogo"];
const DAILY_METRICS: &str = "daily_metrics";
const VERDICT: &str = "verdict";
/// A summary's most lines.
const SUMMARY_LINES: usize = 5;

impl Engine {
    /// `outcome` with the code's figures and verdicts laid over the
    /// model's, for a Scanner task; any other task's as it is.
    pub(super) async fn scanner_override(
        &self,
        task: &Task,
        mut outcome: RunOutcome,
    ) -> Result<RunOutcome, StoreError> {
        if task.agent.as_str() != SCANNER {
            return Ok(outcome);
        }
        let output = match task.kind.as_deref() {
            Some(kind) if GO_NOGO_KINDS.contains(&kind) => {
                let read = self.read_facts(task).await?;
                serde_json::to_value(overrule_go_nogo(
                    &outcome.output,
                    read,
                    self.runner.tools.chain().thresholds(),
                ))
                .ok()
            }
            Some(DAILY_METRICS) => self.daily_metrics(task, &outcome.output).await?,
            Some(VERDICT) => self.day7(task, &outcome.output).await?,
            _ => None,
        };
        if let Some(output) = output {
            outcome.confidence = output.get("confidence").and_then(Value::as_f64);
            outcome.output = output;
        }
        Ok(outcome)
    }

    /// The task's token read now, or why it could not be.
    async fn read_facts(&self, task: &Task) -> Result<Result<TokenFacts, String>, StoreError> {
        let Some((chain, address)) = token_of(&self.runner.store, task).await? else {
            return Ok(Err("the task names no chain and address".to_owned()));
        };
        let now = self.runner.clock.now();
        let reader = self.runner.tools.chain();
        Ok(reader
            .read_token(&chain, &address, now)
            .await
            .map_err(|e| e.to_string()))
    }

    async fn daily_metrics(
        &self,
        task: &Task,
        output: &Value,
    ) -> Result<Option<Value>, StoreError> {
        let Ok(mut metrics) = serde_json::from_value::<DailyMetrics>(output.clone()) else {
            return Ok(None);
        };
        match self.read_facts(task).await? {
            Ok(facts) => {
                metrics.figures = Some(DailyFigures::of(&facts));
                metrics.gaps = facts.gaps;
            }
            Err(error) => metrics.gaps = vec![format!("chain data unavailable: {error}")],
        }
        if let Some(operation) = task.operation_id {
            let j0_at = self.runner.store.operation(operation).await?.j0_at;
            metrics.day = j0_at.map(|j0| (self.runner.clock.now() - j0).num_days());
            metrics.j0 = self.figures_of(operation).await?.0;
        }
        Ok(serde_json::to_value(metrics).ok())
    }

    async fn day7(&self, task: &Task, output: &Value) -> Result<Option<Value>, StoreError> {
        let Ok(mut verdict) = serde_json::from_value::<Day7Verdict>(output.clone()) else {
            return Ok(None);
        };
        let (j0, days) = match task.operation_id {
            Some(operation) => self.figures_of(operation).await?,
            None => (None, Vec::new()),
        };
        let limits = &self.runner.tools.chain().thresholds().verdict;
        let day7 = day7_verdict(&j0.clone().unwrap_or_default(), &days, limits);
        verdict.verdict = day7.verdict;
        verdict.criteria = day7.criteria;
        verdict.j0 = j0;
        verdict.days = days;
        verdict.summary = first_lines(&verdict.summary, SUMMARY_LINES);
        Ok(serde_json::to_value(verdict).ok())
    }

    /// An operation's J0 figures (its go/no-go's facts) and its completed
    /// daily figures, in order.
    async fn figures_of(
        &self,
        operation: OperationId,
    ) -> Result<(Option<DailyFigures>, Vec<DailyFigures>), StoreError> {
        let mut tasks = self.runner.store.tasks_of_operation(operation).await?;
        tasks.retain(|t| t.agent.as_str() == SCANNER && t.status == TaskStatus::Completed);
        tasks.sort_by_key(|t| t.due_at);
        let result = |t: &Task, field: &str| t.result.as_ref().and_then(|r| r.get(field)).cloned();
        let j0 = tasks
            .iter()
            .filter(|t| t.kind.as_deref() == Some("go_nogo"))
            .filter_map(|t| result(t, "facts"))
            .find_map(|facts| serde_json::from_value::<TokenFacts>(facts).ok())
            .map(|facts| DailyFigures::of(&facts));
        let days = tasks
            .iter()
            .filter(|t| t.kind.as_deref() == Some(DAILY_METRICS))
            .filter_map(|t| result(t, "figures"))
            .filter_map(|figures| serde_json::from_value(figures).ok())
            .collect();
        Ok((j0, days))
    }
}

/// The model's go/no-go with the code's checks first and, when a hard
/// check failed or the chain could not be read (`read` is `Err`), `no_go`
/// with the reasons. The code's no-go is certain: confidence 1.
pub fn overrule_go_nogo(
    output: &Value,
    read: Result<TokenFacts, String>,
    limits: &TakeoverThresholds,
) -> GoNoGo {
    let mut answer =
        serde_json::from_value::<GoNoGo>(output.clone()).unwrap_or_else(|_| loose_go_nogo(output));
    answer.summary = first_lines(&answer.summary, SUMMARY_LINES);
    // Only the code's checks are hard.
    for check in &mut answer.checks {
        check.hard = false;
    }
    let failures = match read {
        Ok(facts) => {
            let pre = precheck(&facts, limits);
            let failures = pre.failures();
            answer.checks.splice(0..0, pre.checks);
            answer.facts = Some(facts);
            failures
        }
        Err(error) => {
            answer.facts = None;
            vec![format!("chain data unavailable: {error}")]
        }
    };
    if !failures.is_empty() {
        answer.verdict = GoNoGoVerdict::NoGo;
        answer.reasons.splice(0..0, failures);
        answer.confidence = 1.0;
    }
    answer
}

/// A go/no-go from an output of another shape (an agent file that maps
/// the kind to an older schema): its verdict, summary and confidence.
fn loose_go_nogo(output: &Value) -> GoNoGo {
    let text = |field: &str| output.get(field).and_then(Value::as_str);
    GoNoGo {
        verdict: match text("verdict") {
            Some("go") => GoNoGoVerdict::Go,
            _ => GoNoGoVerdict::NoGo,
        },
        checks: Vec::new(),
        reasons: Vec::new(),
        summary: text("summary")
            .or(text("cm_summary"))
            .unwrap_or_default()
            .to_owned(),
        facts: None,
        confidence: output
            .get("confidence")
            .and_then(Value::as_f64)
            .unwrap_or(0.0),
    }
}

fn first_lines(text: &str, count: usize) -> String {
    text.lines().take(count).collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn model(verdict: &str) -> Value {
        json!({"verdict": verdict, "checks": [], "reasons": ["the model's"],
               "summary": "1\n2\n3\n4\n5\n6\n7", "confidence": 0.4})
    }

    #[test]
    fn an_unreadable_chain_overrules_a_go_and_keeps_the_models_words() {
        let limits = TakeoverThresholds::default();
        let answer = overrule_go_nogo(&model("go"), Err("refused".to_owned()), &limits);
        assert_eq!(answer.verdict, GoNoGoVerdict::NoGo);
        assert_eq!(
            answer.reasons,
            ["chain data unavailable: refused", "the model's"]
        );
        assert_eq!(answer.confidence, 1.0);
        assert_eq!(answer.summary, "1\n2\n3\n4\n5", "at most 5 lines");
    }

    #[test]
    fn an_output_of_an_older_shape_is_still_overruled() {
        let scan = json!({"verdict": "go", "cm_summary": "ok", "confidence": 0.9});
        let limits = TakeoverThresholds::default();
        let answer = overrule_go_nogo(&scan, Err("down".to_owned()), &limits);
        assert_eq!(answer.verdict, GoNoGoVerdict::NoGo);
        assert_eq!(answer.summary, "ok");
    }
}
