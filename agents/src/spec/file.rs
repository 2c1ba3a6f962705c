//! Reading the files: preamble, agent files, front matter.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use ulias_core::domain::AgentName;
use ulias_core::money::Usd;
use ulias_core::settings::Tier;

use super::{AgentSpec, DEFAULT_MAX_TURNS, SpecProblem, Trigger};

const DELIMITER: &str = "+++";

/// The front matter, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    description: String,
    team: ulias_core::domain::Team,
    tier: Tier,
    tools: Vec<String>,
    budget_usd: f64,
    #[serde(default = "default_turns")]
    max_turns: u32,
    output: String,
    #[serde(default)]
    outputs: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    validation: bool,
    #[serde(default)]
    triggers: Vec<String>,
}

fn default_turns() -> u32 {
    DEFAULT_MAX_TURNS
}

fn problem(file: &Path, field: &str, message: impl Into<String>) -> SpecProblem {
    SpecProblem {
        file: file.to_owned(),
        field: field.to_owned(),
        message: message.into(),
    }
}

pub(super) fn read_shared(
    dir: &Path,
    name: &str,
    problems: &mut Vec<SpecProblem>,
) -> Option<String> {
    let path = dir.join(name);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(e) => {
            problems.push(problem(&path, "file", format!("cannot read it: {e}")));
            None
        }
    }
}

pub(super) fn agent_files(dir: &Path, problems: &mut Vec<SpecProblem>) -> Vec<PathBuf> {
    let agents = dir.join("agents");
    let entries = match std::fs::read_dir(&agents) {
        Ok(entries) => entries,
        Err(e) => {
            problems.push(problem(&agents, "folder", format!("cannot read it: {e}")));
            return Vec::new();
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    files.sort();
    files
}

pub(super) fn read_agent(path: &Path, problems: &mut Vec<SpecProblem>) -> Option<AgentSpec> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            problems.push(problem(path, "file", format!("cannot read it: {e}")));
            return None;
        }
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let name: AgentName = match stem.parse() {
        Ok(name) => name,
        Err(e) => {
            problems.push(problem(path, "file name", e.to_string()));
            return None;
        }
    };
    let Some((front, prompt)) = split_front_matter(&text) else {
        problems.push(problem(
            path,
            "front matter",
            "expected the file to start with a `+++` line, the TOML front matter, and a closing `+++` line",
        ));
        return None;
    };
    let front: FrontMatter = match parse_front(front) {
        Ok(front) => front,
        Err((field, message)) => {
            problems.push(problem(path, &field, message));
            return None;
        }
    };
    let mut triggers = Vec::new();
    for (i, text) in front.triggers.iter().enumerate() {
        match Trigger::parse(text) {
            Some(trigger) => triggers.push(trigger),
            None => problems.push(problem(
                path,
                &format!("triggers[{i}]"),
                format!(
                    "`{text}` is not a trigger (director, ceo, playbook, schedule, \
                     group_question, mention, event:<name>)"
                ),
            )),
        }
    }
    let Some(budget) = Usd::from_dollars(front.budget_usd).filter(|b| *b > Usd::ZERO) else {
        problems.push(problem(
            path,
            "budget_usd",
            "expected an amount in US dollars above 0",
        ));
        return None;
    };
    Some(AgentSpec {
        name,
        description: front.description,
        team: front.team,
        tier: front.tier,
        tools: front.tools,
        budget,
        max_turns: front.max_turns,
        output: front.output,
        outputs: front.outputs,
        validation: front.validation,
        triggers,
        prompt: prompt.trim().to_owned(),
        path: path.to_owned(),
    })
}

fn split_front_matter(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim_start_matches('\u{feff}');
    let rest = rest.strip_prefix(DELIMITER)?;
    let rest = rest
        .strip_prefix('\n')
        .or_else(|| rest.strip_prefix("\r\n"))?;
    let end = rest.find("\n+++")?;
    let front = &rest[..end];
    let after = &rest[end + 1 + DELIMITER.len()..];
    Some((front, after))
}

fn parse_front(front: &str) -> Result<FrontMatter, (String, String)> {
    let table: toml::Table = front
        .parse()
        .map_err(|e: toml::de::Error| ("front matter".to_owned(), e.message().to_owned()))?;
    serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let message = e.inner().message().trim().to_owned();
        let path = e.path().to_string();
        let field = if path == "." {
            field_in_message(&message).unwrap_or_else(|| "front matter".to_owned())
        } else {
            path
        };
        (field, message)
    })
}

/// serde names the missing or unknown field in its message (`` missing field `team` ``).
fn field_in_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    Some(message[start..end].to_owned())
}
