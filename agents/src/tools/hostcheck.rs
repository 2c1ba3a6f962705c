//! The backup, security and package tools: fixed commands run over
//! [`Hosts`] on a listed host, the agent's words checked first. Reads run
//! at once; `rsync` for real, bans and package changes are destructive.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::remote::{Hosts, Remote, checked_word};
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// Arguments naming only a host.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HostArgs {
    /// The host's name, as configured.
    pub host: String,
}

/// ZFS pools' health and snapshots.
pub struct ZfsStatus(pub Hosts);

/// What `zfs_status` found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ZfsReport {
    /// `zpool status -x` (it says "all pools are healthy" when they are).
    pub pools: Remote,
    /// Snapshots, oldest first: `name<TAB>creation (Unix seconds)`.
    pub snapshots: Remote,
}

#[async_trait]
impl TypedTool for ZfsStatus {
    const NAME: &'static str = "zfs_status";
    const DESCRIPTION: &'static str =
        "Show a host's ZFS pool health and its snapshots with their creation times.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["backup"]);
    type Args = HostArgs;
    type Output = ZfsReport;

    async fn call(&self, _ctx: &ToolContext, args: HostArgs) -> Result<ZfsReport, ToolError> {
        let host = self.0.host(&args.host)?;
        Ok(ZfsReport {
            pools: self.0.exec(host, "zpool status -x").await?,
            snapshots: self
                .0
                .exec(
                    host,
                    "zfs list -H -p -t snapshot -o name,creation -s creation",
                )
                .await?,
        })
    }
}

/// Whether a cron job ran.
pub struct CronCheck(pub Hosts);

/// Arguments of `cron_check`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CronArgs {
    /// The host's name, as configured.
    pub host: String,
    /// A word of the job's command line (e.g. `backup.sh`).
    pub job: String,
    /// How far back to look, in hours (1–168, default 48).
    #[serde(default)]
    pub hours: Option<u32>,
}

/// The runs found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CronRuns {
    /// How many times the job started in the window.
    pub runs: u32,
    /// The log line of its last start, when any.
    pub last_run: Option<String>,
    /// The command and what it printed.
    pub log: Remote,
}

#[async_trait]
impl TypedTool for CronCheck {
    const NAME: &'static str = "cron_check";
    const DESCRIPTION: &'static str =
        "Check in a host's cron log whether a job ran, how often and when last.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["backup"]);
    type Args = CronArgs;
    type Output = CronRuns;

    async fn call(&self, _ctx: &ToolContext, args: CronArgs) -> Result<CronRuns, ToolError> {
        let host = self.0.host(&args.host)?;
        let job = checked_word("job", &args.job)?;
        let hours = args.hours.unwrap_or(48).clamp(1, 168);
        let command = format!("journalctl -t CRON --since=-{hours}h --no-pager -o short-iso");
        let log = self.0.exec(host, &command).await?;
        let starts: Vec<&str> = log
            .stdout
            .lines()
            .filter(|line| line.contains("CMD") && line.contains(job))
            .collect();
        Ok(CronRuns {
            runs: u32::try_from(starts.len()).unwrap_or(u32::MAX),
            last_run: starts.last().map(|line| (*line).to_owned()),
            log,
        })
    }
}

/// Copies between folders of a host, dry unless confirmed.
pub struct Rsync(pub Hosts);

/// Arguments of `rsync`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RsyncArgs {
    /// The host the copy runs on.
    pub host: String,
    /// The source folder or `host:folder`.
    pub source: String,
    /// The destination folder or `host:folder`.
    pub destination: String,
    /// Only say what would change (default true): a real copy needs the
    /// CEO's confirmation.
    #[serde(default = "yes")]
    pub dry_run: bool,
}

fn yes() -> bool {
    true
}

impl Rsync {
    fn command(args: &RsyncArgs) -> Result<String, ToolError> {
        let source = checked_word("source", &args.source)?;
        let destination = checked_word("destination", &args.destination)?;
        let dry = if args.dry_run { " --dry-run" } else { "" };
        Ok(format!(
            "rsync -a{dry} --itemize-changes --stats -- {source} {destination}"
        ))
    }
}

#[async_trait]
impl TypedTool for Rsync {
    const NAME: &'static str = "rsync";
    const DESCRIPTION: &'static str = "Compare (dry run, the default) or copy folders with rsync on a host; a real copy needs the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["backup"]);
    type Args = RsyncArgs;
    type Output = Remote;

    async fn call(&self, _ctx: &ToolContext, args: RsyncArgs) -> Result<Remote, ToolError> {
        let host = self.0.host(&args.host)?;
        self.0.exec(host, &Self::command(&args)?).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &RsyncArgs) -> Option<String> {
        Some(match Self::command(args) {
            Ok(command) => format!("ssh {}: {command}", args.host),
            Err(error) => format!("nothing: {error}"),
        })
    }

    fn destructive(&self, args: &RsyncArgs) -> bool {
        !args.dry_run
    }
}

/// fail2ban's jails, bans, and the ssh log.
pub struct Fail2ban(pub Hosts);

/// What to do.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fail2banAction {
    /// The jails, or one jail's banned addresses.
    Status,
    /// The ssh server's log of the last day.
    AuthLog,
    /// Ban an address in a jail (needs the CEO's confirmation).
    Ban,
    /// Lift a ban (needs the CEO's confirmation).
    Unban,
}

/// Arguments of `fail2ban`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Fail2banArgs {
    /// The host's name, as configured.
    pub host: String,
    pub action: Fail2banAction,
    /// The jail (`sshd`…), for status of one jail, ban and unban.
    #[serde(default)]
    pub jail: Option<String>,
    /// The address to ban or unban.
    #[serde(default)]
    pub address: Option<std::net::IpAddr>,
}

impl Fail2ban {
    fn command(args: &Fail2banArgs) -> Result<String, ToolError> {
        let jail = args
            .jail
            .as_deref()
            .map(|j| checked_word("jail", j))
            .transpose()?;
        let missing = |what: &str| ToolError::InvalidArgs {
            tool: "fail2ban",
            message: format!("{what} is needed for this action"),
        };
        Ok(match args.action {
            Fail2banAction::Status => format!("fail2ban-client status {}", jail.unwrap_or(""))
                .trim_end()
                .to_owned(),
            Fail2banAction::AuthLog => {
                "journalctl -u ssh -u sshd --since=-24h --no-pager -o short-iso".to_owned()
            }
            Fail2banAction::Ban | Fail2banAction::Unban => {
                let verb = if matches!(args.action, Fail2banAction::Ban) {
                    "banip"
                } else {
                    "unbanip"
                };
                let jail = jail.ok_or_else(|| missing("jail"))?;
                let address = args.address.ok_or_else(|| missing("address"))?;
                format!("fail2ban-client set {jail} {verb} {address}")
            }
        })
    }
}

#[async_trait]
impl TypedTool for Fail2ban {
    const NAME: &'static str = "fail2ban";
    const DESCRIPTION: &'static str = "Read fail2ban's jails and the ssh log of a host, or ban/unban an address (needs the CEO's confirmation).";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["watcher"]);
    type Args = Fail2banArgs;
    type Output = Remote;

    async fn call(&self, _ctx: &ToolContext, args: Fail2banArgs) -> Result<Remote, ToolError> {
        let host = self.0.host(&args.host)?;
        self.0.exec(host, &Self::command(&args)?).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &Fail2banArgs) -> Option<String> {
        Some(match Self::command(args) {
            Ok(command) => format!("ssh {}: {command}", args.host),
            Err(error) => format!("nothing: {error}"),
        })
    }

    fn destructive(&self, args: &Fail2banArgs) -> bool {
        matches!(args.action, Fail2banAction::Ban | Fail2banAction::Unban)
    }
}

/// Packages of a host.
pub struct Apt(pub Hosts);

/// Arguments of `apt`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AptArgs {
    /// The host's name, as configured.
    pub host: String,
    /// `upgradable` lists what can be upgraded; `install` and `upgrade`
    /// change the host (need the CEO's confirmation).
    pub action: AptAction,
    /// The packages to install or upgrade (upgrade: none means all).
    #[serde(default)]
    pub packages: Vec<String>,
}

/// What `apt` does.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AptAction {
    Upgradable,
    Install,
    Upgrade,
}

impl Apt {
    fn command(args: &AptArgs) -> Result<String, ToolError> {
        let packages = args
            .packages
            .iter()
            .map(|p| {
                let plain = p
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".+-:".contains(c));
                if plain && !p.starts_with('-') && !p.is_empty() {
                    Ok(p.as_str())
                } else {
                    Err(ToolError::InvalidArgs {
                        tool: "apt",
                        message: format!("`{p}` is not a package name"),
                    })
                }
            })
            .collect::<Result<Vec<_>, _>>()?
            .join(" ");
        Ok(match args.action {
            AptAction::Upgradable => "apt list --upgradable".to_owned(),
            AptAction::Install if packages.is_empty() => {
                return Err(ToolError::InvalidArgs {
                    tool: "apt",
                    message: "install needs packages".into(),
                });
            }
            AptAction::Install => format!("sudo apt-get install -y -- {packages}"),
            AptAction::Upgrade if packages.is_empty() => "sudo apt-get upgrade -y".to_owned(),
            AptAction::Upgrade => format!("sudo apt-get install --only-upgrade -y -- {packages}"),
        })
    }
}

#[async_trait]
impl TypedTool for Apt {
    const NAME: &'static str = "apt";
    const DESCRIPTION: &'static str = "List a host's upgradable packages, or install/upgrade packages (needs the CEO's confirmation).";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["infra", "patcher"]);
    type Args = AptArgs;
    type Output = Remote;

    async fn call(&self, _ctx: &ToolContext, args: AptArgs) -> Result<Remote, ToolError> {
        let host = self.0.host(&args.host)?;
        self.0.exec(host, &Self::command(&args)?).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &AptArgs) -> Option<String> {
        Some(match Self::command(args) {
            Ok(command) => format!("ssh {}: {command}", args.host),
            Err(error) => format!("nothing: {error}"),
        })
    }

    fn destructive(&self, args: &AptArgs) -> bool {
        args.action != AptAction::Upgradable
    }
}

/// A service's configuration file on a host.
pub struct ReadConfig(pub Hosts);

/// Arguments of `read_config`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadConfigArgs {
    /// The host's name, as configured.
    pub host: String,
    /// The file's absolute path; it must be one of the host's `config_files`.
    pub path: String,
}

#[async_trait]
impl TypedTool for ReadConfig {
    const NAME: &'static str = "read_config";
    const DESCRIPTION: &'static str =
        "Read one of a host's configuration files (those its settings list).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["auditor"]);
    type Args = ReadConfigArgs;
    type Output = Remote;

    async fn call(&self, _ctx: &ToolContext, args: ReadConfigArgs) -> Result<Remote, ToolError> {
        let host = self.0.host(&args.host)?;
        let path = checked_word("path", &args.path)?;
        let listed = host
            .config_files
            .iter()
            .any(|pattern| Hosts::judge_path(pattern, path));
        if !listed || path.contains("..") {
            return Err(ToolError::Forbidden(format!(
                "{path} is not among the configuration files listed for {}",
                host.name
            )));
        }
        self.0.exec(host, &format!("cat -- {path}")).await
    }
}
