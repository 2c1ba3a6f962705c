//! The price-alert utility at work: every `engine.price_alert_seconds`, each
//! operation whose group released price alerts has its token's price read
//! (the chain reader's market source), and a threshold crossed since the
//! last reading is posted in the group, once per its cooldown.
//!
//! The last price and the last alerts are kept in memory: after a restart
//! the first reading is the new baseline (a crossing while the process was
//! down is not announced late) and the cooldowns start again.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use teloxide::prelude::*;
use ulias_agents::chain::ChainReader;
use ulias_core::domain::{Operation, OperationId};

use super::edge::clip;
use super::error::HandlerResult;
use super::outbox::telegram_destination;
use super::utilities::{AlertsFile, Threshold, released_alerts};
use super::{Common, Roles};
use crate::i18n::arg;

/// What the watch remembers between readings.
#[derive(Default)]
struct Watch {
    last_price: HashMap<OperationId, f64>,
    /// When each (operation, threshold index) last fired.
    fired_at: HashMap<(OperationId, usize), DateTime<Utc>>,
}

/// Reads the prices every `every` until the process stops.
pub(super) async fn run(
    common: Arc<Common>,
    roles: Arc<Roles>,
    chain: ChainReader,
    every: Duration,
) {
    let mut watch = Watch::default();
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        if let Err(error) = read_all(&common, &roles, &chain, &mut watch).await {
            tracing::warn!(%error, "price alerts not read");
        }
    }
}

async fn read_all(
    common: &Common,
    roles: &Roles,
    chain: &ChainReader,
    watch: &mut Watch,
) -> HandlerResult {
    for operation in common.store.operations().await? {
        let Some(alerts) = released_alerts(common, operation.id).await? else {
            continue;
        };
        let now = common.clock.now();
        let price = match chain
            .read_token(&alerts.chain, &alerts.token_address, now)
            .await
        {
            Ok(facts) => facts.market.and_then(|m| m.price_usd).map(|p| p.value),
            Err(error) => {
                tracing::warn!(operation = %operation.id, %error, "no price for the alerts");
                None
            }
        };
        let Some(price) = price else {
            continue;
        };
        let previous = watch.last_price.insert(operation.id, price);
        let Some(previous) = previous else {
            continue;
        };
        for index in crossed(&alerts.thresholds, previous, price) {
            let key = (operation.id, index);
            let cooldown = TimeDelta::minutes(i64::from(alerts.cooldown_minutes));
            if watch
                .fired_at
                .get(&key)
                .is_some_and(|at| now - *at < cooldown)
            {
                continue;
            }
            if let Some(threshold) = alerts.thresholds.get(index) {
                announce(common, roles, &operation, &alerts, threshold, price).await?;
                watch.fired_at.insert(key, now);
            }
        }
    }
    Ok(())
}

/// The thresholds crossed between two prices, in the file's order (as the
/// utility's own `crossed` decides).
fn crossed(thresholds: &[Threshold], previous: f64, price: f64) -> Vec<usize> {
    thresholds
        .iter()
        .enumerate()
        .filter(|(_, t)| match t.direction.as_str() {
            "above" => previous < t.price_usd && t.price_usd <= price,
            "below" => previous > t.price_usd && t.price_usd >= price,
            _ => false,
        })
        .map(|(index, _)| index)
        .collect()
}

async fn announce(
    common: &Common,
    roles: &Roles,
    operation: &Operation,
    alerts: &AlertsFile,
    threshold: &Threshold,
    price: f64,
) -> HandlerResult {
    let chat = telegram_destination(&common.store, roles, Some(operation.id)).await?;
    let key = if threshold.direction == "above" {
        "utility-price-alert-above"
    } else {
        "utility-price-alert-below"
    };
    let ticker = operation
        .token_symbol
        .clone()
        .unwrap_or_else(|| alerts.token_address.clone());
    let text = common.texts.with(
        key,
        &[
            arg("ticker", ticker),
            arg("threshold", threshold.price_usd.to_string()),
            arg("price", price.to_string()),
        ],
    );
    common.bot.send_message(chat, clip(&text)).await?;
    tracing::info!(operation = %operation.id, price, "price alert posted");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn threshold(direction: &str, price_usd: f64) -> Threshold {
        Threshold {
            direction: direction.to_owned(),
            price_usd,
        }
    }

    #[test]
    fn a_threshold_fires_when_the_price_crosses_it_in_its_direction_only() {
        let thresholds = [threshold("above", 5.0), threshold("below", 2.0)];
        assert_eq!(crossed(&thresholds, 4.0, 5.0), [0]);
        assert_eq!(
            crossed(&thresholds, 5.0, 6.0),
            Vec::<usize>::new(),
            "already above"
        );
        assert_eq!(
            crossed(&thresholds, 6.0, 4.0),
            Vec::<usize>::new(),
            "down, not below 2"
        );
        assert_eq!(crossed(&thresholds, 3.0, 1.5), [1]);
        assert_eq!(
            crossed(&thresholds, 1.0, 6.0),
            [0],
            "a jump crosses the upper one only"
        );
    }
}
