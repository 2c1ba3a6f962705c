//! The fixed vocabularies of the organisation: teams, pipelines, sources,
//! urgencies, validation kinds, model-message roles, priorities, agent names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

text_enum! {
    /// A team of agents (seed 003's seven, plus the takeover crew of seed
    /// 000 and the direction that plans for all of them).
    pub enum Team as "team" {
        /// Coder, reviewer, tester, deployer, architect.
        Engineering => "engineering",
        /// Monitor, incident, backup, infra.
        Ops => "ops",
        /// Explorer, analyst, documenter.
        Research => "research",
        /// Transcriber, vision, organizer.
        Media => "media",
        /// Auditor, watcher, patcher.
        Security => "security",
        /// Strategist, optimizer, connector, learner.
        Transversal => "transversal",
        /// Interpreter, profiler, anticipator, simplifier.
        CeoIntel => "ceo_intel",
        /// Scanner, designer, webdev, cm, tg_bot, builder (token takeovers).
        Takeover => "takeover",
        /// The Director.
        Direction => "direction",
    }
}

text_enum! {
    /// How a task's agents are arranged.
    pub enum Pipeline as "pipeline" {
        /// One agent, one run.
        Direct => "direct",
        /// Coder → reviewer → tester → tests → deployer, back to the coder on failure.
        VerificationChain => "verification_chain",
        /// Two approaches in parallel; a judge picks.
        HorseRace => "horse_race",
        /// Three samples at different temperatures, confidence-weighted vote.
        Cisc => "cisc",
        /// Team A solves, team B checks blind.
        CrossValidation => "cross_validation",
    }
}

text_enum! {
    /// Who created an objective.
    pub enum ObjectiveSource as "objective source" {
        /// The CEO, through the interpreter.
        Ceo => "ceo",
        /// The Strategist's improvement loop.
        Strategist => "strategist",
        /// A recurring schedule.
        Scheduler => "scheduler",
        /// An incident alert.
        Incident => "incident",
        /// The Anticipator, ahead of the CEO's needs.
        Anticipator => "anticipator",
        /// A playbook operation (a takeover).
        Playbook => "playbook",
    }
}

text_enum! {
    /// How urgent a CEO decision is.
    pub enum Urgency as "urgency" {
        /// Whenever convenient.
        Low => "low",
        /// Today.
        Normal => "normal",
        /// Within the hour.
        High => "high",
        /// Now.
        Critical => "critical",
    }
}

text_enum! {
    /// What a validation shows the team.
    pub enum ValidationKind as "validation kind" {
        /// One post (X or Telegram).
        Post => "post",
        /// A thread, shown as numbered parts.
        Thread => "thread",
        /// Images as an album, with a caption.
        Album => "album",
        /// A site, shown as a link.
        Site => "site",
        /// A pinned message.
        Pinned => "pinned",
        /// A poll.
        Poll => "poll",
        /// A profile update (name, bio, pictures).
        Profile => "profile",
        /// A dossier the team submits by hand.
        Dossier => "dossier",
        /// A utility (bot command, mini-game) to release.
        Utility => "utility",
    }
}

text_enum! {
    /// Where an approved output is published.
    pub enum PublicationTarget as "publication target" {
        /// A Telegram channel or group, through the bot.
        Telegram => "telegram",
        /// An X account, through the X API.
        X => "x",
        /// A static site host.
        Site => "site",
        /// Nothing to send: the team acts by hand (a dossier).
        Manual => "manual",
    }
}

text_enum! {
    /// The role of one message in a model exchange.
    pub enum MessageRole as "message role" {
        /// The assembled system prompt.
        System => "system",
        /// The task, or a tool result in the JSON protocol.
        User => "user",
        /// The model's answer.
        Assistant => "assistant",
        /// A tool result in the native tool protocol.
        Tool => "tool",
    }
}

/// A priority from 1 (whenever) to 10 (first); higher runs first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "i64", into = "i64")]
pub struct Priority(u8);

impl Priority {
    /// The priority of work nobody ranked.
    pub const DEFAULT: Priority = Priority(5);

    /// A priority, if `value` is within 1–10.
    pub fn new(value: i64) -> Option<Self> {
        (1..=10)
            .contains(&value)
            .then(|| Self(u8::try_from(value).unwrap_or(5)))
    }

    /// The number, 1–10.
    pub fn get(self) -> i64 {
        i64::from(self.0)
    }
}

impl Default for Priority {
    fn default() -> Self {
        Self::DEFAULT
    }
}

impl TryFrom<i64> for Priority {
    type Error = String;
    fn try_from(value: i64) -> Result<Self, Self::Error> {
        Priority::new(value).ok_or_else(|| format!("priority {value} is not within 1–10"))
    }
}

impl From<Priority> for i64 {
    fn from(priority: Priority) -> i64 {
        priority.get()
    }
}

/// An agent's name, as its prompt file is named: lowercase ASCII letters,
/// digits and underscores, starting with a letter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct AgentName(String);

/// A text that is not a valid agent name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not an agent name (lowercase letters, digits and `_`, starting with a letter)")]
pub struct InvalidAgentName(pub String);

impl AgentName {
    /// The name as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for AgentName {
    type Err = InvalidAgentName;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::try_from(text.to_owned())
    }
}

impl TryFrom<String> for AgentName {
    type Error = InvalidAgentName;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        let mut chars = text.chars();
        let starts_well = chars.next().is_some_and(|c| c.is_ascii_lowercase());
        let rest_ok = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if starts_well && rest_ok && text.len() <= 40 {
            Ok(Self(text))
        } else {
            Err(InvalidAgentName(text))
        }
    }
}

impl From<AgentName> for String {
    fn from(name: AgentName) -> String {
        name.0
    }
}

impl fmt::Display for AgentName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priorities_outside_one_to_ten_are_refused() {
        assert_eq!(Priority::new(0), None);
        assert_eq!(Priority::new(11), None);
        assert_eq!(Priority::new(9).map(Priority::get), Some(9));
    }

    #[test]
    fn agent_names_are_file_names() {
        assert!("tg_bot".parse::<AgentName>().is_ok());
        assert!("Coder".parse::<AgentName>().is_err());
        assert!("../etc".parse::<AgentName>().is_err());
        assert!("".parse::<AgentName>().is_err());
    }
}
