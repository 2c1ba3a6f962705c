//! The recurring schedule (`prompts/schedule.toml`): jobs as cron
//! expressions in one time zone. Pure: given an instant, the next run.
//! The store keeps each job's next run, so a restart neither repeats a run
//! nor replays the ones it missed.

use std::str::FromStr;

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use croner::Cron;
use serde::Deserialize;

use crate::domain::AgentName;

/// One recurring job.
#[derive(Debug, Clone)]
pub struct Job {
    pub name: String,
    pub agent: AgentName,
    /// The cron expression as written (5 fields, minute first).
    pub cron_text: String,
    cron: Cron,
    /// The task's title.
    pub task: String,
}

/// The whole schedule.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub timezone: Tz,
    pub jobs: Vec<Job>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSchedule {
    timezone: String,
    #[serde(default)]
    jobs: Vec<RawJob>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJob {
    name: String,
    agent: String,
    cron: String,
    task: String,
}

/// A schedule file that cannot be used; each problem names its job and field.
#[derive(Debug, thiserror::Error)]
#[error("invalid schedule {source_name}:\n{}", problems.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
pub struct ScheduleError {
    pub source_name: String,
    pub problems: Vec<String>,
}

impl Schedule {
    /// Parses and checks a schedule file.
    pub fn parse(text: &str, source_name: &str) -> Result<Self, ScheduleError> {
        let fail = |problems| ScheduleError {
            source_name: source_name.to_owned(),
            problems,
        };
        let raw: RawSchedule =
            toml::from_str(text).map_err(|e| fail(vec![e.message().to_owned()]))?;
        let mut problems = Vec::new();
        let timezone = Tz::from_str(&raw.timezone).unwrap_or_else(|_| {
            problems.push(format!(
                "`timezone`: `{}` is not an IANA time zone like Europe/Paris",
                raw.timezone
            ));
            Tz::UTC
        });
        let mut jobs = Vec::new();
        for (i, job) in raw.jobs.into_iter().enumerate() {
            let at = |field: &str| format!("`jobs[{i}].{field}` ({})", job.name);
            if jobs.iter().any(|j: &Job| j.name == job.name) {
                problems.push(format!("{}: the name is used twice", at("name")));
            }
            let agent = job.agent.parse::<AgentName>();
            let cron = Cron::from_str(&job.cron);
            match (agent, cron) {
                (Ok(agent), Ok(cron)) => jobs.push(Job {
                    name: job.name,
                    agent,
                    cron_text: job.cron,
                    cron,
                    task: job.task,
                }),
                (Err(e), _) => problems.push(format!("{}: {e}", at("agent"))),
                (_, Err(e)) => problems.push(format!(
                    "{}: `{}` is not a cron expression: {e}",
                    at("cron"),
                    job.cron
                )),
            }
        }
        if problems.is_empty() {
            Ok(Self { timezone, jobs })
        } else {
            Err(fail(problems))
        }
    }

    /// The first run of `job` strictly after `after`, computed in the
    /// schedule's time zone (so "every day at 03:00" follows daylight saving).
    pub fn next_run(&self, job: &Job, after: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let local = after.with_timezone(&self.timezone);
        job.cron
            .find_next_occurrence(&local, false)
            .ok()
            .map(|next| next.with_timezone(&Utc))
    }
}

/// The first run of the cron expression `cron` (5 fields, minute first)
/// strictly after `after`, in the IANA time zone `timezone`; an error says
/// which of the two is wrong.
pub fn next_cron_run(
    cron: &str,
    timezone: &str,
    after: DateTime<Utc>,
) -> Result<DateTime<Utc>, String> {
    let zone: Tz = timezone
        .parse()
        .map_err(|_| format!("`{timezone}` is not a time zone (e.g. Europe/Paris)"))?;
    let parsed =
        Cron::from_str(cron).map_err(|e| format!("`{cron}` is not a cron expression: {e}"))?;
    parsed
        .find_next_occurrence(&after.with_timezone(&zone), false)
        .map(|next| next.with_timezone(&Utc))
        .map_err(|e| format!("`{cron}` never runs: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    const FILE: &str = r#"
timezone = "Europe/Paris"

[[jobs]]
name = "healthcheck"
agent = "monitor"
cron = "*/5 * * * *"
task = "Healthcheck"

[[jobs]]
name = "backup"
agent = "backup"
cron = "0 3 * * *"
task = "Verify backups"
"#;

    #[test]
    fn the_next_run_follows_the_time_zone() {
        let schedule = Schedule::parse(FILE, "test").unwrap();
        let at = |h, m| Utc.with_ymd_and_hms(2026, 12, 2, h, m, 0).unwrap();
        let health = &schedule.jobs[0];
        assert_eq!(schedule.next_run(health, at(9, 0)), Some(at(9, 5)));
        assert_eq!(schedule.next_run(health, at(9, 3)), Some(at(9, 5)));
        // 03:00 in Paris is 02:00 UTC in winter.
        let backup = &schedule.jobs[1];
        assert_eq!(
            schedule.next_run(backup, at(9, 0)),
            Some(Utc.with_ymd_and_hms(2026, 12, 3, 2, 0, 0).unwrap())
        );
    }

    #[test]
    fn bad_jobs_are_named() {
        let bad = FILE
            .replace("*/5 * * * *", "every five minutes")
            .replace("Europe/Paris", "Mars/Olympus");
        let error = Schedule::parse(&bad, "schedule.toml").unwrap_err();
        assert_eq!(error.problems.len(), 2, "{error}");
        assert!(
            error.to_string().contains("`jobs[0].cron` (healthcheck)"),
            "{error}"
        );
        assert!(error.to_string().contains("`timezone`"), "{error}");
    }
}
