//! [`TokenFacts`]: what the chain, the market and the explorer say about a
//! token, each figure with its source and time; and [`ChainReader`], which
//! reads them with the services of settings.

use std::time::Duration;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::settings::{
    ChainEndpoints, ChainName, ChainsSettings, HttpSettings, Settings, TakeoverThresholds,
};

use super::abi;
use super::explorer::ExplorerClient;
use super::http::client;
use super::market::MarketClient;
use super::rpc::RpcClient;
use super::{ChainError, Source, SourceKind, Sourced};

pub use super::market::{MarketFacts, SocialLink, TokenSocials};

/// Holders asked of the explorer: enough for ten once pools and burn
/// addresses are set aside.
const HOLDERS_ASKED: u32 = 20;
/// Holders the top-10 share adds up.
const TOP: usize = 10;
/// Addresses tokens are sent to be destroyed.
const BURN: [&str; 2] = [
    "0x0000000000000000000000000000000000000000",
    "0x000000000000000000000000000000000000dead",
];

/// Everything read about one token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenFacts {
    /// `base`, `ethereum` or `bsc`.
    pub chain: String,
    /// The contract, lowercased.
    pub address: String,
    #[schemars(with = "String")]
    pub read_at: DateTime<Utc>,
    pub block: Sourced<u64>,
    pub contract_present: Sourced<bool>,
    pub decimals: Option<Sourced<u8>>,
    /// In tokens (decimals applied).
    pub total_supply: Option<Sourced<f64>>,
    /// Unknown without an explorer.
    pub deployer: Option<Holding>,
    /// The largest holders, largest first (at most ten counted).
    pub top_holders: Vec<Holding>,
    /// The share of the ten largest holders, pools and burn addresses excluded.
    pub top10_share_pct: Option<Sourced<f64>>,
    /// `None` when the token has no pair on this chain (or the API failed: see gaps).
    pub market: Option<MarketFacts>,
    /// What could not be read, and why.
    pub gaps: Vec<String>,
}

/// An address and what it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Holding {
    /// Named by the explorer.
    pub address: Sourced<String>,
    /// In tokens, read on the chain.
    pub balance: Sourced<f64>,
    /// Of the total supply, read on the chain.
    pub share_pct: Sourced<f64>,
    /// Why it does not count in the top-10 share (`liquidity pool`, `burn address`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
}

/// Reads tokens on the chains of settings. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ChainReader {
    http: reqwest::Client,
    chains: ChainsSettings,
    thresholds: TakeoverThresholds,
}

/// One chain's clients.
struct Clients {
    rpc: RpcClient,
    market: MarketClient,
    explorer: Option<ExplorerClient>,
}

impl ChainReader {
    /// A reader of `chains`, carrying the takeover's `thresholds` for the
    /// checks run on what it reads; connections time out as `http` says.
    pub fn new(
        chains: ChainsSettings,
        thresholds: TakeoverThresholds,
        http: &HttpSettings,
    ) -> Result<Self, ChainError> {
        Ok(Self {
            http: client(Duration::from_secs(http.connect_timeout_seconds))?,
            chains,
            thresholds,
        })
    }

    /// A reader of the chains and thresholds of `settings`.
    pub fn from_settings(settings: &Settings) -> Result<Self, ChainError> {
        Self::new(
            settings.chains.clone(),
            settings.takeover.clone(),
            &settings.http,
        )
    }

    /// The takeover's thresholds.
    pub fn thresholds(&self) -> &TakeoverThresholds {
        &self.thresholds
    }

    /// Reads `address` on `chain` at `now`. An RPC node that cannot answer
    /// is an error; a market or explorer that cannot is a gap.
    pub async fn read_token(
        &self,
        chain: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<TokenFacts, ChainError> {
        let (name, clients) = self.clients(chain)?;
        let address = abi::parse_address(address)?;
        let rpc = Source {
            kind: SourceKind::Rpc,
            host: clients.rpc.host().to_owned(),
            read_at: now,
        };
        let block = clients.rpc.block_number().await?;
        let present = clients.rpc.has_code(&address).await?;
        let mut facts = TokenFacts {
            chain: name.to_string(),
            address: address.clone(),
            read_at: now,
            block: rpc.of(block),
            contract_present: rpc.of(present),
            decimals: None,
            total_supply: None,
            deployer: None,
            top_holders: Vec::new(),
            top10_share_pct: None,
            market: None,
            gaps: Vec::new(),
        };
        if !present {
            facts.gaps.push("no contract at this address".to_owned());
            return Ok(facts);
        }
        let decimals = clients.rpc.decimals(&address).await?;
        let supply = clients.rpc.total_supply(&address).await?;
        facts.decimals = Some(rpc.of(decimals));
        facts.total_supply = Some(rpc.of(abi::to_tokens(supply, decimals)));
        facts.market = match clients.market.token(name.as_str(), &address, now).await {
            Ok(market) => market,
            Err(error) => {
                facts.gaps.push(format!("market: {error}"));
                None
            }
        };
        let Some(explorer) = &clients.explorer else {
            facts
                .gaps
                .push("explorer not configured: deployer and holders unknown".to_owned());
            return Ok(facts);
        };
        let units = Units {
            supply,
            decimals,
            rpc: &rpc,
        };
        read_holders(&clients.rpc, explorer, &units, &mut facts).await?;
        Ok(facts)
    }

    /// The market of `address` on `chain` alone.
    pub async fn read_market(
        &self,
        chain: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<MarketFacts>, ChainError> {
        let (name, clients) = self.clients(chain)?;
        let address = abi::parse_address(address)?;
        clients.market.token(name.as_str(), &address, now).await
    }

    /// The websites and social accounts listed for a token on the market site.
    pub async fn read_socials(
        &self,
        chain: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TokenSocials>, ChainError> {
        let (name, clients) = self.clients(chain)?;
        let address = abi::parse_address(address)?;
        clients.market.socials(name.as_str(), &address, now).await
    }

    fn clients(&self, chain: &str) -> Result<(ChainName, Clients), ChainError> {
        let name: ChainName = chain
            .trim()
            .to_ascii_lowercase()
            .parse()
            .map_err(|_| ChainError::UnknownChain(chain.to_owned()))?;
        let endpoints = self
            .chains
            .get(name)
            .ok_or_else(|| ChainError::NotSupported(name.to_string()))?;
        Ok((name, self.clients_of(endpoints)))
    }

    fn clients_of(&self, chain: &ChainEndpoints) -> Clients {
        let timeout = Duration::from_secs(chain.timeout_seconds);
        let http = self.http.clone();
        Clients {
            rpc: RpcClient::new(http.clone(), chain.rpc_url.clone(), timeout),
            market: MarketClient::new(http.clone(), chain.market_url.clone(), timeout),
            explorer: chain
                .explorer_url
                .clone()
                .map(|url| ExplorerClient::new(http, url, chain.explorer_api_key.clone(), timeout)),
        }
    }
}

/// What raw balances are measured against.
struct Units<'a> {
    supply: u128,
    decimals: u8,
    rpc: &'a Source,
}

impl Units<'_> {
    fn holding(&self, address: String, raw: u128, named_by: &Source) -> Holding {
        Holding {
            address: named_by.of(address),
            balance: self.rpc.of(abi::to_tokens(raw, self.decimals)),
            share_pct: self.rpc.of(abi::share_pct(raw, self.supply)),
            excluded: None,
        }
    }
}

/// The deployer, the top holders and the holder count: named by the
/// explorer (a refusal is a gap), measured on the chain (a failure is an error).
async fn read_holders(
    rpc: &RpcClient,
    explorer: &ExplorerClient,
    units: &Units<'_>,
    facts: &mut TokenFacts,
) -> Result<(), ChainError> {
    let named = Source {
        kind: SourceKind::Explorer,
        host: explorer.host().to_owned(),
        read_at: facts.read_at,
    };
    let deployer = explorer
        .deployer(&facts.address)
        .await
        .map_err(|e| facts.gaps.push(format!("deployer: {e}")))
        .ok();
    let holders = explorer
        .top_holders(&facts.address, HOLDERS_ASKED)
        .await
        .map_err(|e| facts.gaps.push(format!("top holders: {e}")))
        .unwrap_or_default();
    let mut addresses: Vec<String> = deployer.iter().cloned().collect();
    addresses.extend(holders.iter().cloned());
    let balances = rpc.balances_of(&facts.address, &addresses).await?;
    // The deployer, when known, was asked first.
    let holder_balances = match (deployer, balances.split_first()) {
        (Some(address), Some((raw, rest))) => {
            facts.deployer = Some(units.holding(address, *raw, &named));
            rest
        }
        _ => &balances[..],
    };
    let pool = facts
        .market
        .as_ref()
        .map(|m| m.pair_address.value.to_ascii_lowercase());
    facts.top_holders = holders
        .into_iter()
        .zip(holder_balances)
        .map(|(address, raw)| {
            let mut holding = units.holding(address, *raw, &named);
            holding.excluded = exclusion(&holding.address.value, pool.as_deref());
            holding
        })
        .collect();
    if !facts.top_holders.is_empty() {
        let share: f64 = counted(&facts.top_holders).map(|h| h.share_pct.value).sum();
        facts.top10_share_pct = Some(units.rpc.of(share));
    }
    match explorer.holder_count(&facts.address).await {
        Ok(count) => match facts.market.as_mut() {
            Some(market) => market.holders = Some(named.of(count)),
            None => facts
                .gaps
                .push(format!("{count} holders, but no market to file them under")),
        },
        Err(error) => facts.gaps.push(format!("holder count: {error}")),
    }
    Ok(())
}

/// The holdings the top-10 share counts, in order.
pub fn counted(holders: &[Holding]) -> impl Iterator<Item = &Holding> {
    holders.iter().filter(|h| h.excluded.is_none()).take(TOP)
}

fn exclusion(address: &str, pool: Option<&str>) -> Option<String> {
    let address = address.to_ascii_lowercase();
    if Some(address.as_str()) == pool {
        Some("liquidity pool".to_owned())
    } else if BURN.contains(&address.as_str()) {
        Some("burn address".to_owned())
    } else {
        None
    }
}
