//! A DEX-screener-style market API: `GET {base}/latest/dex/tokens/{address}`
//! answers DexScreener's JSON (`pairs[]` with `priceUsd`, `liquidity.usd`,
//! `volume.h24`, `txns.h24`, `pairCreatedAt` in ms, `fdv`, `marketCap`).
//! The token's market is its most liquid pair on the chain asked for.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::Url;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::http::Endpoint;
use super::{ChainError, Source, SourceKind, Sourced};

/// The market API.
#[derive(Debug, Clone)]
pub struct MarketClient {
    http: reqwest::Client,
    endpoint: Endpoint,
}

/// A token's market, from its most liquid pair. Texts (`dex`, `symbol`,
/// `name`) come from outside: tools hand them to models as untrusted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MarketFacts {
    pub pair_address: Sourced<String>,
    pub dex: Sourced<String>,
    pub symbol: Option<Sourced<String>>,
    pub name: Option<Sourced<String>>,
    pub price_usd: Option<Sourced<f64>>,
    pub liquidity_usd: Option<Sourced<f64>>,
    pub volume_24h_usd: Option<Sourced<f64>>,
    pub pair_age_days: Option<Sourced<f64>>,
    pub buys_24h: Option<Sourced<u64>>,
    pub sells_24h: Option<Sourced<u64>>,
    /// The market cap, or the fully diluted value when the API gives no cap.
    pub market_cap_usd: Option<Sourced<f64>>,
    /// Filled from the explorer when it counts holders.
    pub holders: Option<Sourced<u64>>,
}

#[derive(Debug, Deserialize)]
struct Answer {
    #[serde(default)]
    pairs: Option<Vec<Pair>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Pair {
    chain_id: String,
    #[serde(default)]
    dex_id: String,
    pair_address: String,
    #[serde(default)]
    base_token: Option<TokenInfo>,
    #[serde(default)]
    price_usd: Option<String>,
    #[serde(default)]
    txns: Option<Txns>,
    #[serde(default)]
    volume: Option<Window>,
    #[serde(default)]
    liquidity: Option<Liquidity>,
    #[serde(default)]
    fdv: Option<f64>,
    #[serde(default)]
    market_cap: Option<f64>,
    #[serde(default)]
    pair_created_at: Option<i64>,
    #[serde(default)]
    info: Option<PairInfo>,
}

/// What the token's team listed on the market site: its websites and its
/// social accounts.
#[derive(Debug, Deserialize)]
struct PairInfo {
    #[serde(default)]
    websites: Vec<Website>,
    #[serde(default)]
    socials: Vec<Social>,
}

#[derive(Debug, Deserialize)]
struct Website {
    #[serde(default)]
    label: Option<String>,
    url: String,
}

#[derive(Debug, Deserialize)]
struct Social {
    #[serde(rename = "type")]
    kind: String,
    url: String,
}

/// A token's websites and social accounts, as listed on the market site.
/// Every text comes from whoever listed the token: tools hand them to
/// models as untrusted, and nothing here is ever fetched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenSocials {
    /// `website`, `twitter`, `telegram`, `discord`…, with the address listed.
    pub links: Vec<SocialLink>,
    pub source: Source,
}

/// One listed link.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SocialLink {
    /// `website` for a site, else the market site's type (`twitter`,
    /// `telegram`, `discord`).
    pub kind: String,
    /// The website's label, when it has one.
    pub label: Option<String>,
    pub url: String,
}

#[derive(Debug, Deserialize)]
struct TokenInfo {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    symbol: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Txns {
    #[serde(default)]
    h24: Option<BuysSells>,
}

#[derive(Debug, Deserialize)]
struct BuysSells {
    #[serde(default)]
    buys: u64,
    #[serde(default)]
    sells: u64,
}

#[derive(Debug, Deserialize)]
struct Window {
    #[serde(default)]
    h24: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Liquidity {
    #[serde(default)]
    usd: Option<f64>,
}

impl MarketClient {
    /// A client of the API at `base`.
    pub fn new(http: reqwest::Client, base: Url, timeout: Duration) -> Self {
        Self {
            http,
            endpoint: Endpoint::new(SourceKind::Market, base, timeout),
        }
    }

    /// The market of `address` on `chain` (DexScreener's chain id: `base`,
    /// `ethereum`, `bsc`); `None` when it has no pair there.
    pub async fn token(
        &self,
        chain: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<MarketFacts>, ChainError> {
        let best = self.best_pair(chain, address).await?;
        let source = self.source(now);
        best.map(|pair| self.facts(pair, &source)).transpose()
    }

    /// The websites and social accounts listed for `address` on `chain`
    /// (its pairs' `info`, the most liquid pair first, duplicates once);
    /// `None` when it has no pair there.
    pub async fn socials(
        &self,
        chain: &str,
        address: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<TokenSocials>, ChainError> {
        let mut pairs = self.pairs_on(chain, address).await?;
        if pairs.is_empty() {
            return Ok(None);
        }
        pairs.sort_by(|a, b| liquidity(b).total_cmp(&liquidity(a)));
        let mut links: Vec<SocialLink> = Vec::new();
        for info in pairs.into_iter().filter_map(|pair| pair.info) {
            let websites = info.websites.into_iter().map(|site| SocialLink {
                kind: "website".to_owned(),
                label: site.label,
                url: site.url,
            });
            let socials = info.socials.into_iter().map(|social| SocialLink {
                kind: social.kind.to_ascii_lowercase(),
                label: None,
                url: social.url,
            });
            for link in websites.chain(socials) {
                if !links.iter().any(|known| known.url == link.url) {
                    links.push(link);
                }
            }
        }
        Ok(Some(TokenSocials {
            links,
            source: self.source(now),
        }))
    }

    async fn best_pair(&self, chain: &str, address: &str) -> Result<Option<Pair>, ChainError> {
        let pairs = self.pairs_on(chain, address).await?;
        Ok(pairs
            .into_iter()
            .max_by(|a, b| liquidity(a).total_cmp(&liquidity(b))))
    }

    /// The token's pairs on `chain`.
    async fn pairs_on(&self, chain: &str, address: &str) -> Result<Vec<Pair>, ChainError> {
        let mut url = self.endpoint.url.clone();
        url.path_segments_mut()
            .map_err(|()| self.endpoint.malformed("the market URL cannot take a path"))?
            .pop_if_empty()
            .extend(["latest", "dex", "tokens", address]);
        let answer: Answer = self.endpoint.json(self.http.get(url)).await?;
        Ok(answer
            .pairs
            .unwrap_or_default()
            .into_iter()
            .filter(|pair| pair.chain_id.eq_ignore_ascii_case(chain))
            .collect())
    }

    fn source(&self, now: DateTime<Utc>) -> Source {
        Source {
            kind: SourceKind::Market,
            host: self.endpoint.host.clone(),
            read_at: now,
        }
    }

    fn facts(&self, pair: Pair, source: &Source) -> Result<MarketFacts, ChainError> {
        let price = match &pair.price_usd {
            Some(text) => Some(
                text.parse::<f64>()
                    .map_err(|_| self.endpoint.malformed(format!("priceUsd `{text}`")))?,
            ),
            None => None,
        };
        let age_days = pair
            .pair_created_at
            .and_then(DateTime::from_timestamp_millis)
            .map(|created| (source.read_at - created).num_seconds() as f64 / 86_400.0);
        let day = pair.txns.and_then(|t| t.h24);
        let (symbol, name) = match pair.base_token {
            Some(token) => (token.symbol, token.name),
            None => (None, None),
        };
        Ok(MarketFacts {
            symbol: symbol.map(|v| source.of(v)),
            name: name.map(|v| source.of(v)),
            price_usd: price.map(|v| source.of(v)),
            liquidity_usd: pair.liquidity.and_then(|l| l.usd).map(|v| source.of(v)),
            volume_24h_usd: pair.volume.and_then(|v| v.h24).map(|v| source.of(v)),
            pair_age_days: age_days.map(|v| source.of(v)),
            buys_24h: day.as_ref().map(|d| source.of(d.buys)),
            sells_24h: day.as_ref().map(|d| source.of(d.sells)),
            market_cap_usd: pair.market_cap.or(pair.fdv).map(|v| source.of(v)),
            holders: None,
            pair_address: source.of(pair.pair_address),
            dex: source.of(pair.dex_id),
        })
    }
}

fn liquidity(pair: &Pair) -> f64 {
    pair.liquidity.as_ref().and_then(|l| l.usd).unwrap_or(0.0)
}
