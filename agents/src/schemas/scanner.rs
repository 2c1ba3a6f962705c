//! The Scanner's decisions: go/no-go (and the candidate pre-report), the
//! daily metrics, the day-7 verdict. The model writes the words; fields
//! marked "filled by code" are overwritten from the chain after its run
//! (see `engine::scanner`), and the code's verdict wins where it says so.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::chain::{Check, DailyFigures, Day7Outcome, TokenFacts};

/// go or no_go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GoNoGoVerdict {
    Go,
    NoGo,
}

/// Whether to take the token over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoNoGo {
    /// A failed deterministic check makes it no_go, whatever you answer.
    pub verdict: GoNoGoVerdict,
    /// Your checks; the code's deterministic ones (hard) are put first.
    pub checks: Vec<Check>,
    /// Why, one line each; the failed hard checks are added first.
    #[serde(default)]
    pub reasons: Vec<String>,
    /// At most 5 lines, for the team.
    pub summary: String,
    /// Filled by code: leave it out.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub facts: Option<TokenFacts>,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
}

/// A day's figures against J0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DailyMetrics {
    /// Filled by code: days since J0.
    #[serde(default)]
    pub day: Option<i64>,
    /// Filled by code: the day's figures, read on the chain and the market.
    #[serde(default)]
    pub figures: Option<DailyFigures>,
    /// Filled by code: J0's figures.
    #[serde(default)]
    pub j0: Option<DailyFigures>,
    /// Filled by code: what could not be read.
    #[serde(default)]
    pub gaps: Vec<String>,
    /// At most 3 lines on the day's trend.
    pub comment: String,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
}

/// The day-7 verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Day7Verdict {
    /// revived or dead_again; the code's arithmetic decides it.
    pub verdict: Day7Outcome,
    /// Filled by code: each criterion with its figures.
    #[serde(default)]
    pub criteria: Vec<Check>,
    /// Filled by code: J0's figures.
    #[serde(default)]
    pub j0: Option<DailyFigures>,
    /// Filled by code: the daily figures since, in order.
    #[serde(default)]
    pub days: Vec<DailyFigures>,
    /// At most 5 lines: what the figures mean for the community.
    pub summary: String,
    #[schemars(range(min = 0.0, max = 1.0))]
    pub confidence: f64,
}
