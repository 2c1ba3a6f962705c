//! The ntfy outbox. Every push (an alert, a decision's A/B/C buttons, a
//! decision's outcome) is queued here and sent by one loop, oldest first,
//! so the phone sees a decision before its outcome. A sender claims the
//! oldest open push once it is due (pending → sending); a refusal it may
//! outlive (server down, 429) puts it back with a later `not_before`
//! (sending → pending), one it cannot (400) fails it.
//!
//! Crash semantics: unlike publications, a push is delivered at least
//! once. One found `sending` past [`Store::claim_push`]'s `stale_before`
//! was interrupted mid-send and is claimed again: a duplicate notification
//! on the phone is better than a decision the CEO never sees.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::types::Json;

use super::time::{count, from_ms, parse_text, to_ms};
use super::{BackendKind, Store, StoreError, with_pool};
use crate::domain::{DecisionId, DecisionStatus, Urgency};

text_enum! {
    /// What a push is about.
    pub enum PushKind as "push kind" {
        /// An alert or a summary.
        Alert => "alert",
        /// A decision with its A/B/C buttons.
        Decision => "decision",
        /// How a decision ended (no buttons).
        Outcome => "outcome",
    }
}

text_enum! {
    /// Where a push stands.
    pub enum PushStatus as "push status" {
        /// Waiting to be sent (perhaps until `not_before`).
        Pending => "pending",
        /// A sender took it.
        Sending => "sending",
        /// ntfy accepted it.
        Sent => "sent",
        /// ntfy refused it for good; see the error.
        Failed => "failed",
        /// Not worth sending any more (its decision closed first).
        Cancelled => "cancelled",
    }
}

/// One button of a push: what it shows and the body it posts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushAction {
    pub label: String,
    pub body: String,
}

/// What a push shows. Secrets (tokens) are added when it is sent, never
/// stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PushPayload {
    pub title: String,
    pub message: String,
    pub urgency: Urgency,
    #[serde(default)]
    pub actions: Vec<PushAction>,
}

/// A push to queue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewPush {
    pub kind: PushKind,
    /// Set for decisions and outcomes, never for alerts.
    pub decision: Option<DecisionId>,
    pub payload: PushPayload,
}

/// A queued push.
#[derive(Debug, Clone, PartialEq)]
pub struct Push {
    pub id: i64,
    pub kind: PushKind,
    pub decision: Option<DecisionId>,
    pub payload: PushPayload,
    pub status: PushStatus,
    pub attempts: u32,
    pub not_before: DateTime<Utc>,
    pub error: Option<String>,
    pub created_at: DateTime<Utc>,
}

macro_rules! push_columns {
    () => {
        "id, kind, decision_id, payload, status, attempts, not_before, error, created_at"
    };
}

#[derive(sqlx::FromRow)]
struct PushRow {
    id: i64,
    kind: String,
    decision_id: Option<i64>,
    payload: Json<PushPayload>,
    status: String,
    attempts: i64,
    not_before: i64,
    error: Option<String>,
    created_at: i64,
}

impl TryFrom<PushRow> for Push {
    type Error = StoreError;

    fn try_from(row: PushRow) -> Result<Self, StoreError> {
        Ok(Push {
            id: row.id,
            kind: parse_text("push kind", &row.kind)?,
            decision: row.decision_id.map(DecisionId::new),
            payload: row.payload.0,
            status: parse_text("push status", &row.status)?,
            attempts: count("push attempts", row.attempts)?,
            not_before: from_ms(row.not_before)?,
            error: row.error,
            created_at: from_ms(row.created_at)?,
        })
    }
}

// The oldest open push (pending, or sending but stale), claimed only when
// it is due: a later push never overtakes one that waits for a retry.
const CLAIM_SQLITE: &str = concat!(
    "UPDATE ntfy_pushes SET status = $1, sending_since = $2, attempts = attempts + 1 \
     WHERE not_before <= $2 AND id = (SELECT id FROM ntfy_pushes \
         WHERE status = $3 OR (status = $1 AND sending_since <= $4) ORDER BY id LIMIT 1) \
     RETURNING ",
    push_columns!()
);

const CLAIM_POSTGRES: &str = concat!(
    "UPDATE ntfy_pushes SET status = $1, sending_since = $2, attempts = attempts + 1 \
     WHERE not_before <= $2 AND (status = $3 OR (status = $1 AND sending_since <= $4)) \
     AND id = (SELECT id FROM ntfy_pushes \
         WHERE status = $3 OR (status = $1 AND sending_since <= $4) ORDER BY id LIMIT 1 \
         FOR UPDATE SKIP LOCKED) \
     RETURNING ",
    push_columns!()
);

impl Store {
    /// Queues a push, due at once. `None` when its decision already has a
    /// push of this kind (a decision is pushed once, its outcome once).
    pub async fn queue_push(
        &self,
        push: &NewPush,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, StoreError> {
        with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO ntfy_pushes (kind, decision_id, payload, status, not_before, \
                 created_at) VALUES ($1, $2, $3, $4, $5, $5) \
                 ON CONFLICT (decision_id, kind) DO NOTHING RETURNING id",
            )
            .bind(push.kind.as_str())
            .bind(push.decision.map(DecisionId::get))
            .bind(Json(&push.payload))
            .bind(PushStatus::Pending.as_str())
            .bind(to_ms(now))
            .fetch_optional(pool)
            .await
        })
        .map_err(StoreError::from)
    }

    /// The push with this id.
    pub async fn push(&self, id: i64) -> Result<Push, StoreError> {
        let row: Option<PushRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                push_columns!(),
                " FROM ntfy_pushes WHERE id = $1"
            ))
            .bind(id)
            .fetch_optional(pool)
            .await
        })?;
        row.ok_or(StoreError::NotFound { kind: "push", id })?
            .try_into()
    }

    /// Every push, oldest first.
    pub async fn pushes(&self) -> Result<Vec<Push>, StoreError> {
        let rows: Vec<PushRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                push_columns!(),
                " FROM ntfy_pushes ORDER BY id"
            ))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Push::try_from).collect()
    }

    /// Claims the oldest open push if it is due at `now`. A push left
    /// `sending` since before `stale_before` (its sender died) is claimed
    /// again.
    pub async fn claim_push(
        &self,
        now: DateTime<Utc>,
        stale_before: DateTime<Utc>,
    ) -> Result<Option<Push>, StoreError> {
        let sql = match self.backend_kind() {
            BackendKind::Sqlite => CLAIM_SQLITE,
            BackendKind::Postgres => CLAIM_POSTGRES,
        };
        let row: Option<PushRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(PushStatus::Sending.as_str())
                .bind(to_ms(now))
                .bind(PushStatus::Pending.as_str())
                .bind(to_ms(stale_before))
                .fetch_optional(pool)
                .await
        })?;
        row.map(Push::try_from).transpose()
    }

    /// ntfy accepted the push.
    pub async fn mark_push_sent(&self, id: i64, now: DateTime<Utc>) -> Result<(), StoreError> {
        self.settle_push(id, PushStatus::Sent, None, Some(now), None)
            .await
    }

    /// ntfy refused the push for now: it is tried again from `not_before`.
    pub async fn retry_push(
        &self,
        id: i64,
        error: &str,
        not_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.settle_push(id, PushStatus::Pending, Some(error), None, Some(not_before))
            .await
    }

    /// ntfy refused the push for good.
    pub async fn mark_push_failed(&self, id: i64, error: &str) -> Result<(), StoreError> {
        self.settle_push(id, PushStatus::Failed, Some(error), None, None)
            .await
    }

    /// The push is not worth sending any more.
    pub async fn cancel_push(&self, id: i64, why: &str) -> Result<(), StoreError> {
        self.settle_push(id, PushStatus::Cancelled, Some(why), None, None)
            .await
    }

    /// Decisions that ended (answered, timed out, cancelled) after their
    /// buttons were queued, whose outcome is not queued yet, oldest first.
    pub async fn decisions_awaiting_outcome_push(&self) -> Result<Vec<DecisionId>, StoreError> {
        let ids: Vec<i64> = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "SELECT d.id FROM decisions d WHERE d.status <> $1 \
                 AND EXISTS (SELECT 1 FROM ntfy_pushes p WHERE p.decision_id = d.id \
                     AND p.kind = $2 AND p.status IN ($4, $5, $6)) \
                 AND NOT EXISTS (SELECT 1 FROM ntfy_pushes p WHERE p.decision_id = d.id \
                     AND p.kind = $3) ORDER BY d.id",
            )
            .bind(DecisionStatus::Pending.as_str())
            .bind(PushKind::Decision.as_str())
            .bind(PushKind::Outcome.as_str())
            .bind(PushStatus::Pending.as_str())
            .bind(PushStatus::Sending.as_str())
            .bind(PushStatus::Sent.as_str())
            .fetch_all(pool)
            .await
        })?;
        Ok(ids.into_iter().map(DecisionId::new).collect())
    }

    /// Moves a claimed push out of `sending`; any other state is refused.
    async fn settle_push(
        &self,
        id: i64,
        to: PushStatus,
        error: Option<&str>,
        sent_at: Option<DateTime<Utc>>,
        not_before: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE ntfy_pushes SET status = $1, error = $2, sent_at = $3, \
                 not_before = COALESCE($4, not_before), sending_since = NULL \
                 WHERE id = $5 AND status = $6",
            )
            .bind(to.as_str())
            .bind(error)
            .bind(sent_at.map(to_ms))
            .bind(not_before.map(to_ms))
            .bind(id)
            .bind(PushStatus::Sending.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            let current = self.push(id).await?;
            return Err(StoreError::illegal("push", id, current.status, to));
        }
        Ok(())
    }
}
