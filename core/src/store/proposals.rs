//! The organisation's proposals to the CEO. Statuses move only as
//! [`ProposalStatus::can_become`] allows, enforced in the `UPDATE` itself:
//! a second press of Accept is refused, so one proposal makes at most one
//! objective.

use chrono::{DateTime, Utc};

use super::time::{count, from_ms, parse_text, predecessor_list, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    Acceptance, AgentName, NewProposal, ObjectiveId, Priority, Proposal, ProposalId,
    ProposalStatus, TaskId,
};

#[derive(sqlx::FromRow)]
struct ProposalRow {
    id: i64,
    proposer: String,
    task_id: Option<i64>,
    title: String,
    description: String,
    team: Option<String>,
    priority: i64,
    rationale: String,
    status: String,
    objective_id: Option<i64>,
    created_at: i64,
}

impl TryFrom<ProposalRow> for Proposal {
    type Error = StoreError;

    fn try_from(row: ProposalRow) -> Result<Self, StoreError> {
        Ok(Self {
            id: ProposalId::new(row.id),
            proposer: parse_text::<AgentName>("proposer", &row.proposer)?,
            task_id: row.task_id.map(TaskId::new),
            title: row.title,
            description: row.description,
            team: row
                .team
                .as_deref()
                .map(|team| parse_text("proposal team", team))
                .transpose()?,
            priority: Priority::new(row.priority)
                .ok_or_else(|| StoreError::corrupt("proposal priority", row.priority))?,
            rationale: row.rationale,
            status: parse_text("proposal status", &row.status)?,
            objective_id: row.objective_id.map(ObjectiveId::new),
            created_at: from_ms(row.created_at)?,
        })
    }
}

const PROPOSAL_COLUMNS: &str = "id, proposer, task_id, title, description, team, priority, \
     rationale, status, objective_id, created_at FROM proposals";

impl Store {
    /// Records a proposal: `pending`, or `automatic` with the objective it
    /// already became.
    pub async fn create_proposal(
        &self,
        new: &NewProposal,
        automatic: Option<ObjectiveId>,
        now: DateTime<Utc>,
    ) -> Result<Proposal, StoreError> {
        let status = match automatic {
            Some(_) => ProposalStatus::Automatic,
            None => ProposalStatus::Pending,
        };
        let decided = automatic.map(|_| to_ms(now));
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO proposals (proposer, task_id, title, description, team, priority, \
                 rationale, status, objective_id, decided_at, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
            )
            .bind(new.proposer.as_str())
            .bind(new.task_id.map(TaskId::get))
            .bind(new.title.as_str())
            .bind(new.description.as_str())
            .bind(new.team.map(|team| team.as_str()))
            .bind(new.priority.get())
            .bind(new.rationale.as_str())
            .bind(status.as_str())
            .bind(automatic.map(ObjectiveId::get))
            .bind(decided)
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        self.proposal(ProposalId::new(id)).await
    }

    /// The proposal with this id.
    pub async fn proposal(&self, id: ProposalId) -> Result<Proposal, StoreError> {
        let sql = format!("SELECT {PROPOSAL_COLUMNS} WHERE id = $1");
        let row: Option<ProposalRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id.get())
                .fetch_optional(pool)
                .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "proposal",
            id: id.get(),
        })?
        .try_into()
    }

    /// Proposals to show the CEO now: new ones, and postponed ones whose
    /// reminder is due.
    pub async fn proposals_to_show(&self, now: DateTime<Utc>) -> Result<Vec<Proposal>, StoreError> {
        let sql = format!(
            "SELECT {PROPOSAL_COLUMNS} WHERE (status = $1 AND message_id IS NULL) \
             OR (status = $2 AND remind_at IS NOT NULL AND remind_at <= $3) ORDER BY id"
        );
        let rows: Vec<ProposalRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(ProposalStatus::Pending.as_str())
                .bind(ProposalStatus::Later.as_str())
                .bind(to_ms(now))
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(Proposal::try_from).collect()
    }

    /// Records where a proposal was shown (a reminder is then cleared).
    pub async fn set_proposal_message(
        &self,
        id: ProposalId,
        chat_id: i64,
        message_id: i64,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE proposals SET chat_id = $1, message_id = $2, remind_at = NULL WHERE id = $3",
            )
            .bind(chat_id)
            .bind(message_id)
            .bind(id.get())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The CEO's answer: `accepted`, `declined`, or `later` (shown again at
    /// `remind_at`). Refused when the proposal was already settled.
    pub async fn decide_proposal(
        &self,
        id: ProposalId,
        to: ProposalStatus,
        remind_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<Proposal, StoreError> {
        let sql = format!(
            "UPDATE proposals SET status = $1, remind_at = $2, decided_at = $3 \
             WHERE id = $4 AND status IN ({})",
            predecessor_list(to)
        );
        let updated = with_pool!(self, |pool| {
            sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(to.as_str())
                .bind(remind_at.map(to_ms))
                .bind(to_ms(now))
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            let current = self.proposal(id).await?;
            return Err(StoreError::illegal(
                "proposal",
                id.get(),
                current.status,
                to,
            ));
        }
        self.proposal(id).await
    }

    /// Links an accepted proposal to the objective it became.
    pub async fn link_proposal(
        &self,
        id: ProposalId,
        objective: ObjectiveId,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE proposals SET objective_id = $1 WHERE id = $2")
                .bind(objective.get())
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// How often the CEO accepted each proposer's proposals, by proposer.
    pub async fn acceptances(&self) -> Result<Vec<Acceptance>, StoreError> {
        let rows: Vec<(String, i64, i64)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT proposer, \
                 SUM(CASE WHEN status = $1 THEN 1 ELSE 0 END), \
                 SUM(CASE WHEN status = $2 THEN 1 ELSE 0 END) \
                 FROM proposals GROUP BY proposer ORDER BY proposer",
            )
            .bind(ProposalStatus::Accepted.as_str())
            .bind(ProposalStatus::Declined.as_str())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|(proposer, accepted, declined)| {
                Ok(Acceptance {
                    proposer,
                    accepted: count("accepted proposals", accepted)?,
                    declined: count("declined proposals", declined)?,
                })
            })
            .collect()
    }

    /// When this proposer's first proposal was made, if ever.
    pub async fn first_proposal_at(
        &self,
        proposer: &str,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let first: Option<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar("SELECT MIN(created_at) FROM proposals WHERE proposer = $1")
                .bind(proposer)
                .fetch_one(pool)
                .await
        })?;
        first.map(from_ms).transpose()
    }
}
