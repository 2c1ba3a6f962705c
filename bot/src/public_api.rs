//! The public API the sites' live widgets read: `GET
//! /api/operations/{id}` → the operation's public figures (price, market
//! cap, holders, liquidity, the official address, the site, chart and buy
//! links), read from the chain and the market, each operation's answer
//! kept `cache_seconds`. Read-only, CORS open to every origin, JSON errors
//! (404 for an unknown operation). `ulias run` serves it when
//! `public_api.listen` is set.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Serialize;
use tokio::time::Instant;
use ulias_agents::chain::ChainReader;
use ulias_core::clock::SharedClock;
use ulias_core::domain::{Operation, OperationId};
use ulias_core::store::{Store, StoreError};

/// What the API reads and how long it keeps an answer.
pub struct PublicApi {
    pub store: Store,
    pub chain: ChainReader,
    pub clock: SharedClock,
    pub cache_for: Duration,
    /// The domain sites live under (`[cloudflare].domain`), for the site link.
    pub site_domain: Option<String>,
    cache: Mutex<HashMap<i64, (Instant, Figures)>>,
}

/// An operation's public figures. Figures the chain or market could not
/// give are `null`.
#[derive(Debug, Clone, Serialize)]
pub struct Figures {
    pub id: i64,
    pub name: String,
    pub ticker: Option<String>,
    pub chain: Option<String>,
    pub official_address: Option<String>,
    pub status: String,
    pub price_usd: Option<f64>,
    pub market_cap_usd: Option<f64>,
    pub liquidity_usd: Option<f64>,
    pub volume_24h_usd: Option<f64>,
    pub holders: Option<u64>,
    pub links: Links,
    /// When the figures were read.
    pub read_at: chrono::DateTime<chrono::Utc>,
}

/// Where to see and buy the token.
#[derive(Debug, Clone, Serialize)]
pub struct Links {
    pub site: Option<String>,
    pub chart: Option<String>,
    pub buy: Option<String>,
}

impl PublicApi {
    pub fn new(
        store: Store,
        chain: ChainReader,
        clock: SharedClock,
        cache_for: Duration,
        site_domain: Option<String>,
    ) -> Self {
        Self {
            store,
            chain,
            clock,
            cache_for,
            site_domain,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The figures of `id`, from the cache while they are fresh.
    async fn figures(&self, id: i64) -> Result<Figures, StoreError> {
        if let Some(cached) = self.cached(id) {
            return Ok(cached);
        }
        let operation = self.store.operation(OperationId::new(id)).await?;
        let figures = self.read(&operation).await;
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(id, (Instant::now(), figures.clone()));
        }
        Ok(figures)
    }

    fn cached(&self, id: i64) -> Option<Figures> {
        let cache = self.cache.lock().ok()?;
        let (at, figures) = cache.get(&id)?;
        (at.elapsed() < self.cache_for).then(|| figures.clone())
    }

    async fn read(&self, operation: &Operation) -> Figures {
        let now = self.clock.now();
        let (chain, address) = (
            operation.chain.as_deref(),
            operation.official_address.as_deref(),
        );
        let market = match (chain, address) {
            (Some(chain), Some(address)) => {
                match self.chain.read_token(chain, address, now).await {
                    Ok(facts) => facts.market,
                    Err(error) => {
                        tracing::warn!(operation = %operation.id, %error, "public figures unavailable");
                        None
                    }
                }
            }
            _ => None,
        };
        let value = |field: Option<&ulias_agents::chain::Sourced<f64>>| field.map(|s| s.value);
        Figures {
            id: operation.id.get(),
            name: operation.name.clone(),
            ticker: operation.token_symbol.clone(),
            chain: operation.chain.clone(),
            official_address: operation.official_address.clone(),
            status: operation.status.to_string(),
            price_usd: market.as_ref().and_then(|m| value(m.price_usd.as_ref())),
            market_cap_usd: market
                .as_ref()
                .and_then(|m| value(m.market_cap_usd.as_ref())),
            liquidity_usd: market
                .as_ref()
                .and_then(|m| value(m.liquidity_usd.as_ref())),
            volume_24h_usd: market
                .as_ref()
                .and_then(|m| value(m.volume_24h_usd.as_ref())),
            holders: market
                .as_ref()
                .and_then(|m| m.holders.as_ref().map(|h| h.value)),
            links: Links {
                site: operation
                    .site_subdomain
                    .as_ref()
                    .zip(self.site_domain.as_ref())
                    .map(|(sub, domain)| format!("https://{sub}.{domain}")),
                chart: chain
                    .zip(address)
                    .map(|(chain, address)| format!("https://dexscreener.com/{chain}/{address}")),
                buy: chain.zip(address).and_then(|(c, a)| buy_link(c, a)),
            },
            read_at: now,
        }
    }
}

/// Where to buy a token on `chain`.
fn buy_link(chain: &str, address: &str) -> Option<String> {
    Some(match chain {
        "ethereum" | "base" | "arbitrum" | "optimism" | "polygon" => {
            format!("https://app.uniswap.org/swap?chain={chain}&outputCurrency={address}")
        }
        "bsc" => format!("https://pancakeswap.finance/swap?outputCurrency={address}"),
        "solana" => format!("https://jup.ag/swap/SOL-{address}"),
        _ => return None,
    })
}

/// The API's routes.
pub fn router(api: Arc<PublicApi>) -> Router {
    Router::new()
        .route("/api/operations/{id}", get(operation))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such endpoint") })
        .with_state(api)
}

/// Serves `api` on `listener` until `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    api: Arc<PublicApi>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(api))
        .with_graceful_shutdown(shutdown)
        .await
}

async fn operation(State(api): State<Arc<PublicApi>>, Path(id): Path<String>) -> Response {
    let Ok(id) = id.parse::<i64>() else {
        return error(StatusCode::NOT_FOUND, "no such operation");
    };
    match api.figures(id).await {
        Ok(figures) => open(Json(figures).into_response(), api.cache_for),
        Err(StoreError::NotFound { .. }) => error(StatusCode::NOT_FOUND, "no such operation"),
        Err(store) => {
            tracing::error!(%store, "the public API could not read an operation");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the figures cannot be read now",
            )
        }
    }
}

fn error(status: StatusCode, message: &str) -> Response {
    open(
        (status, Json(serde_json::json!({"error": message}))).into_response(),
        Duration::ZERO,
    )
}

/// Any site may read it; browsers may keep it as long as we do.
fn open(mut response: Response, cache_for: Duration) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    if let Ok(value) = HeaderValue::from_str(&format!("public, max-age={}", cache_for.as_secs())) {
        headers.insert(header::CACHE_CONTROL, value);
    }
    response
}
