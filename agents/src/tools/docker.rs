//! `docker`: the Docker Engine API over its Unix socket. `ps`, `logs`,
//! `inspect` and `stats` only read and run freely; `restart` and `stop`
//! change a container, so they run dry until the CEO confirms the call.

use async_trait::async_trait;
use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::http_api::{Service, checked_name};
use super::infra::Infra;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

mod engine;

use engine::{Inspected, Listed, Stats, demultiplex, tail_of};

/// Seconds a container has to stop before it is killed (`restart`, `stop`).
const STOP_GRACE_SECONDS: u32 = 10;

/// Reads and manages containers.
pub struct Docker(pub Infra);

/// What `docker` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DockerAction {
    /// List every container, stopped ones included.
    Ps,
    /// The last lines a container wrote (stdout and stderr).
    Logs,
    /// A container's state, health, restart count and memory limit.
    Inspect,
    /// A container's CPU and memory use, now.
    Stats,
    /// Restart a container (the CEO confirms).
    Restart,
    /// Stop a container (the CEO confirms).
    Stop,
}

/// Arguments of `docker`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DockerArgs {
    /// `ps`, `logs`, `inspect`, `stats`, `restart` or `stop`.
    pub action: DockerAction,
    /// The container's name or id (every action but `ps`).
    #[serde(default)]
    pub container: Option<String>,
    /// `logs`: how many of the last lines (1–500, default 100).
    #[serde(default)]
    pub tail: Option<u32>,
}

/// One container in `ps`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Container {
    pub name: String,
    pub image: String,
    /// `running`, `exited`, `restarting`, `paused`, `created`, `dead`.
    pub state: String,
    /// Docker's words: `Up 3 hours (healthy)`, `Exited (1) 2 minutes ago`.
    pub status: String,
}

/// A container's state.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerState {
    pub name: String,
    pub image: String,
    /// `running`, `exited`, `restarting`, …
    pub status: String,
    /// `healthy`, `unhealthy`, `starting`; none without a health check.
    pub health: Option<String>,
    /// How many times Docker restarted it.
    pub restart_count: u64,
    pub exit_code: i64,
    /// Whether the kernel killed it for memory.
    pub oom_killed: bool,
    pub started_at: String,
    pub finished_at: String,
    /// Its memory limit; none when unlimited.
    pub memory_limit_bytes: Option<u64>,
}

/// A container's resource use.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContainerStats {
    pub name: String,
    /// Of one CPU: 200 means two CPUs busy.
    pub cpu_percent: f64,
    /// Of its memory limit (or of the host's memory).
    pub memory_percent: f64,
    pub memory_used_bytes: u64,
    pub memory_limit_bytes: u64,
}

/// What a `docker` call found or did.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum DockerOutput {
    Ps {
        containers: Vec<Container>,
    },
    Logs {
        container: String,
        /// The last lines, wrapped as untrusted text (cut from the front
        /// when over the size limit).
        lines: String,
        truncated: bool,
    },
    Inspect(ContainerState),
    Stats(ContainerStats),
    /// `restart` or `stop` done.
    Done {
        command: String,
    },
}

impl DockerArgs {
    fn container(&self) -> Result<&str, ToolError> {
        let name = self
            .container
            .as_deref()
            .ok_or_else(|| ToolError::InvalidArgs {
                tool: Docker::NAME,
                message: "this action needs `container`: list them with action `ps`".into(),
            })?;
        checked_name("container", name)
    }

    /// The `docker` command line this call matches.
    fn command(&self) -> Result<String, ToolError> {
        let verb = match self.action {
            DockerAction::Ps => return Ok("docker ps --all".into()),
            DockerAction::Logs => "logs",
            DockerAction::Inspect => "inspect",
            DockerAction::Stats => "stats --no-stream",
            DockerAction::Restart => "restart",
            DockerAction::Stop => "stop",
        };
        Ok(format!("docker {verb} {}", self.container()?))
    }
}

#[async_trait]
impl TypedTool for Docker {
    const NAME: &'static str = "docker";
    const DESCRIPTION: &'static str = "Containers through the Docker Engine: ps, logs, inspect, \
         stats read; restart and stop need the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed =
        AgentsAllowed::Only(&["deployer", "incident", "infra", "monitor", "patcher"]);
    type Args = DockerArgs;
    type Output = DockerOutput;

    async fn call(&self, _ctx: &ToolContext, args: DockerArgs) -> Result<DockerOutput, ToolError> {
        let engine = self.0.docker()?;
        match args.action {
            DockerAction::Ps => {
                let listed: Vec<Listed> =
                    get(engine, "containers/json", &[("all", "1".into())]).await?;
                Ok(DockerOutput::Ps {
                    containers: listed.into_iter().map(Listed::into_row).collect(),
                })
            }
            DockerAction::Logs => self.logs(engine, args.container()?, args.tail).await,
            DockerAction::Inspect => {
                let path = format!("containers/{}/json", args.container()?);
                let found: Inspected = get(engine, &path, &[]).await?;
                Ok(DockerOutput::Inspect(found.into_state()))
            }
            DockerAction::Stats => {
                let name = args.container()?;
                let path = format!("containers/{name}/stats");
                let stats: Stats = get(engine, &path, &[("stream", "false".into())]).await?;
                Ok(DockerOutput::Stats(stats.into_stats(name)))
            }
            DockerAction::Restart => change(engine, &args, "restart").await,
            DockerAction::Stop => change(engine, &args, "stop").await,
        }
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &DockerArgs) -> Option<String> {
        Some(args.command().unwrap_or_else(|e| format!("nothing: {e}")))
    }

    fn destructive(&self, args: &DockerArgs) -> bool {
        matches!(args.action, DockerAction::Restart | DockerAction::Stop)
    }
}

impl Docker {
    async fn logs(
        &self,
        engine: &Service,
        name: &str,
        tail: Option<u32>,
    ) -> Result<DockerOutput, ToolError> {
        let tail = tail.unwrap_or(100).clamp(1, 500);
        let url = engine.url(
            &format!("containers/{name}/logs"),
            &[
                ("stdout", "1".into()),
                ("stderr", "1".into()),
                ("tail", tail.to_string()),
            ],
        )?;
        let answer = engine.send(engine.request(Method::GET, url)).await?;
        if answer.status != 200 {
            return Err(refusal(engine, name, &answer));
        }
        let text = String::from_utf8_lossy(&demultiplex(&answer.body)).into_owned();
        let (shown, cut) = tail_of(&text, self.0.max_output());
        Ok(DockerOutput::Logs {
            container: name.to_owned(),
            lines: wrap_untrusted(&format!("docker:logs:{name}"), shown),
            truncated: cut || answer.truncated,
        })
    }
}

/// POSTs `verb` (`restart`, `stop`) to the container.
async fn change(
    engine: &Service,
    args: &DockerArgs,
    verb: &str,
) -> Result<DockerOutput, ToolError> {
    let name = args.container()?;
    let url = engine.url(
        &format!("containers/{name}/{verb}"),
        &[("t", STOP_GRACE_SECONDS.to_string())],
    )?;
    let answer = engine.send(engine.request(Method::POST, url)).await?;
    // 304: it was already stopped.
    if !matches!(answer.status, 204 | 304) {
        return Err(refusal(engine, name, &answer));
    }
    Ok(DockerOutput::Done {
        command: args.command()?,
    })
}

/// GETs `path` and reads Docker's JSON, a 404 named as a missing container.
async fn get<T: serde::de::DeserializeOwned>(
    engine: &Service,
    path: &str,
    query: &[(&str, String)],
) -> Result<T, ToolError> {
    let url = engine.url(path, query)?;
    let answer = engine.send(engine.request(Method::GET, url)).await?;
    if answer.status != 200 {
        return Err(refusal(engine, path, &answer));
    }
    serde_json::from_slice(&answer.body).map_err(|e| {
        ToolError::Failed(format!(
            "the Docker Engine answered something unexpected: {e}"
        ))
    })
}

/// The error for a refused call: Docker's own message when it gives one.
fn refusal(engine: &Service, target: &str, answer: &super::http_api::Answer) -> ToolError {
    #[derive(Deserialize)]
    struct Message {
        message: String,
    }
    match serde_json::from_slice::<Message>(&answer.body) {
        Ok(said) if answer.status == 404 => ToolError::Failed(format!(
            "{} (404): list the containers with action `ps`",
            said.message
        )),
        Ok(said) => ToolError::Failed(format!(
            "the Docker Engine refused {target} ({}): {}",
            answer.status, said.message
        )),
        Err(_) => engine.refused(answer),
    }
}
