//! The site-publisher port: an approved site (the Webdev's template fields)
//! goes live and its URL is the publication's external id. No host is wired
//! yet (Cloudflare Pages arrives with the webdev work): until one is, site
//! publications fail with a message saying so.

use async_trait::async_trait;
use serde_json::Value;

/// Publishes a static site.
#[async_trait]
pub trait SitePublisher: Send + Sync {
    /// Builds and deploys the site the payload describes; returns its URL.
    async fn publish(&self, site: &Value) -> Result<String, String>;
}
