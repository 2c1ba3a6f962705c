//! The day-7 verdict, arithmetic only: `revived` when the recent volume,
//! the holders and the price all hold up against J0 with the thresholds of
//! settings, else `dead_again`. A figure missing fails its criterion.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::settings::VerdictThresholds;

use super::{Check, TokenFacts};

/// One day's figures (J0 or a daily reading).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DailyFigures {
    pub price_usd: Option<f64>,
    pub volume_24h_usd: Option<f64>,
    pub holders: Option<u64>,
    pub liquidity_usd: Option<f64>,
    /// When they were read.
    #[schemars(with = "Option<String>")]
    pub read_at: Option<DateTime<Utc>>,
}

impl DailyFigures {
    /// The market figures of `facts`.
    pub fn of(facts: &TokenFacts) -> Self {
        let market = facts.market.as_ref();
        let value = |pick: fn(&super::MarketFacts) -> Option<f64>| market.and_then(pick);
        Self {
            price_usd: value(|m| m.price_usd.as_ref().map(|s| s.value)),
            volume_24h_usd: value(|m| m.volume_24h_usd.as_ref().map(|s| s.value)),
            liquidity_usd: value(|m| m.liquidity_usd.as_ref().map(|s| s.value)),
            holders: market.and_then(|m| m.holders.as_ref().map(|s| s.value)),
            read_at: Some(facts.read_at),
        }
    }
}

/// revived or dead_again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Day7Outcome {
    Revived,
    DeadAgain,
}

/// The verdict and the arithmetic behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Day7 {
    pub verdict: Day7Outcome,
    /// One per criterion (volume, holders, price), with its figures.
    pub criteria: Vec<Check>,
}

/// The verdict on `days` (in order, the last is the latest) against `j0`.
pub fn day7_verdict(j0: &DailyFigures, days: &[DailyFigures], limits: &VerdictThresholds) -> Day7 {
    let criteria = vec![
        volume(j0, days, limits),
        holders(j0, days.last(), limits.min_holders_growth_pct),
        price(j0, days.last(), limits.max_price_drop_pct),
    ];
    let verdict = if criteria.iter().all(|c| c.ok) {
        Day7Outcome::Revived
    } else {
        Day7Outcome::DeadAgain
    };
    Day7 { verdict, criteria }
}

fn criterion(name: &str, ok: bool, detail: String) -> Check {
    Check {
        name: name.to_owned(),
        ok,
        detail,
        hard: true,
    }
}

fn volume(j0: &DailyFigures, days: &[DailyFigures], limits: &VerdictThresholds) -> Check {
    let window = usize::try_from(limits.volume_days)
        .unwrap_or(usize::MAX)
        .max(1);
    let recent: Vec<f64> = days
        .iter()
        .rev()
        .take(window)
        .filter_map(|d| d.volume_24h_usd)
        .collect();
    let multiple = limits.min_volume_multiple;
    match (j0.volume_24h_usd, recent.is_empty()) {
        (Some(base), false) => {
            #[allow(clippy::cast_precision_loss)] // at most 7 days
            let mean = recent.iter().sum::<f64>() / recent.len() as f64;
            let needed = base * multiple;
            criterion(
                "volume",
                mean >= needed,
                format!(
                    "mean 24 h volume of the last {} day(s) ${mean:.0} against J0 ${base:.0} \
                     (needs ×{multiple}: ${needed:.0})",
                    recent.len()
                ),
            )
        }
        _ => criterion("volume", false, "volume unknown at J0 or since".to_owned()),
    }
}

fn holders(j0: &DailyFigures, last: Option<&DailyFigures>, min_growth: f64) -> Check {
    match (j0.holders, last.and_then(|d| d.holders)) {
        (Some(base), Some(now)) if base > 0 => {
            #[allow(clippy::cast_precision_loss)]
            let growth = (now as f64 - base as f64) / base as f64 * 100.0;
            criterion(
                "holders",
                growth >= min_growth,
                format!(
                    "{now} holders against {base} at J0: {growth:+.1}% (needs {min_growth:+}%)"
                ),
            )
        }
        _ => criterion(
            "holders",
            false,
            "holders unknown at J0 or since".to_owned(),
        ),
    }
}

fn price(j0: &DailyFigures, last: Option<&DailyFigures>, max_drop: f64) -> Check {
    match (j0.price_usd, last.and_then(|d| d.price_usd)) {
        (Some(base), Some(now)) if base > 0.0 => {
            let change = (now - base) / base * 100.0;
            criterion(
                "price",
                change >= -max_drop,
                format!(
                    "price ${now} against ${base} at J0: {change:+.1}% (may fall {max_drop}% at most)"
                ),
            )
        }
        _ => criterion("price", false, "price unknown at J0 or since".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(price: f64, volume: f64, holders: u64) -> DailyFigures {
        DailyFigures {
            price_usd: Some(price),
            volume_24h_usd: Some(volume),
            holders: Some(holders),
            liquidity_usd: Some(10_000.0),
            read_at: None,
        }
    }

    fn j0() -> DailyFigures {
        day(0.000_010, 400.0, 2140)
    }

    #[test]
    fn growing_volume_and_holders_at_a_steady_price_is_revived() {
        let days: Vec<DailyFigures> = (1..=7u32)
            .map(|d| day(0.000_011, 400.0 * f64::from(d), 2140 + 60 * u64::from(d)))
            .collect();
        let verdict = day7_verdict(&j0(), &days, &VerdictThresholds::default());
        assert_eq!(
            verdict.verdict,
            Day7Outcome::Revived,
            "{:#?}",
            verdict.criteria
        );
        assert!(
            verdict.criteria[0].detail.contains("$2400"),
            "{}",
            verdict.criteria[0].detail
        );
    }

    #[test]
    fn a_spike_that_faded_is_dead_again_and_says_which_criteria_failed() {
        let mut days: Vec<DailyFigures> = (1..=4).map(|_| day(0.000_012, 3000.0, 2600)).collect();
        days.extend((5..=7).map(|_| day(0.000_007, 500.0, 2300)));
        let verdict = day7_verdict(&j0(), &days, &VerdictThresholds::default());
        assert_eq!(verdict.verdict, Day7Outcome::DeadAgain);
        let failed: Vec<&str> = verdict
            .criteria
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.name.as_str())
            .collect();
        assert_eq!(failed, ["volume", "holders", "price"]);
    }

    #[test]
    fn missing_figures_fail_their_criterion() {
        let verdict = day7_verdict(&DailyFigures::default(), &[], &VerdictThresholds::default());
        assert_eq!(verdict.verdict, Day7Outcome::DeadAgain);
        assert!(verdict.criteria.iter().all(|c| !c.ok));
    }

    #[test]
    fn each_threshold_is_the_settings_one() {
        let j0 = day(1.0, 400.0, 2140);
        let days = vec![day(0.805, 800.0, 2360)];
        let limits = VerdictThresholds {
            min_volume_multiple: 2.0,
            volume_days: 1,
            min_holders_growth_pct: 10.0,
            max_price_drop_pct: 20.0,
        };
        // ×2.0 volume, +10.3 % holders, −19.5 % price: each just within its bar.
        assert_eq!(
            day7_verdict(&j0, &days, &limits).verdict,
            Day7Outcome::Revived
        );
        let stricter = VerdictThresholds {
            max_price_drop_pct: 19.0,
            ..limits
        };
        assert_eq!(
            day7_verdict(&j0, &days, &stricter).verdict,
            Day7Outcome::DeadAgain
        );
    }
}
