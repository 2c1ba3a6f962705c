//! Running `git` in one repository of the workspace: no pager, no prompt,
//! no colour, stopped at the time limit; a failure says which command
//! failed and what git printed.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use super::WORK_BRANCH_PREFIX;
use crate::tools::ToolError;
use crate::tools::workspace::{Workspace, cap};

/// The most of git's error output a failure quotes.
const MAX_STDERR: usize = 2000;

/// A repository whose top folder lies inside the workspace.
pub(super) struct Git {
    dir: PathBuf,
    timeout: Duration,
}

impl Git {
    /// The repository holding `folder` (default: the workspace's first
    /// root). Refused when git finds it outside the workspace, which happens
    /// when a root is not itself in a repository but one of its parents is.
    pub(super) async fn open(
        workspace: &Workspace,
        folder: Option<&str>,
    ) -> Result<Self, ToolError> {
        let folder = workspace.existing(folder)?;
        let probe = Self {
            dir: folder,
            timeout: workspace.git_timeout(),
        };
        let top = probe.run(&["rev-parse", "--show-toplevel"]).await?;
        let top = workspace.existing(Some(top.trim()))?;
        Ok(Self {
            dir: top,
            timeout: workspace.git_timeout(),
        })
    }

    /// Runs `git <args>`; its standard output, or why it failed.
    pub(super) async fn run<S: AsRef<str>>(&self, args: &[S]) -> Result<String, ToolError> {
        let output = self.output(args, &[]).await?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        Err(self.failure(args, &output))
    }

    /// Runs `git <args>`; both outputs (git push reports on stderr).
    pub(super) async fn run_with_stderr<S: AsRef<str>>(
        &self,
        args: &[S],
    ) -> Result<String, ToolError> {
        let output = self.output(args, &[]).await?;
        if output.status.success() {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            return Ok(text);
        }
        Err(self.failure(args, &output))
    }

    /// Whether `git <args>` exits 0 (for the commands that answer by status).
    pub(super) async fn succeeds(&self, args: &[&str]) -> Result<bool, ToolError> {
        Ok(self.output(args, &[]).await?.status.success())
    }

    /// The current branch, `None` when HEAD is detached.
    pub(super) async fn branch(&self) -> Result<Option<String>, ToolError> {
        let output = self
            .output(&["symbolic-ref", "--quiet", "--short", "HEAD"], &[])
            .await?;
        Ok(output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned()))
    }

    /// The current branch when it is a work branch; refused on main, master,
    /// any other branch and a detached HEAD.
    pub(super) async fn work_branch(&self) -> Result<String, ToolError> {
        match self.branch().await? {
            Some(branch) if branch.starts_with(WORK_BRANCH_PREFIX) => Ok(branch),
            Some(branch) => Err(ToolError::Forbidden(format!(
                "the current branch is `{branch}`: commits and pushes happen only on a work \
                 branch `{WORK_BRANCH_PREFIX}<task>` (switch with git_branch), never on main"
            ))),
            None => Err(ToolError::Forbidden(format!(
                "HEAD is detached: switch to a work branch `{WORK_BRANCH_PREFIX}<task>` with git_branch"
            ))),
        }
    }

    /// `git status --short` lines.
    pub(super) async fn changes(&self) -> Result<Vec<String>, ToolError> {
        let status = self
            .run(&["status", "--short", "--untracked-files=all"])
            .await?;
        Ok(status.lines().map(str::to_owned).collect())
    }

    /// Commits the index, authored by the agent.
    pub(super) async fn commit(&self, message: &str, agent: &str) -> Result<(), ToolError> {
        let name = format!("Ulias {agent}");
        let email = format!("{agent}@ulias.invalid");
        let env = [
            ("GIT_AUTHOR_NAME", name.as_str()),
            ("GIT_AUTHOR_EMAIL", email.as_str()),
            ("GIT_COMMITTER_NAME", name.as_str()),
            ("GIT_COMMITTER_EMAIL", email.as_str()),
        ];
        let args = [
            "-c",
            "commit.gpgsign=false",
            "commit",
            "--no-verify",
            "--quiet",
            "-m",
            message,
        ];
        let output = self.output(&args, &env).await?;
        if output.status.success() {
            return Ok(());
        }
        Err(self.failure(&["commit"], &output))
    }

    async fn output<S: AsRef<str>>(
        &self,
        args: &[S],
        env: &[(&str, &str)],
    ) -> Result<std::process::Output, ToolError> {
        let mut command = Command::new("git");
        command
            .arg("-C")
            .arg(&self.dir)
            // Hooks and fsmonitor run commands of the repository's choosing.
            .args([
                "-c",
                "core.hooksPath=/dev/null",
                "-c",
                "core.fsmonitor=false",
            ])
            .args(["-c", "core.pager=cat", "-c", "color.ui=false", "--no-pager"])
            .args(args.iter().map(AsRef::as_ref))
            .env("GIT_TERMINAL_PROMPT", "0")
            // The repository is the one resolved here, whatever our own environment says.
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .kill_on_drop(true);
        match tokio::time::timeout(self.timeout, command.output()).await {
            Ok(Ok(output)) => Ok(output),
            Ok(Err(error)) => Err(ToolError::Failed(format!("cannot run git: {error}"))),
            Err(_) => Err(ToolError::Failed(format!(
                "git {} took longer than {} s and was stopped",
                first(args),
                self.timeout.as_secs()
            ))),
        }
    }

    fn failure<S: AsRef<str>>(&self, args: &[S], output: &std::process::Output) -> ToolError {
        let stderr = String::from_utf8_lossy(&output.stderr);
        ToolError::Failed(format!(
            "git {} failed: {}",
            first(args),
            cap(stderr.trim(), MAX_STDERR).0
        ))
    }
}

fn first<S: AsRef<str>>(args: &[S]) -> &str {
    args.first().map_or("", AsRef::as_ref)
}

/// A commit, branch or remote name the model gave: refused when it could be
/// read as an option.
pub(super) fn checked_revision(revision: &str) -> Result<&str, ToolError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._/~^@-".contains(c);
    if revision.is_empty() || revision.starts_with('-') || !revision.chars().all(allowed) {
        return Err(ToolError::InvalidArgs {
            tool: "git",
            message: format!("`{revision}` is not a commit, branch or remote name"),
        });
    }
    Ok(revision)
}

/// Paths inside the repository, for after `--`: `..` and absolute paths
/// are refused, so git cannot be pointed outside the workspace.
pub(super) fn checked_pathspecs(paths: &[String]) -> Result<Vec<String>, ToolError> {
    paths
        .iter()
        .map(|path| {
            let p = std::path::Path::new(path);
            let escapes = p.is_absolute()
                || p.components().any(|c| c == std::path::Component::ParentDir)
                || path.starts_with(':');
            if escapes {
                Err(ToolError::Forbidden(format!(
                    "{path}: paths are relative to the repository, without `..`"
                )))
            } else {
                Ok(path.clone())
            }
        })
        .collect()
}
