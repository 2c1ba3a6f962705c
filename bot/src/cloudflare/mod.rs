//! Cloudflare, where approved sites go live: Pages Direct Upload (the
//! project created when missing, the bundle's files uploaded by hash, a
//! deployment whose manifest names them), the project's custom domain
//! `<subdomain>.<domain>`, and the zone's CNAME `<subdomain>` →
//! `<project>.pages.dev`. Every answer is Cloudflare's envelope
//! (`success`, `errors`, `messages`, `result`): a refusal becomes a
//! [`CloudflareError::Refused`] carrying Cloudflare's own codes and words,
//! shown to the team as they are.

mod dns;
mod pages;

use async_trait::async_trait;
use reqwest::{Method, RequestBuilder};
use secrecy::ExposeSecret;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use ulias_core::settings::{CloudflareAccount, HttpSettings};

use crate::site::{SitePublisher, SiteRelease};

pub use pages::{asset_hash, content_type};

/// Why Cloudflare did not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CloudflareError {
    /// Cloudflare answered, and refused.
    #[error(
        "Cloudflare refused to {action} (HTTP {status}): {}",
        errors_text(errors)
    )]
    Refused {
        action: &'static str,
        status: u16,
        errors: Vec<ApiMessage>,
    },
    /// No usable answer came (the request may have been carried out).
    #[error("Cloudflare did not answer to {action}: {source}")]
    Http {
        action: &'static str,
        #[source]
        source: reqwest::Error,
    },
    /// The answer is not Cloudflare's envelope.
    #[error("Cloudflare's answer to {action} does not read: {message}")]
    Malformed {
        action: &'static str,
        message: String,
    },
    /// The zone already has a record of that name pointing elsewhere:
    /// never overwritten, the team decides.
    #[error(
        "the DNS record {name} already points to {current}, not {wanted}: change it by hand if the site should move"
    )]
    RecordTaken {
        name: String,
        current: String,
        wanted: String,
    },
    /// The bundle's files cannot be read.
    #[error("the site's files cannot be read ({path}): {source}")]
    Bundle {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl CloudflareError {
    /// Whether the request left and no answer came: it may have been done.
    pub fn is_lost(&self) -> bool {
        matches!(self, Self::Http { source, .. } if !source.is_connect() && !source.is_builder())
    }
}

/// One of Cloudflare's `errors` (or `messages`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ApiMessage {
    #[serde(default)]
    pub code: i64,
    #[serde(default)]
    pub message: String,
}

fn errors_text(errors: &[ApiMessage]) -> String {
    if errors.is_empty() {
        return "no reason given".to_owned();
    }
    errors
        .iter()
        .map(|e| format!("[{}] {}", e.code, e.message))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Cloudflare's envelope.
#[derive(Debug, Deserialize)]
struct Envelope<T> {
    success: bool,
    #[serde(default)]
    errors: Vec<ApiMessage>,
    result: Option<T>,
}

/// The API, for one account and zone.
#[derive(Clone)]
pub struct Cloudflare {
    http: reqwest::Client,
    account: CloudflareAccount,
}

impl Cloudflare {
    /// A client of `account` with the timeouts of `http`.
    pub fn new(account: CloudflareAccount, http: &HttpSettings) -> Result<Self, reqwest::Error> {
        Ok(Self {
            http: crate::http::client(http)?,
            account,
        })
    }

    /// A request to `path` (under the API URL) with the account's token.
    fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let base = self.account.api_url.as_str().trim_end_matches('/');
        self.http
            .request(method, format!("{base}/{}", path.trim_start_matches('/')))
            .bearer_auth(self.account.api_token.expose_secret())
    }

    /// The same, authorised by an upload token instead (the assets API).
    fn with_jwt(&self, path: &str, jwt: &str) -> RequestBuilder {
        let base = self.account.api_url.as_str().trim_end_matches('/');
        self.http
            .post(format!("{base}/{}", path.trim_start_matches('/')))
            .bearer_auth(jwt)
    }

    /// Sends `request` and reads the envelope's `result`.
    async fn call<T: DeserializeOwned>(
        &self,
        request: RequestBuilder,
        action: &'static str,
    ) -> Result<T, CloudflareError> {
        let response = request
            .send()
            .await
            .map_err(|source| CloudflareError::Http { action, source })?;
        let status = response.status().as_u16();
        let body = response
            .text()
            .await
            .map_err(|source| CloudflareError::Http { action, source })?;
        let envelope: Envelope<T> =
            serde_json::from_str(&body).map_err(|e| CloudflareError::Malformed {
                action,
                message: format!("HTTP {status}: {e}"),
            })?;
        match envelope {
            Envelope {
                success: true,
                result: Some(result),
                ..
            } if status < 400 => Ok(result),
            Envelope { errors, .. } => Err(CloudflareError::Refused {
                action,
                status,
                errors,
            }),
        }
    }

    /// The account's settings this client was built with.
    pub fn account(&self) -> &CloudflareAccount {
        &self.account
    }
}

#[async_trait]
impl SitePublisher for Cloudflare {
    /// Creates the project if missing, deploys the bundle, attaches the
    /// custom domain and points the zone's record at the project; returns
    /// the site's address.
    async fn publish(&self, release: &SiteRelease) -> Result<String, CloudflareError> {
        self.ensure_project(&release.project).await?;
        let deployment = self.deploy(&release.project, &release.folder).await?;
        let host = format!("{}.{}", release.subdomain, self.account.domain);
        self.ensure_domain(&release.project, &host).await?;
        let target = format!("{}.pages.dev", release.project);
        self.ensure_cname(&host, &target).await?;
        tracing::info!(project = %release.project, deployment = %deployment.id, %host, "site deployed");
        Ok(format!("https://{host}"))
    }
}
