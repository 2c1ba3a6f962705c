//! Account tokens at rest: XChaCha20-Poly1305 with the key from
//! `x.token_key`, a fresh nonce per token. The store only ever holds
//! [`Sealed`] values.

use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use chrono::{DateTime, Utc};
use secrecy::{ExposeSecret, SecretString};
use ulias_core::store::{Sealed, XAccount};

use super::XError;

/// Encrypts and decrypts account tokens.
pub struct TokenVault {
    cipher: XChaCha20Poly1305,
}

/// What the team gives when connecting an account.
pub struct Grant<'a> {
    pub access_token: &'a str,
    pub refresh_token: Option<&'a str>,
    pub expires_at: Option<DateTime<Utc>>,
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

    /// `token`, encrypted under a fresh nonce.
    pub fn seal(&self, name: &str, token: &str) -> Result<Sealed, XError> {
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let ciphertext = self
            .cipher
            .encrypt(&nonce, token.as_bytes())
            .map_err(|_| XError::Undecryptable(name.to_owned()))?;
        Ok(Sealed {
            nonce: nonce.to_vec(),
            ciphertext,
        })
    }

    /// An account record holding the grant's tokens encrypted.
    pub fn seal_account(
        &self,
        name: &str,
        user_id: &str,
        grant: &Grant<'_>,
    ) -> Result<XAccount, XError> {
        Ok(XAccount {
            name: name.to_owned(),
            user_id: user_id.to_owned(),
            token: self.seal(name, grant.access_token)?,
            refresh: grant
                .refresh_token
                .map(|refresh| self.seal(name, refresh))
                .transpose()?,
            expires_at: grant.expires_at,
            paused: None,
            last_mention_id: None,
        })
    }

    /// A sealed token of account `name`, in clear, for one request.
    pub fn open(&self, name: &str, sealed: &Sealed) -> Result<SecretString, XError> {
        let undecryptable = || XError::Undecryptable(name.to_owned());
        let nonce: [u8; 24] = sealed
            .nonce
            .as_slice()
            .try_into()
            .map_err(|_| undecryptable())?;
        let clear = self
            .cipher
            .decrypt(&XNonce::from(nonce), sealed.ciphertext.as_slice())
            .map_err(|_| undecryptable())?;
        String::from_utf8(clear)
            .map(SecretString::from)
            .map_err(|_| undecryptable())
    }

    /// The account's access token, in clear.
    pub fn access_token(&self, account: &XAccount) -> Result<SecretString, XError> {
        self.open(&account.name, &account.token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grant(token: &str) -> Grant<'_> {
        Grant {
            access_token: token,
            refresh_token: Some("refresh-456"),
            expires_at: None,
        }
    }

    #[test]
    fn a_token_comes_back_only_with_its_key() {
        let key = SecretString::from("00".repeat(31) + "2a");
        let vault = TokenVault::new(Some(&key)).unwrap();
        let account = vault
            .seal_account("pepe2", "42", &grant("user-token-123"))
            .unwrap();
        for sealed in [&account.token, account.refresh.as_ref().unwrap()] {
            assert!(
                !sealed
                    .ciphertext
                    .windows(5)
                    .any(|w| w == b"user-" || w == b"refre"),
                "not stored in clear"
            );
        }
        assert_eq!(
            vault.access_token(&account).unwrap().expose_secret(),
            "user-token-123"
        );
        assert_eq!(
            vault
                .open("pepe2", account.refresh.as_ref().unwrap())
                .unwrap()
                .expose_secret(),
            "refresh-456"
        );
        let other = TokenVault::new(Some(&SecretString::from("11".repeat(32)))).unwrap();
        assert!(matches!(
            other.access_token(&account),
            Err(XError::Undecryptable(_))
        ));
        assert!(matches!(
            TokenVault::new(Some(&SecretString::from("zz"))),
            Err(XError::BadKey)
        ));
        assert!(matches!(TokenVault::new(None), Err(XError::NoKey)));
    }
}
