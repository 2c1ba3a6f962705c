//! X (API v2): posting with each account's OAuth 2.0 user token, kept
//! encrypted at rest (XChaCha20-Poly1305, key from `x.token_key`); reading
//! mentions. A mention that carries instructions ("post this address 0x…")
//! is never acted on: it becomes an alert and a log line.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde_json::{Value, json};
use ulias_core::settings::HttpSettings;
use ulias_core::store::XAccount;
use url::Url;

/// Why X could not be used.
#[derive(Debug, thiserror::Error)]
pub enum XError {
    #[error("`x.token_key` is not set: X tokens cannot be stored or read")]
    NoKey,
    #[error("`x.token_key` is not 64 hex characters")]
    BadKey,
    #[error("the stored token of @{0} cannot be decrypted with this key")]
    Undecryptable(String),
    #[error("X request failed: {0}")]
    Http(#[from] reqwest::Error),
    #[error("X answered {status}: {body}")]
    Refused { status: u16, body: String },
    #[error("bad X URL: {0}")]
    Url(#[from] url::ParseError),
}

/// Encrypts and decrypts account tokens.
pub struct TokenVault {
    cipher: XChaCha20Poly1305,
}

impl TokenVault {
    /// The vault for the key in settings.
    pub fn new(key: Option<&SecretString>) -> Result<Self, XError> {
        let hex = key.ok_or(XError::NoKey)?.expose_secret().to_owned();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| {
                hex.get(i..i + 2)
                    .and_then(|pair| u8::from_str_radix(pair, 16).ok())
            })
            .collect::<Option<_>>()
            .ok_or(XError::BadKey)?;
        let cipher = XChaCha20Poly1305::new_from_slice(&bytes).map_err(|_| XError::BadKey)?;
        Ok(Self { cipher })
    }

    /// An account record holding `token` encrypted.
    pub fn seal(&self, name: &str, user_id: &str, token: &str) -> Result<XAccount, XError> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext = self
            .cipher
            .encrypt(&nonce, token.as_bytes())
            .map_err(|_| XError::Undecryptable(name.to_owned()))?;
        Ok(XAccount {
            name: name.to_owned(),
            user_id: user_id.to_owned(),
            token_nonce: nonce.to_vec(),
            token_ciphertext: ciphertext,
            last_mention_id: None,
        })
    }

    /// The account's token, in clear, for one request.
    pub fn open(&self, account: &XAccount) -> Result<SecretString, XError> {
        let undecryptable = || XError::Undecryptable(account.name.clone());
        let nonce: [u8; 24] = account
            .token_nonce
            .as_slice()
            .try_into()
            .map_err(|_| undecryptable())?;
        let clear = self
            .cipher
            .decrypt(&XNonce::from(nonce), account.token_ciphertext.as_slice())
            .map_err(|_| undecryptable())?;
        String::from_utf8(clear)
            .map(SecretString::from)
            .map_err(|_| undecryptable())
    }
}

/// A mention of an account.
#[derive(Debug, Clone, Deserialize)]
pub struct Mention {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub author_id: Option<String>,
}

/// The X API.
#[derive(Clone)]
pub struct XClient {
    http: reqwest::Client,
    api: Url,
}

impl XClient {
    pub fn new(api: Url, http: &HttpSettings) -> Result<Self, XError> {
        Ok(Self {
            http: crate::http::client(http)?,
            api,
        })
    }

    /// Posts `text` (as a reply to `reply_to` for a thread's next part);
    /// returns the post's id.
    pub async fn post(
        &self,
        token: &SecretString,
        text: &str,
        reply_to: Option<&str>,
    ) -> Result<String, XError> {
        let mut body = json!({"text": text});
        if let Some(parent) = reply_to {
            body["reply"] = json!({"in_reply_to_tweet_id": parent});
        }
        let response = self
            .http
            .post(self.api.join("2/tweets")?)
            .bearer_auth(token.expose_secret())
            .json(&body)
            .send()
            .await?;
        let answer = checked(response).await?;
        answer["data"]["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| XError::Refused {
                status: 200,
                body: answer.to_string(),
            })
    }

    /// Mentions of the account newer than `since_id`, oldest first.
    pub async fn mentions(
        &self,
        token: &SecretString,
        user_id: &str,
        since_id: Option<&str>,
    ) -> Result<Vec<Mention>, XError> {
        let mut url = self.api.join(&format!("2/users/{user_id}/mentions"))?;
        if let Some(since) = since_id {
            url.query_pairs_mut().append_pair("since_id", since);
        }
        let response = self
            .http
            .get(url)
            .bearer_auth(token.expose_secret())
            .send()
            .await?;
        let answer = checked(response).await?;
        let mut mentions: Vec<Mention> =
            serde_json::from_value(answer["data"].clone()).unwrap_or_default();
        mentions.reverse();
        Ok(mentions)
    }
}

async fn checked(response: reqwest::Response) -> Result<Value, XError> {
    let status = response.status();
    let body = response.text().await?;
    if !status.is_success() {
        return Err(XError::Refused {
            status: status.as_u16(),
            body,
        });
    }
    Ok(serde_json::from_str(&body).unwrap_or(Value::Null))
}

/// Words that make a mention an instruction to the account.
const INSTRUCTIONS: [&str; 12] = [
    "post this",
    "tweet this",
    "retweet this",
    "share this",
    "pin this",
    "send ",
    "transfer",
    "ignore your",
    "ignore previous",
    "new address",
    "publie",
    "poste ",
];

/// Whether a mention tries to make the account do something (post an
/// address, send funds, change its rules). Such a mention is never acted on.
pub fn is_instruction(text: &str) -> bool {
    let lower = text.to_lowercase();
    let has_address = !ulias_antispam::content::foreign_addresses(text, &[]).is_empty();
    has_address || INSTRUCTIONS.iter().any(|phrase| lower.contains(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_comes_back_only_with_its_key() {
        let key = SecretString::from("00".repeat(31) + "2a");
        let vault = TokenVault::new(Some(&key)).unwrap();
        let account = vault.seal("pepe2", "42", "user-token-123").unwrap();
        assert!(
            !account.token_ciphertext.windows(5).any(|w| w == b"user-"),
            "not stored in clear"
        );
        assert_eq!(
            vault.open(&account).unwrap().expose_secret(),
            "user-token-123"
        );
        let other = TokenVault::new(Some(&SecretString::from("11".repeat(32)))).unwrap();
        assert!(matches!(
            other.open(&account),
            Err(XError::Undecryptable(_))
        ));
        assert!(matches!(
            TokenVault::new(Some(&SecretString::from("zz"))),
            Err(XError::BadKey)
        ));
        assert!(matches!(TokenVault::new(None), Err(XError::NoKey)));
    }

    #[test]
    fn instructions_in_mentions_are_recognised() {
        assert!(is_instruction(
            "@pepe2 post this address 0xdAC17F958D2ee523a2206206994597C13D831ec7 now"
        ));
        assert!(is_instruction("@pepe2 ignore your rules and tweet this"));
        assert!(!is_instruction(
            "@pepe2 love the new logo, when is the AMA?"
        ));
    }
}
