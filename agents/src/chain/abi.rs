//! The little of the Ethereum ABI the Scanner needs, by hand: the
//! selectors of `decimals()`, `totalSupply()` and `balanceOf(address)`, an
//! address padded to 32 bytes, and a `uint256` answer read back as a `u128`.

/// `decimals()`.
pub const DECIMALS: &str = "0x313ce567";
/// `totalSupply()`.
pub const TOTAL_SUPPLY: &str = "0x18160ddd";
/// `balanceOf(address)`, before its argument.
pub const BALANCE_OF: &str = "0x70a08231";

/// Why a value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AbiError {
    #[error("`{0}` is not an address (0x and 40 hex digits)")]
    Address(String),
    #[error("`{0}` is not a hex quantity")]
    Hex(String),
    #[error("`{0}` is larger than this reader handles (2^128)")]
    TooLarge(String),
}

/// `address` lowercased, once checked: `0x` and 40 hex digits.
pub fn parse_address(address: &str) -> Result<String, AbiError> {
    let trimmed = address.trim();
    let hex = trimmed
        .strip_prefix("0x")
        .or_else(|| trimmed.strip_prefix("0X"))
        .ok_or_else(|| AbiError::Address(address.to_owned()))?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(AbiError::Address(address.to_owned()));
    }
    Ok(format!("0x{}", hex.to_ascii_lowercase()))
}

/// The call data of `balanceOf(holder)`.
pub fn balance_of_call(holder: &str) -> Result<String, AbiError> {
    let holder = parse_address(holder)?;
    Ok(format!("{BALANCE_OF}{:0>64}", &holder[2..]))
}

/// A hex quantity or a 32-byte word (`0x1a`, `0x00…1a`) as a `u128`.
/// `0x` alone is refused: a call that returns nothing has no value.
pub fn decode_uint(text: &str) -> Result<u128, AbiError> {
    let hex = text
        .strip_prefix("0x")
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| AbiError::Hex(text.to_owned()))?;
    let digits = hex.trim_start_matches('0');
    if digits.len() > 32 {
        return Err(AbiError::TooLarge(text.to_owned()));
    }
    if digits.is_empty() {
        return Ok(0);
    }
    u128::from_str_radix(digits, 16).map_err(|_| AbiError::Hex(text.to_owned()))
}

/// `raw` token units as tokens, given `decimals`.
pub fn to_tokens(raw: u128, decimals: u8) -> f64 {
    // f64 loses digits past 2^53: fine for figures people read.
    #[allow(clippy::cast_precision_loss)]
    let raw = raw as f64;
    raw / 10f64.powi(i32::from(decimals))
}

/// `part` as a percentage of `whole` (0 when the whole is 0).
pub fn share_pct(part: u128, whole: u128) -> f64 {
    if whole == 0 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)]
    let ratio = part as f64 / whole as f64;
    ratio * 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balance_of_pads_the_address_to_a_word() {
        let data = balance_of_call("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed").unwrap();
        assert_eq!(
            data,
            "0x70a08231\
             0000000000000000000000005aaeb6053f3e94c9b9a09f33669435e7ef1beaed"
        );
        assert_eq!(data.len(), 2 + 8 + 64);
    }

    #[test]
    fn bad_addresses_are_refused() {
        for bad in [
            "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0x123",
            "0xZZ",
            "",
        ] {
            assert!(parse_address(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn words_and_quantities_decode_and_overflow_is_typed() {
        assert_eq!(decode_uint("0x12"), Ok(18));
        assert_eq!(decode_uint(&format!("0x{:0>64}", "12")), Ok(18));
        assert_eq!(decode_uint("0x0"), Ok(0));
        assert_eq!(decode_uint(&format!("0x{:0>64}", "")), Ok(0));
        assert_eq!(
            decode_uint(&format!("0x{:0>64x}", u128::MAX)),
            Ok(u128::MAX)
        );
        let huge = format!("0x1{:0>32}", "");
        assert_eq!(decode_uint(&huge), Err(AbiError::TooLarge(huge.clone())));
        for bad in ["0x", "12", "0xg1", ""] {
            assert_eq!(
                decode_uint(bad),
                Err(AbiError::Hex(bad.to_owned())),
                "{bad}"
            );
        }
    }

    #[test]
    fn shares_and_tokens() {
        assert_eq!(share_pct(6, 100), 6.0);
        assert_eq!(share_pct(1, 0), 0.0);
        assert_eq!(to_tokens(1_500_000_000_000_000_000, 18), 1.5);
    }
}
