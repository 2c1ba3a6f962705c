//! What each tick looks after besides running tasks: validations the team
//! has left waiting too long (decisions: `decisions.rs`).

use ulias_core::store::StoreError;

use super::Engine;
use crate::alerts::{Alert, AlertLevel, keys};

/// The alert scope that makes a waiting validation's alert go out once.
const WAITING_SCOPE: &str = "validation_waiting";

impl Engine {
    /// Alerts the team, once each, about validations pending longer than
    /// the reminder delay. Returns how many were flagged now.
    pub(super) async fn flag_waiting_validations(&self) -> Result<usize, StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let mut flagged = 0;
        for validation in store.pending_validations().await? {
            if now - validation.created_at < self.config.validation_reminder {
                break;
            }
            if store
                .mark_alert_sent(WAITING_SCOPE, &validation.id.to_string(), now)
                .await?
            {
                flagged += 1;
                let hours = (now - validation.created_at).num_minutes() as f64 / 60.0;
                self.tell(
                    Alert::new(AlertLevel::Warning, keys::VALIDATION_WAITING)
                        .with("id", validation.id)
                        .with("hours", format!("{hours:.1}"))
                        .with("kind", validation.kind),
                )
                .await;
            }
        }
        Ok(flagged)
    }
}
