//! `http_check` and `nmap_light`: what the Monitor and the Auditor see of
//! our own services and hosts, and nothing else. An address that is not a
//! listed service's or host's is refused, so an instruction slipped into a
//! task cannot turn the checks into a scanner of other people's machines.
//! A check of a listed service is recorded: the incidents follow from
//! these records, not from what a model says it saw.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use reqwest::Url;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::settings::ServiceSettings;
use ulias_core::store::ServiceCheck;

use super::remote::Hosts;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

mod tls;

/// How long one request or connection may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one port may take to answer.
const PORT_TIMEOUT: Duration = Duration::from_secs(2);
/// The most ports one scan tries.
const MAX_PORTS: usize = 64;

/// The services and hosts the checks may reach.
#[derive(Debug, Clone)]
pub struct Checks {
    pub services: Vec<ServiceSettings>,
    pub hosts: Hosts,
    /// `None` when the TLS backend could not start: every check says so.
    client: Option<reqwest::Client>,
}

impl Checks {
    /// Checks of these services and hosts.
    pub fn new(services: Vec<ServiceSettings>, hosts: Hosts) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .connect_timeout(CHECK_TIMEOUT)
            .timeout(CHECK_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .tls_info(true)
            .build();
        if let Err(error) = &client {
            tracing::error!(%error, "the health checks' HTTP client cannot start");
        }
        Self {
            services,
            hosts,
            client: client.ok(),
        }
    }

    /// No service, no host.
    pub fn none() -> Self {
        Self::new(Vec::new(), Hosts::none())
    }

    /// Whether `url` points at a listed service's or host's address.
    fn ours(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let service = self.services.iter().any(|s| {
            s.health_url.as_ref().is_some_and(|h| {
                h.host_str() == Some(host)
                    && h.port_or_known_default() == url.port_or_known_default()
            })
        });
        service || self.hosts.all().iter().any(|h| h.address == host)
    }
}

/// Checks an HTTP endpoint.
pub struct HttpCheck(pub Checks);

/// Every check of a call.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HttpChecks {
    pub checks: Vec<HttpChecked>,
}

/// Arguments of `http_check`: a listed service, an address of ours, or
/// nothing (every listed service).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpCheckArgs {
    /// A service's name, as configured: its health address and expected text.
    #[serde(default)]
    pub service: Option<String>,
    /// An address on one of our services or hosts (when no service is named).
    #[serde(default)]
    pub url: Option<String>,
    /// Text the answer must contain (default: the service's own).
    #[serde(default)]
    pub expect: Option<String>,
}

/// What a check found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HttpChecked {
    /// The service, when one was named.
    pub service: Option<String>,
    pub url: String,
    /// Whether it answered 2xx (and held the expected text) within the time.
    pub ok: bool,
    /// The HTTP status, when it answered.
    pub status: Option<u16>,
    pub latency_ms: u64,
    /// Whether the expected text was found (absent when none was asked).
    pub content_matched: Option<bool>,
    /// When its TLS certificate expires (https only), RFC 3339.
    pub tls_expires_at: Option<String>,
    /// Days until then.
    pub tls_days_left: Option<i64>,
    /// Why it is not ok, wrapped as untrusted text.
    pub detail: String,
    /// 2 when the first try failed and it was tried again.
    pub attempts: u32,
}

impl HttpCheck {
    async fn once(&self, url: &Url, expect: Option<&str>, now: DateTime<Utc>) -> HttpChecked {
        let started = Instant::now();
        let mut checked = HttpChecked {
            service: None,
            url: url.to_string(),
            ok: false,
            status: None,
            latency_ms: 0,
            content_matched: None,
            tls_expires_at: None,
            tls_days_left: None,
            detail: String::new(),
            attempts: 1,
        };
        let Some(client) = &self.0.client else {
            checked.detail = "the HTTP client could not start (TLS backend)".to_owned();
            return checked;
        };
        let response = match client.get(url.clone()).send().await {
            Ok(response) => response,
            Err(error) => {
                checked.latency_ms = millis(started);
                checked.detail = wrap_untrusted("http_check", &failure(&error));
                return checked;
            }
        };
        checked.status = Some(response.status().as_u16());
        if let Some(expires) = response
            .extensions()
            .get::<reqwest::tls::TlsInfo>()
            .and_then(|info| info.peer_certificate())
            .and_then(tls::not_after)
        {
            checked.tls_expires_at = Some(expires.to_rfc3339());
            checked.tls_days_left = Some((expires - now).num_days());
        }
        let success = response.status().is_success();
        let body = response.text().await.unwrap_or_default();
        checked.latency_ms = millis(started);
        checked.content_matched = expect.map(|text| body.contains(text));
        checked.ok = success && checked.content_matched != Some(false);
        checked.detail = match (success, checked.content_matched) {
            (false, _) => wrap_untrusted(
                "http_check",
                &format!("answered {}", checked.status.unwrap_or(0)),
            ),
            (true, Some(false)) => {
                wrap_untrusted("http_check", "answered without the expected text")
            }
            _ => String::new(),
        };
        checked
    }
}

fn millis(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// A failed request in a few words.
fn failure(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "no answer in time".to_owned()
    } else if error.is_connect() {
        "connection refused or unreachable".to_owned()
    } else {
        format!("request failed: {error}")
    }
}

#[async_trait]
impl TypedTool for HttpCheck {
    const NAME: &'static str = "http_check";
    const DESCRIPTION: &'static str = "Check our services' HTTP endpoints (one service, one address of ours, or with no arguments every listed service): status, latency, expected text, TLS expiry; a failure is tried again once.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["monitor"]);
    type Args = HttpCheckArgs;
    type Output = HttpChecks;

    async fn call(&self, ctx: &ToolContext, args: HttpCheckArgs) -> Result<HttpChecks, ToolError> {
        let targets: Vec<(Option<&ServiceSettings>, Url, Option<String>)> =
            match (&args.service, &args.url) {
                (Some(name), _) => {
                    let service = self
                        .0
                        .services
                        .iter()
                        .find(|s| &s.name == name)
                        .ok_or_else(|| {
                            ToolError::Forbidden(format!(
                                "no service is called {name} ([[services]])"
                            ))
                        })?;
                    let url = service.health_url.clone().ok_or_else(|| {
                        ToolError::Failed(format!("the service {name} has no health_url"))
                    })?;
                    vec![(
                        Some(service),
                        url,
                        args.expect.clone().or_else(|| service.expect.clone()),
                    )]
                }
                (None, Some(url)) => {
                    let url = Url::parse(url).map_err(|e| ToolError::InvalidArgs {
                        tool: Self::NAME,
                        message: format!("{url}: {e}"),
                    })?;
                    if !self.0.ours(&url) {
                        return Err(ToolError::Forbidden(format!(
                            "{url} is not one of our services or hosts: refused"
                        )));
                    }
                    vec![(None, url, args.expect.clone())]
                }
                (None, None) => self
                    .0
                    .services
                    .iter()
                    .filter_map(|s| Some((Some(s), s.health_url.clone()?, s.expect.clone())))
                    .collect(),
            };
        if targets.is_empty() {
            return Err(ToolError::Failed(
                "no service has a health_url ([[services]]): there is nothing to check".into(),
            ));
        }
        let mut checks = Vec::with_capacity(targets.len());
        for (service, url, expect) in targets {
            checks.push(self.check(ctx, service, &url, expect.as_deref()).await?);
        }
        Ok(HttpChecks { checks })
    }
}

impl HttpCheck {
    /// Checks `url` (once more when the first try fails) and records the
    /// result when it is a listed service's.
    pub async fn check(
        &self,
        ctx: &ToolContext,
        service: Option<&ServiceSettings>,
        url: &Url,
        expect: Option<&str>,
    ) -> Result<HttpChecked, ToolError> {
        let mut checked = self.once(url, expect, ctx.clock.now()).await;
        if !checked.ok {
            checked = self.once(url, expect, ctx.clock.now()).await;
            checked.attempts = 2;
        }
        if let Some(service) = service {
            checked.service = Some(service.name.clone());
            let record = ServiceCheck {
                service: service.name.clone(),
                task_id: Some(ctx.task.id),
                ok: checked.ok,
                detail: checked.detail.clone(),
            };
            ctx.store
                .record_service_check(&record, ctx.clock.now())
                .await?;
        }
        Ok(checked)
    }
}

/// Checks which ports of one of our hosts answer.
pub struct NmapLight(pub Checks);

/// Arguments of `nmap_light`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortArgs {
    /// The host's name, as configured.
    pub host: String,
    /// The ports to try (at most 64; default: the host's listed ports).
    #[serde(default)]
    pub ports: Vec<u16>,
}

/// Open and closed ports.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Ports {
    pub host: String,
    /// Ports that accepted a connection.
    pub open: Vec<u16>,
    /// Ports that refused it or did not answer in time.
    pub closed: Vec<u16>,
}

#[async_trait]
impl TypedTool for NmapLight {
    const NAME: &'static str = "nmap_light";
    const DESCRIPTION: &'static str =
        "Check which TCP ports of one of our hosts accept a connection.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["auditor"]);
    type Args = PortArgs;
    type Output = Ports;

    async fn call(&self, _ctx: &ToolContext, args: PortArgs) -> Result<Ports, ToolError> {
        let host = self.0.hosts.host(&args.host)?;
        let mut ports = if args.ports.is_empty() {
            host.ports.clone()
        } else {
            args.ports
        };
        ports.sort_unstable();
        ports.dedup();
        if ports.is_empty() || ports.len() > MAX_PORTS {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: format!("give 1–{MAX_PORTS} ports (the host lists none)"),
            });
        }
        let tries = ports.iter().map(|&port| {
            let address = host.address.clone();
            async move {
                let connect = tokio::net::TcpStream::connect((address.as_str(), port));
                let open = matches!(tokio::time::timeout(PORT_TIMEOUT, connect).await, Ok(Ok(_)));
                (port, open)
            }
        });
        let results = futures_join_all(tries).await;
        let (open, closed): (Vec<_>, Vec<_>) = results.into_iter().partition(|(_, open)| *open);
        Ok(Ports {
            host: host.name.clone(),
            open: open.into_iter().map(|(p, _)| p).collect(),
            closed: closed.into_iter().map(|(p, _)| p).collect(),
        })
    }
}

/// Runs the futures together, keeping their order.
async fn futures_join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::with_capacity(handles.len());
    for handle in handles {
        if let Ok(output) = handle.await {
            outputs.push(output);
        }
    }
    outputs
}
