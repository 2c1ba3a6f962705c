//! Hosts reached over ssh: only those `[[hosts]]` names, with the `ssh`
//! client in batch mode (keys only, unknown host keys refused), a connect
//! and a command time limit, output capped. The `ssh` tool runs a command
//! the host's lists allow: `read_commands` run as asked, `write_commands`
//! are destructive (dry until the CEO confirms), anything else is refused.
//! Words an agent gives never carry shell operators.

use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::io::AsyncReadExt;
use tokio::process::Command;
use ulias_core::settings::{HostSettings, SshSettings};

use super::workspace::cap;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// Characters a word given by an agent may not hold on a remote command line.
const SHELL_OPERATORS: &[char] = &[
    ';', '|', '&', '$', '`', '<', '>', '\n', '\r', '\\', '"', '\'', '(', ')', '{', '}', '*', '?',
    '[', ']', '~', '#', '!',
];

/// The hosts agents may reach, and how.
#[derive(Debug, Clone)]
pub struct Hosts {
    ssh: SshSettings,
    hosts: Vec<HostSettings>,
    max_output: usize,
}

/// What a remote command did.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Remote {
    /// The host.
    pub host: String,
    /// The command run there.
    pub command: String,
    /// Its exit code (255: ssh itself failed); absent when it timed out.
    pub exit_code: Option<i32>,
    /// Its output, wrapped as untrusted text.
    pub stdout: String,
    /// Its errors, wrapped as untrusted text.
    pub stderr: String,
    /// Whether an output was cut.
    pub truncated: bool,
}

/// How a host's lists judge a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allowed {
    /// In `read_commands`.
    Read,
    /// In `write_commands`.
    Write,
    /// In neither.
    Refused,
}

impl Hosts {
    /// The hosts of the settings; `max_output` bytes of output at most.
    pub fn new(ssh: SshSettings, hosts: Vec<HostSettings>, max_output: usize) -> Self {
        Self {
            ssh,
            hosts,
            max_output,
        }
    }

    /// No host at all.
    pub fn none() -> Self {
        Self::new(SshSettings::default(), Vec::new(), 32 * 1024)
    }

    /// The host called `name`, when listed.
    pub fn host(&self, name: &str) -> Result<&HostSettings, ToolError> {
        self.hosts.iter().find(|h| h.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.hosts.iter().map(|h| h.name.as_str()).collect();
            ToolError::Forbidden(if names.is_empty() {
                format!("host {name} is not allowed: no host is configured ([[hosts]])")
            } else {
                format!(
                    "host {name} is not allowed; the hosts are: {}",
                    names.join(", ")
                )
            })
        })
    }

    /// Every listed host.
    pub fn all(&self) -> &[HostSettings] {
        &self.hosts
    }

    /// How `host`'s lists judge `command`.
    pub fn judge(host: &HostSettings, command: &str) -> Allowed {
        let command = command.trim();
        if command.contains(SHELL_OPERATORS) {
            return Allowed::Refused;
        }
        if host.read_commands.iter().any(|p| matches(p, command)) {
            Allowed::Read
        } else if host.write_commands.iter().any(|p| matches(p, command)) {
            Allowed::Write
        } else {
            Allowed::Refused
        }
    }

    /// Whether `path` fits one of a host's `config_files` patterns.
    pub fn judge_path(pattern: &str, path: &str) -> bool {
        matches(pattern, path)
    }

    /// Runs `command` (built by us, or judged) on `host`.
    pub async fn exec(&self, host: &HostSettings, command: &str) -> Result<Remote, ToolError> {
        let mut child = self.command(host, command).spawn().map_err(|e| {
            ToolError::Failed(format!("cannot start {}: {e}", self.ssh.program.display()))
        })?;
        let limit = Duration::from_secs(
            self.ssh.command_timeout_seconds + self.ssh.connect_timeout_seconds,
        );
        let out = child.stdout.take();
        let err = child.stderr.take();
        let most = u64::try_from(self.max_output)
            .unwrap_or(u64::MAX)
            .saturating_mul(2);
        let read = async {
            let (stdout, stderr) = tokio::join!(read_most(out, most), read_most(err, most));
            (stdout, stderr, child.wait().await.ok())
        };
        let (stdout, stderr, status, timed_out) = match tokio::time::timeout(limit, read).await {
            Ok((stdout, stderr, status)) => (stdout, stderr, status, false),
            Err(_) => (Vec::new(), Vec::new(), None, true),
        };
        let stdout = String::from_utf8_lossy(&stdout);
        let stderr = String::from_utf8_lossy(&stderr);
        let (shown_out, out_cut) = cap(&stdout, self.max_output);
        let (shown_err, err_cut) = cap(&stderr, self.max_output / 4);
        let source = format!("ssh:{}", host.name);
        Ok(Remote {
            host: host.name.clone(),
            command: command.to_owned(),
            exit_code: if timed_out {
                None
            } else {
                status.and_then(|s| s.code())
            },
            stdout: wrap_untrusted(&source, shown_out),
            stderr: wrap_untrusted(&source, if timed_out { "timed out" } else { shown_err }),
            truncated: out_cut || err_cut,
        })
    }

    fn command(&self, host: &HostSettings, command: &str) -> Command {
        let mut ssh = Command::new(&self.ssh.program);
        ssh.args(["-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes"])
            .arg("-o")
            .arg(format!(
                "ConnectTimeout={}",
                self.ssh.connect_timeout_seconds
            ));
        if let Some(known) = &self.ssh.known_hosts {
            ssh.arg("-o")
                .arg(format!("UserKnownHostsFile={}", known.display()));
        }
        if let Some(identity) = &host.identity_file {
            ssh.arg("-i").arg(identity);
        }
        ssh.arg("-p")
            .arg(host.port.to_string())
            .arg("-l")
            .arg(&host.user)
            .arg("--")
            .arg(&host.address)
            .arg(command)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        ssh
    }
}

/// At most `most` bytes of `pipe`.
async fn read_most<R: tokio::io::AsyncRead + Unpin>(pipe: Option<R>, most: u64) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        let _ = pipe.take(most).read_to_end(&mut bytes).await;
    }
    bytes
}

/// Whether `command` fits `pattern`, where `*` stands for any text.
fn matches(pattern: &str, command: &str) -> bool {
    let mut parts = pattern.trim().split('*');
    let Some(first) = parts.next() else {
        return false;
    };
    let Some(mut rest) = command.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// A word given by an agent, refused when it could change the command.
pub fn checked_word<'a>(what: &str, word: &'a str) -> Result<&'a str, ToolError> {
    if word.is_empty()
        || word.starts_with('-')
        || word.contains(SHELL_OPERATORS)
        || word.contains(' ')
    {
        return Err(ToolError::InvalidArgs {
            tool: "ssh",
            message: format!("{what} `{word}` is not a plain word"),
        });
    }
    Ok(word)
}

/// Runs a command on a host.
pub struct Ssh(pub Hosts);

/// Arguments of `ssh`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SshArgs {
    /// The host's name, as configured.
    pub host: String,
    /// The command, without shell operators.
    pub command: String,
}

#[async_trait]
impl TypedTool for Ssh {
    const NAME: &'static str = "ssh";
    const DESCRIPTION: &'static str = "Run a command on one of our hosts: the host's read commands run at once, its write commands need the CEO's confirmation, others are refused.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&[
        "incident",
        "infra",
        "backup",
        "monitor",
        "watcher",
        "auditor",
        "deployer",
        "organizer",
    ]);
    type Args = SshArgs;
    type Output = Remote;

    async fn call(&self, _ctx: &ToolContext, args: SshArgs) -> Result<Remote, ToolError> {
        let host = self.0.host(&args.host)?;
        if Hosts::judge(host, &args.command) == Allowed::Refused {
            return Err(ToolError::Forbidden(format!(
                "`{}` is not among the commands allowed on {}",
                args.command, host.name
            )));
        }
        self.0.exec(host, args.command.trim()).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &SshArgs) -> Option<String> {
        Some(format!("ssh {}: {}", args.host, args.command.trim()))
    }

    fn destructive(&self, args: &SshArgs) -> bool {
        self.0
            .host(&args.host)
            .is_ok_and(|host| Hosts::judge(host, &args.command) == Allowed::Write)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host() -> HostSettings {
        HostSettings {
            name: "web1".into(),
            address: "10.0.0.2".into(),
            user: "ulias".into(),
            port: 22,
            identity_file: None,
            read_commands: vec!["uptime".into(), "systemctl status *".into(), "df -h".into()],
            write_commands: vec!["systemctl restart *".into()],
            config_files: Vec::new(),
            ports: Vec::new(),
        }
    }

    #[test]
    fn a_host_allows_its_read_commands_asks_for_its_write_commands_and_refuses_the_rest() {
        let table = [
            ("uptime", Allowed::Read),
            (" uptime ", Allowed::Read),
            ("systemctl status nginx", Allowed::Read),
            ("df -h", Allowed::Read),
            ("df -h /", Allowed::Refused),
            ("systemctl restart nginx", Allowed::Write),
            ("systemctl stop nginx", Allowed::Refused),
            ("uptime; reboot", Allowed::Refused),
            ("systemctl status nginx && reboot", Allowed::Refused),
            ("systemctl status $(reboot)", Allowed::Refused),
            ("rm -rf /", Allowed::Refused),
        ];
        for (command, expected) in table {
            assert_eq!(Hosts::judge(&host(), command), expected, "{command:?}");
        }
    }
}
