//! The expiry of a TLS certificate, read from its DER encoding: the
//! `notAfter` of `tbsCertificate.validity` (RFC 5280 §4.1). Only the
//! few structures on the way are walked; anything unexpected is `None`.

use chrono::{DateTime, NaiveDateTime, Utc};

const SEQUENCE: u8 = 0x30;
const VERSION: u8 = 0xA0;
const UTC_TIME: u8 = 0x17;
const GENERALIZED_TIME: u8 = 0x18;

/// When the certificate `der` stops being valid.
pub fn not_after(der: &[u8]) -> Option<DateTime<Utc>> {
    let (SEQUENCE, certificate, _) = element(der)? else {
        return None;
    };
    let (SEQUENCE, mut tbs, _) = element(certificate)? else {
        return None;
    };
    if tbs.first() == Some(&VERSION) {
        tbs = element(tbs)?.2;
    }
    // serialNumber, signature, issuer, then validity.
    for _ in 0..3 {
        tbs = element(tbs)?.2;
    }
    let (SEQUENCE, validity, _) = element(tbs)? else {
        return None;
    };
    let (_, _, rest) = element(validity)?;
    let (tag, time, _) = element(rest)?;
    let text = std::str::from_utf8(time).ok()?;
    let full = match tag {
        UTC_TIME => {
            let year: u32 = text.get(..2)?.parse().ok()?;
            let century = if year >= 50 { "19" } else { "20" };
            format!("{century}{text}")
        }
        GENERALIZED_TIME => text.to_owned(),
        _ => return None,
    };
    let parsed = NaiveDateTime::parse_from_str(full.strip_suffix('Z')?, "%Y%m%d%H%M%S").ok()?;
    Some(parsed.and_utc())
}

/// The first element of `bytes`: its tag, its content, and what follows.
fn element(bytes: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = bytes.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (length, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let count = usize::from(first & 0x7F);
        if count == 0 || count > 4 || rest.len() < count {
            return None;
        }
        let length = rest[..count]
            .iter()
            .fold(0_usize, |acc, &b| (acc << 8) | usize::from(b));
        (length, &rest[count..])
    };
    if rest.len() < length {
        return None;
    }
    Some((tag, &rest[..length], &rest[length..]))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn the_expiry_is_read_from_a_real_certificate() {
        // Made with `openssl req -x509 … -days 400`; openssl printed
        // notAfter=Jan  7 18:17:29 2028 GMT.
        let der = include_bytes!("../testdata/cert.der");
        assert_eq!(
            not_after(der),
            Utc.with_ymd_and_hms(2028, 1, 7, 18, 17, 29).single()
        );
    }

    #[test]
    fn a_truncated_or_foreign_encoding_is_none() {
        let der = include_bytes!("../testdata/cert.der");
        assert_eq!(not_after(&der[..40]), None);
        assert_eq!(not_after(b"not a certificate"), None);
        assert_eq!(not_after(&[]), None);
    }
}
