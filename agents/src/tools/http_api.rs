//! The HTTP plumbing the infra and research tools share: one service at a
//! base URL (or behind a Unix socket), its credentials, a time limit per
//! request and a size limit per answer. Every failure becomes a
//! [`ToolError`] that says which service failed and what to do; a
//! credential never appears in one.

use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use reqwest::{Method, RequestBuilder, Url};
use secrecy::{ExposeSecret, SecretString};
use serde::de::DeserializeOwned;
use ulias_core::settings::HttpSettings;

use super::ToolError;
use super::workspace::cap;
use crate::untrusted::wrap_untrusted;

/// The most bytes read from one answer; a larger one is cut (text) or
/// refused (JSON).
pub const MAX_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// Why a tool's HTTP client could not start.
#[derive(Debug, thiserror::Error)]
#[error("the HTTP client of {service} cannot start: {message}")]
pub struct ClientError {
    service: &'static str,
    message: String,
}

impl ClientError {
    pub fn new(service: &'static str, message: String) -> Self {
        Self { service, message }
    }
}

/// An HTTP client with `[http]`'s connect timeout, over TCP or, with
/// `socket`, over that Unix socket.
pub fn client(
    service: &'static str,
    http: &HttpSettings,
    socket: Option<&std::path::Path>,
) -> Result<reqwest::Client, ClientError> {
    // reqwest is built without a default TLS provider: ours is ring. A
    // second install (another client did it) is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(http.connect_timeout_seconds));
    if let Some(socket) = socket {
        builder = builder.unix_socket(socket.to_path_buf());
    }
    builder.build().map_err(|e| ClientError {
        service,
        message: e.to_string(),
    })
}

/// One service the tools call.
#[derive(Clone)]
pub struct Service {
    /// Its name in messages (`Loki`, `the Docker Engine`).
    pub name: &'static str,
    base: Url,
    /// Where it is, for messages: `host:port`, or the socket's path.
    place: String,
    client: reqwest::Client,
    authorization: Option<HeaderValue>,
    timeout: Duration,
}

/// An answer read within the size limit.
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: Vec<u8>,
    /// Whether the body was cut at [`MAX_ANSWER_BYTES`].
    pub truncated: bool,
}

impl Answer {
    /// The body as text, cut to `max` bytes, and whether it was cut.
    pub fn text(&self, max: usize) -> (String, bool) {
        let text = String::from_utf8_lossy(&self.body);
        let (shown, cut) = cap(&text, max);
        (shown.to_owned(), cut || self.truncated)
    }
}

impl Service {
    /// `name` at `base` (a path prefix kept: `http://h/api` serves
    /// `http://h/api/x`), each request limited to `timeout`.
    pub fn new(name: &'static str, base: Url, client: reqwest::Client, timeout: Duration) -> Self {
        let mut base = base;
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        let place = match (base.host_str(), base.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => base.to_string(),
        };
        Self {
            name,
            base,
            place,
            client,
            authorization: None,
            timeout,
        }
    }

    /// Names `socket` as where the service is, in messages.
    #[must_use]
    pub fn at_socket(mut self, socket: &std::path::Path) -> Self {
        self.place = socket.display().to_string();
        self
    }

    /// Sends `Authorization: <value>` with every request.
    pub fn with_authorization(mut self, value: &SecretString) -> Result<Self, ClientError> {
        let mut header = HeaderValue::from_str(value.expose_secret()).map_err(|_| ClientError {
            service: self.name,
            message: "the credential holds characters a header cannot carry".into(),
        })?;
        header.set_sensitive(true);
        self.authorization = Some(header);
        Ok(self)
    }

    /// `path` (relative, no leading `/`) under the base URL, with `query`.
    pub fn url(&self, path: &str, query: &[(&str, String)]) -> Result<Url, ToolError> {
        let mut url = self
            .base
            .join(path)
            .map_err(|e| ToolError::Failed(format!("bad path {path:?}: {e}")))?;
        if !query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(query.iter().map(|(k, v)| (*k, v.as_str())));
        }
        Ok(url)
    }

    /// Whether `url` lies under the base URL (same origin, path below it).
    pub fn contains(&self, url: &Url) -> bool {
        url.origin() == self.base.origin() && url.path().starts_with(self.base.path())
    }

    /// A request to `url` with the credentials and time limit.
    pub fn request(&self, method: Method, url: Url) -> RequestBuilder {
        let mut request = self.client.request(method, url).timeout(self.timeout);
        if let Some(authorization) = &self.authorization {
            request = request.header(AUTHORIZATION, authorization.clone());
        }
        request
    }

    /// Sends `request` and reads the answer, whatever its status.
    pub async fn send(&self, request: RequestBuilder) -> Result<Answer, ToolError> {
        let mut response = request.send().await.map_err(|e| self.unreachable(e))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let mut body = Vec::new();
        let mut truncated = false;
        while let Some(chunk) = response.chunk().await.map_err(|e| self.unreachable(e))? {
            let room = MAX_ANSWER_BYTES - body.len();
            if chunk.len() > room {
                body.extend_from_slice(&chunk[..room]);
                truncated = true;
                break;
            }
            body.extend_from_slice(&chunk);
        }
        Ok(Answer {
            status,
            content_type,
            body,
            truncated,
        })
    }

    /// Sends `request`; a status other than 2xx is an error.
    pub async fn send_ok(&self, request: RequestBuilder) -> Result<Answer, ToolError> {
        let answer = self.send(request).await?;
        if (200..300).contains(&answer.status) {
            Ok(answer)
        } else {
            Err(self.refused(&answer))
        }
    }

    /// Sends `request` and reads a 2xx JSON answer as `T`.
    pub async fn json<T: DeserializeOwned>(&self, request: RequestBuilder) -> Result<T, ToolError> {
        let answer = self.send_ok(request).await?;
        if answer.truncated {
            return Err(ToolError::Failed(format!(
                "{} answered more than {MAX_ANSWER_BYTES} bytes: narrow the request",
                self.name
            )));
        }
        serde_json::from_slice(&answer.body).map_err(|e| {
            ToolError::Failed(format!("{} answered something unexpected: {e}", self.name))
        })
    }

    /// The error for a non-2xx answer: the status and the start of what
    /// the service said, wrapped as untrusted.
    pub fn refused(&self, answer: &Answer) -> ToolError {
        let (said, _) = answer.text(300);
        let hint = match answer.status {
            401 | 403 => ": check the credentials in the settings",
            _ => "",
        };
        ToolError::Failed(format!(
            "{} at {} answered {}{hint}: {}",
            self.name,
            self.place,
            answer.status,
            wrap_untrusted(self.name, said.trim())
        ))
    }

    fn unreachable(&self, error: reqwest::Error) -> ToolError {
        // The URL may carry a key in its query: never in a message.
        let error = error.without_url();
        if error.is_timeout() {
            ToolError::Failed(format!(
                "{} at {} did not answer within {:?}",
                self.name, self.place, self.timeout
            ))
        } else {
            ToolError::Failed(format!(
                "{} at {} cannot be reached: {error}",
                self.name, self.place
            ))
        }
    }
}

/// The refusal of a tool whose service is not configured.
pub fn not_configured(tool: &str, key: &str) -> ToolError {
    ToolError::Forbidden(format!(
        "{tool} is not configured: set {key} in the settings (report that you could not use it)"
    ))
}

/// Checks a name given by the model for a path segment (a container, a
/// node): letters, digits, `-`, `_`, `.`, starting with a letter or digit.
pub fn checked_name<'a>(what: &str, name: &'a str) -> Result<&'a str, ToolError> {
    let ok = (1..=128).contains(&name.len())
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok {
        Ok(name)
    } else {
        Err(ToolError::Forbidden(format!(
            "{name:?} is not a valid {what} name: letters, digits, `-`, `_`, `.` only"
        )))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn names_with_path_tricks_are_refused() {
        assert!(checked_name("container", "web-1").is_ok());
        assert!(checked_name("container", "../etc").is_err());
        assert!(checked_name("container", "a/b").is_err());
        assert!(checked_name("container", ".hidden").is_err());
        assert!(checked_name("container", "").is_err());
    }

    #[test]
    fn a_base_path_is_kept_and_only_paths_below_it_are_contained() {
        let client = client("test", &HttpSettings::default(), None).unwrap();
        let base = Url::parse("http://h:1/api").unwrap();
        let service = Service::new("test", base, client, Duration::from_secs(1));
        let url = service.url("events", &[("day", "today".into())]).unwrap();
        assert_eq!(url.as_str(), "http://h:1/api/events?day=today");
        assert!(service.contains(&url));
        assert!(!service.contains(&Url::parse("http://h:1/other").unwrap()));
        assert!(!service.contains(&Url::parse("http://x:1/api/events").unwrap()));
    }
}
