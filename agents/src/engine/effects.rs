//! What some outputs do once their task completed: the Profiler's entries
//! update the CEO's profile; the Strategist's, Anticipator's and
//! Connector's proposals wait for the CEO's buttons — or, from a proposer
//! the CEO has come to trust, become objectives at once (the CEO is told).
//! And every finished task leaves one metrics row.

use chrono::{DateTime, TimeDelta, Utc};
use serde_json::Value;
use ulias_core::domain::{
    Acceptance, NewObjective, NewProposal, Observation, Priority, ProfileKind, Task, TaskStatus,
};
use ulias_core::store::{ProfileObservation, StoreError};

use super::Engine;
use crate::alerts::{Alert, AlertLevel, keys};
use crate::director::queue_planning;
use crate::schemas::{HealthReport, ObjectiveProposals, Observed, ProfileUpdate};

/// The agent that links one team's finished work to another's.
pub const CONNECTOR: &str = "connector";
/// How many finished tasks one tick measures at most.
const MEASURE_BATCH: u32 = 200;

/// When a proposer's proposals become objectives without asking (seed 003:
/// "validation CEO pour les 2 premières semaines, puis autonomie progressive").
#[derive(Debug, Clone, PartialEq)]
pub struct ProposalPolicy {
    /// Days from a proposer's first proposal during which the CEO decides all.
    pub supervised_days: u32,
    /// The acceptance rate (0–1) that earns autonomy after that.
    pub autonomy_rate: f64,
    /// Answered proposals needed before the rate counts.
    pub min_answered: u32,
}

impl Default for ProposalPolicy {
    fn default() -> Self {
        Self {
            supervised_days: 14,
            autonomy_rate: 0.8,
            min_answered: 10,
        }
    }
}

impl ProposalPolicy {
    /// Whether a proposer with this record, first heard at `first`, may
    /// create objectives on its own at `now`.
    pub fn autonomous(
        &self,
        record: &Acceptance,
        first: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> bool {
        let supervised = TimeDelta::days(i64::from(self.supervised_days));
        let old_enough = first.is_some_and(|first| now - first >= supervised);
        let answered = record.accepted + record.declined;
        old_enough
            && answered >= self.min_answered
            && record.rate().is_some_and(|rate| rate >= self.autonomy_rate)
    }
}

impl Engine {
    /// Applies what a completed task's output means beyond its result.
    pub(super) async fn apply_output(&self, task: &Task) -> Result<(), StoreError> {
        let done = self.runner.store.task(task.id).await?;
        let (TaskStatus::Completed, Some(output)) = (done.status, done.result.as_ref()) else {
            return Ok(());
        };
        if let Some(candidate) = crate::operations::offered_candidate(&done) {
            return self.offer_start(&done, candidate, output).await;
        }
        let Some(spec) = self.runner.catalogue.get(done.agent.as_str()) else {
            return Ok(());
        };
        match spec.output_for(done.kind.as_deref()) {
            "profile_update" => self.update_profile(&done, output).await,
            "objective_proposals" => self.propose(&done, output).await,
            "incident_report" => self.ask_about_incident(&done, output).await,
            _ => Ok(()),
        }
    }

    async fn update_profile(&self, task: &Task, output: &Value) -> Result<(), StoreError> {
        let Ok(update) = serde_json::from_value::<ProfileUpdate>(output.clone()) else {
            return Ok(());
        };
        let now = self.runner.clock.now();
        for entry in update.entries {
            let Ok(kind) = entry.profile_type.parse::<ProfileKind>() else {
                tracing::warn!(kind = %entry.profile_type, "the Profiler named an unknown kind of entry");
                continue;
            };
            let seen = ProfileObservation {
                kind,
                key: entry.key,
                value: entry.value,
                observation: match entry.observed {
                    Observed::Confirmed => Observation::Confirmed,
                    Observed::Corrected => Observation::Corrected,
                },
                confidence: entry.confidence,
                learned_from: task.objective_id,
            };
            if seen.key.trim().is_empty() {
                continue;
            }
            self.runner.store.observe_profile(&seen, now).await?;
        }
        Ok(())
    }

    async fn propose(&self, task: &Task, output: &Value) -> Result<(), StoreError> {
        let Ok(proposals) = serde_json::from_value::<ObjectiveProposals>(output.clone()) else {
            return Ok(());
        };
        let store = &self.runner.store;
        for proposed in proposals.objectives {
            let new = NewProposal {
                proposer: task.agent.clone(),
                task_id: Some(task.id),
                title: proposed.title,
                description: proposed.description,
                team: proposed.team.parse().ok(),
                priority: Priority::new(i64::from(proposed.priority)).unwrap_or_default(),
                rationale: proposed.rationale,
            };
            let now = self.runner.clock.now();
            let record = store
                .acceptances()
                .await?
                .into_iter()
                .find(|a| a.proposer == new.proposer.as_str())
                .unwrap_or(Acceptance {
                    proposer: new.proposer.to_string(),
                    accepted: 0,
                    declined: 0,
                });
            let first = store.first_proposal_at(new.proposer.as_str()).await?;
            if self.config.proposals.autonomous(&record, first, now) {
                self.start_unasked(&new, &record).await?;
            } else {
                store.create_proposal(&new, None, now).await?;
            }
        }
        Ok(())
    }

    /// A trusted proposer's proposal: the objective is created, its planning
    /// queued, and the CEO is told.
    async fn start_unasked(
        &self,
        new: &NewProposal,
        record: &Acceptance,
    ) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let mut objective = NewObjective::from_ceo(new.title.clone(), new.description.clone());
        objective.priority = new.priority;
        objective.team = new.team;
        objective.source_agent = Some(new.proposer.to_string());
        objective.source = new.source();
        let objective = store.create_objective(&objective, now).await?;
        store.create_proposal(new, Some(objective.id), now).await?;
        let rate = record.rate().unwrap_or_default() * 100.0;
        self.tell(
            Alert::new(AlertLevel::Info, keys::PROPOSAL_AUTOMATIC)
                .with("proposer", &new.proposer)
                .with("id", objective.id)
                .with("title", &objective.title)
                .with("rate", format!("{rate:.0}")),
        )
        .await;
        queue_planning(&self.runner, &objective).await?;
        Ok(())
    }

    /// Writes the metrics row of every finished task that has none yet.
    pub(super) async fn measure_finished_tasks(&self) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        for task in store.unmeasured_tasks(MEASURE_BATCH).await? {
            store
                .record_task_metrics(&task, is_alarm(task.result.as_ref()), now)
                .await?;
        }
        Ok(())
    }
}

/// A check that found something wrong: a health report not `ok`.
fn is_alarm(result: Option<&Value>) -> bool {
    result
        .and_then(|r| serde_json::from_value::<HealthReport>(r.clone()).ok())
        .is_some_and(|health| health.status != "ok")
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;

    fn record(accepted: u32, declined: u32) -> Acceptance {
        Acceptance {
            proposer: "strategist".into(),
            accepted,
            declined,
        }
    }

    #[test]
    fn autonomy_needs_the_supervised_weeks_enough_answers_and_the_rate() {
        let policy = ProposalPolicy::default();
        let now = Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap();
        let long_ago = Some(now - TimeDelta::days(15));
        assert!(policy.autonomous(&record(9, 1), long_ago, now));
        let recent = Some(now - TimeDelta::days(13));
        assert!(!policy.autonomous(&record(9, 1), recent, now), "supervised");
        assert!(
            !policy.autonomous(&record(8, 1), long_ago, now),
            "9 answers are too few"
        );
        assert!(
            !policy.autonomous(&record(7, 3), long_ago, now),
            "70 % is under the bar"
        );
        assert!(
            !policy.autonomous(&record(0, 0), None, now),
            "never heard of"
        );
        let never = ProposalPolicy {
            autonomy_rate: 1.01,
            ..ProposalPolicy::default()
        };
        assert!(
            !never.autonomous(&record(20, 0), long_ago, now),
            "a rate above 1 means never"
        );
    }

    #[test]
    fn only_a_health_report_that_is_not_ok_is_an_alarm() {
        let health =
            |status: &str| serde_json::json!({"status": status, "checks": [], "confidence": 0.9});
        assert!(is_alarm(Some(&health("down"))));
        assert!(is_alarm(Some(&health("degraded"))));
        assert!(!is_alarm(Some(&health("ok"))));
        let report = serde_json::json!({"summary": "down", "findings": [], "confidence": 0.9});
        assert!(!is_alarm(Some(&report)), "a report is not a check");
        assert!(!is_alarm(None));
    }
}
