//! `repo_read`, `repo_write` and `repo_edit`: files of the organisation's
//! repositories, confined to the workspace roots. Text read comes back
//! wrapped as untrusted; an edit is an exact, unique replacement in a file
//! the run has read.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workspace::Workspace;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The largest file the code tools read or write.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Reads lines of a file.
pub struct RepoRead(pub Workspace);

/// Arguments of `repo_read`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoReadArgs {
    /// The file, relative to the workspace (or absolute inside it).
    pub path: String,
    /// The first line to show, from 1 (default 1).
    #[serde(default)]
    pub start_line: Option<u32>,
    /// The last line to show, included (default: as many as fit).
    #[serde(default)]
    pub end_line: Option<u32>,
}

/// Lines of a file as read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileExcerpt {
    /// The file, relative to its workspace root.
    pub path: String,
    /// The first line shown.
    pub start_line: u32,
    /// The last line shown (below `start_line` when none was).
    pub end_line: u32,
    /// The file's number of lines.
    pub total_lines: u32,
    /// Where to read on, when lines were left out after `end_line`.
    pub next_line: Option<u32>,
    /// The lines, each as `<number><tab><text>`, wrapped as untrusted text;
    /// the numbers and the wrapper are not part of the file.
    pub text: String,
}

#[async_trait]
impl TypedTool for RepoRead {
    const NAME: &'static str = "repo_read";
    const DESCRIPTION: &'static str =
        "Read numbered lines of a repository file, all or from start_line to end_line.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&[
        "architect",
        "coder",
        "documenter",
        "explorer",
        "reviewer",
        "tester",
    ]);
    type Args = RepoReadArgs;
    type Output = FileExcerpt;

    async fn call(&self, ctx: &ToolContext, args: RepoReadArgs) -> Result<FileExcerpt, ToolError> {
        let path = self.0.existing(Some(&args.path))?;
        let text = read_text(&path).await?;
        ctx.reads.note(&path);
        let shown = self.0.display(&path);
        let lines: Vec<&str> = text.lines().collect();
        let total = u32::try_from(lines.len()).unwrap_or(u32::MAX);
        let start = args.start_line.unwrap_or(1).max(1);
        let last = args.end_line.unwrap_or(total).min(total);
        let mut body = String::new();
        let mut end = start.saturating_sub(1);
        for number in start..=last {
            let line = lines.get(number as usize - 1).copied().unwrap_or_default();
            let numbered = format!("{number}\t{line}\n");
            if body.len() + numbered.len() > self.0.max_output() {
                break;
            }
            body.push_str(&numbered);
            end = number;
        }
        Ok(FileExcerpt {
            text: wrap_untrusted(&format!("repo:{shown}"), &body),
            path: shown,
            start_line: start,
            end_line: end,
            total_lines: total,
            next_line: (end < total).then_some(end + 1),
        })
    }
}

/// Creates a new file.
pub struct RepoWrite(pub Workspace);

/// Arguments of `repo_write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoWriteArgs {
    /// The new file, relative to the workspace; it must not exist yet.
    pub path: String,
    /// Its whole content.
    pub content: String,
}

/// A file created or changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileChanged {
    /// The file, relative to its workspace root.
    pub path: String,
    /// The first line written or replaced.
    pub line: u32,
    /// The file's number of lines now.
    pub total_lines: u32,
}

#[async_trait]
impl TypedTool for RepoWrite {
    const NAME: &'static str = "repo_write";
    const DESCRIPTION: &'static str =
        "Create a new file in a repository; an existing file is refused.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "documenter", "tester"]);
    type Args = RepoWriteArgs;
    type Output = FileChanged;

    async fn call(&self, ctx: &ToolContext, args: RepoWriteArgs) -> Result<FileChanged, ToolError> {
        if args.content.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(&args.path));
        }
        let path = self.0.new_file(&args.path)?;
        if let Some(parent) = path.parent() {
            tokio::fs::create_dir_all(parent)
                .await
                .map_err(|e| failed("create the folders of", &args.path, &e))?;
        }
        // create_new: a file (or link) that appeared since the check is not overwritten.
        let mut file = tokio::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .await
            .map_err(|e| failed("create", &args.path, &e))?;
        tokio::io::AsyncWriteExt::write_all(&mut file, args.content.as_bytes())
            .await
            .map_err(|e| failed("write", &args.path, &e))?;
        ctx.reads.note(&path);
        Ok(FileChanged {
            path: self.0.display(&path),
            line: 1,
            total_lines: line_count(&args.content),
        })
    }
}

/// Replaces one passage of a file.
pub struct RepoEdit(pub Workspace);

/// Arguments of `repo_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoEditArgs {
    /// The file, read earlier in this task with repo_read.
    pub path: String,
    /// The exact passage to replace, as in the file (without line numbers);
    /// it must occur exactly once.
    pub old: String,
    /// What replaces it.
    pub new: String,
}

#[async_trait]
impl TypedTool for RepoEdit {
    const NAME: &'static str = "repo_edit";
    const DESCRIPTION: &'static str = "Replace one exact passage of a file read in this task.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "documenter"]);
    type Args = RepoEditArgs;
    type Output = FileChanged;

    async fn call(&self, ctx: &ToolContext, args: RepoEditArgs) -> Result<FileChanged, ToolError> {
        if args.old.is_empty() {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: "`old` is empty: give the exact passage to replace".into(),
            });
        }
        let path = self.0.existing(Some(&args.path))?;
        if !ctx.reads.has_read(&path) {
            return Err(ToolError::Forbidden(format!(
                "{} was not read in this task: read it with repo_read before editing it",
                args.path
            )));
        }
        let text = read_text(&path).await?;
        let (at, edited) = replace_once(&text, &args.old, &args.new, &args.path)?;
        if edited.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(&args.path));
        }
        tokio::fs::write(&path, &edited)
            .await
            .map_err(|e| failed("write", &args.path, &e))?;
        Ok(FileChanged {
            path: self.0.display(&path),
            line: line_count(&text[..at]) + 1,
            total_lines: line_count(&edited),
        })
    }
}

/// `text` with its one occurrence of `old` replaced by `new`, and where it
/// was. The agent sees files through the untrusted wrapper, which escapes
/// `<`, `>` and `&`: a passage copied from there is tried unescaped too.
fn replace_once(
    text: &str,
    old: &str,
    new: &str,
    path: &str,
) -> Result<(usize, String), ToolError> {
    let mut count = text.matches(old).count();
    let (mut old, mut new) = (old.to_owned(), new.to_owned());
    if count == 0 {
        let (plain_old, plain_new) = (unescape(&old), unescape(&new));
        count = text.matches(plain_old.as_str()).count();
        (old, new) = (plain_old, plain_new);
    }
    match (count, text.find(old.as_str())) {
        (1, Some(at)) => Ok((at, text.replacen(old.as_str(), &new, 1))),
        (0, _) | (_, None) => Err(ToolError::Failed(format!(
            "the passage was not found in {path}: copy it exactly as repo_read shows it, \
             without the line numbers"
        ))),
        (n, _) => Err(ToolError::Failed(format!(
            "the passage occurs {n} times in {path}: include more of the lines around it \
             so that it occurs once"
        ))),
    }
}

/// The inverse of the untrusted wrapper's escaping.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// A file's text: refused when too large or not text.
async fn read_text(path: &std::path::Path) -> Result<String, ToolError> {
    let shown = path.display().to_string();
    let meta = tokio::fs::metadata(path)
        .await
        .map_err(|e| failed("open", &shown, &e))?;
    if !meta.is_file() {
        return Err(ToolError::Failed(format!(
            "{shown} is a folder: use glob to list it"
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(&shown));
    }
    let bytes = tokio::fs::read(path)
        .await
        .map_err(|e| failed("read", &shown, &e))?;
    if bytes.contains(&0) {
        return Err(ToolError::Failed(format!("{shown} is not a text file")));
    }
    String::from_utf8(bytes).map_err(|_| ToolError::Failed(format!("{shown} is not UTF-8 text")))
}

fn line_count(text: &str) -> u32 {
    u32::try_from(text.lines().count()).unwrap_or(u32::MAX)
}

fn too_large(path: &str) -> ToolError {
    ToolError::Failed(format!(
        "{path} is larger than {MAX_FILE_BYTES} bytes: the code tools do not handle it"
    ))
}

fn failed(what: &str, path: &str, error: &std::io::Error) -> ToolError {
    ToolError::Failed(format!("cannot {what} {path}: {error}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_unique_passage_is_replaced_and_its_line_given() {
        let (at, edited) = replace_once("a\nb\nc\n", "b\n", "B\n", "f").unwrap();
        assert_eq!(edited, "a\nB\nc\n");
        assert_eq!(line_count(&"a\nb\nc\n"[..at]) + 1, 2);
    }

    #[test]
    fn a_passage_copied_from_the_wrapped_view_still_matches() {
        let (_, edited) = replace_once(
            "let v: Vec<u8> = a && b;",
            "Vec&lt;u8&gt; = a &amp;&amp; b",
            "Vec<u16> = a",
            "f",
        )
        .unwrap();
        assert_eq!(edited, "let v: Vec<u16> = a;");
    }

    #[test]
    fn a_repeated_passage_is_refused_with_its_count() {
        let error = replace_once("x\nx\n", "x", "y", "f").unwrap_err();
        assert!(error.to_string().contains("occurs 2 times"), "{error}");
    }
}
