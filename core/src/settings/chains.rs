//! Where the Scanner reads a token (`[chains.<name>]`: JSON-RPC node,
//! DEX-screener-style market API, Etherscan-compatible explorer) and the
//! thresholds its deterministic checks and the day-7 verdict apply
//! (`[takeover]`).

use secrecy::SecretString;
use serde::Deserialize;
use url::Url;

use super::{Problem, default_url};

text_enum! {
    /// A chain a token can live on. Solana is named so that asking for it
    /// says "not supported yet" rather than "unknown chain".
    pub enum ChainName as "chain" {
        Base => "base",
        Ethereum => "ethereum",
        Bsc => "bsc",
        Solana => "solana",
    }
}

/// The read-only services of each supported chain.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChainsSettings {
    pub base: ChainEndpoints,
    pub ethereum: ChainEndpoints,
    pub bsc: ChainEndpoints,
}

impl Default for ChainsSettings {
    fn default() -> Self {
        Self {
            base: ChainEndpoints::public("https://mainnet.base.org"),
            ethereum: ChainEndpoints::public("https://ethereum-rpc.publicnode.com"),
            bsc: ChainEndpoints::public("https://bsc-dataseed.bnb-chain.org"),
        }
    }
}

impl ChainsSettings {
    /// The services of `chain`; `None` for a chain not supported yet.
    pub fn get(&self, chain: ChainName) -> Option<&ChainEndpoints> {
        match chain {
            ChainName::Base => Some(&self.base),
            ChainName::Ethereum => Some(&self.ethereum),
            ChainName::Bsc => Some(&self.bsc),
            ChainName::Solana => None,
        }
    }

    /// Every configured chain with its services, in a fixed order.
    pub fn all(&self) -> [(ChainName, &ChainEndpoints); 3] {
        [
            (ChainName::Base, &self.base),
            (ChainName::Ethereum, &self.ethereum),
            (ChainName::Bsc, &self.bsc),
        ]
    }

    /// Every configured chain's services, to point them elsewhere (tests,
    /// `ulias simulate`).
    pub fn all_mut(&mut self) -> [&mut ChainEndpoints; 3] {
        [&mut self.base, &mut self.ethereum, &mut self.bsc]
    }
}

/// One chain's read-only services.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainEndpoints {
    /// An EVM JSON-RPC 2.0 node.
    pub rpc_url: Url,
    /// A DEX-screener-style API (`GET {market_url}/latest/dex/tokens/{address}`).
    pub market_url: Url,
    /// An Etherscan-compatible API (deployer, top holders); none: not read.
    #[serde(default)]
    pub explorer_url: Option<Url>,
    /// The explorer's API key.
    #[serde(default)]
    pub explorer_api_key: Option<SecretString>,
    /// Seconds each request may take, answer included.
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u64,
}

impl ChainEndpoints {
    fn public(rpc: &'static str) -> Self {
        Self {
            rpc_url: default_url(rpc),
            market_url: default_url("https://api.dexscreener.com"),
            explorer_url: None,
            explorer_api_key: None,
            timeout_seconds: default_timeout(),
        }
    }
}

fn default_timeout() -> u64 {
    10
}

/// The Scanner's deterministic thresholds (seed 000, T24): a token that
/// fails one is `no_go` whatever the model says.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TakeoverThresholds {
    /// The most the deployer may hold, in % of the supply.
    pub max_dev_bag_pct: f64,
    /// The most the ten largest holders (pool and burn addresses excluded) may hold, in %.
    pub max_top10_pct: f64,
    /// The least liquidity the token's main pair must have, in US dollars.
    pub min_liquidity_usd: f64,
    /// The youngest the main pair may be, in days (a dead token is not new).
    pub min_pair_age_days: f64,
    /// The day-7 verdict's thresholds.
    pub verdict: VerdictThresholds,
}

impl Default for TakeoverThresholds {
    fn default() -> Self {
        Self {
            max_dev_bag_pct: 5.0,
            max_top10_pct: 40.0,
            min_liquidity_usd: 5000.0,
            min_pair_age_days: 30.0,
            verdict: VerdictThresholds::default(),
        }
    }
}

/// When a token is `revived` at day 7 rather than `dead_again`: every
/// criterion must hold against J0's figures.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct VerdictThresholds {
    /// The mean 24 h volume of the last days must reach J0's times this.
    pub min_volume_multiple: f64,
    /// How many of the last days' volumes that mean takes.
    pub volume_days: u32,
    /// Holders must have grown by at least this many % since J0.
    pub min_holders_growth_pct: f64,
    /// The price may have fallen by at most this many % since J0.
    pub max_price_drop_pct: f64,
}

impl Default for VerdictThresholds {
    fn default() -> Self {
        Self {
            min_volume_multiple: 2.0,
            volume_days: 3,
            min_holders_growth_pct: 10.0,
            max_price_drop_pct: 20.0,
        }
    }
}

impl ChainsSettings {
    /// What is wrong with the chains' services, each tied to its key.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        for (name, chain) in self.all() {
            let key = |field: &str| format!("chains.{name}.{field}");
            let urls = [
                ("rpc_url", Some(&chain.rpc_url)),
                ("market_url", Some(&chain.market_url)),
                ("explorer_url", chain.explorer_url.as_ref()),
            ];
            for (field, url) in urls {
                if url.is_some_and(|url| !matches!(url.scheme(), "http" | "https")) {
                    problems.push(problem(key(field), "expected an http:// or https:// URL"));
                }
            }
            if !(1..=120).contains(&chain.timeout_seconds) {
                problems.push(problem(key("timeout_seconds"), "must be 1–120 seconds"));
            }
        }
        problems
    }
}

impl TakeoverThresholds {
    /// What is wrong with the thresholds, each tied to its key.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let verdict = &self.verdict;
        let percent = "expected a percentage from 0 to 100";
        let checks = [
            ("max_dev_bag_pct", is_percent(self.max_dev_bag_pct), percent),
            ("max_top10_pct", is_percent(self.max_top10_pct), percent),
            (
                "min_liquidity_usd",
                is_amount(self.min_liquidity_usd),
                "expected an amount in US dollars, from 0",
            ),
            (
                "min_pair_age_days",
                is_amount(self.min_pair_age_days) && self.min_pair_age_days <= 36_500.0,
                "expected a number of days from 0 to 36500",
            ),
            (
                "verdict.min_volume_multiple",
                is_amount(verdict.min_volume_multiple) && verdict.min_volume_multiple <= 1000.0,
                "expected a multiple of J0's volume from 0 to 1000, e.g. 2",
            ),
            (
                "verdict.volume_days",
                (1..=7).contains(&verdict.volume_days),
                "expected 1 to 7 days",
            ),
            (
                "verdict.min_holders_growth_pct",
                verdict.min_holders_growth_pct.is_finite()
                    && (-100.0..=10_000.0).contains(&verdict.min_holders_growth_pct),
                "expected a growth in % from -100 to 10000",
            ),
            (
                "verdict.max_price_drop_pct",
                is_percent(verdict.max_price_drop_pct),
                percent,
            ),
        ];
        checks
            .into_iter()
            .filter(|(_, ok, _)| !ok)
            .map(|(field, _, message)| problem(format!("takeover.{field}"), message))
            .collect()
    }
}

fn is_percent(value: f64) -> bool {
    value.is_finite() && (0.0..=100.0).contains(&value)
}

fn is_amount(value: f64) -> bool {
    value.is_finite() && value >= 0.0
}

fn problem(key: String, message: &str) -> Problem {
    Problem {
        key,
        message: message.to_owned(),
    }
}
