//! Crypto addresses in a message: EVM (`0x` + 40 hex, whatever its case: a
//! broken EIP-55 checksum is a typo's or a made-up address's, still pushed
//! as the contract to buy), Solana (base58 that decodes to exactly 32 bytes, so a long
//! ordinary word is not one) and TON (user-friendly base64 of 36 bytes with
//! a valid CRC16, or raw `workchain:hex`) and TRON (`T` and 33 base58
//! characters, the USDT-TRC20 address scams ask to be paid at; like an
//! EVM address, its checksum is not asked: a made-up one is pushed all
//! the same).

/// Which chain an address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chain {
    Evm,
    Solana,
    Ton,
    Tron,
}

/// An address found in text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub chain: Chain,
    /// As written.
    pub text: String,
    /// The form two spellings of one address share (EVM lowercase, TON
    /// workchain and hash), for comparing with the official address.
    pub canonical: String,
}

/// Characters no address is shorter than (Solana's, base58).
const SHORTEST: usize = 32;

/// Every valid address in `text`, in order. Only runs of ASCII letters,
/// digits, `-`, `_` and `:` long enough to be an address are parsed: one
/// pass over the bytes through a table, nothing decoded for ordinary words.
pub fn find_addresses(text: &str) -> Vec<Address> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        // Skip to the next part of an address, then to its end.
        let Some(start) = bytes[at..].iter().position(|b| PART[usize::from(*b)]) else {
            break;
        };
        let start = at + start;
        let end = bytes[start..]
            .iter()
            .position(|b| !PART[usize::from(*b)])
            .map_or(bytes.len(), |len| start + len);
        // Runs hold ASCII only, so their ends are character boundaries.
        if end - start >= SHORTEST
            && let Some(address) = text.get(start..end).and_then(parse_address)
        {
            found.push(address);
        }
        at = end;
    }
    found
}

/// The bytes an address is written with: ASCII letters, digits, `-`, `_`, `:`.
const PART: [bool; 256] = {
    let mut part = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        let b = byte as u8;
        part[byte] = b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b':';
        byte += 1;
    }
    part
};

/// `word` as an address, if it is a valid one.
pub fn parse_address(word: &str) -> Option<Address> {
    let word = word.trim_matches(|c: char| c == ':' || c == '-' || c == '_');
    evm(word)
        .or_else(|| solana(word))
        .or_else(|| ton(word))
        .or_else(|| tron(word))
}

/// `T` and 33 base58 characters that decode to 25 bytes, the first 0x41.
fn tron(word: &str) -> Option<Address> {
    if word.len() != 34 || !word.starts_with('T') {
        return None;
    }
    let bytes = bs58::decode(word).into_vec().ok()?;
    (bytes.len() == 25 && bytes[0] == 0x41).then(|| Address {
        chain: Chain::Tron,
        text: word.to_owned(),
        canonical: word.to_owned(),
    })
}

fn evm(word: &str) -> Option<Address> {
    let hex = word
        .strip_prefix("0x")
        .or_else(|| word.strip_prefix("0X"))?;
    if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(Address {
        chain: Chain::Evm,
        text: word.to_owned(),
        canonical: format!("0x{}", hex.to_ascii_lowercase()),
    })
}

fn solana(word: &str) -> Option<Address> {
    if !(32..=44).contains(&word.len()) {
        return None;
    }
    let bytes = bs58::decode(word).into_vec().ok()?;
    (bytes.len() == 32).then(|| Address {
        chain: Chain::Solana,
        text: word.to_owned(),
        canonical: word.to_owned(),
    })
}

fn ton(word: &str) -> Option<Address> {
    if let Some((workchain, hash)) = word.split_once(':') {
        let workchain: i8 = workchain.parse().ok()?;
        let valid = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
        return valid.then(|| Address {
            chain: Chain::Ton,
            text: word.to_owned(),
            canonical: format!("{workchain}:{}", hash.to_ascii_lowercase()),
        });
    }
    if word.len() != 48 {
        return None;
    }
    let bytes = base64_decode(word)?;
    if bytes.len() != 36 || crc16_xmodem(&bytes[..34]) != u16::from_be_bytes([bytes[34], bytes[35]])
    {
        return None;
    }
    let workchain = bytes[1] as i8;
    let hash: String = bytes[2..34].iter().map(|b| format!("{b:02x}")).collect();
    Some(Address {
        chain: Chain::Ton,
        text: word.to_owned(),
        canonical: format!("{workchain}:{hash}"),
    })
}

/// Standard or URL-safe base64, without padding.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.trim_end_matches('=').bytes() {
        buffer = (buffer << 6) | value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    Some(out)
}

fn crc16_xmodem(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |mut crc, byte| {
        crc ^= u16::from(*byte) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
        crc
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evm_addresses_are_found_whatever_their_case() {
        // The EIP-55 test vectors.
        let valid = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        let found = find_addresses(&format!("send to {valid} now"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].chain, Chain::Evm);
        assert_eq!(found[0].canonical, valid.to_ascii_lowercase());
        // A broken checksum: the same address, mistyped.
        let broken = "0x5AAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
        assert_eq!(find_addresses(broken)[0].canonical, found[0].canonical);
        assert_eq!(
            find_addresses("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed").len(),
            1
        );
        assert!(find_addresses("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae").is_empty());
    }

    #[test]
    fn solana_addresses_decode_to_32_bytes_and_long_words_do_not() {
        let wsol = "So11111111111111111111111111111111111111112";
        assert_eq!(
            find_addresses(&format!("token {wsol}"))[0].chain,
            Chain::Solana
        );
        assert!(find_addresses("Antidisestablishmentarianism").is_empty());
        assert!(find_addresses("Supercalifragilisticexpialidocious123456").is_empty());
    }

    #[test]
    fn tron_addresses_are_found_by_their_shape() {
        let text = "send 100 USDT (TRC20) to TQ7mXk3vP9aR2sLdE8nYwB5cF1gH4jU6zT now";
        let found = find_addresses(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].chain, Chain::Tron);
        for word in [
            "TQx7mP3kL9vB2nR8sW4yZ1aC6dE5fG0hJ",  // a zero is no base58
            "TransactionsOfTheWeekAreInTheSheet", // a capital O is no base58
            "AQ7mXk3vP9aR2sLdE8nYwB5cF1gH4jU6zT",
        ] {
            assert!(
                find_addresses(word).iter().all(|a| a.chain != Chain::Tron),
                "{word}"
            );
        }
    }

    #[test]
    fn ton_addresses_need_a_valid_checksum() {
        let address = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2N";
        let found = find_addresses(&format!("pay {address}"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].chain, Chain::Ton);
        let tampered = "EQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqB2M";
        assert!(find_addresses(tampered).is_empty());
        let raw = format!("0:{}", "ab".repeat(32));
        assert_eq!(find_addresses(&raw)[0].chain, Chain::Ton);
    }
}
