//! The tokens a chain stand-in serves, as a fixture file describes them
//! (`fixtures/simulation/chain.json`): balances in whole tokens, the pair's
//! market figures, the explorer's key.

use serde::{Deserialize, Serialize};

/// Everything the stand-in knows.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainFixture {
    /// What the fixture is, for people.
    #[serde(default)]
    pub about: String,
    /// The latest block.
    #[serde(default = "default_block")]
    pub block: u64,
    /// The explorer's only accepted `apikey`.
    #[serde(default)]
    pub api_key: String,
    pub tokens: Vec<FixtureToken>,
}

/// One token on one chain.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureToken {
    /// `base`, `ethereum` or `bsc` (the market API's chain id).
    pub chain: String,
    pub address: String,
    pub name: String,
    pub symbol: String,
    pub decimals: u8,
    /// Whole tokens.
    pub total_supply: u64,
    pub deployer: String,
    /// Every holder the chain knows, whole tokens, the deployer included if
    /// it still holds; the explorer lists them largest first.
    pub balances: Vec<Balance>,
    /// What the explorer's holder count says.
    #[serde(default)]
    pub holders_count: Option<u64>,
    /// Every `eth_call` to it reverts (a contract that is no ERC-20).
    #[serde(default)]
    pub reverts: bool,
    /// The token's pairs; none: the market API has no pair for it.
    #[serde(default)]
    pub pairs: Vec<FixturePair>,
    /// The websites listed for it on the market site.
    #[serde(default)]
    pub websites: Vec<String>,
    /// Its social accounts there: `(type, url)`, e.g. `("twitter", "https://x.com/…")`.
    #[serde(default)]
    pub socials: Vec<(String, String)>,
}

/// An address's balance, in whole tokens.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Balance {
    pub address: String,
    pub tokens: u64,
}

/// A pair as the market API shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixturePair {
    pub address: String,
    pub dex: String,
    pub price_usd: f64,
    pub liquidity_usd: f64,
    pub volume_24h_usd: f64,
    /// Unix milliseconds.
    pub created_at_ms: i64,
    pub buys_24h: u64,
    pub sells_24h: u64,
    pub market_cap_usd: f64,
}

fn default_block() -> u64 {
    19_000_000
}

impl ChainFixture {
    /// Parses a fixture file's text.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The token at `address` (any case), on any chain.
    pub fn token(&self, address: &str) -> Option<&FixtureToken> {
        self.tokens
            .iter()
            .find(|t| t.address.eq_ignore_ascii_case(address))
    }

    /// The token at `address`, to change its figures.
    pub fn token_mut(&mut self, address: &str) -> Option<&mut FixtureToken> {
        self.tokens
            .iter_mut()
            .find(|t| t.address.eq_ignore_ascii_case(address))
    }
}

impl FixtureToken {
    /// One whole token in raw units.
    pub fn unit(&self) -> u128 {
        10u128.saturating_pow(u32::from(self.decimals))
    }

    /// The raw supply.
    pub fn raw_supply(&self) -> u128 {
        u128::from(self.total_supply).saturating_mul(self.unit())
    }

    /// The raw balance of `holder` (0 for an address it does not know).
    pub fn raw_balance(&self, holder: &str) -> u128 {
        self.balances
            .iter()
            .find(|b| b.address.eq_ignore_ascii_case(holder))
            .map_or(0, |b| u128::from(b.tokens).saturating_mul(self.unit()))
    }

    /// The holders, largest first.
    pub fn holders_by_size(&self) -> Vec<&Balance> {
        let mut holders: Vec<&Balance> = self.balances.iter().filter(|b| b.tokens > 0).collect();
        holders.sort_by_key(|b| std::cmp::Reverse(b.tokens));
        holders
    }
}
