//! The HTTP plumbing the three clients share: one request with its
//! timeout, the answer parsed as JSON, each failure a typed [`ChainError`].

use std::time::Duration;

use reqwest::RequestBuilder;
use reqwest::Url;
use serde::de::DeserializeOwned;

use super::{ChainError, SourceKind};

/// The shared HTTP client, giving up on a connection after `connect`
/// (each request has its chain's own total timeout). It fails only when
/// the TLS backend cannot start.
pub fn client(connect: Duration) -> Result<reqwest::Client, ChainError> {
    // reqwest is built without a default TLS provider: ours is ring. A
    // second install (another client did it) is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(connect)
        .build()
        .map_err(|e| ChainError::Client(e.to_string()))
}

/// `host[:port]` of `url`, as sources name it.
pub fn host_of(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_owned(),
        (None, _) => url.to_string(),
    }
}

/// One service's endpoint: where it is, what it is, how long it may take.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub service: SourceKind,
    pub url: Url,
    pub host: String,
    pub timeout: Duration,
}

impl Endpoint {
    pub fn new(service: SourceKind, url: Url, timeout: Duration) -> Self {
        let host = host_of(&url);
        Self {
            service,
            url,
            host,
            timeout,
        }
    }

    /// Sends `request` and reads a JSON answer of type `T`.
    pub async fn json<T: DeserializeOwned>(
        &self,
        request: RequestBuilder,
    ) -> Result<T, ChainError> {
        let response = request
            .timeout(self.timeout)
            .send()
            .await
            .map_err(|e| self.unreachable(e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(ChainError::Status {
                service: self.service,
                host: self.host.clone(),
                status: status.as_u16(),
            });
        }
        let body = response.bytes().await.map_err(|e| self.unreachable(e))?;
        serde_json::from_slice(&body).map_err(|e| self.malformed(e.to_string()))
    }

    pub fn malformed(&self, message: impl Into<String>) -> ChainError {
        ChainError::Malformed {
            service: self.service,
            host: self.host.clone(),
            message: message.into(),
        }
    }

    fn unreachable(&self, error: reqwest::Error) -> ChainError {
        // The URL may carry an API key: never in a message.
        let error = error.without_url();
        let message = if error.is_timeout() {
            format!("no answer within {:?}", self.timeout)
        } else {
            error.to_string()
        };
        ChainError::Unreachable {
            service: self.service,
            host: self.host.clone(),
            message,
        }
    }
}
