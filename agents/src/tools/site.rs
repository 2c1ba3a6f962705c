//! The Webdev's tools: `site_build` renders a template into a numbered
//! bundle, `site_check` checks it against the operation's official
//! address, and `site_publish` proposes a checked bundle to the team.
//! `site_publish` is a publish tool: its `run` only vets the call (the
//! bundle's latest check passed, the files are the ones checked, they
//! still pass) and returns the content the runner turns into a validation.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::domain::{Operation, PublicationTarget, ValidationKind};

use super::{AgentsAllowed, Effect, Tool, ToolContext, ToolError, Toolbox, Typed, TypedTool};
use crate::site::{self, CheckReport, SiteError, SiteFields, SiteOperation};

const WEBDEV: &[&str] = &["webdev"];

/// What the site tools reach: the folder bundles are written to, and the
/// public API the widgets read.
#[derive(Clone)]
pub struct Sites {
    pub data_dir: Option<PathBuf>,
    pub api: Option<String>,
}

impl Sites {
    fn data_dir(&self) -> Result<&std::path::Path, ToolError> {
        self.data_dir
            .as_deref()
            .ok_or_else(|| failed(SiteError::NoDataDir))
    }
}

/// The site tools, reaching what `toolbox` allows.
pub(super) fn tools(toolbox: &Toolbox) -> Vec<Arc<dyn Tool>> {
    let sites = Sites {
        data_dir: toolbox.data_dir.clone(),
        api: toolbox.site_api.clone(),
    };
    vec![
        Arc::new(Typed::new(SiteBuild(sites.clone()))),
        Arc::new(Typed::new(SiteCheck(sites.clone()))),
        Arc::new(Typed::new(SitePublish(sites))),
    ]
}

fn failed(error: SiteError) -> ToolError {
    ToolError::Failed(error.to_string())
}

/// The task's operation: sites are always an operation's.
async fn operation_of(ctx: &ToolContext, tool: &str) -> Result<Operation, ToolError> {
    let id = ctx.task.operation_id.ok_or_else(|| {
        ToolError::Forbidden(format!(
            "{tool} works for an operation, and this task has none"
        ))
    })?;
    Ok(ctx.store.operation(id).await?)
}

/// The operation's official contract address, which every site must show.
fn official(operation: &Operation) -> Result<&str, ToolError> {
    operation.official_address.as_deref().ok_or_else(|| {
        ToolError::Failed(format!(
            "operation #{} has no official address yet: a site cannot be checked without one",
            operation.id
        ))
    })
}

/// Renders a template into the operation's next bundle.
pub struct SiteBuild(pub Sites);

/// Arguments of `site_build`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildArgs {
    /// signal, classic, terminal or playful.
    pub template: String,
    pub fields: SiteFields,
}

/// A bundle built.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Built {
    /// Its number: pass it to site_check, then site_publish.
    pub build: u32,
    pub template: String,
    pub files: Vec<String>,
    pub next: &'static str,
}

#[async_trait]
impl TypedTool for SiteBuild {
    const NAME: &'static str = "site_build";
    const DESCRIPTION: &'static str = "Build the operation's site from a template (signal, \
        classic, terminal, playful) and its fields into a new numbered static bundle.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(WEBDEV);
    type Args = BuildArgs;
    type Output = Built;

    async fn call(&self, ctx: &ToolContext, args: BuildArgs) -> Result<Built, ToolError> {
        let data_dir = self.0.data_dir()?;
        let operation = operation_of(ctx, Self::NAME).await?;
        let shown = SiteOperation {
            id: operation.id.get(),
            ticker: operation
                .token_symbol
                .clone()
                .unwrap_or_else(|| operation.name.clone()),
            chain: operation.chain.clone().unwrap_or_default(),
            name: operation.name,
            api: self.0.api.clone(),
        };
        let bundle = site::build(data_dir, &args.template, &args.fields, &shown).map_err(failed)?;
        Ok(Built {
            build: bundle.build,
            template: bundle.template,
            files: bundle.files,
            next: "run site_check on this build before anything else",
        })
    }
}

/// Checks a bundle: links, HTML, the official address.
pub struct SiteCheck(pub Sites);

/// Arguments of `site_check` and `site_publish`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildRef {
    /// The build number site_build returned; the latest when omitted.
    #[serde(default)]
    pub build: Option<u32>,
}

#[async_trait]
impl TypedTool for SiteCheck {
    const NAME: &'static str = "site_check";
    const DESCRIPTION: &'static str = "Check a built site: every internal link resolves, every \
        page is valid HTML, and the contract address shown is the operation's official one. \
        A failed check blocks publishing until a new build passes.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(WEBDEV);
    type Args = BuildRef;
    type Output = CheckReport;

    async fn call(&self, ctx: &ToolContext, args: BuildRef) -> Result<CheckReport, ToolError> {
        let data_dir = self.0.data_dir()?;
        let operation = operation_of(ctx, Self::NAME).await?;
        let bundle = site::open(data_dir, operation.id.get(), args.build).map_err(failed)?;
        site::check(&bundle, official(&operation)?).map_err(failed)
    }
}

/// Proposes a checked bundle for publication.
pub struct SitePublish(pub Sites);

/// The site a validation proposes: `site_publish`'s content arguments.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Proposed {
    pub template: String,
    pub fields: serde_json::Value,
    pub url: Option<String>,
    pub build: u32,
}

#[async_trait]
impl TypedTool for SitePublish {
    const NAME: &'static str = "site_publish";
    const DESCRIPTION: &'static str = "Propose a checked site build for publication: the team \
        approves it before it goes live. Refused unless the build's latest site_check passed.";
    const EFFECT: Effect = Effect::Publish {
        kind: ValidationKind::Site,
        target: PublicationTarget::Site,
    };
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(WEBDEV);
    type Args = BuildRef;
    type Output = Proposed;

    async fn call(&self, ctx: &ToolContext, args: BuildRef) -> Result<Proposed, ToolError> {
        let data_dir = self.0.data_dir()?;
        let operation = operation_of(ctx, Self::NAME).await?;
        let bundle = site::open(data_dir, operation.id.get(), args.build).map_err(failed)?;
        site::ready_to_publish(&bundle, official(&operation)?).map_err(failed)?;
        Ok(Proposed {
            fields: serde_json::to_value(&bundle.fields)
                .map_err(|e| ToolError::Failed(e.to_string()))?,
            template: bundle.template,
            url: None,
            build: bundle.build,
        })
    }
}
