//! Chain and market data, read-only (seed 000, T24): what the Scanner's
//! deterministic checks stand on.
//!
//! - [`rpc`]: an EVM JSON-RPC 2.0 client (block, code, `eth_call` for
//!   decimals, supply and balances; batches).
//! - [`market`]: a DEX-screener-style market API (the most liquid pair).
//! - [`explorer`]: an Etherscan-compatible API (deployer, top holders,
//!   holder count).
//! - [`facts`]: [`TokenFacts`], every figure wrapped in [`Sourced`] (its
//!   service, host and time read), and [`ChainReader::read_token`].
//! - [`precheck`] and [`verdict`]: pure arithmetic on those figures, with
//!   the thresholds of settings; the model never overrides them.
//!
//! An unreachable or broken RPC node is a [`ChainError`]; a market or
//! explorer that cannot answer leaves its figures `None` with a line in
//! [`TokenFacts::gaps`], and the checks that needed them fail (closed).

pub mod abi;
pub mod explorer;
pub mod facts;
mod http;
pub mod market;
pub mod precheck;
pub mod rpc;
pub mod verdict;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use facts::{ChainReader, Holding, MarketFacts, SocialLink, TokenFacts, TokenSocials};
pub use precheck::{Check, Precheck, precheck};
pub use verdict::{DailyFigures, Day7, Day7Outcome, day7_verdict};

/// Which service a figure comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// The chain's JSON-RPC node.
    Rpc,
    /// The DEX-screener-style market API.
    Market,
    /// The Etherscan-compatible explorer.
    Explorer,
}

/// Where and when a figure was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Source {
    pub kind: SourceKind,
    /// The service's host (`mainnet.base.org`, `127.0.0.1:41234`).
    pub host: String,
    #[schemars(with = "String")]
    pub read_at: DateTime<Utc>,
}

/// A figure with its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl Source {
    /// `value`, read here.
    pub fn of<T>(&self, value: T) -> Sourced<T> {
        Sourced {
            value,
            source: self.clone(),
        }
    }
}

/// Why chain data could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChainError {
    /// A chain this build knows of but cannot read yet (Solana).
    #[error("the chain `{0}` is not supported yet")]
    NotSupported(String),
    /// A chain nobody configured.
    #[error("unknown chain `{0}` (expected base, ethereum or bsc)")]
    UnknownChain(String),
    /// The token's address is not one.
    #[error("invalid address: {0}")]
    Address(#[from] abi::AbiError),
    /// The service did not answer (refused, timed out).
    #[error("{service} at {host} is unreachable: {message}")]
    Unreachable {
        service: SourceKind,
        host: String,
        message: String,
    },
    /// The service answered with an HTTP error.
    #[error("{service} at {host} answered HTTP {status}")]
    Status {
        service: SourceKind,
        host: String,
        status: u16,
    },
    /// The answer is not what the protocol says.
    #[error("{service} at {host} answered something malformed: {message}")]
    Malformed {
        service: SourceKind,
        host: String,
        message: String,
    },
    /// A JSON-RPC error object.
    #[error("JSON-RPC error {code} from {host}: {message}")]
    Rpc {
        host: String,
        code: i64,
        message: String,
    },
    /// The explorer said `status "0"`.
    #[error("the explorer at {host} refused: {message}")]
    Explorer { host: String, message: String },
    /// The HTTP client could not be built.
    #[error("the HTTP client could not start: {0}")]
    Client(String),
}

impl std::fmt::Display for SourceKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Rpc => "the RPC node",
            Self::Market => "the market API",
            Self::Explorer => "the explorer",
        })
    }
}
