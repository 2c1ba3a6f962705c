//! Where approved sites go live (`[cloudflare]`: Pages and the DNS zone)
//! and the public API their live widgets read (`[public_api]`). Both are
//! off by default: without `[cloudflare]` an approved site fails with a
//! message saying so; without `public_api.listen` no API is served.

use std::net::SocketAddr;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use url::Url;

use super::Problem;

/// Cloudflare: the account whose Pages host the sites, and the zone whose
/// `<ticker>` records point at them. Set all four of `account_id`,
/// `api_token`, `zone_id` and `domain`, or none.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CloudflareSettings {
    /// Cloudflare's API (a test points it at a stand-in).
    pub api_url: Url,
    /// The account id (32 hex digits, from the dashboard's URL).
    pub account_id: Option<String>,
    /// An API token with `Account · Cloudflare Pages · Edit` and
    /// `Zone · DNS · Edit` on the zone.
    pub api_token: Option<SecretString>,
    /// The zone of `domain` (32 hex digits).
    pub zone_id: Option<String>,
    /// The domain sites live under: `<ticker>.<domain>`.
    pub domain: Option<String>,
    /// Pages projects are named `<prefix>-<ticker>-<operation id>`.
    pub project_prefix: String,
}

impl Default for CloudflareSettings {
    fn default() -> Self {
        Self {
            api_url: super::default_url("https://api.cloudflare.com/client/v4/"),
            account_id: None,
            api_token: None,
            zone_id: None,
            domain: None,
            project_prefix: "ulias".to_owned(),
        }
    }
}

/// What publishing needs, when `[cloudflare]` is complete.
#[derive(Debug, Clone)]
pub struct CloudflareAccount {
    pub api_url: Url,
    pub account_id: String,
    pub api_token: SecretString,
    pub zone_id: String,
    pub domain: String,
    pub project_prefix: String,
}

impl CloudflareSettings {
    /// The account, when every key is set.
    pub fn account(&self) -> Option<CloudflareAccount> {
        Some(CloudflareAccount {
            api_url: self.api_url.clone(),
            account_id: self.account_id.clone()?,
            api_token: self.api_token.clone()?,
            zone_id: self.zone_id.clone()?,
            domain: self.domain.clone()?,
            project_prefix: self.project_prefix.clone(),
        })
    }

    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut add = |key: &str, message: &str| {
            problems.push(Problem {
                key: format!("cloudflare.{key}"),
                message: message.to_owned(),
            });
        };
        if !matches!(self.api_url.scheme(), "http" | "https") {
            add("api_url", "expected an http:// or https:// URL");
        }
        let set = [
            self.account_id.is_some(),
            self.api_token.is_some(),
            self.zone_id.is_some(),
            self.domain.is_some(),
        ];
        if set.contains(&true) && set.contains(&false) {
            add(
                "account_id",
                "set all four of account_id, api_token, zone_id and domain, or none",
            );
        }
        let hex32 = |id: &str| id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit());
        if self.account_id.as_deref().is_some_and(|id| !hex32(id)) {
            add("account_id", "expected 32 hexadecimal digits");
        }
        if self.zone_id.as_deref().is_some_and(|id| !hex32(id)) {
            add("zone_id", "expected 32 hexadecimal digits");
        }
        if self
            .api_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().trim().is_empty())
        {
            add("api_token", "is empty: remove the key or give the token");
        }
        if self.domain.as_deref().is_some_and(|d| !is_domain(d)) {
            add("domain", "expected a domain name such as `example.org`");
        }
        let prefix = &self.project_prefix;
        if prefix.is_empty()
            || prefix.len() > 20
            || !prefix
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            add(
                "project_prefix",
                "expected 1–20 lowercase letters, digits or dashes",
            );
        }
        problems
    }
}

fn is_domain(domain: &str) -> bool {
    domain.contains('.')
        && domain.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// The read-only public API (`GET /api/operations/{id}`) the sites' live
/// widgets read; served by `ulias run` when `listen` is set.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PublicApiSettings {
    /// Where to listen (`127.0.0.1:8787`, behind a reverse proxy); none:
    /// no API is served.
    pub listen: Option<SocketAddr>,
    /// The address the sites' widgets fetch, as the public reaches it
    /// (`https://api.example.org`). Required with `listen`.
    pub public_url: Option<Url>,
    /// How long an operation's figures are served before they are read again.
    pub cache_seconds: u64,
}

impl Default for PublicApiSettings {
    fn default() -> Self {
        Self {
            listen: None,
            public_url: None,
            cache_seconds: 60,
        }
    }
}

impl PublicApiSettings {
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut add = |key: &str, message: &str| {
            problems.push(Problem {
                key: format!("public_api.{key}"),
                message: message.to_owned(),
            });
        };
        if self.listen.is_some() && self.public_url.is_none() {
            add(
                "public_url",
                "is required with `listen`: the address the sites' widgets fetch",
            );
        }
        if self
            .public_url
            .as_ref()
            .is_some_and(|url| !matches!(url.scheme(), "http" | "https"))
        {
            add("public_url", "expected an http:// or https:// URL");
        }
        if !(1..=3600).contains(&self.cache_seconds) {
            add("cache_seconds", "expected 1–3600 seconds");
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_api_url_parses() {
        assert_eq!(
            CloudflareSettings::default().api_url.as_str(),
            "https://api.cloudflare.com/client/v4/"
        );
    }

    fn problems_of(toml: &str) -> Vec<String> {
        match super::super::Settings::from_toml(toml, "test", Vec::new()) {
            Ok(_) => Vec::new(),
            Err(error) => error.problems().iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn a_half_set_cloudflare_or_a_public_api_without_its_url_is_refused_by_key() {
        let problems = problems_of(
            "[cloudflare]\naccount_id = \"nothex\"\ndomain = \"sites\"\n\
             [public_api]\nlisten = \"127.0.0.1:8787\"\ncache_seconds = 0\n",
        );
        let expected = [
            "`cloudflare.account_id`: set all four of account_id, api_token, zone_id and domain, or none",
            "`cloudflare.account_id`: expected 32 hexadecimal digits",
            "`cloudflare.domain`: expected a domain name such as `example.org`",
            "`public_api.public_url`: is required with `listen`: the address the sites' widgets fetch",
            "`public_api.cache_seconds`: expected 1–3600 seconds",
        ];
        for line in expected {
            assert!(problems.iter().any(|p| p == line), "{line} in {problems:?}");
        }
        let complete = problems_of(
            "[cloudflare]\naccount_id = \"0123456789abcdef0123456789abcdef\"\n\
             api_token = \"t\"\nzone_id = \"fedcba9876543210fedcba9876543210\"\n\
             domain = \"example.org\"\n",
        );
        assert!(complete.is_empty(), "{complete:?}");
    }
}
