#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::{DateTime, TimeZone, Utc};

use super::*;

const TAKEOVER: &str = include_str!("../../../prompts/playbooks/takeover.toml");

fn j0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 7, 8, 0, 0).unwrap()
}

/// One line per row: what the team reads when it checks the calendar.
fn table(rows: &[PlannedStep]) -> String {
    rows.iter()
        .map(|row| {
            format!(
                "{:<28} {:<13} {} {}{} <- {}",
                row.key,
                row.action.map_or(row.agent.to_string(), |a| a.to_string()),
                row.due_at.format("%m-%d %H:%M"),
                if row.requires_validation { "V" } else { "-" },
                if row.gate { "G" } else { "-" },
                row.depends_on.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn takeover_rows_for_a_fixed_j0() {
    let playbook = Playbook::parse(TAKEOVER, "takeover.toml").unwrap();
    let rows = playbook.expand(j0());
    insta::assert_snapshot!(table(&rows));
}

#[test]
fn takeover_rows_come_after_their_dependencies_and_within_30_days() {
    let rows = Playbook::parse(TAKEOVER, "takeover.toml")
        .unwrap()
        .expand(j0());
    for (i, row) in rows.iter().enumerate() {
        for dep in &row.depends_on {
            let at = rows.iter().position(|r| &r.key == dep).unwrap();
            assert!(at < i, "{} depends on {dep}, listed after it", row.key);
            assert!(rows[at].due_at <= row.due_at);
        }
        assert!(row.due_at <= j0() + TimeDelta::days(31), "{}", row.key);
    }
    let posts = rows
        .iter()
        .filter(|r| r.key.starts_with("cm.daily_post."))
        .count();
    assert_eq!(posts, 27, "daily posts from J+4 to J+30");
    let shortlists: Vec<_> = rows
        .iter()
        .filter(|r| r.key.starts_with("tg_bot.mod_shortlist."))
        .map(|r| r.key.as_str())
        .collect();
    assert_eq!(
        shortlists,
        [
            "tg_bot.mod_shortlist.d07",
            "tg_bot.mod_shortlist.d14",
            "tg_bot.mod_shortlist.d21",
            "tg_bot.mod_shortlist.d28"
        ]
    );
}

#[test]
fn a_dependency_on_a_recurring_step_is_its_latest_instance_by_then() {
    let rows = Playbook::parse(TAKEOVER, "takeover.toml")
        .unwrap()
        .expand(j0());
    let verdict = rows.iter().find(|r| r.key == "scanner.verdict").unwrap();
    assert_eq!(verdict.depends_on, ["scanner.daily_metrics.d07"]);
}

#[test]
fn every_problem_is_named_with_its_step_and_field() {
    let text = r#"
        name = "bad"
        description = "x"
        team = "takeover"
        horizon_days = 10
        [[step]]
        key = "a"
        agent = "Scanner"
        kind = "k"
        title = "t"
        depends_on = ["b"]
        [[step]]
        key = "b"
        action = "launch_rockets"
        kind = "k"
        title = "t"
        day = 12
        [[step]]
        key = "c"
        agent = "system"
        kind = "k"
        title = "t"
        every_days = 0
    "#;
    let error = Playbook::parse(text, "bad.toml").unwrap_err();
    let text = error.to_string();
    for expected in [
        "`step[0].agent` (a)",
        "`step[0].depends_on` (a): `b` is not a step declared above",
        "`step[1].action` (b): `launch_rockets` is not a step action",
        "`step[1].day` (b): beyond the horizon of 10 days",
        "`step[2].agent` (c): `system` is reserved",
        "`step[2].every_days` (c): must be at least 1",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
}
