//! The alert port: how agents and the runtime reach people. Telegram and
//! ntfy adapters plug in with the bot; the runtime only knows this trait.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;

/// How urgent an alert is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertLevel {
    Info,
    Warning,
    Critical,
}

/// One alert: its level and what it says, as a locale key and the values
/// it needs. The chat surface renders `{key}-title` and `{key}-body` in the
/// team's language: the runtime never writes a sentence a person reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub level: AlertLevel,
    pub key: &'static str,
    pub args: Vec<(&'static str, String)>,
}

impl Alert {
    /// An alert without values yet.
    pub fn new(level: AlertLevel, key: &'static str) -> Self {
        Self {
            level,
            key,
            args: Vec::new(),
        }
    }

    /// The same with one more value.
    pub fn with(mut self, name: &'static str, value: impl ToString) -> Self {
        self.args.push((name, value.to_string()));
        self
    }

    /// The value `name`, if the alert has it.
    pub fn arg(&self, name: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// For logs: the key and its values.
impl std::fmt::Display for Alert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.key)?;
        for (name, value) in &self.args {
            write!(f, " {name}={value:?}")?;
        }
        Ok(())
    }
}

/// Every alert key the runtime sends (the bot checks each has a title and
/// a body in both languages).
pub const ALERT_KEYS: &[&str] = &[
    keys::RUN_BUDGET,
    keys::CLOUD_MONTH,
    keys::OBJECTIVE_FINISHED,
    keys::OPERATION_STOPPED,
    keys::BUYBACK_BY_HAND,
    keys::STEP_REFUSED,
    keys::VALIDATION_WAITING,
    keys::TASK_FAILED,
    keys::FROM_AGENT,
    keys::X_MENTION,
    keys::PROPOSAL_AUTOMATIC,
    keys::INCIDENT_OPENED,
    keys::INCIDENT_RESOLVED,
    keys::UTILITY_SKIPPED,
];

/// The alert keys, with the values each one carries.
pub mod keys {
    /// `agent`, `percent`, `spent`, `budget`.
    pub const RUN_BUDGET: &str = "alert-run-budget";
    /// `threshold`, `spent`, `cap`.
    pub const CLOUD_MONTH: &str = "alert-cloud-month";
    /// `id`, `status` (completed, failed, cancelled), `title`, `completed`, `total`.
    pub const OBJECTIVE_FINISHED: &str = "alert-objective-finished";
    /// `operation`, `step`, `cancelled`, `reason`.
    pub const OPERATION_STOPPED: &str = "alert-operation-stopped";
    /// `step`.
    pub const BUYBACK_BY_HAND: &str = "alert-buyback-by-hand";
    /// `id`, `title`, `problem`.
    pub const STEP_REFUSED: &str = "alert-step-refused";
    /// `id`, `hours`, `kind`.
    pub const VALIDATION_WAITING: &str = "alert-validation-waiting";
    /// `id`, `agent`, `report`.
    pub const TASK_FAILED: &str = "alert-task-failed";
    /// `agent`, `title`, `body` (the agent's own words).
    pub const FROM_AGENT: &str = "alert-from-agent";
    /// `account`, `text`.
    pub const X_MENTION: &str = "alert-x-mention";
    /// `proposer`, `id` (the objective), `title`, `rate` (percent accepted).
    pub const PROPOSAL_AUTOMATIC: &str = "alert-proposal-automatic";
    /// `incident`, `service`, `detail`.
    pub const INCIDENT_OPENED: &str = "alert-incident-opened";
    /// `incident`, `service`, `minutes`.
    pub const INCIDENT_RESOLVED: &str = "alert-incident-resolved";
    /// `operation`, `task`, `attempts`, `templates`, `error` (the last
    /// failed run's last line).
    pub const UTILITY_SKIPPED: &str = "alert-utility-skipped";
}

/// Sends alerts to people.
#[async_trait]
pub trait Alerter: Send + Sync {
    /// Sends one alert. Failing to alert is logged by the caller, never fatal.
    async fn alert(&self, alert: Alert) -> Result<(), String>;
}

/// A shared alerter.
pub type SharedAlerter = Arc<dyn Alerter>;

/// Writes alerts to the log only (until Telegram and ntfy are wired).
#[derive(Debug, Default)]
pub struct LogAlerter;

#[async_trait]
impl Alerter for LogAlerter {
    async fn alert(&self, alert: Alert) -> Result<(), String> {
        tracing::warn!(level = ?alert.level, %alert, "alert");
        Ok(())
    }
}

/// Keeps every alert, for tests and simulations.
#[derive(Debug, Default)]
pub struct RecordingAlerter {
    alerts: Mutex<Vec<Alert>>,
}

impl RecordingAlerter {
    /// The alerts sent so far.
    pub fn alerts(&self) -> Vec<Alert> {
        self.alerts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

#[async_trait]
impl Alerter for RecordingAlerter {
    async fn alert(&self, alert: Alert) -> Result<(), String> {
        self.alerts
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(alert);
        Ok(())
    }
}
