//! The daily summary (seed 003's format, in the configured language):
//! objectives, a line per team, metrics, pending decisions; and one chart,
//! a PNG of the last 14 days' cost and completed objectives.

use chrono::{DateTime, TimeDelta, Utc};
use plotters::prelude::*;
use ulias_core::domain::{Decision, Team};
use ulias_core::store::{DayFigures, DayPoint, Store, StoreError};

use crate::i18n::{Texts, arg};

/// The days the chart covers.
pub const CHART_DAYS: u32 = 14;
const CHART_SIZE: (u32, u32) = (840, 420);

/// Everything the summary shows.
#[derive(Debug, Clone)]
pub struct Summary {
    pub day_start: DateTime<Utc>,
    pub figures: DayFigures,
    pub pending: Vec<Decision>,
    pub history: Vec<DayPoint>,
}

/// Why the summary could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the chart could not be drawn: {0}")]
    Chart(String),
}

impl Summary {
    /// The summary of the UTC day that starts at `day_start`.
    pub async fn of_day(store: &Store, day_start: DateTime<Utc>) -> Result<Self, ReportError> {
        let end = day_start + TimeDelta::days(1);
        Ok(Self {
            day_start,
            figures: store.day_figures(day_start, end).await?,
            pending: store.pending_decisions().await?,
            history: store.daily_series(day_start, CHART_DAYS).await?,
        })
    }

    /// The text, in `texts`' language.
    pub fn render(&self, texts: &Texts) -> String {
        let f = &self.figures;
        let mut lines = vec![
            texts.with(
                "report-title",
                &[arg("date", self.day_start.format("%d/%m/%Y"))],
            ),
            texts.get("report-objectives"),
            texts.with(
                "report-completed",
                &[
                    arg("count", f.objectives_completed),
                    arg("auto", f.objectives_completed_auto),
                ],
            ),
            texts.with(
                "report-in-progress",
                &[arg("count", f.objectives_in_progress)],
            ),
            texts.with("report-failed", &[arg("count", f.objectives_failed)]),
            texts.with("report-waiting", &[arg("count", f.objectives_waiting)]),
            texts.get("report-teams"),
        ];
        if f.teams.is_empty() {
            lines.push(texts.get("report-none"));
        }
        for (team, done, failed) in &f.teams {
            lines.push(texts.with(
                "report-team-line",
                &[
                    arg("team", texts.get(team_key(*team))),
                    arg("done", done),
                    arg("failed", failed),
                ],
            ));
        }
        let finished = f.objectives_completed + f.objectives_failed;
        let autonomy = match finished {
            0 => "—".to_owned(),
            n => format!(
                "{:.0}",
                100.0 * f.objectives_completed_alone as f64 / n as f64
            ),
        };
        let confidence = f
            .average_confidence
            .map_or_else(|| "—".to_owned(), |c| format!("{c:.2}"));
        lines.extend([
            texts.get("report-metrics"),
            texts.with("report-autonomy", &[arg("rate", autonomy)]),
            texts.with("report-confidence", &[arg("confidence", confidence)]),
            texts.with("report-interventions", &[arg("count", f.ceo_interventions)]),
            texts.with(
                "report-tokens",
                &[
                    arg("tokens", f.tokens),
                    arg("cost", f.cost),
                    arg("cloud", f.cloud_equivalent_cost),
                ],
            ),
            texts.get("report-decisions"),
        ]);
        if self.pending.is_empty() {
            lines.push(texts.get("report-none"));
        }
        for decision in &self.pending {
            lines.push(texts.with(
                "report-decision-line",
                &[
                    arg("id", decision.id),
                    arg("question", crate::decision_text::question(texts, decision)),
                ],
            ));
        }
        lines.join("\n")
    }

    /// The chart: cloud-equivalent cost per day (top) and objectives
    /// completed per day (bottom), oldest day on the left, as a PNG.
    pub fn chart_png(&self) -> Result<Vec<u8>, ReportError> {
        let (width, height) = CHART_SIZE;
        let mut pixels = vec![0u8; (width * height * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
            root.fill(&WHITE).map_err(chart_error)?;
            let (top, bottom) = root.split_vertically(height / 2);
            let costs: Vec<f64> = self
                .history
                .iter()
                .map(|d| d.cloud_equivalent_cost.dollars().max(d.cost.dollars()))
                .collect();
            let done: Vec<f64> = self
                .history
                .iter()
                .map(|d| d.objectives_completed as f64)
                .collect();
            bars(&top, &costs, &BLUE)?;
            bars(&bottom, &done, &GREEN)?;
            root.present().map_err(chart_error)?;
        }
        encode_png(&pixels, width, height)
    }
}

/// Two stacked bar charts (one bar per value, each scaled to its largest),
/// as a PNG.
pub(crate) fn two_bar_charts(upper: &[f64], lower: &[f64]) -> Result<Vec<u8>, ReportError> {
    let (width, height) = CHART_SIZE;
    let mut pixels = vec![0u8; (width * height * 3) as usize];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        let (top, bottom) = root.split_vertically(height / 2);
        bars(&top, upper, &GREEN)?;
        bars(&bottom, lower, &RED)?;
        root.present().map_err(chart_error)?;
    }
    encode_png(&pixels, width, height)
}

fn encode_png(pixels: &[u8], width: u32, height: u32) -> Result<Vec<u8>, ReportError> {
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(chart_error)?;
    writer.write_image_data(pixels).map_err(chart_error)?;
    writer.finish().map_err(chart_error)?;
    Ok(png)
}

/// One bar per value, scaled to the largest.
fn bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    values: &[f64],
    color: &RGBColor,
) -> Result<(), ReportError> {
    let top = values.iter().copied().fold(0.0_f64, f64::max).max(1e-9);
    let count = values.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .build_cartesian_2d(0.0..count, 0.0..top * 1.1)
        .map_err(chart_error)?;
    chart
        .draw_series(values.iter().enumerate().map(|(i, v)| {
            let x = i as f64;
            Rectangle::new([(x + 0.15, 0.0), (x + 0.85, *v)], color.filled())
        }))
        .map_err(chart_error)?;
    Ok(())
}

fn chart_error(error: impl std::fmt::Display) -> ReportError {
    ReportError::Chart(error.to_string())
}

fn team_key(team: Team) -> &'static str {
    match team {
        Team::Engineering => "team-engineering",
        Team::Ops => "team-ops",
        Team::Research => "team-research",
        Team::Media => "team-media",
        Team::Security => "team-security",
        Team::Transversal => "team-transversal",
        Team::CeoIntel => "team-ceo-intel",
        Team::Takeover => "team-takeover",
        Team::Direction => "team-direction",
    }
}
