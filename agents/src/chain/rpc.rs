//! An EVM JSON-RPC 2.0 client: the latest block, whether an address holds
//! code, and `eth_call` for an ERC-20's decimals, supply and balances
//! (many balances in one batch request).

use std::time::Duration;

use reqwest::Url;
use serde::Deserialize;
use serde_json::{Value, json};

use super::abi::{self, AbiError};
use super::http::Endpoint;
use super::{ChainError, SourceKind};

/// A JSON-RPC node.
#[derive(Debug, Clone)]
pub struct RpcClient {
    http: reqwest::Client,
    endpoint: Endpoint,
}

/// One JSON-RPC answer.
#[derive(Debug, Deserialize)]
struct Envelope {
    #[serde(default)]
    id: Value,
    #[serde(default)]
    result: Option<Value>,
    #[serde(default)]
    error: Option<ErrorObject>,
}

#[derive(Debug, Deserialize)]
struct ErrorObject {
    code: i64,
    #[serde(default)]
    message: String,
}

impl RpcClient {
    /// A client of the node at `url`; each request may take `timeout`.
    pub fn new(http: reqwest::Client, url: Url, timeout: Duration) -> Self {
        Self {
            http,
            endpoint: Endpoint::new(SourceKind::Rpc, url, timeout),
        }
    }

    /// The node's host, as sources name it.
    pub fn host(&self) -> &str {
        &self.endpoint.host
    }

    /// `eth_blockNumber`.
    pub async fn block_number(&self) -> Result<u64, ChainError> {
        let result = self.call("eth_blockNumber", json!([])).await?;
        let block = self.uint(&result)?;
        u64::try_from(block).map_err(|_| self.endpoint.malformed("a block number past 2^64"))
    }

    /// Whether `address` holds contract code at the latest block.
    pub async fn has_code(&self, address: &str) -> Result<bool, ChainError> {
        let address = abi::parse_address(address)?;
        let result = self.call("eth_getCode", json!([address, "latest"])).await?;
        let code = self.text(&result)?;
        Ok(!code
            .trim_start_matches("0x")
            .trim_start_matches('0')
            .is_empty())
    }

    /// `decimals()` of the token at `token`.
    pub async fn decimals(&self, token: &str) -> Result<u8, ChainError> {
        let value = self.uint(&self.eth_call(token, abi::DECIMALS).await?)?;
        u8::try_from(value).map_err(|_| self.endpoint.malformed(format!("decimals = {value}")))
    }

    /// `totalSupply()` of the token at `token`, in raw units.
    pub async fn total_supply(&self, token: &str) -> Result<u128, ChainError> {
        self.uint(&self.eth_call(token, abi::TOTAL_SUPPLY).await?)
    }

    /// `balanceOf(holder)` of the token at `token`, in raw units.
    pub async fn balance_of(&self, token: &str, holder: &str) -> Result<u128, ChainError> {
        let data = abi::balance_of_call(holder)?;
        self.uint(&self.eth_call(token, &data).await?)
    }

    /// `balanceOf` of every holder, in one batch request, in their order.
    pub async fn balances_of(
        &self,
        token: &str,
        holders: &[String],
    ) -> Result<Vec<u128>, ChainError> {
        if holders.is_empty() {
            return Ok(Vec::new());
        }
        let token = abi::parse_address(token)?;
        let batch = holders
            .iter()
            .enumerate()
            .map(|(id, holder)| {
                let data = abi::balance_of_call(holder)?;
                Ok(request(
                    id,
                    "eth_call",
                    json!([{"to": token, "data": data}, "latest"]),
                ))
            })
            .collect::<Result<Vec<Value>, AbiError>>()?;
        let answers: Vec<Envelope> = self
            .endpoint
            .json(
                self.http
                    .post(self.endpoint.url.clone())
                    .json_body(&Value::Array(batch)),
            )
            .await?;
        let mut balances = vec![None; holders.len()];
        for answer in answers {
            let slot = answer
                .id
                .as_u64()
                .and_then(|id| usize::try_from(id).ok())
                .and_then(|id| balances.get_mut(id))
                .ok_or_else(|| {
                    self.endpoint
                        .malformed(format!("an answer with id {}", answer.id))
                })?;
            *slot = Some(self.uint(&self.result_of(answer)?)?);
        }
        balances
            .into_iter()
            .map(|b| b.ok_or_else(|| self.endpoint.malformed("a batch answer is missing")))
            .collect()
    }

    async fn eth_call(&self, token: &str, data: &str) -> Result<Value, ChainError> {
        let token = abi::parse_address(token)?;
        self.call("eth_call", json!([{"to": token, "data": data}, "latest"]))
            .await
    }

    /// One request; its answer's `result`, or its error object as an error.
    async fn call(&self, method: &str, params: Value) -> Result<Value, ChainError> {
        let body = request(1, method, params);
        let answer: Envelope = self
            .endpoint
            .json(self.http.post(self.endpoint.url.clone()).json_body(&body))
            .await?;
        if answer.id != json!(1) {
            return Err(self
                .endpoint
                .malformed(format!("answer id {} for id 1", answer.id)));
        }
        self.result_of(answer)
    }

    fn result_of(&self, answer: Envelope) -> Result<Value, ChainError> {
        match (answer.result, answer.error) {
            (_, Some(error)) => Err(ChainError::Rpc {
                host: self.endpoint.host.clone(),
                code: error.code,
                message: error.message,
            }),
            (Some(result), None) => Ok(result),
            (None, None) => Err(self.endpoint.malformed("neither result nor error")),
        }
    }

    fn text<'a>(&self, value: &'a Value) -> Result<&'a str, ChainError> {
        value.as_str().ok_or_else(|| {
            self.endpoint
                .malformed(format!("expected a hex string, got {value}"))
        })
    }

    fn uint(&self, value: &Value) -> Result<u128, ChainError> {
        abi::decode_uint(self.text(value)?).map_err(|e| self.endpoint.malformed(e.to_string()))
    }
}

fn request(id: usize, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A JSON body without reqwest's `json` feature.
trait JsonBody {
    fn json_body(self, body: &Value) -> Self;
}

impl JsonBody for reqwest::RequestBuilder {
    fn json_body(self, body: &Value) -> Self {
        self.header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string())
    }
}
