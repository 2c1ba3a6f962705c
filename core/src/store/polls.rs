//! Community votes: the polls sent (with the votes last seen on each
//! platform) and each vote's outcome.
//!
//! Crash semantics: a poll is recorded right after its platform accepted
//! it (`ON CONFLICT DO NOTHING`: a publication sent again records nothing
//! twice); counts are overwritten with the platform's latest totals, so a
//! lost update is repaired by the next one. An outcome is written once per
//! tally; a tie's choice is a compare-and-set on `winner IS NULL`, so two
//! presses of the team's buttons settle it once.

use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::time::{from_ms, from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{DecidedBy, OperationId, PollPlatform, PublicationId, TaskId};

/// A poll to record, as its platform accepted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPoll {
    pub operation_id: Option<OperationId>,
    pub publication_id: PublicationId,
    pub platform: PollPlatform,
    /// Telegram's poll id, or the X post's id.
    pub external_id: String,
    pub question: String,
    pub options: Vec<String>,
}

/// A poll, with the votes last seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Poll {
    pub id: i64,
    pub operation_id: Option<OperationId>,
    pub platform: PollPlatform,
    pub external_id: String,
    pub question: String,
    pub options: Vec<String>,
    pub counts: Vec<u64>,
    pub created_at: DateTime<Utc>,
}

/// A vote's outcome to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewVoteOutcome {
    pub operation_id: OperationId,
    /// The step that counted it (waits for the team on a tie).
    pub task_id: Option<TaskId>,
    pub question: String,
    pub options: Vec<String>,
    pub totals: Vec<u64>,
    pub x_totals: Vec<u64>,
    /// The winner and what decided it; `None` on a tie.
    pub decided: Option<(usize, DecidedBy)>,
    /// The tied options the team chooses from (empty when decided).
    pub tied: Vec<usize>,
}

/// A vote's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VoteOutcome {
    pub id: i64,
    pub operation_id: OperationId,
    pub task_id: Option<TaskId>,
    pub question: String,
    pub options: Vec<String>,
    pub totals: Vec<u64>,
    pub x_totals: Vec<u64>,
    pub tied: Option<Vec<usize>>,
    pub winner: Option<usize>,
    pub decided_by: Option<DecidedBy>,
    /// Who chose, when the team did.
    pub decided_by_user: Option<String>,
    pub decided_at: Option<DateTime<Utc>>,
}

impl VoteOutcome {
    /// The winning option's label.
    pub fn winner_label(&self) -> Option<&str> {
        self.winner
            .and_then(|w| self.options.get(w))
            .map(String::as_str)
    }
}

type PollRow = (
    i64,
    Option<i64>,
    String,
    String,
    String,
    Json<Vec<String>>,
    Json<Vec<u64>>,
    i64,
);

macro_rules! poll_columns {
    () => {
        "id, operation_id, platform, external_id, question, options, counts, created_at"
    };
}

fn poll(row: PollRow) -> Result<Poll, StoreError> {
    let (id, operation, platform, external_id, question, options, counts, created_at) = row;
    Ok(Poll {
        id,
        operation_id: operation.map(OperationId::new),
        platform: platform
            .parse()
            .map_err(|e: crate::domain::UnknownVariant| StoreError::Invalid(e.to_string()))?,
        external_id,
        question,
        options: options.0,
        counts: counts.0,
        created_at: from_ms(created_at)?,
    })
}

type OutcomeRow = (
    i64,
    i64,
    Option<i64>,
    String,
    Json<Vec<String>>,
    Json<Vec<u64>>,
    Json<Vec<u64>>,
    Option<Json<Vec<usize>>>,
    Option<i64>,
    Option<String>,
    Option<String>,
    Option<i64>,
);

macro_rules! outcome_columns {
    () => {
        "id, operation_id, task_id, question, options, totals, x_totals, tied, winner, \
         decided_by, decided_by_user, decided_at"
    };
}

fn outcome(row: OutcomeRow) -> Result<VoteOutcome, StoreError> {
    let (id, operation, task, question, options, totals, x_totals, tied, winner, by, user, at) =
        row;
    Ok(VoteOutcome {
        id,
        operation_id: OperationId::new(operation),
        task_id: task.map(TaskId::new),
        question,
        options: options.0,
        totals: totals.0,
        x_totals: x_totals.0,
        tied: tied.map(|t| t.0),
        winner: winner.and_then(|w| usize::try_from(w).ok()),
        decided_by: by
            .map(|b| b.parse())
            .transpose()
            .map_err(|e: crate::domain::UnknownVariant| StoreError::Invalid(e.to_string()))?,
        decided_by_user: user,
        decided_at: from_opt_ms(at)?,
    })
}

fn index(i: usize) -> i64 {
    i64::try_from(i).unwrap_or(i64::MAX)
}

impl Store {
    /// Records a poll its platform accepted (once: sent again, nothing changes).
    pub async fn record_poll(&self, new: &NewPoll, now: DateTime<Utc>) -> Result<(), StoreError> {
        let zeros = vec![0_u64; new.options.len()];
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO polls (operation_id, publication_id, platform, external_id, question, \
                 options, counts, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) \
                 ON CONFLICT (platform, external_id) DO NOTHING",
            )
            .bind(new.operation_id.map(OperationId::get))
            .bind(new.publication_id.get())
            .bind(new.platform.as_str())
            .bind(new.external_id.as_str())
            .bind(new.question.as_str())
            .bind(Json(&new.options))
            .bind(Json(&zeros))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Stores a poll's totals as seen at `seq` (Telegram's update id, or
    /// when X was read): only a state at least as new as the stored one is
    /// kept, so updates handled out of order never bring old counts back,
    /// and X read twice within one millisecond (or by a clock that stands
    /// still) keeps its latest totals. False when no poll of ours has that
    /// id, or the state was older.
    pub async fn set_poll_counts(
        &self,
        platform: PollPlatform,
        external_id: &str,
        counts: &[u64],
        seq: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE polls SET counts = $1, counts_seq = $2, updated_at = $3 \
                 WHERE platform = $4 AND external_id = $5 AND counts_seq <= $2",
            )
            .bind(Json(counts))
            .bind(seq)
            .bind(to_ms(now))
            .bind(platform.as_str())
            .bind(external_id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(updated == 1)
    }

    /// The polls of an operation, oldest first.
    pub async fn polls_of_operation(
        &self,
        operation: OperationId,
    ) -> Result<Vec<Poll>, StoreError> {
        let rows: Vec<PollRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                poll_columns!(),
                " FROM polls WHERE operation_id = $1 ORDER BY id"
            ))
            .bind(operation.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(poll).collect()
    }

    /// The polls on `platform` created since `since` (still worth reading).
    pub async fn recent_polls(
        &self,
        platform: PollPlatform,
        since: DateTime<Utc>,
    ) -> Result<Vec<Poll>, StoreError> {
        let rows: Vec<PollRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                poll_columns!(),
                " FROM polls WHERE platform = $1 AND created_at >= $2 ORDER BY id"
            ))
            .bind(platform.as_str())
            .bind(to_ms(since))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(poll).collect()
    }

    /// Records a vote's outcome; returns it.
    pub async fn record_vote_outcome(
        &self,
        new: &NewVoteOutcome,
        now: DateTime<Utc>,
    ) -> Result<VoteOutcome, StoreError> {
        let tied = (new.decided.is_none()).then_some(Json(&new.tied));
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO vote_outcomes (operation_id, task_id, question, options, totals, \
                 x_totals, tied, winner, decided_by, created_at, decided_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
            )
            .bind(new.operation_id.get())
            .bind(new.task_id.map(TaskId::get))
            .bind(new.question.as_str())
            .bind(Json(&new.options))
            .bind(Json(&new.totals))
            .bind(Json(&new.x_totals))
            .bind(tied)
            .bind(new.decided.map(|(w, _)| index(w)))
            .bind(new.decided.map(|(_, by)| by.as_str()))
            .bind(to_ms(now))
            .bind(new.decided.map(|_| to_ms(now)))
            .fetch_one(pool)
            .await
        })?;
        self.vote_outcome(id).await
    }

    /// One outcome.
    pub async fn vote_outcome(&self, id: i64) -> Result<VoteOutcome, StoreError> {
        let row: Option<OutcomeRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                outcome_columns!(),
                " FROM vote_outcomes WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(pool)
            .await
        })?;
        row.map(outcome).transpose()?.ok_or(StoreError::NotFound {
            kind: "vote outcome",
            id,
        })
    }

    /// An operation's latest vote outcome.
    pub async fn latest_vote_outcome(
        &self,
        operation: OperationId,
    ) -> Result<Option<VoteOutcome>, StoreError> {
        let row: Option<OutcomeRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                outcome_columns!(),
                " FROM vote_outcomes WHERE operation_id = $1 ORDER BY id DESC LIMIT 1"
            ))
            .bind(operation.get())
            .fetch_optional(pool)
            .await
        })?;
        row.map(outcome).transpose()
    }

    /// Ties the team has not been asked about yet.
    pub async fn unannounced_ties(&self) -> Result<Vec<VoteOutcome>, StoreError> {
        let rows: Vec<OutcomeRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                outcome_columns!(),
                " FROM vote_outcomes WHERE winner IS NULL AND announced_at IS NULL ORDER BY id"
            ))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(outcome).collect()
    }

    /// Notes that the team was asked about a tie.
    pub async fn mark_tie_announced(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE vote_outcomes SET announced_at = $1 WHERE id = $2")
                .bind(to_ms(now))
                .bind(id)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The team's choice on a tie: once, and only among the tied options.
    pub async fn decide_tie(
        &self,
        id: i64,
        winner: usize,
        by_user: &str,
        now: DateTime<Utc>,
    ) -> Result<VoteOutcome, StoreError> {
        let current = self.vote_outcome(id).await?;
        if current.winner.is_some() {
            return Err(StoreError::Invalid(format!(
                "vote #{id} is decided already"
            )));
        }
        if !current.tied.as_ref().is_some_and(|t| t.contains(&winner)) {
            return Err(StoreError::Invalid(format!(
                "option {winner} is not among vote #{id}'s tied options"
            )));
        }
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE vote_outcomes SET winner = $1, decided_by = $2, decided_by_user = $3, \
                 decided_at = $4 WHERE id = $5 AND winner IS NULL",
            )
            .bind(index(winner))
            .bind(DecidedBy::Team.as_str())
            .bind(by_user)
            .bind(to_ms(now))
            .bind(id)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(StoreError::Invalid(format!(
                "vote #{id} is decided already"
            )));
        }
        self.vote_outcome(id).await
    }
}
