//! The outbox's publishers' side. A publisher claims a due job (pending →
//! sending, owned by that publisher), sends it, and records the external id
//! (sent). A job left `sending` by its owner (found at its next pass) or
//! whose claim expired (its owner died) was interrupted mid-send: it may or
//! may not have gone out, so it becomes `unknown` and is never re-sent
//! unless a person asks (unknown → pending). Another live process's job in
//! flight is left alone. A job in several parts (a thread) records each
//! part as it goes: sent again, it resumes at the first part not recorded.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{count, from_ms, parse_text, to_ms};
use super::{BackendKind, Store, StoreError, with_pool};
use crate::domain::{Publication, PublicationId, PublicationStatus, ValidationId};

macro_rules! publication_columns {
    () => {
        "id, validation_id, operation_id, target, account, payload, status, attempts, \
         external_id, error, created_at"
    };
}

#[derive(sqlx::FromRow)]
struct PublicationRow {
    id: i64,
    validation_id: Option<i64>,
    operation_id: Option<i64>,
    target: String,
    account: Option<String>,
    payload: Json<Value>,
    status: String,
    attempts: i64,
    external_id: Option<String>,
    error: Option<String>,
    created_at: i64,
}

impl TryFrom<PublicationRow> for Publication {
    type Error = StoreError;

    fn try_from(row: PublicationRow) -> Result<Self, StoreError> {
        Ok(Publication {
            id: PublicationId::new(row.id),
            validation_id: row.validation_id.map(ValidationId::new),
            operation_id: row.operation_id.map(crate::domain::OperationId::new),
            target: parse_text("publication target", &row.target)?,
            account: row.account,
            payload: row.payload.0,
            status: parse_text("publication status", &row.status)?,
            attempts: count("publication attempts", row.attempts)?,
            external_id: row.external_id,
            error: row.error,
            created_at: from_ms(row.created_at)?,
        })
    }
}

const CLAIM_SQLITE: &str = concat!(
    "UPDATE publications SET status = $1, sending_since = $2, attempts = attempts + 1, \
     sending_owner = $4 \
     WHERE id = (SELECT id FROM publications WHERE status = $3 AND not_before <= $2 \
                 ORDER BY not_before, id LIMIT 1) RETURNING ",
    publication_columns!()
);

const CLAIM_POSTGRES: &str = concat!(
    "UPDATE publications SET status = $1, sending_since = $2, attempts = attempts + 1, \
     sending_owner = $4 \
     WHERE status = $3 AND id = (SELECT id FROM publications WHERE status = $3 \
                 AND not_before <= $2 ORDER BY not_before, id LIMIT 1 FOR UPDATE SKIP LOCKED) \
     RETURNING ",
    publication_columns!()
);

impl Store {
    /// The publication with this id.
    pub async fn publication(&self, id: PublicationId) -> Result<Publication, StoreError> {
        let row: Option<PublicationRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "SELECT ",
                publication_columns!(),
                " FROM publications WHERE id = $1"
            ))
            .bind(id.get())
            .fetch_optional(pool)
            .await
        })?;
        row.ok_or(StoreError::NotFound {
            kind: "publication",
            id: id.get(),
        })?
        .try_into()
    }

    /// Queues a publication with no validation behind it: only for an
    /// operation whose team turned validation off (the call is still logged).
    pub async fn publish_directly(
        &self,
        operation: crate::domain::OperationId,
        target: crate::domain::PublicationTarget,
        payload: &Value,
        now: DateTime<Utc>,
    ) -> Result<PublicationId, StoreError> {
        let id: i64 = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO publications (operation_id, target, payload, status, not_before, \
                 created_at) SELECT $1, $2, $3, $4, $5, $5 FROM operations \
                 WHERE id = $1 AND validation_required = $6 RETURNING id",
            )
            .bind(operation.get())
            .bind(target.as_str())
            .bind(Json(payload))
            .bind(PublicationStatus::Pending.as_str())
            .bind(to_ms(now))
            .bind(false)
            .fetch_optional(pool)
            .await
        })?
        .ok_or_else(|| {
            StoreError::Invalid(format!(
                "operation #{operation} requires validation: nothing is published directly"
            ))
        })?;
        Ok(PublicationId::new(id))
    }

    /// Claims the next due job for sending, for `owner`. `None` when none
    /// is due.
    pub async fn claim_publication(
        &self,
        owner: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Publication>, StoreError> {
        let sql = match self.backend_kind() {
            BackendKind::Sqlite => CLAIM_SQLITE,
            BackendKind::Postgres => CLAIM_POSTGRES,
        };
        let row: Option<PublicationRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(PublicationStatus::Sending.as_str())
                .bind(to_ms(now))
                .bind(PublicationStatus::Pending.as_str())
                .bind(owner)
                .fetch_optional(pool)
                .await
        })?;
        row.map(Publication::try_from).transpose()
    }

    /// Records a job sent, with the id the platform gave it.
    pub async fn mark_publication_sent(
        &self,
        id: PublicationId,
        external_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.finish_sending(
            id,
            PublicationStatus::Sent,
            Some(external_id),
            None,
            Some(now),
        )
        .await
    }

    /// Records a job the platform refused.
    pub async fn mark_publication_failed(
        &self,
        id: PublicationId,
        error: &str,
    ) -> Result<(), StoreError> {
        self.finish_sending(id, PublicationStatus::Failed, None, Some(error), None)
            .await
    }

    /// Records a job whose request left but whose answer never came (a
    /// timeout, a reset connection): it may have been delivered, so a
    /// person decides whether to send it again.
    pub async fn mark_publication_unknown(
        &self,
        id: PublicationId,
        error: &str,
    ) -> Result<(), StoreError> {
        self.finish_sending(id, PublicationStatus::Unknown, None, Some(error), None)
            .await
    }

    /// Every job left `sending` by `owner` (called between its sends, so
    /// none of its own is in flight), by no one, or claimed before
    /// `claimed_before` (its owner died) becomes `unknown`; returns them,
    /// for the team to decide. Another process's recent claim is left alone.
    pub async fn mark_interrupted_publications(
        &self,
        owner: &str,
        claimed_before: DateTime<Utc>,
    ) -> Result<Vec<Publication>, StoreError> {
        let rows: Vec<PublicationRow> = with_pool!(self, |pool| {
            sqlx::query_as(concat!(
                "UPDATE publications SET status = $1, sending_since = NULL, sending_owner = NULL, \
                 error = 'interrupted while sending: it may or may not have gone out' \
                 WHERE status = $2 AND (sending_owner = $3 OR sending_owner IS NULL \
                 OR sending_since < $4) RETURNING ",
                publication_columns!()
            ))
            .bind(PublicationStatus::Unknown.as_str())
            .bind(PublicationStatus::Sending.as_str())
            .bind(owner)
            .bind(to_ms(claimed_before))
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter().map(Publication::try_from).collect()
    }

    /// The parts of a job already sent: (part, external id), in order.
    pub async fn sent_parts(&self, id: PublicationId) -> Result<Vec<(u32, String)>, StoreError> {
        let rows: Vec<(i64, String)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT part, external_id FROM publication_parts WHERE publication_id = $1 \
                 ORDER BY part",
            )
            .bind(id.get())
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|(part, external)| Ok((count("publication part", part)?, external)))
            .collect()
    }

    /// Records one part of a job as sent (once: recording it again keeps
    /// the first).
    pub async fn record_sent_part(
        &self,
        id: PublicationId,
        part: u32,
        external_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO publication_parts (publication_id, part, external_id, sent_at) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (publication_id, part) DO NOTHING",
            )
            .bind(id.get())
            .bind(i64::from(part))
            .bind(external_id)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// A person asked to send an unknown or failed job again.
    pub async fn resend_publication(
        &self,
        id: PublicationId,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        // Only from where a person must decide: a job pending or being sent
        // (a delayed X post is `sending` → `pending`) is not sent twice.
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE publications SET status = $1, not_before = $2, error = NULL \
                 WHERE id = $3 AND status IN ($4, $5)",
            )
            .bind(PublicationStatus::Pending.as_str())
            .bind(to_ms(now))
            .bind(id.get())
            .bind(PublicationStatus::Unknown.as_str())
            .bind(PublicationStatus::Failed.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self
                .publication_refusal(id, PublicationStatus::Pending)
                .await);
        }
        Ok(())
    }

    async fn finish_sending(
        &self,
        id: PublicationId,
        to: PublicationStatus,
        external_id: Option<&str>,
        error: Option<&str>,
        sent_at: Option<DateTime<Utc>>,
    ) -> Result<(), StoreError> {
        let updated = with_pool!(self, |pool| {
            sqlx::query(
                "UPDATE publications SET status = $1, external_id = COALESCE($2, external_id), \
                 error = $3, sent_at = $4, sending_since = NULL, sending_owner = NULL \
                 WHERE id = $5 AND status = $6",
            )
            .bind(to.as_str())
            .bind(external_id)
            .bind(error)
            .bind(sent_at.map(to_ms))
            .bind(id.get())
            .bind(PublicationStatus::Sending.as_str())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        if updated == 0 {
            return Err(self.publication_refusal(id, to).await);
        }
        Ok(())
    }

    async fn publication_refusal(&self, id: PublicationId, to: PublicationStatus) -> StoreError {
        match self.publication(id).await {
            Ok(current) => StoreError::illegal("publication", id.get(), current.status, to),
            Err(e) => e,
        }
    }
}
