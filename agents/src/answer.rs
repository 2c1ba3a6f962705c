//! What an objective's tasks produced, as the plain lines the CEO reads:
//! the Simplifier's summary when the plan has one, else the last finished
//! task's output rendered by its schema (findings as a list, a health
//! check's failing checks, an incident's actions…). Pure: the chat surface
//! adds the words around it from the locales.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ulias_core::domain::{Task, TaskId, TaskStatus};

use crate::chain::TokenFacts;
use crate::director::DIRECTOR;
use crate::engine::SIMPLIFIER;
use crate::schemas::{
    CeoSummary, CodeChange, FaqAnswer, GoNoGo, GoNoGoVerdict, HealthReport, IncidentReport, Report,
    Review, TestReport,
};

/// The most lines an answer shows (the Details button shows the rest).
const MAX_LINES: usize = 12;
/// The most characters of a single line.
const MAX_LINE_CHARS: usize = 400;

/// An objective's result, as stored on it and shown to the CEO.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Answer {
    /// Plain lines, as the agents wrote them.
    pub lines: Vec<String>,
    /// What is left to do, when the result says so: a one-tap objective.
    pub follow_up: Option<String>,
    /// The task the lines come from.
    pub task: Option<TaskId>,
}

impl Answer {
    /// The answer stored on an objective (its `result`), if it has one.
    pub fn from_result(result: Option<&Value>) -> Option<Self> {
        result.and_then(|value| serde_json::from_value(value.clone()).ok())
    }
}

/// The answer a finished objective's tasks make.
pub fn answer_of(tasks: &[Task]) -> Answer {
    let done = |t: &&Task| t.status == TaskStatus::Completed && t.result.is_some();
    let by_end = |t: &&Task| (t.completed_at, t.id);
    let summary = tasks
        .iter()
        .filter(done)
        .filter(|t| t.agent.as_str() == SIMPLIFIER)
        .max_by_key(by_end);
    let last = tasks
        .iter()
        .filter(done)
        .filter(|t| t.agent.as_str() != DIRECTOR)
        .max_by_key(by_end);
    let Some(task) = summary.or(last) else {
        return Answer::default();
    };
    let (lines, follow_up) = task.result.as_ref().map(render).unwrap_or_default();
    Answer {
        lines: lines
            .into_iter()
            .map(|line| clip_line(&line))
            .filter(|line| !line.is_empty())
            .take(MAX_LINES)
            .collect(),
        follow_up: follow_up.map(|f| clip_line(&f)).filter(|f| !f.is_empty()),
        task: Some(task.id),
    }
}

/// Why a failed objective failed: each failed task with its error.
pub fn failures_of(tasks: &[Task]) -> Vec<String> {
    tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Failed)
        .map(|t| {
            let error = t.error.as_deref().unwrap_or_default();
            clip_line(&format!("✗ {} — {}: {error}", t.agent, t.title))
        })
        .take(MAX_LINES)
        .collect()
}

fn parse<T: serde::de::DeserializeOwned>(value: &Value) -> Option<T> {
    serde_json::from_value(value.clone()).ok()
}

/// One output as lines, by the schema it matches (schemas refuse unknown
/// fields, so one output matches one schema), and its follow-up if any.
fn render(output: &Value) -> (Vec<String>, Option<String>) {
    if let Some(summary) = parse::<CeoSummary>(output) {
        return (summary.lines, summary.follow_up);
    }
    if let Some(report) = parse::<GoNoGo>(output) {
        return (go_nogo_card(&report), None);
    }
    if let Some(incident) = parse::<IncidentReport>(output) {
        let mut lines = vec![incident.summary, incident.root_cause];
        lines.extend(incident.actions.iter().map(|a| format!("• {a}")));
        return (lines, None);
    }
    if let Some(health) = parse::<HealthReport>(output) {
        let mut lines = vec![health.status];
        lines.extend(health.checks.iter().map(|c| {
            let mark = if c.ok { "✓" } else { "✗" };
            format!("{mark} {}: {}", c.name, c.detail)
        }));
        return (lines, None);
    }
    if let Some(tests) = parse::<TestReport>(output) {
        let mark = if tests.passed { "✓" } else { "✗" };
        let head = format!(
            "{mark} {}/{}",
            tests.total - tests.failed.min(tests.total),
            tests.total
        );
        return (vec![head, tests.summary], None);
    }
    if let Some(review) = parse::<Review>(output) {
        let mark = if review.approved { "✓" } else { "✗" };
        let mut lines = vec![mark.to_owned()];
        lines.extend(review.issues.iter().map(|i| match i.line {
            Some(line) => format!("• {}:{line} ({}) {}", i.file, i.severity, i.message),
            None => format!("• {} ({}) {}", i.file, i.severity, i.message),
        }));
        return (lines, None);
    }
    if let Some(change) = parse::<CodeChange>(output) {
        let mut lines = vec![change.summary];
        lines.extend(change.files_changed.iter().map(|f| format!("• {f}")));
        return (lines, None);
    }
    if let Some(report) = parse::<Report>(output) {
        let mut lines = vec![report.summary];
        lines.extend(report.findings.iter().map(|f| format!("• {f}")));
        return (lines, None);
    }
    if let Some(faq) = parse::<FaqAnswer>(output) {
        return (vec![faq.answer], None);
    }
    (generic(output), None)
}

/// A go/no-go (or a candidate's pre-report) as a card: the verdict and
/// why, the key figures read on the chain and the market, each check
/// passed or failed, then the model's summary.
fn go_nogo_card(report: &GoNoGo) -> Vec<String> {
    let verdict = match report.verdict {
        GoNoGoVerdict::Go => "✅ GO".to_owned(),
        GoNoGoVerdict::NoGo => "⛔ NO-GO".to_owned(),
    };
    let mut lines = vec![verdict];
    lines.extend(report.reasons.iter().map(|r| format!("• {r}")));
    if let Some(facts) = &report.facts {
        lines.push(figures(facts));
    }
    lines.extend(report.checks.iter().map(|c| {
        let mark = if c.ok { "✓" } else { "✗" };
        format!("{mark} {}: {}", c.name, c.detail)
    }));
    lines.extend(
        report
            .summary
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned),
    );
    lines
}

/// The key figures in one line, each only when it was read.
fn figures(facts: &TokenFacts) -> String {
    let money = |v: f64| {
        if v >= 1.0 {
            format!("${v:.0}")
        } else {
            format!("${v:.6}")
        }
    };
    let mut parts = Vec::new();
    if let Some(market) = &facts.market {
        let read = [
            ("price", market.price_usd.as_ref().map(|s| money(s.value))),
            (
                "liquidity",
                market.liquidity_usd.as_ref().map(|s| money(s.value)),
            ),
            (
                "24h volume",
                market.volume_24h_usd.as_ref().map(|s| money(s.value)),
            ),
            (
                "market cap",
                market.market_cap_usd.as_ref().map(|s| money(s.value)),
            ),
            (
                "pair age",
                market
                    .pair_age_days
                    .as_ref()
                    .map(|s| format!("{:.0} d", s.value)),
            ),
            (
                "holders",
                market.holders.as_ref().map(|s| s.value.to_string()),
            ),
        ];
        parts.extend(
            read.into_iter()
                .filter_map(|(name, v)| v.map(|v| format!("{name} {v}"))),
        );
    }
    if let Some(deployer) = &facts.deployer {
        parts.push(format!("deployer {:.1} %", deployer.share_pct.value));
    }
    if let Some(top) = &facts.top10_share_pct {
        parts.push(format!("top 10 {:.1} %", top.value));
    }
    parts.join(" · ")
}

/// Any other output: its text fields, one per line, in order.
fn generic(output: &Value) -> Vec<String> {
    let Some(fields) = output.as_object() else {
        return vec![output.to_string()];
    };
    fields
        .iter()
        .filter(|(name, _)| name.as_str() != "confidence")
        .filter_map(|(name, value)| match value {
            Value::String(text) => Some(text.clone()),
            Value::Array(items) if !items.is_empty() => {
                Some(format!("{name}: {}", Value::Array(items.clone())))
            }
            Value::Number(_) | Value::Bool(_) => Some(format!("{name}: {value}")),
            _ => None,
        })
        .collect()
}

fn clip_line(line: &str) -> String {
    let line = line.trim();
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_owned();
    }
    let mut clipped: String = line.chars().take(MAX_LINE_CHARS - 1).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use serde_json::json;
    use ulias_core::domain::{Pipeline, Priority, Team};
    use ulias_core::money::Usd;

    use super::*;

    fn finished(id: i64, agent: &str, minute: u32, result: Value) -> Task {
        let at = Utc.with_ymd_and_hms(2026, 12, 3, 9, minute, 0).unwrap();
        Task {
            id: TaskId::new(id),
            objective_id: None,
            operation_id: None,
            step_key: None,
            agent: agent.parse().unwrap(),
            team: Team::Ops,
            kind: None,
            title: format!("task {id}"),
            input: json!({}),
            status: TaskStatus::Completed,
            pipeline: Pipeline::Direct,
            priority: Priority::DEFAULT,
            due_at: at,
            depends_on: Vec::new(),
            requires_validation: false,
            gate: false,
            attempts: 1,
            max_attempts: 3,
            lease: None,
            result: Some(result),
            error: None,
            confidence: Some(0.9),
            model: None,
            tokens_in: 0,
            tokens_out: 0,
            cost: Usd::ZERO,
            cloud_equivalent_cost: Usd::ZERO,
            iterations: 1,
            duration_ms: 0,
            created_at: at,
            started_at: Some(at),
            completed_at: Some(at),
        }
    }

    #[test]
    fn the_simplifiers_lines_are_the_answer_even_when_another_task_ends_later() {
        let tasks = [
            finished(1, "director", 0, json!({"team": "ops"})),
            finished(
                2,
                "backup",
                1,
                json!({"summary": "All good.", "findings": [], "confidence": 0.9}),
            ),
            finished(
                3,
                "simplifier",
                2,
                json!({"lines": ["a", "b", "c"], "follow_up": "Planifier le fix", "confidence": 0.9}),
            ),
            finished(4, "learner", 3, json!({"lessons": [], "confidence": 0.9})),
        ];
        let answer = answer_of(&tasks);
        assert_eq!(answer.lines, ["a", "b", "c"]);
        assert_eq!(answer.follow_up.as_deref(), Some("Planifier le fix"));
        assert_eq!(answer.task, Some(TaskId::new(3)));
    }

    #[test]
    fn without_a_simplifier_the_last_task_is_rendered_by_its_schema() {
        let report = json!({"summary": "Two disks are nearly full.", "findings": ["sda 91 %", "sdb 88 %"], "confidence": 0.8});
        let health = json!({"status": "degraded", "checks": [
            {"name": "nginx", "ok": true, "detail": "200"},
            {"name": "api", "ok": false, "detail": "timeout"}], "confidence": 0.8});
        let answer = answer_of(&[finished(1, "analyst", 0, report)]);
        assert_eq!(
            answer.lines,
            ["Two disks are nearly full.", "• sda 91 %", "• sdb 88 %"]
        );
        let answer = answer_of(&[finished(1, "monitor", 0, health)]);
        assert_eq!(answer.lines, ["degraded", "✓ nginx: 200", "✗ api: timeout"]);
    }

    #[test]
    fn a_failed_objective_lists_each_failed_task_with_its_error() {
        let mut task = finished(5, "backup", 0, json!({}));
        task.status = TaskStatus::Failed;
        task.error = Some("ssh: connection refused".into());
        assert_eq!(
            failures_of(&[task]),
            ["✗ backup — task 5: ssh: connection refused"]
        );
    }
}
