//! A pre-report asked with `/takeover` ends with the CEO's choice: Start
//! or Drop, recommended by the verdict (the deterministic checks already
//! forced it to no-go when one failed). Without an answer in time, the
//! candidate is dropped: nothing starts on its own.

use serde_json::Value;
use ulias_core::domain::{DecisionKind, DecisionOption, NewDecision, Task, Urgency};
use ulias_core::store::StoreError;

use super::Engine;
use crate::operations::Candidate;
use crate::schemas::{GoNoGo, GoNoGoVerdict};

impl Engine {
    /// Puts Start / Drop to the CEO once for a finished pre-report.
    pub(super) async fn offer_start(
        &self,
        task: &Task,
        candidate: Candidate,
        output: &Value,
    ) -> Result<(), StoreError> {
        let store = &self.runner.store;
        if !store
            .decisions_of_task(task.id, "operation_start")
            .await?
            .is_empty()
        {
            return Ok(());
        }
        let report = serde_json::from_value::<GoNoGo>(output.clone()).ok();
        let go = report
            .as_ref()
            .is_some_and(|r| r.verdict == GoNoGoVerdict::Go);
        let reasons = report.map(|r| r.reasons.join("; ")).unwrap_or_default();
        let now = self.runner.clock.now();
        let decision = NewDecision {
            task_id: Some(task.id),
            objective_id: task.objective_id,
            context_summary: reasons.chars().take(500).collect(),
            recommended: Some(if go {
                DecisionOption::Start
            } else {
                DecisionOption::Drop
            }),
            urgency: Urgency::Normal,
            timeout_at: Some(now + self.config.decision_timeout),
            auto_decision: Some(DecisionOption::Drop),
            ..NewDecision::new(DecisionKind::OperationStart {
                chain: candidate.chain,
                address: candidate.address,
                name: candidate.name,
                ticker: candidate.ticker,
            })
        };
        store.create_decision(&decision, now).await?;
        Ok(())
    }
}
