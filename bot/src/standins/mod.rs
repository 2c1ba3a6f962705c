//! Loopback stand-ins for outside services that tests and `ulias
//! simulate` share: [`chain::FakeChain`] serves a fixture's tokens as a
//! JSON-RPC node, a DEX-screener-style market API and an Etherscan-style
//! explorer.

pub mod chain;
pub mod fixture;
mod rpc;

pub use chain::FakeChain;
pub use fixture::{Balance, ChainFixture, FixturePair, FixtureToken};
