//! The community vote's count, a non-AI step: the operation's polls (the
//! Telegram poll's totals from its `poll` updates, the X poll's from its
//! results) are summed; the most votes win; a tie goes to the X votes; a
//! tie the X votes cannot break waits for the team, who choose among the
//! tied options with buttons. The outcome is stored, written to the
//! operation file's `vote` section (the kit step reads it) and shown in
//! `/op`.

use serde_json::json;
use ulias_core::domain::{
    OperationId, PollCount, Task, TaskOutcome, TaskStatus, VoteResult, tally,
};
use ulias_core::playbook::SYSTEM_AGENT;
use ulias_core::store::{NewVoteOutcome, StoreError, VoteOutcome};

use super::{Engine, Settled};

/// The operation-file section the outcome is written to.
pub const VOTE_SECTION: &str = "vote";

/// Why a tie's choice was refused.
#[derive(Debug, thiserror::Error)]
pub enum TieError {
    /// Decided already (another press, another member).
    #[error("vote #{0} is decided already")]
    Decided(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Engine {
    /// Counts the operation's vote (the step `vote.count`).
    pub(super) async fn count_vote(&self, task: &Task) -> Result<Settled, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let Some(operation) = task.operation_id else {
            return self
                .refuse_action(task, "a vote belongs to an operation")
                .await;
        };
        let polls = store.polls_of_operation(operation).await?;
        let Some(first) = polls.first() else {
            return self
                .refuse_action(task, "no poll of this operation was sent: nothing to count")
                .await;
        };
        let counts: Vec<PollCount> = polls
            .iter()
            .filter(|p| p.options == first.options)
            .map(|p| PollCount {
                platform: p.platform,
                counts: p.counts.clone(),
            })
            .collect();
        let counted = tally(first.options.len(), &counts);
        let (decided, tied) = match &counted.result {
            VoteResult::Won { winner, by } => (Some((*winner, *by)), Vec::new()),
            VoteResult::Tied { options } => (None, options.clone()),
        };
        let outcome = store
            .record_vote_outcome(
                &NewVoteOutcome {
                    operation_id: operation,
                    task_id: Some(task.id),
                    question: first.question.clone(),
                    options: first.options.clone(),
                    totals: counted.totals,
                    x_totals: counted.x_totals,
                    decided,
                    tied,
                },
                now,
            )
            .await?;
        let result =
            json!({"vote": outcome.id, "winner": outcome.winner_label(), "tied": outcome.tied});
        let task_outcome = TaskOutcome {
            result,
            ..TaskOutcome::default()
        };
        if outcome.winner.is_none() {
            // The team's buttons settle it (`settle_tie`); the bot asks them.
            store
                .block_task(task.id, &self.config.worker, &task_outcome, now)
                .await?;
            return Ok(Settled::AwaitingValidation);
        }
        self.write_vote(operation, &outcome, Some(task)).await?;
        store
            .complete_task(task.id, &self.config.worker, &task_outcome, now)
            .await?;
        self.after_finish(task).await?;
        Ok(Settled::Completed)
    }

    /// The team's choice on a tied vote: stored once, written to the
    /// operation file, and the waiting count step completes.
    pub async fn settle_tie(
        &self,
        vote: i64,
        option: usize,
        by: &str,
    ) -> Result<VoteOutcome, TieError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let current = store.vote_outcome(vote).await?;
        if current.winner.is_some() {
            return Err(TieError::Decided(vote));
        }
        let outcome =
            store
                .decide_tie(vote, option, by, now)
                .await
                .map_err(|e| match store_decided(&e) {
                    true => TieError::Decided(vote),
                    false => TieError::Store(e),
                })?;
        let task = match outcome.task_id {
            Some(id) => Some(store.task(id).await?),
            None => None,
        };
        self.write_vote(outcome.operation_id, &outcome, task.as_ref())
            .await?;
        if let Some(task) = task.filter(|t| t.status == TaskStatus::Blocked) {
            let task = store
                .unblock_task(task.id, TaskStatus::Completed, None, now)
                .await?;
            self.after_finish(&task).await?;
        }
        Ok(outcome)
    }

    async fn write_vote(
        &self,
        operation: OperationId,
        outcome: &VoteOutcome,
        task: Option<&Task>,
    ) -> Result<(), StoreError> {
        let section = json!({
            "question": outcome.question,
            "winner": outcome.winner_label(),
            "winner_index": outcome.winner,
            "decided_by": outcome.decided_by,
            "options": outcome.options,
            "totals": outcome.totals,
            "x_totals": outcome.x_totals,
        });
        self.runner
            .store
            .write_section(
                Some(operation),
                VOTE_SECTION,
                &section,
                SYSTEM_AGENT,
                task.map(|t| t.id),
                self.runner.clock.now(),
            )
            .await?;
        Ok(())
    }
}

fn store_decided(error: &StoreError) -> bool {
    matches!(error, StoreError::Invalid(text) if text.contains("decided already"))
}
