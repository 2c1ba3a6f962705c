//! From finding to work. The checks a run made (recorded by `http_check`,
//! not read from the model's report) open and close incidents: a service
//! seen down opens one incident — never a second while it stays down —
//! tells the team, and emits `event:incident`, which queues the incident
//! agent; a service seen up closes its incident and says so. The incident
//! agent's report that needs the CEO becomes a decision with buttons.
//! Events are dispatched here too: each to every agent that declares it.

use chrono::TimeDelta;
use serde_json::{Value, json};
use ulias_core::domain::{
    DecisionKind, DecisionOption, NewDecision, NewTask, Priority, Task, Urgency,
};
use ulias_core::store::{Event, Incident, StoreError};

use super::Engine;
use crate::alerts::{Alert, AlertLevel, keys};
use crate::schemas::IncidentReport;
use crate::spec::Trigger;

/// The agent that diagnoses incidents.
pub const INCIDENT_AGENT: &str = "incident";
/// The event a service going down emits.
pub const INCIDENT_EVENT: &str = "incident";
/// The event a finished objective emits.
pub const OBJECTIVE_DONE_EVENT: &str = "objective_done";
/// Agents queued with their own kind when an objective finishes (see
/// `finish.rs`): the `objective_done` event does not queue them twice.
const QUEUED_DIRECTLY: &[&str] = &[super::finish::LEARNER, super::effects::CONNECTOR];
/// Event tasks come before the day's routine work.
const EVENT_PRIORITY: i64 = 8;
/// How long an open incident may wait for its incident agent's task
/// before its event is emitted again (dispatch takes one tick).
const UNATTENDED_AFTER: TimeDelta = TimeDelta::minutes(10);
/// How many events one tick dispatches at most.
const EVENTS_PER_TICK: usize = 20;

impl Engine {
    /// The checks `task` made open or close incidents.
    pub(super) async fn follow_checks(&self, task: &Task) -> Result<(), StoreError> {
        let store = &self.runner.store;
        for check in store.checks_of_task(task.id).await? {
            let now = self.runner.clock.now();
            if check.ok {
                if let Some(open) = store.open_incident_of(&check.service).await?
                    && let Some(resolved) = store.resolve_incident(open.id, now).await?
                {
                    self.announce_resolved(&resolved).await;
                }
                continue;
            }
            let Some(incident) = store
                .open_incident(&check.service, &check.detail, now)
                .await?
            else {
                self.attend_if_forgotten(&check.service, task).await?;
                continue;
            };
            self.tell(
                Alert::new(AlertLevel::Critical, keys::INCIDENT_OPENED)
                    .with("incident", incident.id)
                    .with("service", &incident.service)
                    .with("detail", &incident.detail),
            )
            .await;
            self.emit_incident(&incident, task).await?;
        }
        Ok(())
    }

    /// `event:incident` for `incident`, found by `task`'s checks.
    async fn emit_incident(&self, incident: &Incident, task: &Task) -> Result<(), StoreError> {
        let payload = json!({"incident": incident.id, "service": incident.service,
                             "detail": incident.detail, "found_by": task.agent, "task": task.id});
        self.runner
            .store
            .emit_event(INCIDENT_EVENT, &payload, self.runner.clock.now())
            .await
    }

    /// An incident still open with no incident agent's task long after it
    /// opened (a crash between opening it and emitting its event): the
    /// event is emitted again, so the incident is never left unattended.
    async fn attend_if_forgotten(&self, service: &str, task: &Task) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let Some(open) = store.open_incident_of(service).await? else {
            return Ok(());
        };
        let waited = self.runner.clock.now() - open.opened_at;
        let attended =
            open.task_id.is_some() || self.runner.catalogue.get(INCIDENT_AGENT).is_none();
        if !attended && waited >= UNATTENDED_AFTER {
            tracing::warn!(incident = open.id, %service, "an open incident had no incident agent: queued again");
            self.emit_incident(&open, task).await?;
        }
        Ok(())
    }

    async fn announce_resolved(&self, incident: &Incident) {
        let minutes = incident
            .resolved_at
            .map_or(0, |end| (end - incident.opened_at).num_minutes());
        self.tell(
            Alert::new(AlertLevel::Info, keys::INCIDENT_RESOLVED)
                .with("incident", incident.id)
                .with("service", &incident.service)
                .with("minutes", minutes),
        )
        .await;
    }

    /// Dispatches the events waiting: each becomes one task per agent that
    /// declares it.
    pub(super) async fn dispatch_events(&self) -> Result<usize, StoreError> {
        let store = &self.runner.store;
        let mut dispatched = 0;
        while dispatched < EVENTS_PER_TICK {
            let Some(event) = store.claim_event(self.runner.clock.now()).await? else {
                break;
            };
            self.dispatch(&event).await?;
            store
                .mark_event_dispatched(event.id, self.runner.clock.now())
                .await?;
            dispatched += 1;
        }
        Ok(dispatched)
    }

    async fn dispatch(&self, event: &Event) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let trigger = Trigger::Event(event.name.clone());
        let agents: Vec<_> = self
            .runner
            .catalogue
            .agents()
            .filter(|spec| spec.triggers.contains(&trigger))
            .filter(|spec| {
                event.name != OBJECTIVE_DONE_EVENT || !QUEUED_DIRECTLY.contains(&spec.name.as_str())
            })
            .collect();
        // An incident is urgent; the other events are follow-ups, run a
        // minute later and after the day's work, like the Learner's.
        let (delay, priority) = if event.name == INCIDENT_EVENT {
            (TimeDelta::zero(), EVENT_PRIORITY)
        } else {
            (TimeDelta::minutes(1), super::finish::FOLLOWER_PRIORITY)
        };
        for spec in agents {
            let now = self.runner.clock.now();
            let mut task = NewTask::new(
                spec.name.clone(),
                spec.team,
                event_title(&event.name, &event.payload),
                now + delay,
            );
            task.kind = Some(format!("event:{}", event.name));
            task.priority = Priority::new(priority).unwrap_or_default();
            task.input = event.payload.clone();
            let created = store.create_task(&task, now).await?;
            if spec.name.as_str() == INCIDENT_AGENT
                && let Some(incident) = event.payload.get("incident").and_then(Value::as_i64)
            {
                store.set_incident_task(incident, created.id).await?;
            }
        }
        Ok(())
    }

    /// The incident agent's diagnosis: when it needs the CEO, a decision
    /// with buttons (once per incident).
    pub(super) async fn ask_about_incident(
        &self,
        task: &Task,
        output: &Value,
    ) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let Ok(report) = serde_json::from_value::<IncidentReport>(output.clone()) else {
            return Ok(());
        };
        let Some(incident) = store.incident_of_task(task.id).await? else {
            return Ok(());
        };
        if !report.needs_decision
            || incident.decision_id.is_some()
            || incident.resolved_at.is_some()
        {
            return Ok(());
        }
        let now = self.runner.clock.now();
        let decision = NewDecision {
            task_id: Some(task.id),
            recommended: Some(DecisionOption::Act),
            urgency: Urgency::High,
            timeout_at: Some(now + chrono::TimeDelta::hours(4)),
            auto_decision: Some(DecisionOption::Wait),
            ..NewDecision::new(DecisionKind::Incident {
                incident: incident.id,
                service: incident.service.clone(),
                summary: report.summary.clone(),
                actions: report.actions.join("; "),
            })
        };
        let created = store.create_decision(&decision, now).await?;
        store.set_incident_decision(incident.id, created.id).await?;
        Ok(())
    }

    /// The CEO said "do it": the incident agent runs again with the fix it
    /// proposed approved (its destructive calls still ask, one by one).
    pub(super) async fn act_on_incident(
        &self,
        incident: i64,
        actions: &str,
    ) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let current = store.incident(incident).await?;
        let Some(spec) = self.runner.catalogue.get(INCIDENT_AGENT) else {
            return Ok(());
        };
        if current.resolved_at.is_some() {
            return Ok(());
        }
        let now = self.runner.clock.now();
        let mut task = NewTask::new(
            spec.name.clone(),
            spec.team,
            format!(
                "Apply the approved fix for incident #{incident} ({})",
                current.service
            ),
            now,
        );
        task.kind = Some(format!("event:{INCIDENT_EVENT}"));
        task.priority = Priority::new(EVENT_PRIORITY).unwrap_or_default();
        task.input = json!({"incident": incident, "service": current.service,
                            "detail": current.detail, "approved_by_ceo": actions});
        store.create_task(&task, now).await?;
        Ok(())
    }
}

/// An event task's title, in fixed words with its subject.
fn event_title(name: &str, payload: &Value) -> String {
    let about = ["service", "title", "objective"]
        .iter()
        .find_map(|key| payload.get(key))
        .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
        .unwrap_or_default();
    format!("event:{name} {about}").trim_end().to_owned()
}
