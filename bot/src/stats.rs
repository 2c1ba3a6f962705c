//! Seed 003's success figures, computed from the store for the last day,
//! week and month: autonomy rate, objectives the organisation gave itself
//! per day, CEO interventions per day, incidents caught before impact,
//! interpretation accuracy, needs anticipated per week — and each
//! proposer's acceptance rate. `/stats` shows them; the weekly summary
//! sends the week's with a chart.

use chrono::{DateTime, TimeDelta, Utc};
use ulias_core::domain::Acceptance;
use ulias_core::store::{Counts, Store, StoreError};

use crate::i18n::{Texts, arg};
use crate::report::{ReportError, two_bar_charts};

/// The windows `/stats` shows, in days.
const WINDOWS: [i64; 3] = [1, 7, 30];

/// The six figures of one window (a rate is `None` when nothing was measured).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Figures {
    /// Agent tasks completed with no CEO decision about them, over those finished.
    pub autonomy: Option<f64>,
    pub generated_per_day: f64,
    pub interventions_per_day: f64,
    /// Alarms raised by checks, over alarms and failed tasks.
    pub caught_before_impact: Option<f64>,
    /// Readings not corrected, over readings.
    pub interpretation_accuracy: Option<f64>,
    pub anticipated_per_week: f64,
}

fn share(part: u64, whole: u64) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

impl Figures {
    /// The figures of `counts` measured over `days` days.
    pub fn of(counts: &Counts, days: f64) -> Self {
        let days = days.max(1.0);
        Self {
            autonomy: share(counts.tasks_autonomous, counts.tasks_finished),
            generated_per_day: counts.objectives_generated as f64 / days,
            interventions_per_day: (counts.decisions_answered + counts.corrected) as f64 / days,
            caught_before_impact: share(counts.alarms, counts.alarms + counts.tasks_failed),
            interpretation_accuracy: share(
                counts.interpreted.saturating_sub(counts.corrected),
                counts.interpreted,
            ),
            anticipated_per_week: counts.anticipated as f64 * 7.0 / days,
        }
    }
}

/// The figures for the last day, week and month, and the proposers' record.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub windows: [Figures; 3],
    pub acceptances: Vec<Acceptance>,
}

impl Stats {
    /// The figures as of `now`.
    pub async fn at(store: &Store, now: DateTime<Utc>) -> Result<Self, StoreError> {
        let mut windows = [Figures::default(); 3];
        for (figures, days) in windows.iter_mut().zip(WINDOWS) {
            let counts = store.counts(now - TimeDelta::days(days), now).await?;
            *figures = Figures::of(&counts, days as f64);
        }
        Ok(Self {
            windows,
            acceptances: store.acceptances().await?,
        })
    }

    /// The table, one line per figure: day · week · month.
    pub fn render(&self, texts: &Texts) -> String {
        let mut lines = vec![texts.get("stats-title")];
        let row = |key: &str, value: &dyn Fn(&Figures) -> String| {
            let values: Vec<String> = self.windows.iter().map(value).collect();
            texts.with(key, &[arg("values", values.join(" · "))])
        };
        lines.push(row("stats-autonomy", &|f| percent(texts, f.autonomy)));
        lines.push(row("stats-generated", &|f| {
            decimal(texts, f.generated_per_day)
        }));
        lines.push(row("stats-interventions", &|f| {
            decimal(texts, f.interventions_per_day)
        }));
        lines.push(row("stats-caught", &|f| {
            percent(texts, f.caught_before_impact)
        }));
        lines.push(row("stats-accuracy", &|f| {
            percent(texts, f.interpretation_accuracy)
        }));
        lines.push(row("stats-anticipated", &|f| {
            decimal(texts, f.anticipated_per_week)
        }));
        let records: Vec<String> = self
            .acceptances
            .iter()
            .filter(|a| a.accepted + a.declined > 0)
            .map(|a| {
                texts.with(
                    "stats-proposer",
                    &[
                        arg("proposer", &a.proposer),
                        arg("accepted", a.accepted),
                        arg("answered", a.accepted + a.declined),
                        arg("rate", percent(texts, a.rate())),
                    ],
                )
            })
            .collect();
        if !records.is_empty() {
            lines.push(texts.with("stats-proposals", &[arg("records", records.join(", "))]));
        }
        lines.push(texts.get("stats-more"));
        lines.join("\n")
    }
}

/// What each figure means and how it is computed.
pub fn help(texts: &Texts) -> String {
    [
        "stats-help-title",
        "stats-help-autonomy",
        "stats-help-generated",
        "stats-help-interventions",
        "stats-help-caught",
        "stats-help-accuracy",
        "stats-help-anticipated",
        "stats-help-proposals",
    ]
    .map(|key| texts.get(key))
    .join("\n")
}

/// The week's summary: the week's figures, and a chart of each day's
/// autonomy rate (top) and CEO interventions (bottom).
pub async fn weekly(
    store: &Store,
    texts: &Texts,
    now: DateTime<Utc>,
) -> Result<(String, Vec<u8>), ReportError> {
    let counts = store.counts(now - TimeDelta::days(7), now).await?;
    let week = Figures::of(&counts, 7.0);
    let text = [
        texts.get("weekly-title"),
        texts.with(
            "weekly-autonomy",
            &[arg("value", percent(texts, week.autonomy))],
        ),
        texts.with(
            "weekly-generated",
            &[arg("value", decimal(texts, week.generated_per_day))],
        ),
        texts.with(
            "weekly-interventions",
            &[arg("value", decimal(texts, week.interventions_per_day))],
        ),
        texts.with(
            "weekly-caught",
            &[arg("value", percent(texts, week.caught_before_impact))],
        ),
        texts.with(
            "weekly-accuracy",
            &[arg("value", percent(texts, week.interpretation_accuracy))],
        ),
        texts.with("weekly-anticipated", &[arg("value", counts.anticipated)]),
    ]
    .join("\n");
    let mut autonomy = Vec::new();
    let mut interventions = Vec::new();
    for back in (0..7).rev() {
        let end = now - TimeDelta::days(back);
        let day = store.counts(end - TimeDelta::days(1), end).await?;
        let figures = Figures::of(&day, 1.0);
        autonomy.push(figures.autonomy.unwrap_or_default() * 100.0);
        interventions.push(figures.interventions_per_day);
    }
    Ok((text, two_bar_charts(&autonomy, &interventions)?))
}

fn percent(texts: &Texts, rate: Option<f64>) -> String {
    match rate {
        Some(rate) => texts.with(
            "stats-percent",
            &[arg("value", format!("{:.0}", rate * 100.0))],
        ),
        None => "—".to_owned(),
    }
}

fn decimal(texts: &Texts, value: f64) -> String {
    texts.decimal(value, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_shares_of_what_was_measured_and_absent_without_data() {
        let counts = Counts {
            tasks_finished: 10,
            tasks_autonomous: 7,
            tasks_failed: 1,
            alarms: 3,
            objectives_generated: 14,
            decisions_answered: 5,
            interpreted: 20,
            corrected: 2,
            anticipated: 2,
        };
        let week = Figures::of(&counts, 7.0);
        assert_eq!(week.autonomy, Some(0.7));
        assert_eq!(week.generated_per_day, 2.0);
        assert_eq!(week.interventions_per_day, 1.0);
        assert_eq!(week.caught_before_impact, Some(0.75));
        assert_eq!(week.interpretation_accuracy, Some(0.9));
        assert_eq!(week.anticipated_per_week, 2.0);
        let empty = Figures::of(&Counts::default(), 1.0);
        assert_eq!(empty.autonomy, None);
        assert_eq!(empty.interpretation_accuracy, None);
    }
}
