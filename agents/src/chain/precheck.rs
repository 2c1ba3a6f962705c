//! The Scanner's deterministic pre-check: contract present, deployer bag,
//! top-10 share, liquidity, pair age, against the thresholds of settings.
//! A figure that could not be read fails its check: the pre-check fails
//! closed. Each check explains itself with its figures.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::settings::TakeoverThresholds;

use super::TokenFacts;

/// One named check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    /// The figures and the threshold.
    pub detail: String,
    /// A hard check is the code's: when it fails, the verdict is no_go.
    #[serde(default)]
    pub hard: bool,
}

/// Every check, and whether all the hard ones passed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Precheck {
    pub checks: Vec<Check>,
    pub passed: bool,
}

impl Precheck {
    /// The details of the hard checks that failed: the no-go's reasons.
    pub fn failures(&self) -> Vec<String> {
        self.checks
            .iter()
            .filter(|c| c.hard && !c.ok)
            .map(|c| format!("{}: {}", c.name, c.detail))
            .collect()
    }
}

/// Runs every check on `facts`.
pub fn precheck(facts: &TokenFacts, limits: &TakeoverThresholds) -> Precheck {
    let checks = vec![
        contract(facts),
        deployer_bag(facts, limits.max_dev_bag_pct),
        top10(facts, limits.max_top10_pct),
        liquidity(facts, limits.min_liquidity_usd),
        pair_age(facts, limits.min_pair_age_days),
    ];
    let passed = checks.iter().all(|c| c.ok || !c.hard);
    Precheck { checks, passed }
}

fn hard(name: &str, ok: bool, detail: String) -> Check {
    Check {
        name: name.to_owned(),
        ok,
        detail,
        hard: true,
    }
}

fn contract(facts: &TokenFacts) -> Check {
    let present = facts.contract_present.value;
    let detail = if present {
        format!(
            "contract code at {} (block {})",
            facts.address, facts.block.value
        )
    } else {
        format!(
            "no contract code at {} (block {})",
            facts.address, facts.block.value
        )
    };
    hard("contract", present, detail)
}

fn deployer_bag(facts: &TokenFacts, max: f64) -> Check {
    match &facts.deployer {
        Some(deployer) => {
            let share = deployer.share_pct.value;
            hard(
                "deployer_bag",
                share <= max,
                format!(
                    "deployer {} holds {share:.2}% of the supply (max {max}%)",
                    deployer.address.value
                ),
            )
        }
        None => hard(
            "deployer_bag",
            false,
            format!("deployer unknown, its bag cannot be checked (max {max}%)"),
        ),
    }
}

fn top10(facts: &TokenFacts, max: f64) -> Check {
    match &facts.top10_share_pct {
        Some(share) => {
            let share = share.value;
            hard(
                "top10_holders",
                share <= max,
                format!(
                    "the top 10 holders hold {share:.2}%, pools and burns excluded (max {max}%)"
                ),
            )
        }
        None => hard(
            "top10_holders",
            false,
            format!("top holders unknown (max {max}%)"),
        ),
    }
}

fn liquidity(facts: &TokenFacts, min: f64) -> Check {
    let liquidity = facts.market.as_ref().and_then(|m| m.liquidity_usd.as_ref());
    match liquidity {
        Some(usd) => {
            let usd = usd.value;
            hard(
                "liquidity",
                usd >= min,
                format!("${usd:.0} in the most liquid pair (min ${min:.0})"),
            )
        }
        None => hard(
            "liquidity",
            false,
            format!("no pair with known liquidity (min ${min:.0})"),
        ),
    }
}

fn pair_age(facts: &TokenFacts, min: f64) -> Check {
    let age = facts.market.as_ref().and_then(|m| m.pair_age_days.as_ref());
    match age {
        Some(days) => {
            let days = days.value;
            hard(
                "pair_age",
                days >= min,
                format!("the pair is {days:.0} days old (min {min:.0})"),
            )
        }
        None => hard(
            "pair_age",
            false,
            format!("pair age unknown (min {min:.0} days)"),
        ),
    }
}
