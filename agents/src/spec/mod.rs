//! Agents as files. `prompts/_preamble.md` is shared; each
//! `prompts/agents/<name>.md` holds TOML front matter between `+++` lines
//! (team, tier, tools, budget, turns, output schema, validation, triggers),
//! then the agent's prompt. [`Catalogue::load`] reads and lints them all; a
//! bad file is reported with its path and the field at fault.

mod file;
mod lint;
mod render;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use ulias_core::domain::{AgentName, Team};
use ulias_core::money::Usd;
use ulias_core::settings::Tier;

pub use render::{PromptContext, render_system_prompt};

use crate::schemas::OutputSchemas;
use crate::tools::ToolRegistry;

/// The most tools an agent may have (seed 003: more means split the agent).
pub const MAX_TOOLS: usize = 5;
/// The longest an agent's own prompt may be, in estimated tokens.
pub const MAX_PROMPT_TOKENS: u64 = 500;
/// Turns allowed when a file names none.
pub const DEFAULT_MAX_TURNS: u32 = 25;

/// What starts an agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trigger {
    /// The Director assigns it tasks.
    Director,
    /// The CEO's messages.
    Ceo,
    /// A playbook operation's steps.
    Playbook,
    /// The recurring schedule.
    Schedule,
    /// An event of the organisation (`event:deploy`).
    Event(String),
    /// A question in a community group.
    GroupQuestion,
    /// A mention on X.
    Mention,
    /// Another agent's pipeline (a horse race's judge).
    Pipeline,
}

impl Trigger {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "director" => Self::Director,
            "ceo" => Self::Ceo,
            "playbook" => Self::Playbook,
            "schedule" => Self::Schedule,
            "group_question" => Self::GroupQuestion,
            "mention" => Self::Mention,
            "pipeline" => Self::Pipeline,
            _ => {
                let event = text.strip_prefix("event:")?;
                let valid =
                    !event.is_empty() && event.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                return valid.then(|| Self::Event(event.to_owned()));
            }
        })
    }
}

/// One agent, as its file defines it.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    pub name: AgentName,
    pub description: String,
    pub team: Team,
    pub tier: Tier,
    pub tools: Vec<String>,
    pub budget: Usd,
    pub max_turns: u32,
    /// The output schema's name, for task kinds `outputs` does not name.
    pub output: String,
    /// Output schemas by task kind (`go_nogo = "go_nogo"`).
    pub outputs: BTreeMap<String, String>,
    /// Whether its outputs wait for the team's validation.
    pub validation: bool,
    pub triggers: Vec<Trigger>,
    /// The prompt, after the front matter.
    pub prompt: String,
    /// Where it was read from.
    pub path: PathBuf,
}

impl AgentSpec {
    /// The output schema of a task of `kind`: its own, else the default.
    pub fn output_for(&self, kind: Option<&str>) -> &str {
        kind.and_then(|kind| self.outputs.get(kind))
            .unwrap_or(&self.output)
    }
}

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecProblem {
    pub file: PathBuf,
    pub field: String,
    pub message: String,
}

impl fmt::Display for SpecProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: `{}`: {}",
            self.file.display(),
            self.field,
            self.message
        )
    }
}

/// The prompt files could not all be loaded.
#[derive(Debug, thiserror::Error)]
#[error("{} problem(s) in the prompt files:\n{}", problems.len(), list(problems))]
pub struct CatalogueError {
    /// Every problem found, in file order.
    pub problems: Vec<SpecProblem>,
}

fn list(problems: &[SpecProblem]) -> String {
    problems
        .iter()
        .map(|p| format!("  - {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every agent, the shared preamble and the JSON protocol's instructions.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub preamble: String,
    /// Appended to the system prompt of agents on a JSON-protocol pool.
    pub json_protocol: String,
    agents: BTreeMap<String, AgentSpec>,
}

impl Catalogue {
    /// Reads `dir/_preamble.md` and `dir/agents/*.md` and lints them
    /// against the tools and schemas that exist.
    pub fn load(
        dir: &Path,
        tools: &ToolRegistry,
        schemas: &OutputSchemas,
    ) -> Result<Self, CatalogueError> {
        let mut problems = Vec::new();
        let preamble = file::read_shared(dir, "_preamble.md", &mut problems);
        let json_protocol = file::read_shared(dir, "_json_protocol.md", &mut problems);
        let mut agents = BTreeMap::new();
        for path in file::agent_files(dir, &mut problems) {
            if let Some(spec) = file::read_agent(&path, &mut problems) {
                lint::check(&spec, tools, schemas, &mut problems);
                agents.insert(spec.name.to_string(), spec);
            }
        }
        if problems.is_empty() {
            Ok(Self {
                preamble: preamble.unwrap_or_default(),
                json_protocol: json_protocol.unwrap_or_default(),
                agents,
            })
        } else {
            Err(CatalogueError { problems })
        }
    }

    /// The agent called `name`.
    pub fn get(&self, name: &str) -> Option<&AgentSpec> {
        self.agents.get(name)
    }

    /// Every agent, by name.
    pub fn agents(&self) -> impl Iterator<Item = &AgentSpec> {
        self.agents.values()
    }

    /// How many agents there are.
    pub fn len(&self) -> usize {
        self.agents.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }
}
