//! Amounts of crypto in a message: "send 0.05 ETH … get 0.15 ETH back"
//! is a giveaway scam whatever words surround it.

/// Tickers an amount is written with.
const TICKERS: &[&str] = &[
    "eth", "btc", "bnb", "usdt", "usdc", "sol", "ton", "trx", "xrp", "doge", "matic", "ltc",
];

/// Currencies written after an amount, besides the tickers.
const CURRENCIES: &[&str] = &[
    "usd", "$", "€", "£", "eur", "dollar", "dólar", "euro", "reais", "real", "долл", "руб", "евро",
    "tl", "₽", "₺",
];
/// Currency signs written before an amount.
const SIGNS: &[&str] = &["$", "€", "£"];

/// What a message says about money, found in one pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Money {
    /// Less sent, double or more of the same coin promised back.
    pub more_back: bool,
    /// A sum that grows threefold or more ("from $1,000 to $23,000").
    pub grows: bool,
    /// An amount of money or a percentage is named.
    pub named: bool,
}

/// The money in a lowercased message.
pub fn money(text: &str) -> Money {
    let amounts = amounts(text);
    let later_times = |times: f64, coins_only: bool| {
        amounts.iter().enumerate().any(|(i, (first, unit))| {
            (!coins_only || TICKERS.contains(unit))
                && amounts
                    .iter()
                    .skip(i + 1)
                    .any(|(later, other)| other == unit && *later >= times * *first && *first > 0.0)
        })
    };
    Money {
        more_back: later_times(2.0, true),
        grows: later_times(3.0, false),
        named: !amounts.is_empty() || has_percentage(text),
    }
}

/// Whether the message names an amount of a coin and, later, at least
/// twice as much of the same coin: less sent, double or more promised back.
#[cfg(test)]
fn more_back(text: &str) -> bool {
    money(text).more_back
}

/// A number glued to a percent sign, before or after it ("40%", "%3").
fn has_percentage(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digit = |i: Option<usize>| i.and_then(|i| bytes.get(i)).is_some_and(u8::is_ascii_digit);
    text.match_indices('%').any(|(at, _)| {
        let spaced = at >= 2 && bytes[at - 1] == b' ';
        digit(at.checked_sub(1)) || (spaced && digit(Some(at - 2))) || digit(Some(at + 1))
    })
}

/// A written number as Rust parses it: "1,500" and "1.000" are
/// thousands, "0,15" and "1.5" decimals, "12,345.67" both.
fn decimal(written: &str) -> String {
    let groups: Vec<&str> = written.split(['.', ',']).collect();
    match groups.as_slice() {
        [] | [_] => written.to_owned(),
        [first, .., last] => {
            let thousands = last.len() == 3 && *first != "0";
            if thousands {
                groups.concat()
            } else {
                let whole = groups[..groups.len() - 1].concat();
                format!("{whole}.{last}")
            }
        }
    }
}

/// Whether the message names a gain of 5x or more ("x8", "12x"): a
/// pump call. Prices and percentages are not multipliers.
pub fn big_multiplier(text: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices('x').any(|(at, _)| {
        let before = at
            .checked_sub(1)
            .and_then(|i| bytes.get(i))
            .is_some_and(u8::is_ascii_alphanumeric);
        let after = bytes.get(at + 1).is_some_and(u8::is_ascii_alphanumeric);
        // "x8": digits after the x, nothing glued before.
        let after_digits = !before && digits_at(bytes, at + 1, true) >= 5;
        // "12x": digits before the x, nothing glued after.
        let before_digits = !after && digits_at(bytes, at, false) >= 5;
        after_digits || before_digits
    })
}

/// Words that say money is given for nothing.
pub const FREE_WORDS: &[&str] = &[
    "free",
    "gratis",
    "grátis",
    "de graça",
    "gratuit",
    "offert",
    "geschenkt",
    "kostenlos",
    "бесплатн",
    "дарю",
    "ücretsiz",
    "bedava",
    "hediye",
];

/// Money given for nothing: a free word a few characters from an amount
/// of a coin or a currency ("free 100 usdt", "100 USDT geschenkt").
pub fn free_money(text: &str) -> bool {
    let bytes = text.as_bytes();
    FREE_WORDS.iter().any(|word| {
        text.match_indices(word).any(|(at, _)| {
            let from = at.saturating_sub(16);
            let to = (at + word.len() + 16).min(bytes.len());
            let near = String::from_utf8_lossy(&bytes[from..to]);
            near.bytes().any(|b| b.is_ascii_digit())
                && TICKERS
                    .iter()
                    .chain(CURRENCIES)
                    .any(|unit| near.contains(unit))
        })
    })
}

/// Words a yearly yield is written with.
pub const YIELD_WORDS: &[&str] = &[
    "apy",
    "apr",
    "годовых",
    "yıllık",
    "per year",
    "par an",
    "al año",
    "ao ano",
    "pro jahr",
];

/// A yield of 100 % a year or more, which no real staking pays ("300%
/// APY", "%300 APY", "300 % годовых").
pub fn high_yield(text: &str) -> bool {
    if !text.contains('%') {
        return false;
    }
    let bytes = text.as_bytes();
    YIELD_WORDS.iter().any(|word| {
        text.match_indices(word).any(|(at, _)| {
            let from = at.saturating_sub(10);
            (from..at).rev().any(|p| {
                bytes[p] == b'%' && {
                    let spaced = p > 0 && bytes[p - 1] == b' ';
                    let before = digits_at(bytes, if spaced { p - 1 } else { p }, false);
                    let after = digits_at(bytes, p + 1, true);
                    before >= 100 || after >= 100
                }
            })
        })
    })
}

/// The whole number written just after `at` (forward) or just before it
/// (backward), with nothing glued on its other side; 0 when there is none.
fn digits_at(bytes: &[u8], at: usize, forward: bool) -> u32 {
    let (start, end) = if forward {
        let len = bytes
            .get(at..)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (at, at + len)
    } else {
        let len = bytes
            .get(..at)
            .unwrap_or_default()
            .iter()
            .rev()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (at - len, at)
    };
    if start == end || end - start > 4 {
        return 0;
    }
    let glued = if forward {
        bytes.get(end)
    } else {
        start.checked_sub(1).and_then(|i| bytes.get(i))
    };
    if glued.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'.' || *b == b',') {
        return 0;
    }
    bytes[start..end]
        .iter()
        .fold(0, |n, b| n * 10 + u32::from(b - b'0'))
}

/// Each number followed by a ticker (with or without a space), in order.
fn amounts(text: &str) -> Vec<(f64, &'static str)> {
    let mut found = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        // Straight to the next digit: most of a long message has none.
        match bytes[at..].iter().position(u8::is_ascii_digit) {
            Some(skip) => at += skip,
            None => break,
        }
        let starts_number = at == 0 || !bytes[at - 1].is_ascii_alphanumeric();
        if !starts_number {
            at += 1;
            continue;
        }
        let end = bytes[at..]
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.' || *b == b','))
            .map_or(bytes.len(), |len| at + len);
        let number = decimal(
            text.get(at..end)
                .unwrap_or_default()
                .trim_end_matches(['.', ',']),
        );
        let rest = text.get(end..).unwrap_or_default().trim_start();
        let after = TICKERS.iter().chain(CURRENCIES).find(|unit| {
            rest.starts_with(**unit)
                && (!unit.starts_with(char::is_alphanumeric)
                    || unit.len() > 3
                    || !rest[unit.len()..].starts_with(|c: char| c.is_alphanumeric()))
        });
        let before = text.get(..at).unwrap_or_default().trim_end();
        let sign = SIGNS.iter().find(|sign| before.ends_with(**sign));
        if let (Ok(value), Some(unit)) = (number.parse::<f64>(), after.or(sign)) {
            found.push((value, *unit));
        }
        at = end;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_given_for_nothing_is_found_next_to_its_amount() {
        for text in [
            "free 100 usdt, check my bio",
            "100 usdt geschenkt",
            "дарю 50 usdt",
        ] {
            assert!(free_money(text), "{text}");
        }
        for text in [
            "feel free to ask, the bridge costs 2 usdt in gas fees these days",
            "free time",
            "100 usdt",
        ] {
            assert!(!free_money(text), "{text}");
        }
    }

    #[test]
    fn yields_of_a_hundred_percent_a_year_or_more_are_found() {
        for text in [
            "earn 300% apy",
            "%300 apy kazanın",
            "300 % годовых",
            "stake for 150 % apr",
        ] {
            assert!(high_yield(text), "{text}");
        }
        for text in [
            "staking apy is 8% right now",
            "apy 12 %",
            "100 users, apy 5%",
        ] {
            assert!(!high_yield(text), "{text}");
        }
    }

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

    #[test]
    fn thousands_and_decimals_are_read_either_way() {
        assert_eq!(decimal("1,500"), "1500");
        assert_eq!(decimal("1.000"), "1000");
        assert_eq!(decimal("0,15"), "0.15");
        assert_eq!(decimal("0.150"), "0.150");
        assert_eq!(decimal("12,345.67"), "12345.67");
        assert!(more_back("sends 500 usdt receives 1,500 usdt back"));
    }

    #[test]
    fn sums_that_grow_and_named_money_are_found() {
        assert!(money("from $1,000 to $23,000 in 6 weeks").grows);
        assert!(money("depot von 1.000 auf 14.500 usdt").named);
        assert!(money("von 1.000 usdt auf 14.500 usdt").grows);
        assert!(money("made 40% last month").named);
        assert!(money("günde %3 kazanç").named);
        assert!(!money("went from 10k to 4k").grows);
        assert!(!money("bought at $1.2, now $2.1").grows);
        assert!(!money("the 3 of us met at 5").named);
        assert!(!money("$1,000 to $23,000").more_back);
    }

    #[test]
    fn calls_of_5x_or_more_are_multipliers_and_other_x_are_not() {
        assert!(big_multiplier("last calls did x8 and 12x"));
        assert!(big_multiplier("сигналы дали x15"));
        assert!(!big_multiplier("i'd be happy with a 3x honestly"));
        assert!(!big_multiplier("0x5aaeb6053f3e94c9b9a09f33669435e7ef1bead"));
        assert!(!big_multiplier("box 1.5x, max 2x leverage, 1920x1080"));
        assert!(!big_multiplier("x2 back, or the xrp chart"));
    }
}
