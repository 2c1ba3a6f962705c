//! Amounts of crypto in a message: "send 0.05 ETH … get 0.15 ETH back"
//! is a giveaway scam whatever words surround it.

/// Tickers an amount is written with.
const TICKERS: &[&str] = &[
    "eth", "btc", "bnb", "usdt", "usdc", "sol", "ton", "trx", "xrp", "doge", "matic", "ltc",
];

/// Whether the message names an amount of a coin and, later, at least
/// twice as much of the same coin: less sent, double or more promised back.
pub fn more_back(text: &str) -> bool {
    let amounts = amounts(text);
    amounts.iter().enumerate().any(|(i, (first, coin))| {
        amounts
            .iter()
            .skip(i + 1)
            .any(|(later, other)| other == coin && *later >= 2.0 * *first && *first > 0.0)
    })
}

/// Each number followed by a ticker (with or without a space), in order.
fn amounts(text: &str) -> Vec<(f64, &'static str)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let starts_number =
            bytes[at].is_ascii_digit() && (at == 0 || !bytes[at - 1].is_ascii_alphanumeric());
        if !starts_number {
            at += 1;
            continue;
        }
        let end = bytes[at..]
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.' || *b == b','))
            .map_or(bytes.len(), |len| at + len);
        let number: String = text
            .get(at..end)
            .unwrap_or_default()
            .trim_end_matches(['.', ','])
            .replace(',', ".");
        let rest = text.get(end..).unwrap_or_default().trim_start();
        let coin = TICKERS.iter().find(|ticker| {
            rest.starts_with(**ticker)
                && !rest[ticker.len()..].starts_with(|c: char| c.is_alphanumeric())
        });
        if let (Ok(value), Some(coin)) = (number.parse::<f64>(), coin) {
            found.push((value, *coin));
        }
        at = end;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn less_sent_and_more_promised_back_is_found_in_any_wording() {
        assert!(more_back("send 0.05 eth to the pool, get 0.15 eth back"));
        assert!(more_back("envoyez 0,05 eth et recevez 0,15 eth"));
        assert!(more_back("отправь 0.1bnb и получи 0.2bnb"));
        assert!(!more_back("i sold 2 eth and bought 1 eth back later"));
        assert!(!more_back("gas was 5 usdt, then 3 usdt"));
        assert!(!more_back("bought at 0.5 usdt, now 0.8 usdt"));
        assert!(!more_back("price 0.15 eth, 12 holders"));
    }
}
