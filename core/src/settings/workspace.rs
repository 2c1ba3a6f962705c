//! Where the code tools may look and write (`[workspace]`): the folders
//! that hold the organisation's repositories, and how much a code or git
//! tool may return or run.

use std::path::PathBuf;

use serde::Deserialize;

use super::Problem;

/// The folders the code and git tools are confined to.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkspaceSettings {
    /// Absolute folders; every path a code tool touches lies under one of
    /// them once links are resolved. Empty: the code tools refuse every path.
    pub roots: Vec<PathBuf>,
    /// The most bytes of text one code or git tool returns.
    pub max_output_bytes: usize,
    /// Seconds one `git` command may run before it is stopped.
    pub git_timeout_seconds: u64,
}

impl Default for WorkspaceSettings {
    fn default() -> Self {
        Self {
            roots: Vec::new(),
            max_output_bytes: 32 * 1024,
            git_timeout_seconds: 30,
        }
    }
}

impl WorkspaceSettings {
    /// What is wrong with the section, each tied to its key.
    pub(super) fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut add = |key: String, message: &str| {
            problems.push(Problem {
                key,
                message: message.to_owned(),
            });
        };
        for (i, root) in self.roots.iter().enumerate() {
            let key = format!("workspace.roots[{i}]");
            if !root.is_absolute() {
                add(key, "expected an absolute folder path");
            } else if self.roots[..i].contains(root) {
                add(key, "this folder is listed twice");
            }
        }
        if !(1024..=1024 * 1024).contains(&self.max_output_bytes) {
            add(
                "workspace.max_output_bytes".into(),
                "must be 1024–1048576 bytes",
            );
        }
        if !(1..=600).contains(&self.git_timeout_seconds) {
            add(
                "workspace.git_timeout_seconds".into(),
                "must be 1–600 seconds",
            );
        }
        problems
    }
}
