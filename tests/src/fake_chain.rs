//! The chain, market and explorer stand-in, the one `ulias simulate` runs
//! (`ulias_bot::standins`), with the fixtures tests start it on.

use ulias_agents::chain::ChainReader;
use ulias_core::settings::{ChainsSettings, TakeoverThresholds};

pub use ulias_bot::standins::{Balance, ChainFixture, FakeChain, FixturePair, FixtureToken};

/// PEPE2 on Base, the simulation's healthy dead token: deployer 2 %,
/// top 10 30 %, liquidity $12,000.
pub const PEP2: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";

/// The simulation's fixture (`fixtures/simulation/chain.json`).
pub fn simulation_fixture() -> ChainFixture {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/simulation/chain.json"
    );
    ChainFixture::from_json(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The stand-in serving the simulation's fixture.
pub async fn simulation_chain() -> FakeChain {
    FakeChain::start(simulation_fixture()).await.unwrap()
}

/// A reader of every chain at `chain`, with the default thresholds.
pub fn reader_of(chain: &FakeChain) -> ChainReader {
    let mut chains = ChainsSettings::default();
    chain.point(&mut chains).unwrap();
    ChainReader::new(chains, TakeoverThresholds::default(), &Default::default()).unwrap()
}

/// A reader whose every chain is a closed loopback port: reading fails
/// (closed), and nothing leaves the machine.
pub fn offline_reader() -> ChainReader {
    let mut chains = ChainsSettings::default();
    for chain in chains.all_mut() {
        chain.rpc_url = "http://127.0.0.1:9/".parse().unwrap();
        chain.market_url = "http://127.0.0.1:9/".parse().unwrap();
        chain.explorer_url = None;
    }
    ChainReader::new(chains, TakeoverThresholds::default(), &Default::default()).unwrap()
}
