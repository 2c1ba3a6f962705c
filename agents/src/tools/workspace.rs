//! The folders the code and git tools are confined to, and what a run has
//! read. Every path an agent gives goes through [`Workspace::existing`] or
//! [`Workspace::new_file`]: `..` is refused, links are resolved, and the
//! result must lie under a root, so a link leading out is refused too.
//! Nothing inside a `.git` folder is reachable: its config and hooks are
//! commands git would run.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ulias_core::settings::WorkspaceSettings;

use super::ToolError;

/// Why the workspace could not be set up from settings.
#[derive(Debug, thiserror::Error)]
#[error("workspace.roots: the folder {path} cannot be opened: {source}")]
pub struct WorkspaceError {
    path: PathBuf,
    source: std::io::Error,
}

/// The roots, resolved, and the tools' limits.
#[derive(Debug, Clone)]
pub struct Workspace {
    roots: Vec<PathBuf>,
    max_output: usize,
    git_timeout: Duration,
}

impl Workspace {
    /// The workspace the settings describe; each root must exist.
    pub fn from_settings(settings: &WorkspaceSettings) -> Result<Self, WorkspaceError> {
        let roots = settings
            .roots
            .iter()
            .map(|root| {
                root.canonicalize().map_err(|source| WorkspaceError {
                    path: root.clone(),
                    source,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            roots,
            max_output: settings.max_output_bytes,
            git_timeout: Duration::from_secs(settings.git_timeout_seconds),
        })
    }

    /// No roots: every path is refused (tests and tools that need none).
    pub fn none() -> Self {
        let defaults = WorkspaceSettings::default();
        Self {
            roots: Vec::new(),
            max_output: defaults.max_output_bytes,
            git_timeout: Duration::from_secs(defaults.git_timeout_seconds),
        }
    }

    /// The most bytes of text one tool returns.
    pub fn max_output(&self) -> usize {
        self.max_output
    }

    /// How long one git command may run.
    pub fn git_timeout(&self) -> Duration {
        self.git_timeout
    }

    /// `path` (relative to the first root, or absolute) as an existing file
    /// or folder inside the roots, links resolved; `None` means the first root.
    pub fn existing(&self, path: Option<&str>) -> Result<PathBuf, ToolError> {
        let given = self.joined(path)?;
        let real = given
            .canonicalize()
            .map_err(|e| ToolError::Failed(format!("cannot open {}: {e}", given.display())))?;
        self.check_inside(&real, &given)?;
        Ok(real)
    }

    /// `path` as a file to create: its nearest existing folder, links
    /// resolved, lies inside the roots, and nothing is there yet.
    pub fn new_file(&self, path: &str) -> Result<PathBuf, ToolError> {
        let given = self.joined(Some(path))?;
        if given.symlink_metadata().is_ok() {
            return Err(ToolError::Forbidden(format!(
                "{path} already exists: read it with repo_read and change it with repo_edit"
            )));
        }
        let mut missing = Vec::new();
        let mut folder = given.as_path();
        while folder.symlink_metadata().is_err() {
            let (Some(name), Some(parent)) = (folder.file_name(), folder.parent()) else {
                return Err(outside(&given));
            };
            missing.push(name.to_owned());
            folder = parent;
        }
        let real = folder
            .canonicalize()
            .map_err(|e| ToolError::Failed(format!("cannot open {}: {e}", folder.display())))?;
        self.check_inside(&real, &given)?;
        Ok(missing.iter().rev().fold(real, |acc, name| acc.join(name)))
    }

    /// `path` as the agent should give it back: relative to the first root
    /// (where relative paths are resolved), else absolute.
    pub fn display(&self, path: &Path) -> String {
        self.roots
            .first()
            .and_then(|root| path.strip_prefix(root).ok())
            .filter(|relative| !relative.as_os_str().is_empty())
            .unwrap_or(path)
            .display()
            .to_string()
    }

    /// The root holding `real` (a resolved path), when one does and the path
    /// is not inside a `.git` folder.
    pub fn root_of(&self, real: &Path) -> Option<&Path> {
        let root = self.roots.iter().find(|root| real.starts_with(root))?;
        let relative = real.strip_prefix(root).ok()?;
        (!relative.components().any(|c| c.as_os_str() == ".git")).then_some(root.as_path())
    }

    /// Where `path`, written relative to `dir`, lands once `..` and links
    /// are resolved (the nearest existing folder is resolved; the rest is
    /// taken as written).
    pub fn landing(dir: &Path, path: &str) -> PathBuf {
        let mut lexical = PathBuf::new();
        for part in dir.join(path).components() {
            match part {
                Component::ParentDir => {
                    lexical.pop();
                }
                Component::CurDir => {}
                other => lexical.push(other),
            }
        }
        let mut existing = lexical.as_path();
        let mut rest = Vec::new();
        while existing.symlink_metadata().is_err() {
            let (Some(name), Some(parent)) = (existing.file_name(), existing.parent()) else {
                break;
            };
            rest.push(name.to_owned());
            existing = parent;
        }
        let resolved = existing
            .canonicalize()
            .unwrap_or_else(|_| existing.to_owned());
        rest.iter().rev().fold(resolved, |acc, name| acc.join(name))
    }

    fn joined(&self, path: Option<&str>) -> Result<PathBuf, ToolError> {
        let Some(first) = self.roots.first() else {
            return Err(ToolError::Forbidden(
                "no workspace is configured (workspace.roots): the code tools cannot open any path"
                    .into(),
            ));
        };
        let path = Path::new(path.unwrap_or("."));
        if path.components().any(|c| c == Component::ParentDir) {
            return Err(ToolError::Forbidden(format!(
                "`..` is not allowed in a path: {}",
                path.display()
            )));
        }
        Ok(first.join(path))
    }

    fn check_inside(&self, real: &Path, given: &Path) -> Result<(), ToolError> {
        let Some(relative) = self
            .roots
            .iter()
            .find_map(|root| real.strip_prefix(root).ok())
        else {
            return Err(outside(given));
        };
        if relative.components().any(|c| c.as_os_str() == ".git") {
            return Err(ToolError::Forbidden(format!(
                "{} is inside a .git folder: use the git tools",
                given.display()
            )));
        }
        Ok(())
    }
}

fn outside(path: &Path) -> ToolError {
    ToolError::Forbidden(format!(
        "{} is outside the workspace (links resolved): refused",
        path.display()
    ))
}

/// The files a run has read (or created), so an edit can refuse a file the
/// agent has not seen. One per run; clones share it.
#[derive(Debug, Clone, Default)]
pub struct ReadLog(Arc<Mutex<HashSet<PathBuf>>>);

impl ReadLog {
    /// Notes that the run has seen `path` (resolved).
    pub fn note(&self, path: &Path) {
        if let Ok(mut seen) = self.0.lock() {
            seen.insert(path.to_owned());
        }
    }

    /// Whether the run has seen `path` (resolved).
    pub fn has_read(&self, path: &Path) -> bool {
        self.0.lock().is_ok_and(|seen| seen.contains(path))
    }
}

/// `text` cut to at most `max` bytes on a character boundary, and whether
/// it was cut.
pub fn cap(text: &str, max: usize) -> (&str, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], true)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn text_is_cut_on_a_character_boundary() {
        assert_eq!(cap("héllo", 2), ("h", true));
        assert_eq!(cap("héllo", 3), ("hé", true));
        assert_eq!(cap("abc", 3), ("abc", false));
    }

    #[test]
    fn without_roots_every_path_is_refused() {
        let error = Workspace::none().existing(Some("README.md")).unwrap_err();
        assert!(error.to_string().contains("workspace.roots"), "{error}");
    }
}
