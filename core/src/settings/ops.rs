//! What the operations tools may touch: the sandbox commands run in
//! (`[sandbox]`), the hosts reached over ssh (`[ssh]`, `[[hosts]]`) and the
//! services checked and deployed (`[[services]]`). Nothing listed, nothing
//! reached: every tool refuses a host or service these sections do not name.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use url::Url;

use super::Problem;

/// The limits of a sandboxed command (`bash`, `run_tests`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SandboxSettings {
    /// CPU seconds one command may use.
    pub cpu_seconds: u64,
    /// Address space of one command, in MiB.
    pub memory_mb: u64,
    /// Wall-clock seconds before the command and all it started are killed.
    pub timeout_seconds: u64,
    /// Processes (threads included) the command may have at once.
    pub max_processes: u32,
    /// The largest file the command may write, in MiB.
    pub max_file_mb: u64,
    /// Whether the command shares the host's network; off, it has only its
    /// own loopback.
    pub network: bool,
    /// The most bytes of output kept from one command (stdout and stderr each).
    pub max_output_bytes: usize,
    /// The whole environment a command sees (nothing of Ulias's own, whose
    /// variables may hold secrets): `PATH`, and e.g. `HOME` or `CARGO_HOME`
    /// for toolchains that need them.
    pub env: BTreeMap<String, String>,
    /// The only `host:port` pairs a utility's build and tests may reach
    /// (through the forwarder); anything else has no route.
    pub allow: Vec<HostPort>,
    /// The program started inside the sandbox to relay allowlisted
    /// connections (`<forwarder> sandbox-forward …`); unset, the running
    /// `ulias` binary itself.
    pub forwarder: Option<PathBuf>,
}

/// A `host:port` pair a sandboxed command may reach.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct HostPort {
    /// A DNS name or an IPv4 address.
    pub host: String,
    pub port: u16,
}

/// A text that is not `host:port`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not host:port (a DNS name or IPv4 address, a port from 1 to 65535)")]
pub struct InvalidHostPort(pub String);

impl std::str::FromStr for HostPort {
    type Err = InvalidHostPort;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidHostPort(text.to_owned());
        let (host, port) = text.rsplit_once(':').ok_or_else(invalid)?;
        let port: u16 = port.parse().map_err(|_| invalid())?;
        let host_ok = !host.is_empty()
            && host.len() <= 253
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
        if !host_ok || port == 0 {
            return Err(invalid());
        }
        Ok(Self {
            host: host.to_ascii_lowercase(),
            port,
        })
    }
}

impl TryFrom<String> for HostPort {
    type Error = InvalidHostPort;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl std::fmt::Display for HostPort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

impl Default for SandboxSettings {
    fn default() -> Self {
        Self {
            cpu_seconds: 300,
            memory_mb: 4096,
            timeout_seconds: 600,
            max_processes: 512,
            max_file_mb: 1024,
            network: false,
            max_output_bytes: 64 * 1024,
            env: BTreeMap::from([
                (
                    "PATH".to_owned(),
                    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".to_owned(),
                ),
                ("LANG".to_owned(), "C.UTF-8".to_owned()),
            ]),
            allow: vec![HostPort {
                host: "api.dexscreener.com".to_owned(),
                port: 443,
            }],
            forwarder: None,
        }
    }
}

/// How hosts are reached.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SshSettings {
    /// The ssh client to run.
    pub program: PathBuf,
    /// A known_hosts file; unset, the user's own. Unknown host keys are refused.
    pub known_hosts: Option<PathBuf>,
    /// Seconds to connect.
    pub connect_timeout_seconds: u64,
    /// Seconds one remote command may run.
    pub command_timeout_seconds: u64,
}

impl Default for SshSettings {
    fn default() -> Self {
        Self {
            program: "ssh".into(),
            known_hosts: None,
            connect_timeout_seconds: 10,
            command_timeout_seconds: 60,
        }
    }
}

/// One host the agents may reach.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSettings {
    /// The name agents use.
    pub name: String,
    /// Its address (name or IP).
    pub address: String,
    /// The ssh user.
    #[serde(default = "default_user")]
    pub user: String,
    /// The ssh port.
    #[serde(default = "default_ssh_port")]
    pub port: u16,
    /// A private key for this host.
    #[serde(default)]
    pub identity_file: Option<PathBuf>,
    /// Commands that only read, run as asked (`*` stands for any argument
    /// text without shell operators), e.g. `systemctl status *`.
    #[serde(default)]
    pub read_commands: Vec<String>,
    /// Commands that change the host: they run dry until the CEO confirms.
    #[serde(default)]
    pub write_commands: Vec<String>,
    /// Configuration files `read_config` may read (same `*` rule).
    #[serde(default)]
    pub config_files: Vec<String>,
    /// Ports `nmap_light` checks when none are asked.
    #[serde(default)]
    pub ports: Vec<u16>,
}

fn default_user() -> String {
    "ulias".to_owned()
}

fn default_ssh_port() -> u16 {
    22
}

/// One service the agents check and deploy.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServiceSettings {
    /// The name agents and incidents use.
    pub name: String,
    /// Where its health is read (`http_check`, the Monitor).
    #[serde(default)]
    pub health_url: Option<Url>,
    /// Text a healthy answer contains.
    #[serde(default)]
    pub expect: Option<String>,
    /// The command that deploys it (run with `sh -c` in `deploy_dir`).
    #[serde(default)]
    pub deploy_command: Option<String>,
    /// The command that puts the previous version back.
    #[serde(default)]
    pub rollback_command: Option<String>,
    /// Where the deploy and rollback commands run.
    #[serde(default)]
    pub deploy_dir: Option<PathBuf>,
    /// Seconds a deploy or rollback may run.
    #[serde(default = "default_deploy_timeout")]
    pub deploy_timeout_seconds: u64,
}

fn default_deploy_timeout() -> u64 {
    600
}

/// What is wrong with the operations sections, each tied to its key.
pub(super) fn problems(
    sandbox: &SandboxSettings,
    ssh: &SshSettings,
    hosts: &[HostSettings],
    services: &[ServiceSettings],
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut add = |key: String, message: &str| {
        problems.push(Problem {
            key,
            message: message.to_owned(),
        });
    };
    let ranges: [(&str, u64, std::ops::RangeInclusive<u64>); 5] = [
        ("sandbox.cpu_seconds", sandbox.cpu_seconds, 1..=86_400),
        ("sandbox.memory_mb", sandbox.memory_mb, 64..=1_048_576),
        (
            "sandbox.timeout_seconds",
            sandbox.timeout_seconds,
            1..=86_400,
        ),
        ("sandbox.max_file_mb", sandbox.max_file_mb, 1..=1_048_576),
        (
            "ssh.command_timeout_seconds",
            ssh.command_timeout_seconds,
            1..=3600,
        ),
    ];
    for (key, value, range) in ranges {
        if !range.contains(&value) {
            let message = format!("must be {}–{}", range.start(), range.end());
            add(key.to_owned(), &message);
        }
    }
    if !(1..=120).contains(&ssh.connect_timeout_seconds) {
        add(
            "ssh.connect_timeout_seconds".into(),
            "must be 1–120 seconds",
        );
    }
    if !(8..=65_536).contains(&sandbox.max_processes) {
        add("sandbox.max_processes".into(), "must be 8–65536");
    }
    if !(1024..=16 * 1024 * 1024).contains(&sandbox.max_output_bytes) {
        add(
            "sandbox.max_output_bytes".into(),
            "must be 1024–16777216 bytes",
        );
    }
    for (i, host) in hosts.iter().enumerate() {
        let key = |field: &str| format!("hosts[{i}].{field}");
        if !is_name(&host.name) {
            add(key("name"), "expected letters, digits, `-`, `_` or `.`");
        } else if hosts[..i].iter().any(|h| h.name == host.name) {
            add(key("name"), "this host is listed twice");
        }
        if host.address.is_empty() || host.address.starts_with('-') || host.address.contains(' ') {
            add(key("address"), "expected a host name or an IP address");
        }
        if !is_name(&host.user) {
            add(key("user"), "expected letters, digits, `-`, `_` or `.`");
        }
    }
    for (i, service) in services.iter().enumerate() {
        let key = |field: &str| format!("services[{i}].{field}");
        if !is_name(&service.name) {
            add(key("name"), "expected letters, digits, `-`, `_` or `.`");
        } else if services[..i].iter().any(|s| s.name == service.name) {
            add(key("name"), "this service is listed twice");
        }
        if let Some(url) = &service.health_url
            && !matches!(url.scheme(), "http" | "https")
        {
            add(key("health_url"), "expected an http:// or https:// address");
        }
        if service.deploy_command.is_some() && service.deploy_dir.is_none() {
            add(
                key("deploy_dir"),
                "a service with a deploy_command needs its folder",
            );
        }
        if !(1..=86_400).contains(&service.deploy_timeout_seconds) {
            add(key("deploy_timeout_seconds"), "must be 1–86400 seconds");
        }
    }
    problems
}

/// A name an agent may give back: no spaces, no shell operators.
fn is_name(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}
