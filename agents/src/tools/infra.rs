//! What the infra and research tools reach, as `[infra]` and `[research]`
//! describe it: the Docker Engine's socket, Loki, the Proxmox API, SearXNG,
//! the connectors API and the GPU job server, each absent until its key is
//! set, and the size limit of what a tool returns.

use std::time::Duration;

use reqwest::Url;
use secrecy::{ExposeSecret, SecretString};
use ulias_core::settings::{
    HttpSettings, InfraSettings, ResearchSettings, Settings, WorkspaceSettings,
};

use super::ToolError;
use super::http_api::{ClientError, Service, client, not_configured};

/// The services of `docker`, `loki_query` and `proxmox_api`.
#[derive(Clone)]
pub struct Infra {
    docker: Option<Service>,
    loki: Option<Service>,
    proxmox: Option<Service>,
    max_output: usize,
}

impl Infra {
    /// The services the settings name (`[infra]`, with `[http]`'s timeouts
    /// and `[workspace].max_output_bytes`).
    pub fn from_settings(settings: &Settings) -> Result<Self, ClientError> {
        let InfraSettings {
            docker_socket,
            loki_url,
            proxmox,
        } = &settings.infra;
        let http = &settings.http;
        let timeout = Duration::from_secs(http.request_timeout_seconds);
        let docker = match docker_socket {
            Some(socket) => {
                let client = client("the Docker Engine", http, Some(socket))?;
                // Over the socket the URL's host is not used.
                let base = Url::parse("http://docker/")
                    .map_err(|e| ClientError::new("the Docker Engine", e.to_string()))?;
                Some(Service::new("the Docker Engine", base, client, timeout).at_socket(socket))
            }
            None => None,
        };
        let loki = match loki_url {
            Some(url) => Some(Service::new(
                "Loki",
                url.clone(),
                client("Loki", http, None)?,
                timeout,
            )),
            None => None,
        };
        let proxmox = match (&proxmox.url, &proxmox.token_id, &proxmox.token_secret) {
            (Some(url), Some(id), Some(secret)) => {
                let token =
                    SecretString::from(format!("PVEAPIToken={id}={}", secret.expose_secret()));
                Some(
                    Service::new(
                        "Proxmox",
                        url.clone(),
                        client("Proxmox", http, None)?,
                        timeout,
                    )
                    .with_authorization(&token)?,
                )
            }
            _ => None,
        };
        Ok(Self {
            docker,
            loki,
            proxmox,
            max_output: settings.workspace.max_output_bytes,
        })
    }

    /// Nothing configured: every infra tool refuses.
    pub fn none() -> Self {
        Self {
            docker: None,
            loki: None,
            proxmox: None,
            max_output: WorkspaceSettings::default().max_output_bytes,
        }
    }

    /// The most bytes of text one tool returns.
    pub fn max_output(&self) -> usize {
        self.max_output
    }

    pub(super) fn docker(&self) -> Result<&Service, ToolError> {
        self.docker
            .as_ref()
            .ok_or_else(|| not_configured("docker", "[infra].docker_socket"))
    }

    pub(super) fn loki(&self) -> Result<&Service, ToolError> {
        self.loki
            .as_ref()
            .ok_or_else(|| not_configured("loki_query", "[infra].loki_url"))
    }

    pub(super) fn proxmox(&self) -> Result<&Service, ToolError> {
        self.proxmox.as_ref().ok_or_else(|| {
            not_configured(
                "proxmox_api",
                "[infra.proxmox] url, token_id and token_secret",
            )
        })
    }
}

/// The services of `web_search`, `connector_fetch` and `ai_job`.
#[derive(Clone)]
pub struct Research {
    searxng: Option<Service>,
    connectors: Option<Service>,
    jobs: Option<Service>,
    poll: Duration,
    job_timeout: Duration,
    max_output: usize,
}

impl Research {
    /// The services the settings name (`[research]`, with `[http]`'s
    /// timeouts and `[workspace].max_output_bytes`).
    pub fn from_settings(settings: &Settings) -> Result<Self, ClientError> {
        let research = &settings.research;
        let http = &settings.http;
        Ok(Self {
            searxng: service("SearXNG", research.searxng_url.as_ref(), None, http)?,
            connectors: service(
                "the connectors API",
                research.connectors_url.as_ref(),
                research.connectors_api_key.as_ref(),
                http,
            )?,
            jobs: service(
                "the GPU job server",
                research.ai_jobs_url.as_ref(),
                research.ai_jobs_api_key.as_ref(),
                http,
            )?,
            poll: Duration::from_secs(research.ai_job_poll_seconds),
            job_timeout: Duration::from_secs(research.ai_job_timeout_seconds),
            max_output: settings.workspace.max_output_bytes,
        })
    }

    /// Nothing configured: every research tool refuses.
    pub fn none() -> Self {
        let defaults = ResearchSettings::default();
        Self {
            searxng: None,
            connectors: None,
            jobs: None,
            poll: Duration::from_secs(defaults.ai_job_poll_seconds),
            job_timeout: Duration::from_secs(defaults.ai_job_timeout_seconds),
            max_output: WorkspaceSettings::default().max_output_bytes,
        }
    }

    /// The most bytes of text one tool returns.
    pub fn max_output(&self) -> usize {
        self.max_output
    }

    /// How often a submitted job is looked at, and how long it may take.
    pub fn job_pace(&self) -> (Duration, Duration) {
        (self.poll, self.job_timeout)
    }

    pub(super) fn searxng(&self) -> Result<&Service, ToolError> {
        self.searxng
            .as_ref()
            .ok_or_else(|| not_configured("web_search", "[research].searxng_url"))
    }

    pub(super) fn connectors(&self) -> Result<&Service, ToolError> {
        self.connectors
            .as_ref()
            .ok_or_else(|| not_configured("connector_fetch", "[research].connectors_url"))
    }

    pub(super) fn jobs(&self) -> Result<&Service, ToolError> {
        self.jobs
            .as_ref()
            .ok_or_else(|| not_configured("ai_job", "[research].ai_jobs_url"))
    }
}

/// `name` at `url` when it is set, sending `key` as a bearer token.
fn service(
    name: &'static str,
    url: Option<&reqwest::Url>,
    key: Option<&SecretString>,
    http: &HttpSettings,
) -> Result<Option<Service>, ClientError> {
    let Some(url) = url else {
        return Ok(None);
    };
    let timeout = Duration::from_secs(http.request_timeout_seconds);
    let service = Service::new(name, url.clone(), client(name, http, None)?, timeout);
    match key {
        Some(key) => {
            let bearer = SecretString::from(format!("Bearer {}", key.expose_secret()));
            service.with_authorization(&bearer).map(Some)
        }
        None => Ok(Some(service)),
    }
}
