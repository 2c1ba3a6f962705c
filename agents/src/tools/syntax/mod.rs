//! `ast_search` and `repo_map`: definitions and call sites read from syntax
//! trees (tree-sitter) of Rust, TypeScript and Python files. They walk the
//! workspace as `grep` does (`.gitignore` and hidden files skipped, links
//! not followed, large and binary files skipped) from a path that
//! [`Workspace::existing`] confined; what they quote from files comes back
//! wrapped as untrusted.

mod lang;
mod outline;
mod parse;
mod python;
mod rust;
mod typescript;

use async_trait::async_trait;
use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::search::{blocking, searchable, walk};
use super::workspace::{Workspace, cap};
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;
use lang::Grammar;
pub use lang::{Language, SyntaxKind};
pub use outline::RepoMap;
use parse::{Found, Parsers};

/// The most source files one call parses.
const MAX_PARSED: usize = 5_000;
/// The most matches `ast_search` returns.
const MAX_MATCHES: usize = 100;
/// The longest signature shown, in bytes.
const MAX_LINE: usize = 200;
/// The untrusted wrapper's source for quoted signatures.
const SOURCE: &str = "repo:ast_search";

/// Finds definitions and call sites by name.
pub struct AstSearch(pub Workspace);

/// What `ast_search` looks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    /// Where the name is defined (function, method, struct, class, enum,
    /// trait, interface, type alias, const, impl, module).
    #[default]
    Definition,
    /// Where it is called.
    Call,
    /// Both.
    Any,
}

/// Arguments of `ast_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AstSearchArgs {
    /// The exact name, e.g. `parse_config` or `Workspace` (give this or `pattern`).
    #[serde(default)]
    pub name: Option<String>,
    /// A regular expression on names instead (Rust syntax), e.g. `^parse_`.
    #[serde(default)]
    pub pattern: Option<String>,
    /// definition (default), call, or any.
    #[serde(default)]
    pub kind: SearchKind,
    /// The file or folder to search, relative to the workspace (default: its root).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files of this language: rust, typescript or python.
    #[serde(default)]
    pub language: Option<Language>,
}

/// One definition or call found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SyntaxMatch {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The line of the name, from 1.
    pub line: u32,
    pub kind: SyntaxKind,
    pub name: String,
    /// That line of the file, trimmed, wrapped as untrusted text.
    pub signature: String,
}

/// What `ast_search` found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SyntaxMatches {
    /// How many matches are shown.
    pub count: u32,
    /// Whether more matched (or more files were left unread) than shown.
    pub truncated: bool,
    /// By path, then line.
    pub matches: Vec<SyntaxMatch>,
}

#[async_trait]
impl TypedTool for AstSearch {
    const NAME: &'static str = "ast_search";
    const DESCRIPTION: &'static str =
        "Find where a name is defined or called, by syntax tree (Rust, TypeScript, Python).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed =
        AgentsAllowed::Only(&["architect", "coder", "explorer", "reviewer"]);
    type Args = AstSearchArgs;
    type Output = SyntaxMatches;

    async fn call(
        &self,
        _ctx: &ToolContext,
        args: AstSearchArgs,
    ) -> Result<SyntaxMatches, ToolError> {
        let names = NameFilter::parse(args.name, args.pattern)?;
        let start = self.0.existing(args.path.as_deref())?;
        let workspace = self.0.clone();
        let (kind, language) = (args.kind, args.language);
        blocking(move || {
            let mut search = Search::new(workspace.max_output());
            let mut parsers = Parsers::default();
            let mut parsed = 0;
            for file in walk(&start) {
                let Some(grammar) = Grammar::of(&file) else {
                    continue;
                };
                if language.is_some_and(|only| only != grammar.language()) {
                    continue;
                }
                if parsed == MAX_PARSED {
                    search.truncated = true;
                    break;
                }
                parsed += 1;
                let Some(text) = searchable(&file) else {
                    continue;
                };
                let Some(mut found) = parsers.find(grammar, &text, kind)? else {
                    continue;
                };
                found.retain(|f| names.matches(&f.name));
                found.sort_by_key(|f| f.row);
                if !search.add(&workspace.display(&file), &text, &found) {
                    break;
                }
            }
            Ok(search.done())
        })
        .await?
    }
}

/// A name, or a regular expression on names.
enum NameFilter {
    Exact(String),
    Pattern(Regex),
}

impl NameFilter {
    fn parse(name: Option<String>, pattern: Option<String>) -> Result<Self, ToolError> {
        let invalid = |message: String| ToolError::InvalidArgs {
            tool: AstSearch::NAME,
            message,
        };
        match (name, pattern) {
            (Some(name), None) if !name.trim().is_empty() => Ok(Self::Exact(name.trim().into())),
            (None, Some(pattern)) => regex::RegexBuilder::new(&pattern)
                .size_limit(1 << 20)
                .build()
                .map(Self::Pattern)
                .map_err(|e| invalid(e.to_string())),
            _ => Err(invalid("give either `name` or `pattern`".into())),
        }
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Self::Exact(wanted) => name == wanted,
            Self::Pattern(regex) => regex.is_match(name),
        }
    }
}

/// The matches gathered so far, within the count and size limits.
struct Search {
    matches: Vec<SyntaxMatch>,
    size: usize,
    max_output: usize,
    truncated: bool,
}

impl Search {
    fn new(max_output: usize) -> Self {
        Self {
            matches: Vec::new(),
            size: 0,
            max_output,
            truncated: false,
        }
    }

    /// Adds a file's matches; `false` once a limit is reached.
    fn add(&mut self, path: &str, text: &str, found: &[Found]) -> bool {
        if found.is_empty() {
            return true;
        }
        let lines: Vec<&str> = text.lines().collect();
        for found in found {
            let line = lines.get(found.row).copied().unwrap_or_default();
            let signature = wrap_untrusted(SOURCE, cap(line.trim(), MAX_LINE).0);
            // The JSON around each match is about 60 bytes.
            let size = path.len() + found.name.len() + signature.len() + 60;
            if self.matches.len() == MAX_MATCHES || self.size + size > self.max_output {
                self.truncated = true;
                return false;
            }
            self.size += size;
            self.matches.push(SyntaxMatch {
                path: path.to_owned(),
                line: u32::try_from(found.row + 1).unwrap_or(u32::MAX),
                kind: found.kind,
                name: found.name.clone(),
                signature,
            });
        }
        true
    }

    fn done(mut self) -> SyntaxMatches {
        self.matches
            .sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        SyntaxMatches {
            count: u32::try_from(self.matches.len()).unwrap_or(u32::MAX),
            truncated: self.truncated,
            matches: self.matches,
        }
    }
}
