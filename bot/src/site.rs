//! The site-publisher port: an approved, checked bundle goes live and its
//! address is the publication's external id. Cloudflare Pages
//! ([`crate::cloudflare`]) is the host; without `[cloudflare]` none is
//! wired, and site publications fail with a message saying so.

use std::path::PathBuf;

use async_trait::async_trait;

use crate::cloudflare::CloudflareError;

/// A site to put online.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteRelease {
    /// The bundle's served files.
    pub folder: PathBuf,
    /// The host's project (`ulias-pep2-7`).
    pub project: String,
    /// The name under the domain (`pep2` → `pep2.example.org`).
    pub subdomain: String,
}

impl SiteRelease {
    /// The project and subdomain of operation `id` with `ticker` (its
    /// symbol, or its name), its own subdomain when it has one.
    pub fn named(
        folder: PathBuf,
        prefix: &str,
        id: i64,
        ticker: &str,
        subdomain: Option<&str>,
    ) -> Self {
        let label = dns_label(ticker);
        let label = if label.is_empty() {
            "site".to_owned()
        } else {
            label
        };
        let mut project = format!("{prefix}-{label}-{id}");
        // Pages project names are at most 58 characters.
        if project.len() > 58 {
            project = format!("{prefix}-{}-{id}", &label[..label.len().min(20)]);
        }
        Self {
            folder,
            project,
            subdomain: subdomain.map(dns_label).unwrap_or(label),
        }
    }
}

/// `text` as a DNS label: lowercase letters, digits and inner dashes.
fn dns_label(text: &str) -> String {
    let label: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    label.trim_matches('-').chars().take(63).collect()
}

/// Publishes a static site.
#[async_trait]
pub trait SitePublisher: Send + Sync {
    /// Deploys `release`; returns its address.
    async fn publish(&self, release: &SiteRelease) -> Result<String, CloudflareError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_is_named_from_the_ticker_unless_the_operation_has_a_subdomain() {
        let release = SiteRelease::named("b".into(), "ulias", 7, "PEP2", None);
        assert_eq!(
            (release.project.as_str(), release.subdomain.as_str()),
            ("ulias-pep2-7", "pep2")
        );
        let own = SiteRelease::named("b".into(), "ulias", 7, "$PEP 2", Some("Pepe"));
        assert_eq!(
            (own.project.as_str(), own.subdomain.as_str()),
            ("ulias-pep-2-7", "pepe")
        );
    }
}
