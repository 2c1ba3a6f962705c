//! The HTTP client of the services the bot calls (ntfy, X): connect and
//! total timeouts from settings, so a peer that accepts connections and
//! never answers holds nothing up. A long-lived stream (ntfy's replies)
//! sets its own total limit per request; reads still time out.

use std::time::Duration;

use ulias_core::settings::HttpSettings;

/// How long a stream may stay silent: ntfy sends a keepalive every 45 s.
const READ_TIMEOUT: Duration = Duration::from_secs(120);

/// A client with the timeouts of `settings` (it fails only when the TLS
/// backend cannot start).
pub fn client(settings: &HttpSettings) -> Result<reqwest::Client, reqwest::Error> {
    // reqwest is built without a default TLS provider: ours is ring. A
    // second install (another client did it) is refused harmlessly.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(settings.connect_timeout_seconds))
        .timeout(Duration::from_secs(settings.request_timeout_seconds))
        .read_timeout(READ_TIMEOUT)
        .build()
}
