//! A loopback stand-in for a chain's read-only services, over real HTTP,
//! serving the tokens of a [`ChainFixture`]:
//!
//! - `POST /rpc`: JSON-RPC 2.0 (ids echoed, batches, `-32700` unparsable,
//!   `-32600` not a request, `-32601` unknown method, `-32602` bad params):
//!   `eth_chainId`, `eth_blockNumber`, `eth_getCode`, `eth_call` of
//!   `decimals()`, `totalSupply()`, `balanceOf(address)`;
//! - `GET /market/latest/dex/tokens/{address}`: DexScreener's JSON;
//! - `GET /explorer/api?module=…&action=…&apikey=…`: the Etherscan-style
//!   `getcontractcreation`, `tokenholderlist`, `tokenholdercount`; a wrong
//!   or missing key is `status "0"`, `NOTOK`.
//!
//! Tests and `ulias simulate` run against it; nothing leaves the machine.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::{Path, State};
use axum::http::Uri;
use axum::routing::{get, post};
use axum::{Json, Router};
use secrecy::SecretString;
use serde_json::{Value, json};
use ulias_core::settings::{ChainEndpoints, ChainsSettings};
use url::Url;

use super::fixture::ChainFixture;
use super::rpc::answer_rpc;

type World = Arc<Mutex<ChainFixture>>;

/// A running stand-in.
#[derive(Debug, Clone)]
pub struct FakeChain {
    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub base_url: String,
    world: World,
}

impl FakeChain {
    /// Starts serving `fixture` on a free loopback port.
    pub async fn start(fixture: ChainFixture) -> std::io::Result<Self> {
        let world = Arc::new(Mutex::new(fixture));
        let app = Router::new()
            .route("/rpc", post(rpc))
            .route("/market/latest/dex/tokens/{address}", get(market))
            .route("/explorer/api", get(explorer))
            .with_state(world.clone());
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let address = listener.local_addr()?;
        tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, app).await {
                tracing::error!(%error, "the chain stand-in stopped");
            }
        });
        Ok(Self {
            base_url: format!("http://{address}"),
            world,
        })
    }

    /// The JSON-RPC endpoint.
    pub fn rpc_url(&self) -> String {
        format!("{}/rpc", self.base_url)
    }

    /// The market API's base URL.
    pub fn market_url(&self) -> String {
        format!("{}/market", self.base_url)
    }

    /// The explorer API's URL.
    pub fn explorer_url(&self) -> String {
        format!("{}/explorer/api", self.base_url)
    }

    /// Settings of one chain pointing here, with the fixture's key.
    pub fn endpoints(&self) -> Result<ChainEndpoints, url::ParseError> {
        let key = self.read(|f| f.api_key.clone());
        Ok(ChainEndpoints {
            rpc_url: Url::parse(&self.rpc_url())?,
            market_url: Url::parse(&self.market_url())?,
            explorer_url: Some(Url::parse(&self.explorer_url())?),
            explorer_api_key: Some(SecretString::from(key)),
            timeout_seconds: 5,
        })
    }

    /// Points every chain of `chains` here.
    pub fn point(&self, chains: &mut ChainsSettings) -> Result<(), url::ParseError> {
        let endpoints = self.endpoints()?;
        for chain in chains.all_mut() {
            *chain = endpoints.clone();
        }
        Ok(())
    }

    /// Changes what is served (a day's new figures, a sold bag).
    pub fn update(&self, change: impl FnOnce(&mut ChainFixture)) {
        change(&mut self.world.lock().unwrap_or_else(PoisonError::into_inner));
    }

    fn read<T>(&self, read: impl FnOnce(&ChainFixture) -> T) -> T {
        read(&self.world.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

fn lock(world: &World) -> std::sync::MutexGuard<'_, ChainFixture> {
    world.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn rpc(State(world): State<World>, body: String) -> Json<Value> {
    Json(answer_rpc(&lock(&world), &body))
}

async fn market(State(world): State<World>, Path(address): Path<String>) -> Json<Value> {
    let fixture = lock(&world);
    let Some(token) = fixture.token(&address) else {
        return Json(json!({"schemaVersion": "1.0.0", "pairs": null}));
    };
    let pairs: Vec<Value> = token
        .pairs
        .iter()
        .map(|pair| {
            json!({
                "chainId": token.chain,
                "dexId": pair.dex,
                "url": format!("https://dexscreener.com/{}/{}", token.chain, pair.address),
                "pairAddress": pair.address,
                "baseToken": {"address": token.address, "name": token.name, "symbol": token.symbol},
                "quoteToken": {"address": "0x4200000000000000000000000000000000000006",
                               "name": "Wrapped Ether", "symbol": "WETH"},
                "priceNative": "0",
                "priceUsd": pair.price_usd.to_string(),
                "txns": {"h24": {"buys": pair.buys_24h, "sells": pair.sells_24h}},
                "volume": {"h24": pair.volume_24h_usd, "h6": 0.0, "h1": 0.0, "m5": 0.0},
                "liquidity": {"usd": pair.liquidity_usd, "base": 0.0, "quote": 0.0},
                "fdv": pair.market_cap_usd,
                "marketCap": pair.market_cap_usd,
                "pairCreatedAt": pair.created_at_ms,
                "info": {
                    "imageUrl": format!("https://dd.dexscreener.com/ds-data/tokens/{}/{}.png", token.chain, token.address),
                    "websites": token.websites.iter()
                        .map(|url| json!({"label": "Website", "url": url}))
                        .collect::<Vec<_>>(),
                    "socials": token.socials.iter()
                        .map(|(kind, url)| json!({"type": kind, "url": url}))
                        .collect::<Vec<_>>(),
                },
            })
        })
        .collect();
    Json(json!({"schemaVersion": "1.0.0", "pairs": pairs}))
}

async fn explorer(State(world): State<World>, uri: Uri) -> Json<Value> {
    let query: Vec<(String, String)> =
        url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
            .into_owned()
            .collect();
    let param = |name: &str| {
        query
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let fixture = lock(&world);
    if param("apikey") != Some(fixture.api_key.as_str()) || fixture.api_key.is_empty() {
        return Json(notok("Invalid API Key"));
    }
    let contract = param("contractaddresses")
        .or(param("contractaddress"))
        .unwrap_or("");
    let Some(token) = fixture.token(contract) else {
        return Json(notok("No data found"));
    };
    let ok = |result: Value| json!({"status": "1", "message": "OK", "result": result});
    Json(match (param("module"), param("action")) {
        (Some("contract"), Some("getcontractcreation")) => ok(json!([{
            "contractAddress": token.address,
            "contractCreator": token.deployer,
            "txHash": format!("0x{:0>64}", "c0ffee"),
        }])),
        (Some("token"), Some("tokenholderlist")) => {
            let page: usize = param("page")
                .and_then(|p| p.parse().ok())
                .unwrap_or(1)
                .max(1);
            let offset: usize = param("offset").and_then(|o| o.parse().ok()).unwrap_or(10);
            let rows: Vec<Value> = token
                .holders_by_size()
                .into_iter()
                .skip((page - 1).saturating_mul(offset))
                .take(offset)
                .map(|b| {
                    json!({"TokenHolderAddress": b.address,
                           "TokenHolderQuantity": token.raw_balance(&b.address).to_string()})
                })
                .collect();
            ok(Value::Array(rows))
        }
        (Some("token"), Some("tokenholdercount")) => match token.holders_count {
            Some(count) => ok(json!(count.to_string())),
            None => notok("No data found"),
        },
        _ => notok("Error! Missing Or invalid Module name"),
    })
}

fn notok(result: &str) -> Value {
    json!({"status": "0", "message": "NOTOK", "result": result})
}
