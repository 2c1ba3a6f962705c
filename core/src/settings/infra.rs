//! What the infrastructure and research tools reach (`[infra]`,
//! `[research]`): the Docker socket, Loki, Proxmox, SearXNG, the connectors
//! API and the GPU job server. Everything is empty by default, and a tool
//! whose service is not set refuses every call, naming the key to set.
//! Requests use `[http]`'s timeouts and `[workspace].max_output_bytes`.

use std::path::PathBuf;

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use url::Url;

use super::Problem;

/// The machines the infra tools (`docker`, `loki_query`, `proxmox_api`) reach.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InfraSettings {
    /// The Docker Engine's Unix socket (`/var/run/docker.sock`); none: the
    /// `docker` tool refuses.
    pub docker_socket: Option<PathBuf>,
    /// Loki's base URL (`http://loki:3100`); none: `loki_query` refuses.
    pub loki_url: Option<Url>,
    /// The Proxmox VE API.
    pub proxmox: ProxmoxSettings,
}

/// The Proxmox VE API and its API token (`Datacenter → Permissions → API Tokens`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProxmoxSettings {
    /// `https://pve.lan:8006`; none: `proxmox_api` refuses.
    pub url: Option<Url>,
    /// `user@realm!token-name`.
    pub token_id: Option<String>,
    /// The token's secret (a UUID).
    pub token_secret: Option<SecretString>,
}

/// The services the research and media tools (`web_search`,
/// `connector_fetch`, `ai_job`) reach.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ResearchSettings {
    /// A SearXNG instance with the JSON format enabled; none: `web_search` refuses.
    pub searxng_url: Option<Url>,
    /// The connectors API `connector_fetch` reads (GET only, paths under
    /// this URL); none: it refuses.
    pub connectors_url: Option<Url>,
    /// Sent as `Authorization: Bearer …` to the connectors API.
    pub connectors_api_key: Option<SecretString>,
    /// The GPU job server `ai_job` submits to (`POST /jobs`, `GET /jobs/{id}`);
    /// none: it refuses.
    pub ai_jobs_url: Option<Url>,
    /// Sent as `Authorization: Bearer …` to the job server.
    pub ai_jobs_api_key: Option<SecretString>,
    /// Seconds between two looks at a submitted job.
    pub ai_job_poll_seconds: u64,
    /// Seconds a job may take, from submission to result.
    pub ai_job_timeout_seconds: u64,
}

impl Default for ResearchSettings {
    fn default() -> Self {
        Self {
            searxng_url: None,
            connectors_url: None,
            connectors_api_key: None,
            ai_jobs_url: None,
            ai_jobs_api_key: None,
            ai_job_poll_seconds: 5,
            ai_job_timeout_seconds: 600,
        }
    }
}

/// Collects problems, each tied to a key.
#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, key: &str, message: &str) {
        self.0.push(Problem {
            key: key.to_owned(),
            message: message.to_owned(),
        });
    }

    fn web_url(&mut self, key: &str, url: Option<&Url>) {
        if url.is_some_and(|url| !matches!(url.scheme(), "http" | "https")) {
            self.add(key, "expected an http:// or https:// URL");
        }
    }

    fn secret(&mut self, key: &str, secret: Option<&SecretString>) {
        if secret.is_some_and(|secret| secret.expose_secret().trim().is_empty()) {
            self.add(key, "is empty: remove the key or give the secret");
        }
    }
}

impl InfraSettings {
    /// What is wrong with the section, each tied to its key.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Problems::default();
        if self
            .docker_socket
            .as_ref()
            .is_some_and(|path| !path.is_absolute())
        {
            problems.add(
                "infra.docker_socket",
                "expected an absolute path to a socket",
            );
        }
        problems.web_url("infra.loki_url", self.loki_url.as_ref());
        let proxmox = &self.proxmox;
        problems.web_url("infra.proxmox.url", proxmox.url.as_ref());
        problems.secret("infra.proxmox.token_secret", proxmox.token_secret.as_ref());
        if let Some(id) = &proxmox.token_id
            && !valid_token_id(id)
        {
            problems.add("infra.proxmox.token_id", "expected `user@realm!token-name`");
        }
        let set = [
            proxmox.url.is_some(),
            proxmox.token_id.is_some(),
            proxmox.token_secret.is_some(),
        ];
        if set.contains(&true) && set.contains(&false) {
            problems.add(
                "infra.proxmox",
                "set url, token_id and token_secret together, or none of them",
            );
        }
        problems.0
    }
}

impl ResearchSettings {
    /// What is wrong with the section, each tied to its key.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Problems::default();
        problems.web_url("research.searxng_url", self.searxng_url.as_ref());
        problems.web_url("research.connectors_url", self.connectors_url.as_ref());
        problems.web_url("research.ai_jobs_url", self.ai_jobs_url.as_ref());
        problems.secret(
            "research.connectors_api_key",
            self.connectors_api_key.as_ref(),
        );
        problems.secret("research.ai_jobs_api_key", self.ai_jobs_api_key.as_ref());
        if !(1..=60).contains(&self.ai_job_poll_seconds) {
            problems.add("research.ai_job_poll_seconds", "must be 1–60 seconds");
        }
        if !(10..=3600).contains(&self.ai_job_timeout_seconds) {
            problems.add("research.ai_job_timeout_seconds", "must be 10–3600 seconds");
        } else if self.ai_job_poll_seconds >= self.ai_job_timeout_seconds {
            problems.add(
                "research.ai_job_poll_seconds",
                "must be less than ai_job_timeout_seconds",
            );
        }
        problems.0
    }
}

/// `user@realm!token-name`, as Proxmox names API tokens.
fn valid_token_id(id: &str) -> bool {
    let Some((user, token)) = id.split_once('!') else {
        return false;
    };
    let plain = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(user.split_once('@'), Some((name, realm)) if plain(name) && plain(realm))
        && plain(token)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_proxmox_token_id_names_user_realm_and_token() {
        assert!(valid_token_id("ulias@pve!monitor"));
        assert!(!valid_token_id("ulias@pve"));
        assert!(!valid_token_id("ulias!monitor"));
        assert!(!valid_token_id("ulias@pve!mon itor"));
    }

    #[test]
    fn a_proxmox_url_without_its_token_is_a_problem() {
        let settings = InfraSettings {
            proxmox: ProxmoxSettings {
                url: Some(Url::parse("https://pve.lan:8006").unwrap()),
                ..ProxmoxSettings::default()
            },
            ..InfraSettings::default()
        };
        let keys: Vec<String> = settings.problems().into_iter().map(|p| p.key).collect();
        assert_eq!(keys, ["infra.proxmox"]);
    }

    #[test]
    fn bad_infra_and_research_values_name_their_keys() {
        let text = "[infra]\ndocker_socket = \"docker.sock\"\nloki_url = \"ftp://loki\"\n\
                    [research]\nai_job_poll_seconds = 0\nconnectors_api_key = \" \"\n";
        let error = super::super::Settings::from_toml(text, "test.toml", []).unwrap_err();
        let keys: Vec<&str> = error.problems().iter().map(|p| p.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "infra.docker_socket",
                "infra.loki_url",
                "research.connectors_api_key",
                "research.ai_job_poll_seconds"
            ]
        );
    }
}
