//! The output schemas: what each agent hands back through `finish`. Every
//! output carries a `confidence` (0–1) for the verification gate. Doc
//! comments become the schema's descriptions, which the model reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Confidence in the output, from 0 (a guess) to 1 (certain).
type Confidence = f64;

/// The Director's plan for an objective.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// The team that owns the objective.
    pub team: String,
    /// Why this decomposition, in one or two sentences.
    pub rationale: String,
    /// The tasks, at most 10.
    #[schemars(length(min = 1, max = 10))]
    pub tasks: Vec<PlannedTask>,
    /// Set when the objective cannot be planned: what to ask the CEO.
    pub escalate: Option<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One task of a plan.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlannedTask {
    /// A short key, unique in the plan, that other tasks depend on.
    pub key: String,
    /// The agent that runs it (from the agent catalogue).
    pub agent: String,
    pub title: String,
    pub description: String,
    /// direct, verification_chain, horse_race, cisc or cross_validation.
    pub pipeline: String,
    /// Keys of the tasks that must finish first.
    pub depends_on: Vec<String>,
    #[schemars(range(min = 1, max = 10))]
    pub priority: u8,
}

/// The Interpreter's reading of a CEO message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Interpretation {
    /// The objective's title, imperative.
    pub title: String,
    /// What exactly is to be done, with the implicit made explicit.
    pub description: String,
    #[schemars(range(min = 1, max = 10))]
    pub priority: u8,
    /// The team that should own it.
    pub team: String,
    /// Up to 3 other plausible meanings, when unsure.
    #[schemars(length(max = 3))]
    pub guesses: Vec<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
    /// Only when the context has `continues`: how the message relates to
    /// that objective.
    #[serde(default)]
    pub relation: Option<Relation>,
    /// For a `question`: the answer, from that objective's result only.
    #[serde(default)]
    pub answer: Option<String>,
    /// Only when he asks to take over (relaunch) a token and names its
    /// chain and contract address: never a guessed address.
    #[serde(default)]
    pub takeover: Option<TakeoverAsk>,
}

/// A takeover the CEO asked for in words: confirmed by buttons before
/// anything runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TakeoverAsk {
    /// base, ethereum or bsc.
    pub chain: String,
    /// The contract address, exactly as he wrote it.
    pub address: String,
    /// The token's name or ticker, if he gave one.
    #[serde(default)]
    pub name: Option<String>,
}

/// How a message relates to the objective it may continue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Something else entirely: a new objective.
    New,
    /// More of the same work on something else ("et pour la vm 104 ?").
    FollowUp,
    /// It was understood wrong: this is what was meant.
    Correction,
    /// A question its result already answers.
    Question,
}

/// A general report.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// What was found or done, in a few sentences.
    pub summary: String,
    /// Individual findings, one line each.
    pub findings: Vec<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Coder's change.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CodeChange {
    pub summary: String,
    /// Paths of the files changed.
    pub files_changed: Vec<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Reviewer's verdict.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Review {
    /// Whether the change can go on to the tests.
    pub approved: bool,
    pub issues: Vec<ReviewIssue>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One problem found in review.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewIssue {
    pub file: String,
    pub line: Option<u32>,
    /// blocker, major or minor.
    pub severity: String,
    pub message: String,
}

/// The Tester's results.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TestReport {
    pub passed: bool,
    pub total: u32,
    pub failed: u32,
    /// Failures verbatim, or a one-line summary when all passed.
    pub summary: String,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// A health check's results.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HealthReport {
    /// ok, degraded or down.
    pub status: String,
    pub checks: Vec<Check>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One named check.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

/// An incident's diagnosis.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncidentReport {
    pub summary: String,
    pub root_cause: String,
    /// What was done, and what remains to be done.
    pub actions: Vec<String>,
    /// Whether the CEO must decide something.
    pub needs_decision: bool,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// Lessons drawn from finished work.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LessonSet {
    pub lessons: Vec<LessonDraft>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One lesson.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LessonDraft {
    /// bug, pattern, convention, pitfall or optimization.
    pub category: String,
    pub lesson: String,
    /// Services concerned.
    pub services: Vec<String>,
}

/// Objectives proposed by the organisation itself.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObjectiveProposals {
    #[schemars(length(max = 10))]
    pub objectives: Vec<ProposedObjective>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One proposed objective.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProposedObjective {
    pub title: String,
    pub description: String,
    pub team: String,
    #[schemars(range(min = 1, max = 10))]
    pub priority: u8,
    /// The observation behind it.
    pub rationale: String,
}

/// A report rewritten for the CEO.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CeoSummary {
    /// 3 or 4 plain lines.
    #[schemars(length(min = 3, max = 4))]
    pub lines: Vec<String>,
    /// What is left to do, as a short imperative objective title, if anything.
    #[serde(default)]
    pub follow_up: Option<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// What the Profiler learned about the CEO.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileUpdate {
    pub entries: Vec<ProfileEntry>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One profile entry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProfileEntry {
    /// vocabulary, preference, pattern, habit, style or priority.
    pub profile_type: String,
    pub key: String,
    pub value: Value,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
    /// confirmed (the messages use it this way) or corrected (the CEO
    /// corrected a reading that relied on it).
    #[serde(default)]
    pub observed: Observed,
}

/// What the Profiler saw about an entry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Observed {
    #[default]
    Confirmed,
    Corrected,
}

/// The Scanner's report on a token.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScanReport {
    pub checks: Vec<Check>,
    /// 4 to 6 dated events.
    #[schemars(length(min = 4, max = 6))]
    pub timeline: Vec<String>,
    /// At most 3 sentences.
    pub why_it_died: String,
    /// At most 5 lines, for the community manager.
    pub cm_summary: String,
    /// go or no_go.
    pub verdict: String,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Designer's three brand directions.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrandDirections {
    #[schemars(length(min = 3, max = 3))]
    pub directions: Vec<BrandDirection>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// One direction.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrandDirection {
    pub name: String,
    /// Four colours as #RRGGBB.
    #[schemars(length(min = 4, max = 4))]
    pub palette: Vec<String>,
    pub mood: String,
    pub logo_prompt: String,
    /// The preview sheet's asset id, from `brand_render` with `what: preview`.
    pub preview: i64,
}

/// The Designer's final kit for the approved direction.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BrandKit {
    /// The approved direction's name.
    pub direction: String,
    /// The kit's asset ids, from `brand_render` with `what: kit`: logos,
    /// profile picture, banner, OG image, group photo and the memes.
    #[schemars(length(min = 1))]
    pub assets: Vec<i64>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Webdev's site, as template fields.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteDraft {
    /// signal, classic, terminal or playful.
    pub template: String,
    pub fields: Value,
    /// The build that passed site_check (what the team is shown).
    #[serde(default)]
    pub build: Option<u32>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The CM's post or thread.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PostDraft {
    /// post or thread.
    pub kind: String,
    /// The text, one entry per post of a thread.
    #[schemars(length(min = 1, max = 25))]
    pub parts: Vec<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The TG Bot's answer to a community question.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FaqAnswer {
    pub answer: String,
    /// Sections of the operation file or FAQ the answer comes from.
    pub sources: Vec<String>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Builder's utility.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilityPlan {
    /// tg-quiz-bot, tg-price-alerts, web-minigame or holders-leaderboard.
    pub template: String,
    pub config: Value,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}

/// The Judge's pick between two candidate answers (horse race).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Judgement {
    /// A or B.
    pub choice: String,
    /// Why, in one or two sentences.
    pub reason: String,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: Confidence,
}
