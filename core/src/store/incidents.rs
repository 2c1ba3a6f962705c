//! Health checks and incidents. A check of a listed service is recorded by
//! the tool that made it; the engine turns a service seen down into one
//! incident and a service seen up into its end. One open incident per
//! service is enforced in SQL (a partial unique index): a second "down"
//! while one is open opens nothing, whatever process sees it.
//!
//! Crash semantics: opening is one `INSERT … ON CONFLICT DO NOTHING`, so a
//! crash after it leaves the incident open and the next "down" finds it;
//! the incident agent's task is tied to it when its event is dispatched,
//! and the engine emits the event again for an incident found open with
//! no task ten minutes after it opened.

use chrono::{DateTime, Utc};

use super::time::{from_ms, from_opt_ms, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{DecisionId, TaskId};

/// One health check of a listed service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServiceCheck {
    pub service: String,
    /// The task whose tool made it.
    pub task_id: Option<TaskId>,
    pub ok: bool,
    /// Why it is not ok (empty when it is).
    pub detail: String,
}

/// A service found down, until a check finds it up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Incident {
    pub id: i64,
    pub service: String,
    /// The failing check's words.
    pub detail: String,
    pub opened_at: DateTime<Utc>,
    /// When a check found the service back; `None` while open.
    pub resolved_at: Option<DateTime<Utc>>,
    /// The incident agent's task.
    pub task_id: Option<TaskId>,
    /// The CEO's decision, when the diagnosis asked for one.
    pub decision_id: Option<DecisionId>,
}

type IncidentRow = (
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The columns an [`IncidentRow`] reads, for `concat!`.
macro_rules! columns {
    () => {
        "id, service, detail, opened_at, resolved_at, task_id, decision_id"
    };
}

fn incident(row: IncidentRow) -> Result<Incident, StoreError> {
    let (id, service, detail, opened_at, resolved_at, task_id, decision_id) = row;
    Ok(Incident {
        id,
        service,
        detail,
        opened_at: from_ms(opened_at)?,
        resolved_at: from_opt_ms(resolved_at)?,
        task_id: task_id.map(TaskId::new),
        decision_id: decision_id.map(DecisionId::new),
    })
}

impl Store {
    /// Records a check made at `now`.
    pub async fn record_service_check(
        &self,
        check: &ServiceCheck,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query(
                "INSERT INTO service_checks (service, task_id, ok, detail, checked_at) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&check.service)
            .bind(check.task_id.map(TaskId::get))
            .bind(i64::from(check.ok))
            .bind(&check.detail)
            .bind(to_ms(now))
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The last check of each service that `task` made, by service name.
    pub async fn checks_of_task(&self, task: TaskId) -> Result<Vec<ServiceCheck>, StoreError> {
        let rows: Vec<(String, i64, String)> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT c.service, c.ok, c.detail FROM service_checks c \
                 WHERE c.task_id = $1 AND c.id = (SELECT MAX(l.id) FROM service_checks l \
                 WHERE l.task_id = $1 AND l.service = c.service) ORDER BY c.service",
            )
            .bind(task.get())
            .fetch_all(pool)
            .await
        })?;
        Ok(rows
            .into_iter()
            .map(|(service, ok, detail)| ServiceCheck {
                service,
                task_id: Some(task),
                ok: ok != 0,
                detail,
            })
            .collect())
    }

    /// Opens an incident for `service`, unless one is open: `None` then.
    pub async fn open_incident(
        &self,
        service: &str,
        detail: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<Incident>, StoreError> {
        let sql = concat!(
            "INSERT INTO incidents (service, status, detail, opened_at) \
             VALUES ($1, 'open', $2, $3) \
             ON CONFLICT (service) WHERE status = 'open' DO NOTHING RETURNING ",
            columns!()
        );
        let row: Option<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(service)
                .bind(detail)
                .bind(to_ms(now))
                .fetch_optional(pool)
                .await
        })?;
        row.map(incident).transpose()
    }

    /// The open incident of `service`, when there is one.
    pub async fn open_incident_of(&self, service: &str) -> Result<Option<Incident>, StoreError> {
        let sql = concat!(
            "SELECT ",
            columns!(),
            " FROM incidents WHERE service = $1 AND status = 'open'"
        );
        let row: Option<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql).bind(service).fetch_optional(pool).await
        })?;
        row.map(incident).transpose()
    }

    /// The incident `id`.
    pub async fn incident(&self, id: i64) -> Result<Incident, StoreError> {
        let sql = concat!("SELECT ", columns!(), " FROM incidents WHERE id = $1");
        let row: Option<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql).bind(id).fetch_optional(pool).await
        })?;
        incident(row.ok_or(StoreError::NotFound {
            kind: "incident",
            id,
        })?)
    }

    /// The incident whose agent task is `task`, when any.
    pub async fn incident_of_task(&self, task: TaskId) -> Result<Option<Incident>, StoreError> {
        let sql = concat!("SELECT ", columns!(), " FROM incidents WHERE task_id = $1");
        let row: Option<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(task.get())
                .fetch_optional(pool)
                .await
        })?;
        row.map(incident).transpose()
    }

    /// Ends an open incident; `None` when it was not open (ended already).
    pub async fn resolve_incident(
        &self,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<Option<Incident>, StoreError> {
        let sql = concat!(
            "UPDATE incidents SET status = 'resolved', resolved_at = $2 \
             WHERE id = $1 AND status = 'open' RETURNING ",
            columns!()
        );
        let row: Option<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(id)
                .bind(to_ms(now))
                .fetch_optional(pool)
                .await
        })?;
        row.map(incident).transpose()
    }

    /// Ties the incident agent's task to the incident.
    pub async fn set_incident_task(&self, id: i64, task: TaskId) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE incidents SET task_id = $2 WHERE id = $1")
                .bind(id)
                .bind(task.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Ties the CEO's decision to the incident.
    pub async fn set_incident_decision(
        &self,
        id: i64,
        decision: DecisionId,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE incidents SET decision_id = $2 WHERE id = $1")
                .bind(id)
                .bind(decision.get())
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// The newest incidents first, open ones included.
    pub async fn incidents(&self, limit: u32) -> Result<Vec<Incident>, StoreError> {
        let sql = concat!(
            "SELECT ",
            columns!(),
            " FROM incidents ORDER BY id DESC LIMIT $1"
        );
        let rows: Vec<IncidentRow> = with_pool!(self, |pool| {
            sqlx::query_as(sql)
                .bind(i64::from(limit))
                .fetch_all(pool)
                .await
        })?;
        rows.into_iter().map(incident).collect()
    }
}

/// An event of the organisation, waiting to be dispatched to the agents
/// that declare `event:<name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub id: i64,
    /// `incident`, `deploy`, `objective_done`…
    pub name: String,
    /// What the event is about, given to each agent as its task's input.
    pub payload: serde_json::Value,
}

impl Store {
    /// Records an event to dispatch.
    pub async fn emit_event(
        &self,
        name: &str,
        payload: &serde_json::Value,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("INSERT INTO events (name, payload, created_at) VALUES ($1, $2, $3)")
                .bind(name)
                .bind(sqlx::types::Json(payload))
                .bind(to_ms(now))
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }

    /// Claims the oldest event not dispatched yet, unless another worker
    /// claimed it less than five minutes ago (a claim older than that was
    /// left by a crash: the event is taken again).
    pub async fn claim_event(&self, now: DateTime<Utc>) -> Result<Option<Event>, StoreError> {
        let stale = to_ms(now - chrono::TimeDelta::minutes(5));
        let row: Option<(i64, String, sqlx::types::Json<serde_json::Value>)> =
            with_pool!(self, |pool| {
                sqlx::query_as(
                    "UPDATE events SET claimed_at = $1 WHERE id = \
                     (SELECT id FROM events WHERE dispatched_at IS NULL \
                     AND (claimed_at IS NULL OR claimed_at < $2) ORDER BY id LIMIT 1) \
                     AND dispatched_at IS NULL RETURNING id, name, payload",
                )
                .bind(to_ms(now))
                .bind(stale)
                .fetch_optional(pool)
                .await
            })?;
        Ok(row.map(|(id, name, payload)| Event {
            id,
            name,
            payload: payload.0,
        }))
    }

    /// Marks a claimed event dispatched: its agents' tasks exist.
    pub async fn mark_event_dispatched(
        &self,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        with_pool!(self, |pool| {
            sqlx::query("UPDATE events SET dispatched_at = $2 WHERE id = $1")
                .bind(id)
                .bind(to_ms(now))
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
        })?;
        Ok(())
    }
}
