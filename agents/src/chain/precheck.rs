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

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};

    use super::*;
    use crate::chain::{Holding, MarketFacts, Source, SourceKind};

    fn source(kind: SourceKind) -> Source {
        Source {
            kind,
            host: "127.0.0.1".to_owned(),
            read_at: Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap(),
        }
    }

    fn holding(share: f64) -> Holding {
        let rpc = source(SourceKind::Rpc);
        Holding {
            address: source(SourceKind::Explorer).of("0xd3".to_owned()),
            balance: rpc.of(share),
            share_pct: rpc.of(share),
            excluded: None,
        }
    }

    /// A token with these figures (`None`: not read).
    fn token(dev: Option<f64>, top10: Option<f64>, liquidity: Option<f64>, age: f64) -> TokenFacts {
        let (rpc, market) = (source(SourceKind::Rpc), source(SourceKind::Market));
        TokenFacts {
            chain: "base".to_owned(),
            address: "0xaa".to_owned(),
            read_at: rpc.read_at,
            block: rpc.of(1),
            contract_present: rpc.of(true),
            decimals: Some(rpc.of(18)),
            total_supply: Some(rpc.of(1e9)),
            deployer: dev.map(holding),
            top_holders: Vec::new(),
            top10_share_pct: top10.map(|v| rpc.of(v)),
            market: liquidity.map(|usd| MarketFacts {
                pair_address: market.of("0xpool".to_owned()),
                dex: market.of("uniswap".to_owned()),
                symbol: None,
                name: None,
                price_usd: Some(market.of(0.01)),
                liquidity_usd: Some(market.of(usd)),
                volume_24h_usd: None,
                pair_age_days: Some(market.of(age)),
                buys_24h: None,
                sells_24h: None,
                market_cap_usd: None,
                holders: None,
            }),
            gaps: Vec::new(),
        }
    }

    #[test]
    fn each_threshold_decides_its_own_check() {
        let limits = TakeoverThresholds::default();
        // (case, facts, the checks that fail)
        let table: Vec<(&str, TokenFacts, Vec<&str>)> = vec![
            (
                "healthy",
                token(Some(2.0), Some(30.0), Some(12_000.0), 600.0),
                vec![],
            ),
            (
                "at every bar",
                token(Some(5.0), Some(40.0), Some(5_000.0), 30.0),
                vec![],
            ),
            (
                "dev bag 6 %",
                token(Some(6.0), Some(30.0), Some(12_000.0), 600.0),
                vec!["deployer_bag"],
            ),
            (
                "top 10 at 41 %",
                token(Some(2.0), Some(41.0), Some(12_000.0), 600.0),
                vec!["top10_holders"],
            ),
            (
                "thin pool",
                token(Some(2.0), Some(30.0), Some(4_999.0), 600.0),
                vec!["liquidity"],
            ),
            (
                "a new pair",
                token(Some(2.0), Some(30.0), Some(12_000.0), 3.0),
                vec!["pair_age"],
            ),
            (
                "no explorer",
                token(None, None, Some(12_000.0), 600.0),
                vec!["deployer_bag", "top10_holders"],
            ),
            (
                "no pair",
                token(Some(2.0), Some(30.0), None, 0.0),
                vec!["liquidity", "pair_age"],
            ),
        ];
        for (case, facts, failing) in table {
            let result = precheck(&facts, &limits);
            let failed: Vec<&str> = result
                .checks
                .iter()
                .filter(|c| !c.ok)
                .map(|c| c.name.as_str())
                .collect();
            assert_eq!(failed, failing, "{case}");
            assert_eq!(result.passed, failing.is_empty(), "{case}");
            assert_eq!(result.failures().len(), failing.len(), "{case}");
        }
    }

    #[test]
    fn no_contract_fails_and_says_where_it_looked() {
        let mut facts = token(Some(2.0), Some(30.0), Some(12_000.0), 600.0);
        facts.contract_present.value = false;
        let result = precheck(&facts, &TakeoverThresholds::default());
        assert!(!result.passed);
        assert_eq!(
            result.failures(),
            ["contract: no contract code at 0xaa (block 1)"]
        );
    }

    #[test]
    fn a_failed_check_shows_its_figure_and_the_threshold() {
        let facts = token(Some(6.0), Some(30.0), Some(12_000.0), 600.0);
        let result = precheck(&facts, &TakeoverThresholds::default());
        assert_eq!(
            result.failures(),
            ["deployer_bag: deployer 0xd3 holds 6.00% of the supply (max 5%)"]
        );
    }
}
