//! The chain, market and explorer clients against the loopback stand-in
//! `ulias simulate` uses, over real HTTP.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::time::Duration;

use chrono::{TimeZone, Utc};
use ulias_agents::chain::explorer::ExplorerClient;
use ulias_agents::chain::market::MarketClient;
use ulias_agents::chain::rpc::RpcClient;
use ulias_agents::chain::{ChainError, ChainReader, SourceKind, precheck};
use ulias_core::settings::{ChainsSettings, TakeoverThresholds};
use ulias_tests::fake_chain::{
    FakeChain, FixturePair, PEP2, reader_of, simulation_chain, simulation_fixture,
};

const DEPLOYER: &str = "0xd3b1e0a5c2f4d6e8a0b2c4d6e8f0a2b4c6d8e0f2";
const TIMEOUT: Duration = Duration::from_secs(5);

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap()
}

fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

fn rpc(chain: &FakeChain) -> RpcClient {
    RpcClient::new(http(), chain.rpc_url().parse().unwrap(), TIMEOUT)
}

fn explorer(chain: &FakeChain, key: &str) -> ExplorerClient {
    let url = chain.explorer_url().parse().unwrap();
    ExplorerClient::new(http(), url, Some(key.to_owned().into()), TIMEOUT)
}

#[tokio::test]
async fn the_rpc_client_reads_block_code_decimals_supply_and_balances() {
    let chain = simulation_chain().await;
    let rpc = rpc(&chain);

    assert_eq!(rpc.block_number().await.unwrap(), 19_000_000);
    assert!(rpc.has_code(PEP2).await.unwrap());
    assert!(
        !rpc.has_code(DEPLOYER).await.unwrap(),
        "a wallet has no code"
    );
    assert_eq!(rpc.decimals(PEP2).await.unwrap(), 18);
    let unit = 10u128.pow(18);
    assert_eq!(
        rpc.total_supply(PEP2).await.unwrap(),
        420_690_000_000 * unit
    );
    let deployer = rpc.balance_of(PEP2, DEPLOYER).await.unwrap();
    assert_eq!(deployer, 8_413_800_000 * unit, "2 % of the supply");
    let batch = rpc
        .balances_of(
            PEP2,
            &[
                DEPLOYER.to_owned(),
                "0x1111111111111111111111111111111111111111".to_owned(),
            ],
        )
        .await
        .unwrap();
    assert_eq!(batch, [deployer, 25_241_400_000 * unit]);
}

#[tokio::test]
async fn a_reverting_call_is_a_json_rpc_error_and_a_wallet_answers_nothing() {
    let mut fixture = simulation_fixture();
    fixture.tokens[0].reverts = true;
    let chain = FakeChain::start(fixture).await.unwrap();
    let rpc = rpc(&chain);

    let error = rpc.decimals(PEP2).await.unwrap_err();
    assert!(
        matches!(&error, ChainError::Rpc { code: 3, message, .. } if message == "execution reverted"),
        "{error:?}"
    );
    let error = rpc.decimals(DEPLOYER).await.unwrap_err();
    assert!(
        matches!(
            error,
            ChainError::Malformed {
                service: SourceKind::Rpc,
                ..
            }
        ),
        "{error:?}"
    );
    let error = rpc.balance_of(PEP2, "0x12").await.unwrap_err();
    assert!(matches!(error, ChainError::Address(_)), "{error:?}");
}

#[tokio::test]
async fn an_unreachable_node_is_a_typed_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);
    let rpc = RpcClient::new(http(), closed.parse().unwrap(), TIMEOUT);

    let error = rpc.block_number().await.unwrap_err();

    assert!(
        matches!(
            error,
            ChainError::Unreachable {
                service: SourceKind::Rpc,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_market_client_picks_the_most_liquid_pair_on_the_chain_asked() {
    let chain = simulation_chain().await;
    chain.update(|fixture| {
        let pairs = &mut fixture.tokens[0].pairs;
        let thin = FixturePair {
            address: "0x00000000000000000000000000000000000000f1".to_owned(),
            liquidity_usd: 900.0,
            ..pairs[0].clone()
        };
        pairs.insert(0, thin);
    });
    let market = MarketClient::new(http(), chain.market_url().parse().unwrap(), TIMEOUT);

    let facts = market.token("base", PEP2, now()).await.unwrap().unwrap();

    assert_eq!(
        facts.pair_address.value,
        "0x9c2e1d3f0a6b4c8d7e5f1a2b3c4d5e6f7a8b9c0d"
    );
    assert_eq!(facts.liquidity_usd.unwrap().value, 12_000.0);
    assert_eq!(facts.volume_24h_usd.unwrap().value, 430.0);
    assert_eq!(facts.buys_24h.unwrap().value, 9);
    assert_eq!(facts.sells_24h.unwrap().value, 6);
    let age = facts.pair_age_days.unwrap();
    assert_eq!(age.value.floor(), 660.0, "created 2025-02-11");
    assert_eq!(age.source.kind, SourceKind::Market);
    assert_eq!(age.source.read_at, now());
    assert!(
        market.token("bsc", PEP2, now()).await.unwrap().is_none(),
        "no pair on BSC"
    );
    let unknown = "0x00000000000000000000000000000000000000ee";
    assert!(
        market
            .token("base", unknown, now())
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn the_socials_listed_for_a_token_are_read_from_its_pairs_once_each() {
    let chain = simulation_chain().await;
    chain.update(|fixture| {
        let token = &mut fixture.tokens[0];
        token
            .socials
            .push(("Discord".to_owned(), "https://discord.gg/pepe2".to_owned()));
        let second = FixturePair {
            address: "0x00000000000000000000000000000000000000f1".to_owned(),
            liquidity_usd: 900.0,
            ..token.pairs[0].clone()
        };
        token.pairs.push(second);
    });
    let market = MarketClient::new(http(), chain.market_url().parse().unwrap(), TIMEOUT);

    let socials = market.socials("base", PEP2, now()).await.unwrap().unwrap();

    let links: Vec<(&str, &str)> = socials
        .links
        .iter()
        .map(|l| (l.kind.as_str(), l.url.as_str()))
        .collect();
    assert_eq!(
        links,
        [
            ("website", "https://pepe2.example"),
            ("twitter", "https://x.com/pepe2_base"),
            ("telegram", "https://t.me/pepe2_base"),
            ("discord", "https://discord.gg/pepe2"),
        ],
        "both pairs list the same links: each once, types in lower case"
    );
    assert_eq!(socials.links[0].label.as_deref(), Some("Website"));
    assert_eq!(socials.source.kind, SourceKind::Market);
    assert!(
        market.socials("bsc", PEP2, now()).await.unwrap().is_none(),
        "no pair on BSC, nothing listed"
    );
}

#[tokio::test]
async fn the_explorer_names_deployer_and_holders_and_refuses_a_wrong_key() {
    let chain = simulation_chain().await;
    let explorer_ok = explorer(&chain, "simulation-key");

    assert_eq!(explorer_ok.deployer(PEP2).await.unwrap(), DEPLOYER);
    let holders = explorer_ok.top_holders(PEP2, 3).await.unwrap();
    assert_eq!(holders.len(), 3);
    assert_eq!(
        holders[0], "0x9c2e1d3f0a6b4c8d7e5f1a2b3c4d5e6f7a8b9c0d",
        "the pool holds most"
    );
    assert_eq!(explorer_ok.holder_count(PEP2).await.unwrap(), 2140);

    let error = explorer(&chain, "wrong").deployer(PEP2).await.unwrap_err();
    assert!(
        matches!(&error, ChainError::Explorer { message, .. } if message.contains("NOTOK")),
        "{error:?}"
    );
    assert!(
        !error.to_string().contains("wrong"),
        "the key never shows: {error}"
    );
}

#[tokio::test]
async fn a_token_read_computes_shares_from_chain_balances_with_every_source() {
    let chain = simulation_chain().await;

    let facts = reader_of(&chain)
        .read_token("base", PEP2, now())
        .await
        .unwrap();

    assert!(facts.gaps.is_empty(), "{:?}", facts.gaps);
    assert!(facts.contract_present.value);
    let deployer = facts.deployer.as_ref().unwrap();
    assert_eq!(deployer.address.source.kind, SourceKind::Explorer);
    assert_eq!(deployer.share_pct.source.kind, SourceKind::Rpc);
    assert!((deployer.share_pct.value - 2.0).abs() < 1e-6);
    let top10 = facts.top10_share_pct.as_ref().unwrap().value;
    assert!(
        (top10 - 30.0).abs() < 1e-6,
        "pool and burn excluded: {top10}"
    );
    let excluded: Vec<_> = facts
        .top_holders
        .iter()
        .filter_map(|h| h.excluded.as_deref())
        .collect();
    assert_eq!(excluded, ["liquidity pool", "burn address"]);
    let market = facts.market.as_ref().unwrap();
    assert_eq!(market.holders.as_ref().unwrap().value, 2140);
    assert_eq!(
        facts.block.source.host,
        chain.base_url.trim_start_matches("http://")
    );
    assert!(precheck(&facts, &TakeoverThresholds::default()).passed);
}

#[tokio::test]
async fn without_an_explorer_the_deployer_is_unknown_and_the_precheck_fails_closed() {
    let chain = simulation_chain().await;
    let mut chains = ChainsSettings::default();
    chain.point(&mut chains).unwrap();
    chains.base.explorer_url = None;
    let reader =
        ChainReader::new(chains, TakeoverThresholds::default(), &Default::default()).unwrap();

    let facts = reader.read_token("base", PEP2, now()).await.unwrap();

    assert!(facts.deployer.is_none());
    assert_eq!(
        facts.gaps,
        ["explorer not configured: deployer and holders unknown"]
    );
    let checks = precheck(&facts, &TakeoverThresholds::default());
    assert!(!checks.passed);
    assert!(
        checks.failures()[0].starts_with("deployer_bag: deployer unknown"),
        "{:?}",
        checks.failures()
    );
}

#[tokio::test]
async fn solana_is_not_supported_yet_and_an_unknown_chain_is_named() {
    let chain = simulation_chain().await;
    let reader = reader_of(&chain);

    let solana = reader.read_token("solana", PEP2, now()).await.unwrap_err();
    let tron = reader.read_token("tron", PEP2, now()).await.unwrap_err();

    assert_eq!(
        solana.to_string(),
        "the chain `solana` is not supported yet"
    );
    assert!(matches!(tron, ChainError::UnknownChain(name) if name == "tron"));
}
