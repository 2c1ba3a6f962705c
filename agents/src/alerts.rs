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

/// One alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alert {
    pub level: AlertLevel,
    pub title: String,
    pub body: String,
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
        tracing::warn!(level = ?alert.level, title = %alert.title, body = %alert.body, "alert");
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
