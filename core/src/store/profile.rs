//! The CEO's profile: one row per (kind, key), its confidence moved by
//! [`next_confidence`] as the Profiler confirms or the CEO corrects it.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;

use super::time::{from_ms, parse_text, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{
    ObjectiveId, Observation, ProfileEntry, ProfileEntryId, ProfileKind, next_confidence,
};

#[derive(sqlx::FromRow)]
struct EntryRow {
    id: i64,
    profile_type: String,
    key: String,
    value: Json<Value>,
    confidence: f64,
    learned_from: Option<i64>,
    updated_at: i64,
}

impl TryFrom<EntryRow> for ProfileEntry {
    type Error = StoreError;

    fn try_from(row: EntryRow) -> Result<Self, StoreError> {
        Ok(Self {
            id: ProfileEntryId::new(row.id),
            kind: parse_text("profile kind", &row.profile_type)?,
            key: row.key,
            value: row.value.0,
            confidence: row.confidence,
            learned_from: row.learned_from.map(ObjectiveId::new),
            updated_at: from_ms(row.updated_at)?,
        })
    }
}

const ENTRY_COLUMNS: &str =
    "id, profile_type, key, value, confidence, learned_from, updated_at FROM ceo_profile";

/// One observation of the CEO, as the Profiler reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileObservation {
    pub kind: ProfileKind,
    pub key: String,
    pub value: Value,
    pub observation: Observation,
    /// The Profiler's own confidence in it.
    pub confidence: f64,
    pub learned_from: Option<ObjectiveId>,
}

impl Store {
    /// Every entry, by kind then key.
    pub async fn profile_entries(&self) -> Result<Vec<ProfileEntry>, StoreError> {
        let sql = format!("SELECT {ENTRY_COLUMNS} ORDER BY profile_type, key");
        let rows: Vec<EntryRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(ProfileEntry::try_from).collect()
    }

    async fn profile_entry_by_key(
        &self,
        kind: ProfileKind,
        key: &str,
    ) -> Result<Option<ProfileEntry>, StoreError> {
        let sql = format!("SELECT {ENTRY_COLUMNS} WHERE profile_type = $1 AND key = $2");
        let row: Option<EntryRow> = with_pool!(self, |pool| {
            sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(kind.as_str())
                .bind(key)
                .fetch_optional(pool)
                .await
        })?;
        row.map(ProfileEntry::try_from).transpose()
    }

    /// Applies one observation: a new entry, a confirmation that raises it,
    /// a changed meaning that starts over, or a correction that lowers it.
    /// A correction of an entry that does not exist changes nothing
    /// (`None`). Keys are kept as written, compared lowercase.
    pub async fn observe_profile(
        &self,
        seen: &ProfileObservation,
        now: DateTime<Utc>,
    ) -> Result<Option<ProfileEntry>, StoreError> {
        let key = seen.key.trim().to_lowercase();
        let current = self.profile_entry_by_key(seen.kind, &key).await?;
        if current.is_none() && seen.observation == Observation::Corrected {
            return Ok(None);
        }
        let confidence = next_confidence(
            current.as_ref().map(|e| (&e.value, e.confidence)),
            &seen.value,
            seen.observation,
            seen.confidence,
        );
        // A correction lowers the meaning held, it does not replace it.
        let value = match (&current, seen.observation) {
            (Some(entry), Observation::Corrected) => entry.value.clone(),
            _ => seen.value.clone(),
        };
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO ceo_profile (profile_type, key, value, confidence, learned_from, \
                 created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) \
                 ON CONFLICT (profile_type, key) DO UPDATE SET value = $3, confidence = $4, \
                 learned_from = COALESCE($5, ceo_profile.learned_from), updated_at = $6",
            )
            .bind(seen.kind.as_str())
            .bind(key.as_str())
            .bind(Json(&value))
            .bind(confidence)
            .bind(seen.learned_from.map(ObjectiveId::get))
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        self.profile_entry_by_key(seen.kind, &key).await
    }

    /// Forgets an entry; whether it existed.
    pub async fn delete_profile_entry(&self, id: ProfileEntryId) -> Result<bool, StoreError> {
        let deleted = with_pool!(self, |pool| {
            sqlx::query("DELETE FROM ceo_profile WHERE id = $1")
                .bind(id.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(deleted > 0)
    }
}
