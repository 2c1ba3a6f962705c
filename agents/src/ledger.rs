//! The cost ledger: what a call costs (usage × the pool's prices), and the
//! caps checked before every call — the run's budget, the objective's (or
//! operation's) cap, the cloud pool's monthly cap — with their alerts:
//! once at 80% of a run's budget, once per monthly threshold.

use chrono::{DateTime, Datelike, TimeZone, Utc};
use ulias_core::clock::SharedClock;
use ulias_core::domain::{ObjectiveId, OperationId};
use ulias_core::money::Usd;
use ulias_core::settings::{BudgetSettings, PoolSettings};
use ulias_core::store::{Store, StoreError};

use crate::alerts::{Alert, AlertLevel, SharedAlerter, keys};
use crate::model::Usage;

/// What one call cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CallCost {
    /// Real dollars (0 on our own GPUs).
    pub real: Usd,
    /// What a cloud API would have charged, for reports.
    pub cloud_equivalent: Usd,
}

/// The cost of `usage` at `pool`'s prices, rounded to the micro-dollar.
pub fn call_cost(pool: &PoolSettings, usage: &Usage) -> CallCost {
    let price = |tokens: u64, per_1k: f64| tokens as f64 * per_1k / 1000.0;
    let dollars = |amount: f64| Usd::from_dollars(amount).unwrap_or(Usd::ZERO);
    CallCost {
        real: dollars(
            price(usage.input, pool.price_in_per_1k) + price(usage.output, pool.price_out_per_1k),
        ),
        cloud_equivalent: dollars(
            price(usage.input, pool.cloud_equiv_in_per_1k)
                + price(usage.output, pool.cloud_equiv_out_per_1k),
        ),
    }
}

/// A cap that the next call would break.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BudgetExceeded {
    /// The run's own budget.
    #[error(
        "the run's budget of {budget} would be exceeded ({spent} spent, next call ~{estimate})"
    )]
    Run {
        budget: Usd,
        spent: Usd,
        estimate: Usd,
    },
    /// The objective's cap.
    #[error(
        "the objective's cap of {cap} would be exceeded ({spent} spent, next call ~{estimate})"
    )]
    Objective { cap: Usd, spent: Usd, estimate: Usd },
    /// The operation's cap (`budgets.operation_cap_usd`).
    #[error(
        "the operation's cap of {cap} would be exceeded ({spent} spent, next call ~{estimate})"
    )]
    Operation { cap: Usd, spent: Usd, estimate: Usd },
    /// The cloud pool's monthly cap.
    #[error(
        "the cloud's monthly cap of {cap} is reached ({spent} spent this month, next call ~{estimate})"
    )]
    CloudMonth { cap: Usd, spent: Usd, estimate: Usd },
}

/// A ledger check that could not be made, or that refused.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// A cap would be broken.
    #[error(transparent)]
    Exceeded(#[from] BudgetExceeded),
    /// The store could not say what was spent.
    #[error("cannot read the spend: {0}")]
    Store(#[from] StoreError),
}

/// One run's spend against its budget.
#[derive(Debug, Clone)]
pub struct RunSpend {
    pub budget: Usd,
    pub spent: Usd,
    alerted: bool,
}

impl RunSpend {
    /// A run with `budget` and nothing spent.
    pub fn new(budget: Usd) -> Self {
        Self {
            budget,
            spent: Usd::ZERO,
            alerted: false,
        }
    }
}

/// Where an objective's or operation's money is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpendScope {
    Objective(ObjectiveId),
    Operation(OperationId),
    /// Work outside any objective (a scheduled health check).
    None,
}

/// Checks caps and records spend.
#[derive(Clone)]
pub struct Ledger {
    store: Store,
    clock: SharedClock,
    alerter: SharedAlerter,
    budgets: BudgetSettings,
}

impl Ledger {
    pub fn new(
        store: Store,
        clock: SharedClock,
        alerter: SharedAlerter,
        budgets: BudgetSettings,
    ) -> Self {
        Self {
            store,
            clock,
            alerter,
            budgets,
        }
    }

    /// Refuses a call estimated at `estimate` if it would break the run's
    /// budget, the objective's cap, or (for a cloud call) the monthly cap.
    pub async fn check(
        &self,
        run: &RunSpend,
        scope: SpendScope,
        estimate: Usd,
        cloud: bool,
    ) -> Result<(), LedgerError> {
        if run.spent + estimate > run.budget {
            return Err(BudgetExceeded::Run {
                budget: run.budget,
                spent: run.spent,
                estimate,
            }
            .into());
        }
        match scope {
            SpendScope::Objective(id) => {
                let cap = dollars(self.budgets.objective_cap_usd);
                let spent = self.store.objective_spend(id).await?;
                if spent + estimate > cap {
                    return Err(BudgetExceeded::Objective {
                        cap,
                        spent,
                        estimate,
                    }
                    .into());
                }
            }
            SpendScope::Operation(id) => {
                let cap = dollars(self.budgets.operation_cap_usd);
                let spent = self.store.operation_spend(id).await?;
                if spent + estimate > cap {
                    return Err(BudgetExceeded::Operation {
                        cap,
                        spent,
                        estimate,
                    }
                    .into());
                }
            }
            SpendScope::None => {}
        }
        if cloud {
            self.check_cloud(estimate).await?;
        }
        Ok(())
    }

    /// Refuses a cloud call once the month's cloud spend plus `estimate`
    /// would pass the monthly cap.
    pub async fn check_cloud(&self, estimate: Usd) -> Result<(), LedgerError> {
        let cap = dollars(self.budgets.monthly_cloud_cap_usd);
        let spent = self
            .store
            .cloud_spend_since(month_start(self.clock.now()))
            .await?;
        if spent + estimate > cap {
            return Err(BudgetExceeded::CloudMonth {
                cap,
                spent,
                estimate,
            }
            .into());
        }
        Ok(())
    }

    /// Counts a call's cost in the run, and sends the alerts it crosses:
    /// the run's 80% (once per run), each monthly cloud threshold (once per
    /// month, whichever process crosses it).
    pub async fn record(
        &self,
        run: &mut RunSpend,
        agent: &str,
        cost: Usd,
        cloud: bool,
    ) -> Result<(), StoreError> {
        run.spent += cost;
        let fraction = self.budgets.run_alert_fraction;
        if !run.alerted
            && run.spent.dollars() >= run.budget.dollars() * fraction
            && cost > Usd::ZERO
        {
            run.alerted = true;
            self.send(
                Alert::new(AlertLevel::Warning, keys::RUN_BUDGET)
                    .with("agent", agent)
                    .with("percent", format!("{:.0}", fraction * 100.0))
                    .with("spent", run.spent)
                    .with("budget", run.budget),
            )
            .await;
        }
        if cloud && cost > Usd::ZERO {
            self.monthly_alerts().await?;
        }
        Ok(())
    }

    async fn monthly_alerts(&self) -> Result<(), StoreError> {
        let now = self.clock.now();
        let start = month_start(now);
        let spent = self.store.cloud_spend_since(start).await?;
        for threshold in &self.budgets.alert_thresholds_usd {
            let threshold = dollars(*threshold);
            if spent < threshold {
                continue;
            }
            let key = format!(
                "{}-{:02}:{}",
                start.year(),
                start.month(),
                threshold.micros()
            );
            if self.store.mark_alert_sent("cloud_month", &key, now).await? {
                self.send(
                    Alert::new(AlertLevel::Warning, keys::CLOUD_MONTH)
                        .with("threshold", threshold)
                        .with("spent", spent)
                        .with("cap", dollars(self.budgets.monthly_cloud_cap_usd)),
                )
                .await;
            }
        }
        Ok(())
    }

    async fn send(&self, alert: Alert) {
        if let Err(error) = self.alerter.alert(alert).await {
            tracing::error!(%error, "could not send a budget alert");
        }
    }
}

fn dollars(amount: f64) -> Usd {
    Usd::from_dollars(amount).unwrap_or(Usd::ZERO)
}

/// The first instant of `now`'s calendar month, UTC.
pub fn month_start(now: DateTime<Utc>) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ulias_core::settings::Settings;

    #[test]
    fn a_call_costs_usage_times_prices_and_local_gpus_cost_nothing_real() {
        let settings = Settings::default();
        let mut pool = settings.models.pools[0].clone();
        let usage = Usage {
            input: 2000,
            output: 500,
            estimated: false,
        };
        let local = call_cost(&pool, &usage);
        assert_eq!(local.real, Usd::ZERO);
        // 2 × $0.003 + 0.5 × $0.015
        assert_eq!(local.cloud_equivalent, Usd::from_micros(13_500));
        pool.price_in_per_1k = 0.015;
        pool.price_out_per_1k = 0.075;
        assert_eq!(call_cost(&pool, &usage).real, Usd::from_micros(67_500));
    }

    #[test]
    fn months_start_on_the_first_at_midnight() {
        let now = Utc.with_ymd_and_hms(2026, 12, 2, 15, 4, 5).unwrap();
        assert_eq!(
            month_start(now),
            Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap()
        );
    }
}
