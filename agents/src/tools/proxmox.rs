//! `proxmox_api`: the Proxmox VE API with an API token. Listing nodes and
//! guests (VMs and containers) only reads and runs freely; starting,
//! stopping, shutting down or rebooting a guest runs dry until the CEO
//! confirms the call.

use async_trait::async_trait;
use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::http_api::{Service, checked_name};
use super::infra::Infra;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// Lists and manages Proxmox nodes and guests.
pub struct Proxmox(pub Infra);

/// What `proxmox_api` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ProxmoxAction {
    /// List the cluster's nodes.
    Nodes,
    /// List the VMs and containers of `node`, or of every node.
    Guests,
    /// Start a guest (the CEO confirms).
    Start,
    /// Stop a guest at once, like pulling the plug (the CEO confirms).
    Stop,
    /// Shut a guest down cleanly (the CEO confirms).
    Shutdown,
    /// Reboot a guest (the CEO confirms).
    Reboot,
}

/// A VM or a container.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GuestKind {
    /// A virtual machine.
    #[default]
    Qemu,
    /// A container.
    Lxc,
}

impl GuestKind {
    fn path(self) -> &'static str {
        match self {
            Self::Qemu => "qemu",
            Self::Lxc => "lxc",
        }
    }

    /// The command Proxmox's shell offers for it.
    fn command(self) -> &'static str {
        match self {
            Self::Qemu => "qm",
            Self::Lxc => "pct",
        }
    }
}

/// Arguments of `proxmox_api`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProxmoxArgs {
    /// `nodes`, `guests`, `start`, `stop`, `shutdown` or `reboot`.
    pub action: ProxmoxAction,
    /// The node: optional for `guests` (default every node), needed to act on a guest.
    #[serde(default)]
    pub node: Option<String>,
    /// The guest's id (`101`), to act on it.
    #[serde(default)]
    pub vmid: Option<u32>,
    /// `qemu` (a VM, the default) or `lxc` (a container), to act on it.
    #[serde(default)]
    pub kind: GuestKind,
}

/// A node.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Node {
    pub node: String,
    /// `online` or `offline`.
    pub status: String,
    pub cpu_percent: f64,
    pub memory_used_bytes: u64,
    pub memory_total_bytes: u64,
    pub uptime_seconds: u64,
}

/// A VM or container.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Guest {
    pub node: String,
    pub vmid: u32,
    pub kind: GuestKind,
    pub name: String,
    /// `running` or `stopped`.
    pub status: String,
    /// Of its CPUs.
    pub cpu_percent: f64,
    pub memory_used_bytes: u64,
    pub memory_max_bytes: u64,
    pub uptime_seconds: u64,
}

/// What a `proxmox_api` call found or did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ProxmoxOutput {
    Nodes {
        nodes: Vec<Node>,
    },
    Guests {
        guests: Vec<Guest>,
    },
    /// An action started: Proxmox runs it as a task.
    Done {
        command: String,
        /// Proxmox's task id (`UPID:…`).
        task: String,
    },
}

/// Proxmox wraps every answer in `data`.
#[derive(Debug, Deserialize)]
struct Data<T> {
    data: T,
}

#[derive(Debug, Deserialize)]
struct Listed {
    #[serde(default)]
    node: String,
    /// A number for VMs, text for containers in some versions.
    #[serde(default)]
    vmid: serde_json::Value,
    #[serde(default)]
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    cpu: f64,
    #[serde(default)]
    mem: u64,
    #[serde(default)]
    maxmem: u64,
    #[serde(default)]
    uptime: u64,
}

impl ProxmoxArgs {
    /// The node, vmid and verb of an action on a guest.
    fn target(&self) -> Result<(&str, u32, &'static str), ToolError> {
        let verb = match self.action {
            ProxmoxAction::Nodes | ProxmoxAction::Guests => {
                return Err(invalid("this action does not change a guest"));
            }
            ProxmoxAction::Start => "start",
            ProxmoxAction::Stop => "stop",
            ProxmoxAction::Shutdown => "shutdown",
            ProxmoxAction::Reboot => "reboot",
        };
        let node = self
            .node
            .as_deref()
            .ok_or_else(|| invalid("`node` is needed: list the guests with action `guests`"))?;
        let vmid = self
            .vmid
            .ok_or_else(|| invalid("`vmid` is needed: list the guests with action `guests`"))?;
        Ok((checked_name("node", node)?, vmid, verb))
    }

    fn command(&self) -> Result<String, ToolError> {
        let (node, vmid, verb) = self.target()?;
        Ok(format!(
            "{} {verb} {vmid} (node {node})",
            self.kind.command()
        ))
    }
}

#[async_trait]
impl TypedTool for Proxmox {
    const NAME: &'static str = "proxmox_api";
    const DESCRIPTION: &'static str = "Proxmox: list nodes and guests (VMs, containers) with \
         status, CPU and memory; start, stop, shutdown and reboot need the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["infra"]);
    type Args = ProxmoxArgs;
    type Output = ProxmoxOutput;

    async fn call(
        &self,
        _ctx: &ToolContext,
        args: ProxmoxArgs,
    ) -> Result<ProxmoxOutput, ToolError> {
        let api = self.0.proxmox()?;
        match args.action {
            ProxmoxAction::Nodes => Ok(ProxmoxOutput::Nodes {
                nodes: nodes(api).await?,
            }),
            ProxmoxAction::Guests => {
                let names = match &args.node {
                    Some(node) => vec![checked_name("node", node)?.to_owned()],
                    None => nodes(api)
                        .await?
                        .into_iter()
                        .filter(|node| node.status == "online")
                        .map(|node| node.node)
                        .collect(),
                };
                let mut guests = Vec::new();
                for node in &names {
                    for kind in [GuestKind::Qemu, GuestKind::Lxc] {
                        guests.extend(guests_of(api, node, kind).await?);
                    }
                }
                Ok(ProxmoxOutput::Guests { guests })
            }
            _ => {
                let (node, vmid, verb) = args.target()?;
                let path = format!(
                    "api2/json/nodes/{node}/{}/{vmid}/status/{verb}",
                    args.kind.path()
                );
                let url = api.url(&path, &[])?;
                let started: Data<String> = api.json(api.request(Method::POST, url)).await?;
                Ok(ProxmoxOutput::Done {
                    command: args.command()?,
                    task: started.data,
                })
            }
        }
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &ProxmoxArgs) -> Option<String> {
        Some(args.command().unwrap_or_else(|e| format!("nothing: {e}")))
    }

    fn destructive(&self, args: &ProxmoxArgs) -> bool {
        !matches!(args.action, ProxmoxAction::Nodes | ProxmoxAction::Guests)
    }
}

async fn nodes(api: &Service) -> Result<Vec<Node>, ToolError> {
    let url = api.url("api2/json/nodes", &[])?;
    let listed: Data<Vec<Listed>> = api.json(api.request(Method::GET, url)).await?;
    let mut nodes: Vec<Node> = listed
        .data
        .into_iter()
        .map(|n| Node {
            node: n.node,
            status: n.status,
            cpu_percent: percent(n.cpu),
            memory_used_bytes: n.mem,
            memory_total_bytes: n.maxmem,
            uptime_seconds: n.uptime,
        })
        .collect();
    nodes.sort_by(|a, b| a.node.cmp(&b.node));
    Ok(nodes)
}

async fn guests_of(api: &Service, node: &str, kind: GuestKind) -> Result<Vec<Guest>, ToolError> {
    let url = api.url(&format!("api2/json/nodes/{node}/{}", kind.path()), &[])?;
    let listed: Data<Vec<Listed>> = api.json(api.request(Method::GET, url)).await?;
    let mut guests: Vec<Guest> = listed
        .data
        .into_iter()
        .map(|g| Guest {
            node: node.to_owned(),
            vmid: vmid_of(&g.vmid),
            kind,
            name: g.name,
            status: g.status,
            cpu_percent: percent(g.cpu),
            memory_used_bytes: g.mem,
            memory_max_bytes: g.maxmem,
            uptime_seconds: g.uptime,
        })
        .collect();
    guests.sort_by_key(|guest| guest.vmid);
    Ok(guests)
}

fn vmid_of(vmid: &serde_json::Value) -> u32 {
    match vmid {
        serde_json::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
    .unwrap_or_default()
}

/// Proxmox gives CPU use as a fraction.
fn percent(fraction: f64) -> f64 {
    (fraction * 10_000.0).round() / 100.0
}

fn invalid(message: &str) -> ToolError {
    ToolError::InvalidArgs {
        tool: Proxmox::NAME,
        message: message.to_owned(),
    }
}
