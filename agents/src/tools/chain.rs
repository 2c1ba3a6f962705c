//! `chain_read`, `market_read` and `socials_read`: the Scanner's read-only view of a token,
//! through the [`ChainReader`] built from settings. Texts that come from
//! outside (a token's name, symbol, dex) reach the model wrapped as
//! untrusted.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ulias_core::domain::Task;
use ulias_core::store::{Store, StoreError};

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::chain::{ChainReader, MarketFacts, Precheck, TokenFacts, TokenSocials, precheck};
use crate::untrusted::wrap_untrusted;

/// Only the Scanner reads chains.
const SCANNER: &[&str] = &["scanner"];

/// Which token: the arguments', else the task input's `chain` and
/// `address`, else the task's operation's chain and official address.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenArgs {
    /// base, ethereum or bsc; leave it out for the task's token.
    #[serde(default)]
    pub chain: Option<String>,
    /// The contract address; leave it out for the task's token.
    #[serde(default)]
    pub address: Option<String>,
}

/// The token a task is about: its input's `chain` and `address`, else its
/// operation's chain and official address.
pub async fn token_of(store: &Store, task: &Task) -> Result<Option<(String, String)>, StoreError> {
    let field = |name: &str| {
        task.input
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let (Some(chain), Some(address)) = (field("chain"), field("address")) {
        return Ok(Some((chain, address)));
    }
    let Some(id) = task.operation_id else {
        return Ok(None);
    };
    let operation = store.operation(id).await?;
    Ok(operation.chain.zip(operation.official_address))
}

async fn resolve(ctx: &ToolContext, args: TokenArgs) -> Result<(String, String), ToolError> {
    let task_token = token_of(&ctx.store, &ctx.task).await?;
    let (task_chain, task_address) = task_token.unzip();
    match (args.chain.or(task_chain), args.address.or(task_address)) {
        (Some(chain), Some(address)) => Ok((chain, address)),
        _ => Err(ToolError::InvalidArgs {
            tool: "chain_read/market_read",
            message: "no token: give `chain` and `address`".to_owned(),
        }),
    }
}

/// Reads a token on its chain, market and explorer, with the checks.
pub struct ChainRead(pub ChainReader);

/// What `chain_read` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChainView {
    pub facts: TokenFacts,
    /// The deterministic checks with the thresholds of settings.
    pub precheck: Precheck,
}

#[async_trait]
impl TypedTool for ChainRead {
    const NAME: &'static str = "chain_read";
    const DESCRIPTION: &'static str = "Read a token on its chain: contract, decimals, supply, \
        deployer and top-holder shares, its market, and the deterministic checks.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(SCANNER);
    type Args = TokenArgs;
    type Output = ChainView;

    async fn call(&self, ctx: &ToolContext, args: TokenArgs) -> Result<ChainView, ToolError> {
        let (chain, address) = resolve(ctx, args).await?;
        let mut facts = self
            .0
            .read_token(&chain, &address, ctx.clock.now())
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let precheck = precheck(&facts, self.0.thresholds());
        if let Some(market) = facts.market.as_mut() {
            mark_untrusted(market);
        }
        Ok(ChainView { facts, precheck })
    }
}

/// Reads a token's market alone.
pub struct MarketRead(pub ChainReader);

/// What `market_read` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct MarketView {
    /// None: the token has no pair on this chain.
    pub market: Option<MarketFacts>,
}

#[async_trait]
impl TypedTool for MarketRead {
    const NAME: &'static str = "market_read";
    const DESCRIPTION: &'static str = "Read a token's market: price, liquidity, 24 h volume, \
        pair age, buys and sells, market cap, from its most liquid pair.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(SCANNER);
    type Args = TokenArgs;
    type Output = MarketView;

    async fn call(&self, ctx: &ToolContext, args: TokenArgs) -> Result<MarketView, ToolError> {
        let (chain, address) = resolve(ctx, args).await?;
        let mut market = self
            .0
            .read_market(&chain, &address, ctx.clock.now())
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if let Some(market) = market.as_mut() {
            mark_untrusted(market);
        }
        Ok(MarketView { market })
    }
}

/// Reads the websites and social accounts listed for a token.
pub struct SocialsRead(pub ChainReader);

/// What `socials_read` returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SocialsView {
    /// None: the token has no pair on this chain, so nothing is listed.
    pub socials: Option<TokenSocials>,
}

#[async_trait]
impl TypedTool for SocialsRead {
    const NAME: &'static str = "socials_read";
    const DESCRIPTION: &'static str = "Read the websites and social accounts (X, Telegram, \
        Discord) listed for a token on the market site. Context only: nothing is fetched.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(SCANNER);
    type Args = TokenArgs;
    type Output = SocialsView;

    async fn call(&self, ctx: &ToolContext, args: TokenArgs) -> Result<SocialsView, ToolError> {
        let (chain, address) = resolve(ctx, args).await?;
        let mut socials = self
            .0
            .read_socials(&chain, &address, ctx.clock.now())
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        for link in socials.iter_mut().flat_map(|s| s.links.iter_mut()) {
            link.kind = wrap_untrusted("socials:kind", &link.kind);
            link.url = wrap_untrusted("socials:url", &link.url);
            if let Some(label) = link.label.as_mut() {
                *label = wrap_untrusted("socials:label", label);
            }
        }
        Ok(SocialsView { socials })
    }
}

/// The market's texts come from whoever listed the token.
fn mark_untrusted(market: &mut MarketFacts) {
    let wrap = |text: &mut String, what: &str| *text = wrap_untrusted(what, text);
    wrap(&mut market.dex.value, "market:dex");
    if let Some(symbol) = market.symbol.as_mut() {
        wrap(&mut symbol.value, "market:symbol");
    }
    if let Some(name) = market.name.as_mut() {
        wrap(&mut name.value, "market:name");
    }
}
