//! `repo_map`: the shape of a folder in one call. Per file, sorted by path,
//! its top-level definitions and what lies directly in each `impl`, trait,
//! class, interface or module:
//!
//! ```text
//! src/lib.rs
//!   struct Foo
//!   impl Foo: fn new, fn run
//! app/models.py
//!   class Bar: def x
//! ```

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::lang::Grammar;
use super::parse::{Found, Parsers};
use super::{MAX_PARSED, blocking, searchable, walk};
use crate::tools::workspace::Workspace;
use crate::tools::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// How many files are listed unless the agent asks otherwise.
const DEFAULT_FILES: usize = 100;
/// The most files one call lists.
const MAX_FILES: usize = 500;
/// The most members listed after one definition.
const MAX_MEMBERS: usize = 40;
/// The untrusted wrapper's source.
const SOURCE: &str = "repo:repo_map";

/// Outlines a folder's definitions.
pub struct RepoMap(pub Workspace);

/// Arguments of `repo_map`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoMapArgs {
    /// The folder (or file) to outline, relative to the workspace (default: its root).
    #[serde(default)]
    pub path: Option<String>,
    /// The most files to list (default 100, at most 500).
    #[serde(default)]
    pub max_files: Option<u32>,
}

/// A folder's outline.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RepoOutline {
    /// How many files are listed (files without definitions are not).
    pub files: u32,
    /// Whether files were left out.
    pub truncated: bool,
    /// Each file's path, then one indented line per top-level definition,
    /// with its members after a colon; wrapped as untrusted text.
    pub outline: String,
}

#[async_trait]
impl TypedTool for RepoMap {
    const NAME: &'static str = "repo_map";
    const DESCRIPTION: &'static str =
        "Outline a folder: each Rust, TypeScript or Python file's definitions and methods.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["architect"]);
    type Args = RepoMapArgs;
    type Output = RepoOutline;

    async fn call(&self, _ctx: &ToolContext, args: RepoMapArgs) -> Result<RepoOutline, ToolError> {
        let start = self.0.existing(args.path.as_deref())?;
        let max_files = args
            .max_files
            .map_or(DEFAULT_FILES, |n| n as usize)
            .clamp(1, MAX_FILES);
        let workspace = self.0.clone();
        blocking(move || {
            let mut parsers = Parsers::default();
            let mut files = Vec::new();
            let mut truncated = false;
            let mut parsed = 0;
            for file in walk(&start) {
                let Some(grammar) = Grammar::of(&file) else {
                    continue;
                };
                if parsed == MAX_PARSED || files.len() == max_files {
                    truncated = true;
                    break;
                }
                parsed += 1;
                let Some(text) = searchable(&file) else {
                    continue;
                };
                let Some(found) = parsers.definitions(grammar, &text)? else {
                    continue;
                };
                let lines = outline(grammar, &found);
                if !lines.is_empty() {
                    files.push((workspace.display(&file), lines));
                }
            }
            files.sort();
            let (listed, body, cut) = joined(&files, workspace.max_output());
            Ok(RepoOutline {
                files: u32::try_from(listed).unwrap_or(u32::MAX),
                truncated: truncated || cut,
                outline: wrap_untrusted(SOURCE, &body),
            })
        })
        .await?
    }
}

/// The files' blocks within `max` bytes: how many, the text, whether cut.
fn joined(files: &[(String, String)], max: usize) -> (usize, String, bool) {
    let mut body = String::new();
    for (listed, (path, lines)) in files.iter().enumerate() {
        if body.len() + path.len() + 1 + lines.len() > max {
            return (listed, body, true);
        }
        body.push_str(path);
        body.push('\n');
        body.push_str(lines);
    }
    (files.len(), body, false)
}

/// One line per top-level definition of a file, each followed by its members.
fn outline(grammar: Grammar, found: &[Found]) -> String {
    let mut members: Vec<Vec<&Found>> = vec![Vec::new(); found.len()];
    for item in found {
        if let Some(parent) = item.parent.and_then(|p| members.get_mut(p)) {
            parent.push(item);
        }
    }
    let mut out = String::new();
    for (item, inside) in found.iter().zip(&members) {
        if item.parent.is_some() {
            continue;
        }
        out.push_str("  ");
        out.push_str(&label(grammar, item));
        if item.kind.has_members() && !inside.is_empty() {
            let shown: Vec<String> = inside
                .iter()
                .take(MAX_MEMBERS)
                .map(|member| label(grammar, member))
                .collect();
            out.push_str(": ");
            out.push_str(&shown.join(", "));
            if inside.len() > MAX_MEMBERS {
                out.push_str(", …");
            }
        }
        out.push('\n');
    }
    out
}

/// `fn new`, `impl Display for Foo`, `class Bar`, or a bare method name.
fn label(grammar: Grammar, item: &Found) -> String {
    let name = match &item.implements {
        Some(implemented) => format!("{implemented} for {}", item.name),
        None => item.name.clone(),
    };
    match grammar.keyword(item.kind) {
        "" => name,
        keyword => format!("{keyword} {name}"),
    }
}
