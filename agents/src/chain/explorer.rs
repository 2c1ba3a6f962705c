//! An Etherscan-compatible explorer API: who deployed a contract, its
//! largest holders, how many holders it has. Answers are
//! `{"status":"1","message":"OK","result":…}`; `status "0"` is a refusal
//! (a wrong key, an unknown contract). The explorer only names addresses:
//! balances and shares are read on the chain.

use std::time::Duration;

use reqwest::Url;
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::http::Endpoint;
use super::{ChainError, SourceKind};

/// The explorer.
#[derive(Debug, Clone)]
pub struct ExplorerClient {
    http: reqwest::Client,
    endpoint: Endpoint,
    api_key: Option<SecretString>,
}

#[derive(Debug, Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    result: Value,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Creation {
    contract_creator: String,
}

#[derive(Debug, Deserialize)]
struct HolderRow {
    #[serde(rename = "TokenHolderAddress")]
    address: String,
}

impl ExplorerClient {
    /// A client of the API at `url` (which may carry a query, e.g. `?chainid=8453`).
    pub fn new(
        http: reqwest::Client,
        url: Url,
        api_key: Option<SecretString>,
        timeout: Duration,
    ) -> Self {
        Self {
            http,
            endpoint: Endpoint::new(SourceKind::Explorer, url, timeout),
            api_key,
        }
    }

    /// The explorer's host, as sources name it.
    pub fn host(&self) -> &str {
        &self.endpoint.host
    }

    /// The address that deployed `contract`.
    pub async fn deployer(&self, contract: &str) -> Result<String, ChainError> {
        let rows: Vec<Creation> = self
            .get(&[
                ("module", "contract"),
                ("action", "getcontractcreation"),
                ("contractaddresses", contract),
            ])
            .await?;
        rows.into_iter()
            .next()
            .map(|row| row.contract_creator)
            .ok_or_else(|| self.endpoint.malformed("no creation row for the contract"))
    }

    /// The addresses of the `count` largest holders of `token`, largest first.
    pub async fn top_holders(&self, token: &str, count: u32) -> Result<Vec<String>, ChainError> {
        let count = count.to_string();
        let rows: Vec<HolderRow> = self
            .get(&[
                ("module", "token"),
                ("action", "tokenholderlist"),
                ("contractaddress", token),
                ("page", "1"),
                ("offset", &count),
            ])
            .await?;
        Ok(rows.into_iter().map(|row| row.address).collect())
    }

    /// How many addresses hold `token`.
    pub async fn holder_count(&self, token: &str) -> Result<u64, ChainError> {
        let count: Value = self
            .get(&[
                ("module", "token"),
                ("action", "tokenholdercount"),
                ("contractaddress", token),
            ])
            .await?;
        match &count {
            Value::String(text) => text.parse().ok(),
            other => other.as_u64(),
        }
        .ok_or_else(|| self.endpoint.malformed(format!("holder count {count}")))
    }

    async fn get<T: DeserializeOwned>(&self, query: &[(&str, &str)]) -> Result<T, ChainError> {
        let mut url = self.endpoint.url.clone();
        {
            let mut pairs = url.query_pairs_mut();
            pairs.extend_pairs(query);
            let key = self.api_key.as_ref().map(ExposeSecret::expose_secret);
            pairs.append_pair("apikey", key.unwrap_or_default());
        }
        let answer: Answer = self.endpoint.json(self.http.get(url)).await?;
        if answer.status != "1" {
            let detail = answer.result.as_str().unwrap_or_default();
            return Err(ChainError::Explorer {
                host: self.endpoint.host.clone(),
                message: format!("{} {detail}", answer.message).trim().to_owned(),
            });
        }
        serde_json::from_value(answer.result).map_err(|e| self.endpoint.malformed(e.to_string()))
    }
}
