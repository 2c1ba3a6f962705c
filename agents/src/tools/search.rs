//! `glob` and `grep`: find files and lines in the workspace, walking it as
//! git would (`.gitignore` and hidden files skipped, links not followed).
//! Results are bounded; the lines found come back wrapped as untrusted.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workspace::{Workspace, cap};
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The most files one walk looks at.
const MAX_VISITED: usize = 50_000;
/// The most paths `glob` lists.
const MAX_FILES: usize = 500;
/// The most lines `grep` returns.
const MAX_MATCHES: usize = 200;
/// The longest line `grep` shows, in bytes.
const MAX_LINE: usize = 300;
/// The largest file `grep` searches.
const MAX_SEARCHED_BYTES: u64 = 2 * 1024 * 1024;

/// Lists files matching a pattern.
pub struct Glob(pub Workspace);

/// Arguments of `glob`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobArgs {
    /// A glob on paths relative to `path`: `**/*.rs`, `src/*.ts`, `**/README.md`.
    pub pattern: String,
    /// The folder to search, relative to the workspace (default: its root).
    #[serde(default)]
    pub path: Option<String>,
}

/// The files found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FilesFound {
    /// Paths relative to the workspace root, sorted.
    pub files: Vec<String>,
    /// Whether more files matched than are listed.
    pub truncated: bool,
}

#[async_trait]
impl TypedTool for Glob {
    const NAME: &'static str = "glob";
    const DESCRIPTION: &'static str =
        "List files matching a glob such as `**/*.rs`, .gitignore respected.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["explorer"]);
    type Args = GlobArgs;
    type Output = FilesFound;

    async fn call(&self, _ctx: &ToolContext, args: GlobArgs) -> Result<FilesFound, ToolError> {
        let dir = self.0.existing(args.path.as_deref())?;
        let matcher = glob_matcher(Self::NAME, &args.pattern)?;
        let workspace = self.0.clone();
        blocking(move || {
            let mut files = Vec::new();
            let mut truncated = false;
            for file in walk(&dir) {
                let relative = file.strip_prefix(&dir).unwrap_or(&file);
                if matcher.is_match(relative) {
                    if files.len() == MAX_FILES {
                        truncated = true;
                        break;
                    }
                    files.push(workspace.display(&file));
                }
            }
            files.sort();
            FilesFound { files, truncated }
        })
        .await
    }
}

/// Searches lines matching a regular expression.
pub struct Grep(pub Workspace);

/// Arguments of `grep`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepArgs {
    /// A regular expression (Rust syntax), e.g. `fn\s+parse_`.
    pub pattern: String,
    /// The file or folder to search, relative to the workspace (default: its root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files whose path (relative to `path`) matches this glob, e.g. `**/*.rs`.
    #[serde(default)]
    pub glob: Option<String>,
    /// Match regardless of case.
    #[serde(default)]
    pub ignore_case: bool,
}

/// The lines found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LinesFound {
    /// How many lines are shown.
    pub count: u32,
    /// Whether more lines matched than are shown.
    pub truncated: bool,
    /// One line per match, `<path>:<line>: <text>`, wrapped as untrusted text.
    pub matches: String,
}

#[async_trait]
impl TypedTool for Grep {
    const NAME: &'static str = "grep";
    const DESCRIPTION: &'static str =
        "Search repository files for lines matching a regular expression.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["explorer", "reviewer"]);
    type Args = GrepArgs;
    type Output = LinesFound;

    async fn call(&self, _ctx: &ToolContext, args: GrepArgs) -> Result<LinesFound, ToolError> {
        let start = self.0.existing(args.path.as_deref())?;
        let regex = regex::RegexBuilder::new(&args.pattern)
            .case_insensitive(args.ignore_case)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| invalid(Self::NAME, e.to_string()))?;
        let only = args
            .glob
            .as_deref()
            .map(|glob| glob_matcher(Self::NAME, glob))
            .transpose()?;
        let workspace = self.0.clone();
        blocking(move || {
            let mut lines = Vec::new();
            let mut size = 0;
            let mut truncated = false;
            'files: for file in walk(&start) {
                let relative = file.strip_prefix(&start).unwrap_or(&file);
                if only.as_ref().is_some_and(|glob| !glob.is_match(relative)) {
                    continue;
                }
                let Some(text) = searchable(&file) else {
                    continue;
                };
                let shown = workspace.display(&file);
                for (number, line) in text.lines().enumerate() {
                    if !regex.is_match(line) {
                        continue;
                    }
                    let found = format!("{shown}:{}: {}\n", number + 1, cap(line, MAX_LINE).0);
                    if lines.len() == MAX_MATCHES || size + found.len() > workspace.max_output() {
                        truncated = true;
                        break 'files;
                    }
                    size += found.len();
                    lines.push(found);
                }
            }
            LinesFound {
                count: u32::try_from(lines.len()).unwrap_or(u32::MAX),
                truncated,
                matches: wrap_untrusted("repo:grep", &lines.concat()),
            }
        })
        .await
    }
}

/// The files under `start` (or `start` itself), as git would list them:
/// ignored and hidden files skipped, links not followed; by name, so a cut
/// walk keeps the first files in path order.
pub(super) fn walk(start: &Path) -> impl Iterator<Item = PathBuf> {
    ignore::WalkBuilder::new(start)
        .require_git(false)
        .sort_by_file_name(std::cmp::Ord::cmp)
        .build()
        .filter_map(Result::ok)
        .take(MAX_VISITED)
        .filter(|entry| entry.file_type().is_some_and(|t| t.is_file()))
        .map(ignore::DirEntry::into_path)
}

/// A file's text when it is small and not binary.
pub(super) fn searchable(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.len() > MAX_SEARCHED_BYTES {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    if bytes.contains(&0) {
        return None;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn glob_matcher(tool: &'static str, pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| invalid(tool, e.to_string()))
}

fn invalid(tool: &'static str, message: String) -> ToolError {
    ToolError::InvalidArgs { tool, message }
}

/// Runs a walk off the async threads.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::Failed(format!("the search stopped: {e}")))
}
