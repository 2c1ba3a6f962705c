//! Signed phone answers. Each A/B/C button posts
//! `decision:<id>:<letter>:<expiry>:<signature>`, where the signature is an
//! HMAC-SHA256 of everything before it under `ntfy.signing_key`. Whoever can
//! read the alert topic sees the buttons of the decisions pushed there, and
//! nothing more: a body cannot be changed to name another decision, another
//! option or a later expiry without the key, which never leaves the server.

use chrono::{DateTime, Utc};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::{Answer, LETTERS};

type HmacSha256 = Hmac<Sha256>;

/// Why a reply on the reply topic changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("not a decision answer")]
    NotAnAnswer,
    #[error("no signature")]
    Unsigned,
    #[error("the signature does not match")]
    BadSignature,
    #[error("the answer expired at {0}")]
    Expired(DateTime<Utc>),
}

/// `ntfy.signing_key` is not 64 hex characters.
#[derive(Debug, thiserror::Error)]
#[error("`ntfy.signing_key` is not 64 hex characters")]
pub struct BadKey;

/// Signs and checks answers with the server-side key.
#[derive(Clone)]
pub struct Signer {
    /// HMAC-SHA256 keyed once; cloned for each body.
    keyed: HmacSha256,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer([REDACTED])")
    }
}

impl Signer {
    /// The signer for a key of 64 hex characters.
    pub fn from_hex(hex: &str) -> Result<Self, BadKey> {
        let key = decode_hex(hex).filter(|k| k.len() == 32).ok_or(BadKey)?;
        Ok(Self {
            keyed: <HmacSha256 as KeyInit>::new_from_slice(&key).map_err(|_| BadKey)?,
        })
    }

    /// The body a button posts to answer `decision` with `letter`, valid
    /// until `expires`.
    pub fn body(&self, decision: i64, letter: char, expires: DateTime<Utc>) -> String {
        let signed = format!("decision:{decision}:{letter}:{}", expires.timestamp());
        let signature = encode_hex(&self.mac(&signed).finalize().into_bytes());
        format!("{signed}:{signature}")
    }

    /// The answer a reply carries, if it is signed with our key and not
    /// expired at `now`.
    pub fn verify(&self, body: &str, now: DateTime<Utc>) -> Result<Answer, Refusal> {
        let body = body.trim();
        let fields: Vec<&str> = body.split(':').collect();
        let (decision, letter) = match fields.as_slice() {
            ["decision", id, letter, ..] => {
                (id.parse::<i64>().map_err(|_| Refusal::NotAnAnswer)?, letter)
            }
            _ => return Err(Refusal::NotAnAnswer),
        };
        let option = LETTERS
            .iter()
            .position(|l| letter.len() == 1 && letter.starts_with(*l))
            .ok_or(Refusal::NotAnAnswer)?;
        let [_, _, _, expiry, signature] = fields.as_slice() else {
            return Err(Refusal::Unsigned);
        };
        let signature = decode_hex(signature).ok_or(Refusal::BadSignature)?;
        let signed_len = body.len() - signature.len() * 2 - 1;
        let signed = body.get(..signed_len).ok_or(Refusal::BadSignature)?;
        self.mac(signed)
            .verify_slice(&signature)
            .map_err(|_| Refusal::BadSignature)?;
        // Checked after the signature: only a genuine expiry is reported.
        let expires = expiry
            .parse::<i64>()
            .ok()
            .and_then(|s| DateTime::from_timestamp(s, 0))
            .ok_or(Refusal::BadSignature)?;
        if now > expires {
            return Err(Refusal::Expired(expires));
        }
        Ok(Answer { decision, option })
    }

    fn mac(&self, signed: &str) -> HmacSha256 {
        let mut mac = self.keyed.clone();
        mac.update(signed.as_bytes());
        mac
    }
}

fn encode_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeDelta;

    use super::*;

    const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn signer() -> Signer {
        Signer::from_hex(KEY).unwrap()
    }

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    #[test]
    fn a_signed_body_answers_its_decision_with_its_option() {
        let body = signer().body(42, 'B', now() + TimeDelta::hours(1));
        assert!(body.starts_with("decision:42:B:1800003600:"), "{body}");
        assert_eq!(
            signer().verify(&format!(" {body}\n"), now()),
            Ok(Answer {
                decision: 42,
                option: 1
            })
        );
    }

    #[test]
    fn a_body_changed_to_name_another_decision_option_or_expiry_is_refused() {
        let body = signer().body(42, 'B', now() + TimeDelta::hours(1));
        for forged in [
            body.replacen(":42:", ":43:", 1),
            body.replacen(":B:", ":C:", 1),
            body.replacen(":1800003600:", ":1900000000:", 1),
        ] {
            assert_eq!(
                signer().verify(&forged, now()),
                Err(Refusal::BadSignature),
                "{forged}"
            );
        }
    }

    #[test]
    fn an_unsigned_or_foreign_or_expired_body_is_refused() {
        let s = signer();
        assert_eq!(s.verify("decision:42:B", now()), Err(Refusal::Unsigned));
        assert_eq!(s.verify("hello", now()), Err(Refusal::NotAnAnswer));
        assert_eq!(
            s.verify("decision:42:D:1:00", now()),
            Err(Refusal::NotAnAnswer)
        );
        let other = Signer::from_hex(&KEY.replace('0', "1")).unwrap();
        let body = other.body(42, 'A', now() + TimeDelta::hours(1));
        assert_eq!(s.verify(&body, now()), Err(Refusal::BadSignature));
        let expires = now() - TimeDelta::seconds(1);
        let late = s.body(42, 'A', expires);
        assert_eq!(s.verify(&late, now()), Err(Refusal::Expired(expires)));
    }

    #[test]
    fn a_key_must_be_64_hex_characters() {
        assert!(Signer::from_hex("abcd").is_err());
        assert!(Signer::from_hex(&"zz".repeat(32)).is_err());
        assert!(format!("{:?}", signer()).contains("REDACTED"));
    }
}
