//! `loki_query`: LogQL over Loki's HTTP API (`/loki/api/v1/query_range`),
//! newest lines first, bounded in count and size, wrapped as untrusted.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, TimeDelta, Utc};
use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::infra::Infra;
use super::workspace::cap;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The most lines one query returns.
const MAX_LIMIT: u32 = 500;
/// The furthest back `since_minutes` reaches: a week.
const MAX_SINCE_MINUTES: u32 = 7 * 24 * 60;

/// Queries logs in Loki.
pub struct LokiQuery(pub Infra);

/// Arguments of `loki_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LokiArgs {
    /// A LogQL query: `{service="api"} |= "error"`, or a metric one such as
    /// `sum by (level) (count_over_time({service="api"}[5m]))`.
    pub query: String,
    /// How many minutes back from `end` (1–10080, default 60); ignored with `start`.
    #[serde(default)]
    pub since_minutes: Option<u32>,
    /// The start, RFC 3339 (`2026-12-02T08:00:00Z`).
    #[serde(default)]
    pub start: Option<String>,
    /// The end, RFC 3339 (default: now).
    #[serde(default)]
    pub end: Option<String>,
    /// The most lines, newest first (1–500, default 100).
    #[serde(default)]
    pub limit: Option<u32>,
}

/// The lines found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LogLines {
    /// How many lines are shown.
    pub count: u32,
    /// Whether lines were left out (the limit or the size cap).
    pub truncated: bool,
    /// One per line, newest first: `<time> {labels} <line>` (for a metric
    /// query, `<time> {labels} <value>`), wrapped as untrusted text.
    pub lines: String,
}

#[async_trait]
impl TypedTool for LokiQuery {
    const NAME: &'static str = "loki_query";
    const DESCRIPTION: &'static str =
        "Query logs in Loki with LogQL over a time range; newest lines first.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed =
        AgentsAllowed::Only(&["analyst", "incident", "monitor", "watcher"]);
    type Args = LokiArgs;
    type Output = LogLines;

    async fn call(&self, ctx: &ToolContext, args: LokiArgs) -> Result<LogLines, ToolError> {
        let loki = self.0.loki()?;
        let (start, end) = range(&args, ctx.clock.now())?;
        let limit = args.limit.unwrap_or(100).clamp(1, MAX_LIMIT);
        let url = loki.url(
            "loki/api/v1/query_range",
            &[
                ("query", args.query.clone()),
                ("start", nanos(start).to_string()),
                ("end", nanos(end).to_string()),
                ("limit", limit.to_string()),
                ("direction", "backward".into()),
            ],
        )?;
        let answer: Answer = loki.json(loki.request(Method::GET, url)).await?;
        let mut entries = answer.data.entries();
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.0));
        let over_limit = entries.len() > limit as usize;
        entries.truncate(limit as usize);
        let mut text = String::new();
        let mut count = 0u32;
        let mut cut = false;
        for (_, line) in &entries {
            if text.len() + line.len() + 1 > self.0.max_output() {
                cut = true;
                if text.is_empty() {
                    text.push_str(cap(line, self.0.max_output()).0);
                    count = 1;
                }
                break;
            }
            text.push_str(line);
            text.push('\n');
            count += 1;
        }
        Ok(LogLines {
            count,
            truncated: over_limit || cut,
            lines: wrap_untrusted("loki", &text),
        })
    }
}

/// The query's time range, checked.
fn range(args: &LokiArgs, now: DateTime<Utc>) -> Result<(DateTime<Utc>, DateTime<Utc>), ToolError> {
    let end = match &args.end {
        Some(end) => parse_time("end", end)?,
        None => now,
    };
    let start = match &args.start {
        Some(start) => parse_time("start", start)?,
        None => {
            let minutes = args.since_minutes.unwrap_or(60).clamp(1, MAX_SINCE_MINUTES);
            end - TimeDelta::minutes(i64::from(minutes))
        }
    };
    if start >= end {
        return Err(invalid("`start` must be before `end`".into()));
    }
    Ok((start, end))
}

fn parse_time(key: &str, text: &str) -> Result<DateTime<Utc>, ToolError> {
    DateTime::parse_from_rfc3339(text)
        .map(|time| time.with_timezone(&Utc))
        .map_err(|e| invalid(format!("`{key}` is not an RFC 3339 time ({e}): {text}")))
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: LokiQuery::NAME,
        message,
    }
}

fn nanos(time: DateTime<Utc>) -> i64 {
    time.timestamp_nanos_opt().unwrap_or(i64::MAX)
}

/// Loki's answer.
#[derive(Debug, Deserialize)]
struct Answer {
    data: Data,
}

#[derive(Debug, Deserialize)]
struct Data {
    #[serde(default)]
    result: Vec<Series>,
}

/// A log stream (`stream`, `values` of `[ns, line]`) or a metric series
/// (`metric`, `values` or `value` of `[seconds, "number"]`).
#[derive(Debug, Deserialize)]
struct Series {
    #[serde(default, alias = "metric")]
    stream: BTreeMap<String, String>,
    #[serde(default)]
    values: Vec<(Value, String)>,
    #[serde(default)]
    value: Option<(Value, String)>,
}

impl Data {
    /// Every entry as `(nanoseconds, shown line)`.
    fn entries(self) -> Vec<(i64, String)> {
        let mut entries = Vec::new();
        for series in self.result {
            let labels = series
                .stream
                .iter()
                .map(|(key, value)| format!("{key}={value:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            for (time, line) in series.values.into_iter().chain(series.value) {
                let ns = time_nanos(&time);
                let shown = DateTime::from_timestamp_nanos(ns).to_rfc3339();
                entries.push((ns, format!("{shown} {{{labels}}} {}", line.trim_end())));
            }
        }
        entries
    }
}

/// A log line's time (nanoseconds, as text) or a sample's (seconds, a number).
fn time_nanos(time: &Value) -> i64 {
    match time {
        Value::String(ns) => ns.parse().unwrap_or(0),
        Value::Number(seconds) => seconds.as_f64().map_or(0, |seconds| (seconds * 1e9) as i64),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn log_and_metric_answers_become_timed_lines() {
        let data: Data = serde_json::from_value(serde_json::json!({"result": [
            {"stream": {"app": "api"}, "values": [["1764666000000000000", "boom\n"]]},
            {"metric": {"level": "error"}, "value": [1764666060.5, "3"]}
        ]}))
        .unwrap();
        let entries = data.entries();
        assert_eq!(entries[0].1, "2025-12-02T09:00:00+00:00 {app=\"api\"} boom");
        assert_eq!(
            entries[1].1,
            "2025-12-02T09:01:00.500+00:00 {level=\"error\"} 3"
        );
    }
}
