//! The tools framework: every tool an agent file may name has a spec here
//! (name, description, effect, input schema, which agents may use it);
//! the built ones also have a `run`. The runner, not the tool, applies the
//! effect's rules: publish tools only create a validation, destructive
//! tools run dry unless the CEO confirmed.

mod ab_test;
mod ai_job;
mod alert;
mod brand;
mod calendar;
mod catalogue;
mod ceo;
mod chain;
mod code;
mod deploy;
mod docker;
mod faq;
mod files;
mod git;
mod health;
mod hostcheck;
mod http_api;
mod ics;
mod infra;
mod jq;
mod logs;
mod memory;
mod org;
mod proxmox;
mod remote;
mod research;
mod roster;
mod schedule;
mod search;
mod shell;
mod site;
mod sql;
mod syntax;
mod template;
pub mod utility;
mod workspace;

use std::collections::BTreeMap;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use ulias_core::clock::SharedClock;
use ulias_core::domain::{PublicationTarget, Task, ValidationKind};
use ulias_core::store::{Store, StoreError};

use crate::alerts::SharedAlerter;
use crate::chain::ChainReader;
use crate::model::SharedModelClient;
use crate::sandbox::Sandbox;

pub use ab_test::AbTest;
pub use ai_job::{AiJob, JobKind};
pub use alert::AlertTool;
pub use calendar::Calendar;
pub use ceo::{AllMetrics, AllObjectives, UserHistory, UserPatterns};
pub use chain::{
    ChainRead, ChainView, MarketRead, MarketView, SocialsRead, SocialsView, TokenArgs, token_of,
};
pub use code::{RepoEdit, RepoRead, RepoWrite};
pub use deploy::{Rollback, SmartDeploy};
pub use docker::{Docker, DockerAction};
pub use faq::{FAQ_SECTION, FaqLookup};
pub use files::{ReadFile, WriteFile, section_owner};
pub use git::{
    GitBlame, GitBranch, GitCommit, GitDiff, GitLog, GitPush, GitStatus, WORK_BRANCH_PREFIX,
    work_branch,
};
pub use health::{Checks, HttpCheck, NmapLight};
pub use hostcheck::{Apt, CronCheck, Fail2ban, ReadConfig, Rsync, ZfsStatus};
pub use http_api::ClientError;
pub use infra::{Infra, Research};
pub use jq::Jq;
pub use logs::LokiQuery;
pub use memory::{MemorySearch, MemoryStore, cosine_similarity};
pub use org::{AgentMetrics, AllTasks, CrossReference};
pub use proxmox::{GuestKind, Proxmox, ProxmoxAction};
pub use remote::{Allowed, Hosts, Remote, Ssh};
pub use research::{ConnectorFetch, WebSearch};
pub use roster::AgentCatalogue;
pub use schedule::Scheduler;
pub use search::{Glob, Grep};
pub use shell::{Bash, RunTests, Shell};
pub use sql::SqlQuery;
pub use syntax::{AstSearch, Language, RepoMap, SearchKind, SyntaxKind};
pub use template::Template;
pub use workspace::{ReadLog, Workspace, WorkspaceError};

/// The name of the tool that ends a run with the agent's output.
pub const FINISH: &str = "finish";

/// What calling a tool does to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Reads only.
    Read,
    /// Writes our own records (operation files, lessons).
    Write,
    /// Makes something public: the runner turns the call into a validation.
    Publish {
        /// How the team sees it.
        kind: ValidationKind,
        /// Where it goes once approved.
        target: PublicationTarget,
    },
    /// Changes machines or money: dry unless the CEO confirmed.
    Destructive,
}

/// Which agents may call a tool (checked on top of each agent's own list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentsAllowed {
    /// Any agent that lists it.
    Any,
    /// Only these agents.
    Only(&'static [&'static str]),
}

impl AgentsAllowed {
    /// Whether `agent` may call the tool.
    pub fn allows(self, agent: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Only(agents) => agents.contains(&agent),
        }
    }
}

/// What a tool is, for agents' files, prompts and the runner.
#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub agents: AgentsAllowed,
    pub input_schema: Value,
    pub output_schema: Value,
}

/// Why a tool call failed; fed back to the model as a result it can act on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolError {
    /// The arguments do not match the tool's input schema.
    #[error("invalid arguments for {tool}: {message}")]
    InvalidArgs { tool: &'static str, message: String },
    /// The agent may not do this (a section it does not own, say).
    #[error("{0}")]
    Forbidden(String),
    /// The tool exists in the catalogue but is not built yet.
    #[error("the tool {0} is not built yet: report that you could not use it")]
    NotBuilt(&'static str),
    /// A store failure.
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    /// Anything else the tool reports.
    #[error("{0}")]
    Failed(String),
}

/// What a tool sees of the run calling it.
#[derive(Clone)]
pub struct ToolContext {
    pub store: Store,
    pub clock: SharedClock,
    pub task: Task,
    pub agent: String,
    /// The model client used for embeddings (memory tools).
    pub embedder: SharedModelClient,
    pub alerter: SharedAlerter,
    /// The files this run has read, for the edit tool (one per run).
    pub reads: ReadLog,
    /// The agents as loaded (the Director's `agent_catalogue`).
    pub catalogue: Arc<crate::spec::Catalogue>,
}

/// A tool with a `run`.
#[async_trait]
pub trait Tool: Send + Sync {
    /// Its spec.
    fn spec(&self) -> &ToolSpec;
    /// Runs it with JSON arguments.
    async fn run(&self, ctx: &ToolContext, args: Value) -> Result<Value, ToolError>;
    /// For a destructive tool's dry run: the command this call would run.
    async fn would_run(&self, _ctx: &ToolContext, _args: &Value) -> Option<String> {
        None
    }
    /// Whether this call of a destructive tool changes anything: a tool
    /// that also reads (`docker ps`, `ssh … uptime`) says which calls only
    /// read, and those run without a confirmation. Unparsable arguments
    /// count as destructive.
    fn destructive(&self, _args: &Value) -> bool {
        true
    }
}

/// A tool written against Rust types; its schemas come from them.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    const EFFECT: Effect;
    const AGENTS: AgentsAllowed = AgentsAllowed::Any;
    type Args: DeserializeOwned + JsonSchema + Send;
    type Output: Serialize + JsonSchema;

    async fn call(&self, ctx: &ToolContext, args: Self::Args) -> Result<Self::Output, ToolError>;

    /// For a destructive tool's dry run: the command this call would run.
    async fn would_run(&self, _ctx: &ToolContext, _args: &Self::Args) -> Option<String> {
        None
    }

    /// Whether this call of a destructive tool changes anything (see
    /// [`Tool::destructive`]); by default every call does.
    fn destructive(&self, _args: &Self::Args) -> bool {
        true
    }
}

/// Adapts a [`TypedTool`] to [`Tool`].
pub struct Typed<T: TypedTool> {
    tool: T,
    spec: ToolSpec,
}

impl<T: TypedTool> Typed<T> {
    /// Wraps `tool`, computing its spec once.
    pub fn new(tool: T) -> Self {
        let spec = ToolSpec {
            name: T::NAME,
            description: T::DESCRIPTION,
            effect: T::EFFECT,
            agents: T::AGENTS,
            input_schema: crate::schemas::schema_value::<T::Args>(),
            output_schema: crate::schemas::schema_value::<T::Output>(),
        };
        Self { tool, spec }
    }
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn run(&self, ctx: &ToolContext, args: Value) -> Result<Value, ToolError> {
        let args: T::Args = serde_json::from_value(args).map_err(|e| ToolError::InvalidArgs {
            tool: T::NAME,
            message: e.to_string(),
        })?;
        let output = self.tool.call(ctx, args).await?;
        serde_json::to_value(output).map_err(|e| ToolError::Failed(e.to_string()))
    }

    async fn would_run(&self, ctx: &ToolContext, args: &Value) -> Option<String> {
        let args: T::Args = serde_json::from_value(args.clone()).ok()?;
        self.tool.would_run(ctx, &args).await
    }

    fn destructive(&self, args: &Value) -> bool {
        serde_json::from_value::<T::Args>(args.clone())
            .map_or(true, |args| self.tool.destructive(&args))
    }
}

/// What the built tools reach, as the settings describe it: the chains,
/// the workspace, and (added by each family of tools) the hosts, services
/// and endpoints they may touch.
#[derive(Clone)]
pub struct Toolbox {
    /// Where the chain and market tools read.
    pub chain: ChainReader,
    /// The folders the code and git tools are confined to.
    pub workspace: Workspace,
    /// Where `bash` and `run_tests` run commands.
    pub sandbox: Sandbox,
    /// The services and hosts the operations tools may reach.
    pub checks: Checks,
    /// The Docker socket, Loki and Proxmox (`[infra]`).
    pub infra: Infra,
    /// SearXNG, the connectors API and the GPU job server (`[research]`).
    pub research: Research,
    /// The CEO's calendar (`[ceo] calendar_url`), if configured.
    pub calendar: Option<secrecy::SecretString>,
    /// Where made files go (brand images, sites, utilities): `data_dir`;
    /// `None` offline, where the tools that make files refuse.
    pub data_dir: Option<std::path::PathBuf>,
    /// The public API the sites' live widgets read
    /// (`[public_api].public_url`); none: the widgets stay empty.
    pub site_api: Option<String>,
}

/// Why the tools could not be set up from settings.
#[derive(Debug, thiserror::Error)]
pub enum ToolboxError {
    /// A chain's client could not be built.
    #[error(transparent)]
    Chain(#[from] crate::chain::ChainError),
    /// A workspace root cannot be opened.
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    /// An infra or research tool's HTTP client cannot start.
    #[error(transparent)]
    Client(#[from] ClientError),
}

impl Toolbox {
    /// The tools the settings describe.
    pub fn from_settings(settings: &ulias_core::settings::Settings) -> Result<Self, ToolboxError> {
        Ok(Self {
            chain: ChainReader::from_settings(settings)?,
            workspace: Workspace::from_settings(&settings.workspace)?,
            sandbox: Sandbox::new(settings.sandbox.clone()),
            checks: Checks::new(
                settings.services.clone(),
                Hosts::new(
                    settings.ssh.clone(),
                    settings.hosts.clone(),
                    settings.workspace.max_output_bytes,
                ),
            ),
            infra: Infra::from_settings(settings)?,
            research: Research::from_settings(settings)?,
            calendar: settings.ceo.calendar_url.clone(),
            data_dir: Some(settings.data_dir.clone()),
            site_api: settings
                .public_api
                .public_url
                .as_ref()
                .map(ToString::to_string),
        })
    }

    /// Only `chain`: every path, host and endpoint is refused (tests, and
    /// checks that need the catalogue but no world).
    pub fn offline(chain: ChainReader) -> Self {
        Self {
            chain,
            workspace: Workspace::none(),
            sandbox: Sandbox::new(ulias_core::settings::SandboxSettings::default()),
            checks: Checks::none(),
            infra: Infra::none(),
            research: Research::none(),
            calendar: None,
            data_dir: None,
            site_api: None,
        }
    }

    /// The same, with the code and git tools confined to `workspace`.
    #[must_use]
    pub fn with_workspace(mut self, workspace: Workspace) -> Self {
        self.workspace = workspace;
        self
    }

    /// The same, with sandboxed commands under these limits.
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: Sandbox) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The same, reaching these services and hosts.
    #[must_use]
    pub fn with_checks(mut self, checks: Checks) -> Self {
        self.checks = checks;
        self
    }

    /// The workspace and the sandbox, for the command tools.
    fn shell(&self) -> Shell {
        Shell {
            workspace: self.workspace.clone(),
            sandbox: self.sandbox.clone(),
        }
    }

    /// The same, with the infra tools reaching `infra`.
    #[must_use]
    pub fn with_infra(mut self, infra: Infra) -> Self {
        self.infra = infra;
        self
    }

    /// The same, with the research tools reaching `research`.
    #[must_use]
    pub fn with_research(mut self, research: Research) -> Self {
        self.research = research;
        self
    }

    /// The same, with made files under `data_dir`.
    #[must_use]
    pub fn with_data_dir(mut self, data_dir: std::path::PathBuf) -> Self {
        self.data_dir = Some(data_dir);
        self
    }

    /// The same, with the `calendar` tool reading `source` (an .ics address or file).
    #[must_use]
    pub fn with_calendar(mut self, source: secrecy::SecretString) -> Self {
        self.calendar = Some(source);
        self
    }
}

/// Every tool an agent file may name: the built ones, and the declared ones
/// whose calls say they are not built yet.
pub struct ToolRegistry {
    built: BTreeMap<&'static str, Arc<dyn Tool>>,
    declared: BTreeMap<&'static str, ToolSpec>,
    chain: ChainReader,
}

impl ToolRegistry {
    /// The full catalogue with today's built tools, reaching what `toolbox`
    /// allows.
    pub fn standard(toolbox: &Toolbox) -> Self {
        let Toolbox {
            chain,
            workspace,
            infra,
            research,
            calendar,
            ..
        } = toolbox;
        let built: Vec<Arc<dyn Tool>> = vec![
            Arc::new(Typed::new(Bash(toolbox.shell()))),
            Arc::new(Typed::new(RunTests(toolbox.shell()))),
            Arc::new(Typed::new(HttpCheck(toolbox.checks.clone()))),
            Arc::new(Typed::new(NmapLight(toolbox.checks.clone()))),
            Arc::new(Typed::new(Ssh(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(ZfsStatus(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(CronCheck(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(Rsync(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(Fail2ban(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(Apt(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(ReadConfig(toolbox.checks.hosts.clone()))),
            Arc::new(Typed::new(SmartDeploy {
                checks: toolbox.checks.clone(),
                max_output: workspace.max_output(),
            })),
            Arc::new(Typed::new(Rollback {
                checks: toolbox.checks.clone(),
                max_output: workspace.max_output(),
            })),
            Arc::new(Typed::new(RepoRead(workspace.clone()))),
            Arc::new(Typed::new(RepoWrite(workspace.clone()))),
            Arc::new(Typed::new(RepoEdit(workspace.clone()))),
            Arc::new(Typed::new(Glob(workspace.clone()))),
            Arc::new(Typed::new(Grep(workspace.clone()))),
            Arc::new(Typed::new(AstSearch(workspace.clone()))),
            Arc::new(Typed::new(RepoMap(workspace.clone()))),
            Arc::new(Typed::new(GitStatus(workspace.clone()))),
            Arc::new(Typed::new(GitDiff(workspace.clone()))),
            Arc::new(Typed::new(GitLog(workspace.clone()))),
            Arc::new(Typed::new(GitBlame(workspace.clone()))),
            Arc::new(Typed::new(GitBranch(workspace.clone()))),
            Arc::new(Typed::new(GitCommit(workspace.clone()))),
            Arc::new(Typed::new(GitPush(workspace.clone()))),
            Arc::new(Typed::new(ReadFile)),
            Arc::new(Typed::new(WriteFile)),
            Arc::new(Typed::new(MemoryStore)),
            Arc::new(Typed::new(MemorySearch)),
            Arc::new(Typed::new(AlertTool)),
            Arc::new(Typed::new(UserHistory)),
            Arc::new(Typed::new(UserPatterns)),
            Arc::new(Typed::new(AllObjectives)),
            Arc::new(Typed::new(AllMetrics)),
            Arc::new(Typed::new(FaqLookup)),
            Arc::new(Typed::new(ChainRead(chain.clone()))),
            Arc::new(Typed::new(MarketRead(chain.clone()))),
            Arc::new(Typed::new(SocialsRead(chain.clone()))),
            Arc::new(Typed::new(Docker(infra.clone()))),
            Arc::new(Typed::new(LokiQuery(infra.clone()))),
            Arc::new(Typed::new(Proxmox(infra.clone()))),
            Arc::new(Typed::new(WebSearch(research.clone()))),
            Arc::new(Typed::new(ConnectorFetch(research.clone()))),
            Arc::new(Typed::new(AiJob(research.clone()))),
            Arc::new(Typed::new(AllTasks)),
            Arc::new(Typed::new(AgentMetrics)),
            Arc::new(Typed::new(CrossReference)),
            Arc::new(Typed::new(AbTest)),
            Arc::new(Typed::new(SqlQuery)),
            Arc::new(Typed::new(Jq)),
            Arc::new(Typed::new(Scheduler)),
            Arc::new(Typed::new(Calendar(calendar.clone()))),
            Arc::new(Typed::new(Template)),
            Arc::new(Typed::new(AgentCatalogue)),
        ];
        let mut registry = Self {
            built: BTreeMap::new(),
            declared: BTreeMap::new(),
            chain: chain.clone(),
        };
        let made = [
            brand::tools(toolbox),
            site::tools(toolbox),
            utility::tools(toolbox),
        ];
        for tool in built.into_iter().chain(made.into_iter().flatten()) {
            registry.built.insert(tool.spec().name, tool);
        }
        for spec in catalogue::declared() {
            registry.declared.entry(spec.name).or_insert(spec);
        }
        registry
    }

    /// The chain reader the chain tools use (and the Scanner's override).
    pub fn chain(&self) -> &ChainReader {
        &self.chain
    }

    /// The spec of `name`, built or declared.
    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.built
            .get(name)
            .map(|tool| tool.spec())
            .or_else(|| self.declared.get(name))
    }

    /// The runnable tool called `name`, when built.
    pub fn built(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.built.get(name)
    }

    /// Whether `name` is a tool at all (`finish` included).
    pub fn exists(&self, name: &str) -> bool {
        name == FINISH || self.spec(name).is_some()
    }

    /// Every tool name, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .built
            .keys()
            .chain(self.declared.keys())
            .copied()
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// Adds (or replaces) a built tool: tests and later work plug tools in here.
    pub fn insert(&mut self, tool: Arc<dyn Tool>) {
        self.built.insert(tool.spec().name, tool);
    }
}
