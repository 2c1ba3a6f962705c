//! Sites: the Webdev's templates rendered into a static bundle
//! ([`build`]), checked before anything is published ([`check`]), and the
//! rule that only a bundle whose latest check passed may be published
//! ([`ready_to_publish`]).
//!
//! A bundle lives under `<data_dir>/sites/operation-<id>/build-<n>/`: the
//! files served in `site/`, what was built in `build.json`, the latest
//! check in `check.json` (with a digest of the files it saw, so a bundle
//! changed after its check is not publishable). Pages released by the
//! operation's utilities (a mini-game, a leaderboard) wait beside the
//! builds and are served by every build made after their release.

mod build;
mod check;
pub mod html;
mod pages;
mod templates;

use std::collections::BTreeMap;
use std::path::PathBuf;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use build::{Bundle, SiteOperation, build, bundle_dir, open, rebuild};
pub use check::{CheckReport, CheckedProblem, check, latest_check, ready_to_publish};
pub use pages::page_dir;
pub use templates::{Manifest, PageSpec, TEMPLATE_NAMES, template};

/// What a site says: the fields every template reads (its manifest says
/// which it requires).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteFields {
    pub hero: Hero,
    /// The meme's lore, a paragraph.
    #[serde(default)]
    pub lore: String,
    /// The takeover story: what happened and who runs it now.
    #[serde(default)]
    pub takeover: String,
    /// Label → value (`supply`, `tax`, `liquidity`…).
    #[serde(default)]
    pub tokenomics: BTreeMap<String, String>,
    /// The steps to buy, in order.
    #[serde(default)]
    pub how_to_buy: Vec<String>,
    /// Name → URL (`x`, `telegram`…).
    #[serde(default, alias = "links")]
    pub socials: BTreeMap<String, String>,
    /// The contract address shown, copied from the operation file.
    pub official_address: String,
    /// The chart's URL (a market site).
    #[serde(default)]
    pub chart_url: Option<String>,
    /// Where to buy (a DEX with the token selected).
    #[serde(default)]
    pub buy_url: Option<String>,
    #[serde(default)]
    pub disclaimer: Option<String>,
}

/// The top of the home page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hero {
    pub title: String,
    #[serde(default)]
    pub subtitle: String,
    /// The main button's text.
    #[serde(default)]
    pub cta: Option<String>,
}

/// Why a site could not be built, read or checked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SiteError {
    #[error("there is no site template `{name}`: choose one of {known}")]
    UnknownTemplate { name: String, known: String },
    #[error("the template {template} is broken: {message}")]
    Template { template: String, message: String },
    #[error("the {template} template needs these fields filled: {}", missing.join(", "))]
    MissingFields {
        template: String,
        missing: Vec<String>,
    },
    #[error("no folder is set for made files (`data_dir`): sites cannot be built here")]
    NoDataDir,
    #[error("operation #{operation} has no build {build} of its site: call site_build first")]
    NoBuild { operation: i64, build: u32 },
    #[error("operation #{operation} has no site built yet: call site_build first")]
    NoBuilds { operation: i64 },
    #[error("build {build} was never checked: run site_check on it before publishing")]
    NotChecked { build: u32 },
    #[error(
        "the latest check of build {build} failed ({problems}): fix the fields, rebuild and check again"
    )]
    CheckFailed { build: u32, problems: String },
    #[error("build {build} changed after its check: run site_check again")]
    ChangedSinceCheck { build: u32 },
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} does not read: {message}")]
    Corrupt { path: PathBuf, message: String },
}

impl SiteError {
    fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io {
            action,
            path,
            source,
        }
    }
}

/// Two displays of an address are the same address: EVM addresses (`0x`
/// and 40 hex digits) compare without case, the others exactly.
pub fn same_address(shown: &str, official: &str) -> bool {
    let (shown, official) = (shown.trim(), official.trim());
    let evm = |a: &str| {
        a.len() == 42 && a.starts_with("0x") && a[2..].chars().all(|c| c.is_ascii_hexdigit())
    };
    if evm(shown) && evm(official) {
        shown.eq_ignore_ascii_case(official)
    } else {
        shown == official
    }
}
