//! `bash` and `run_tests`: commands in the [sandbox](crate::sandbox), in a
//! folder of the workspace. `bash` is destructive only for the commands
//! [`classify`](crate::sandbox::classify) finds destructive: those run dry
//! (naming why) until the CEO confirms; the rest run at once. `run_tests`
//! runs the project's own test command, found from its files.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workspace::Workspace;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::sandbox::classify::{Place, destructive_reasons};
use crate::sandbox::{Ran, Sandbox};
use crate::untrusted::wrap_untrusted;

/// The workspace and the sandbox commands run in.
#[derive(Debug, Clone)]
pub struct Shell {
    pub workspace: Workspace,
    pub sandbox: Sandbox,
}

impl Shell {
    /// The folder a command runs in: `dir` inside the workspace, else its root.
    fn folder(&self, dir: Option<&str>) -> Result<PathBuf, ToolError> {
        let folder = self.workspace.existing(dir)?;
        if !folder.is_dir() {
            return Err(ToolError::Failed(format!(
                "{} is not a folder",
                self.workspace.display(&folder)
            )));
        }
        Ok(folder)
    }

    async fn run(&self, folder: &Path, script: &str) -> Result<CommandResult, ToolError> {
        let ran = self
            .sandbox
            .run(folder, script)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(CommandResult::from_ran(script, ran))
    }
}

/// What a command did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommandResult {
    /// The command that ran.
    pub command: String,
    /// Its exit code; absent when it was killed.
    pub exit_code: Option<i32>,
    /// Whether it was killed at the time limit.
    pub timed_out: bool,
    /// Its output, wrapped as untrusted text.
    pub stdout: String,
    /// Its errors, wrapped as untrusted text.
    pub stderr: String,
    /// Whether an output was cut to the size limit.
    pub truncated: bool,
    /// How long it ran, in milliseconds.
    pub elapsed_ms: u64,
}

impl CommandResult {
    fn from_ran(command: &str, ran: Ran) -> Self {
        Self {
            command: command.to_owned(),
            exit_code: ran.exit_code,
            timed_out: ran.timed_out,
            stdout: wrap_untrusted("command:stdout", &ran.stdout),
            stderr: wrap_untrusted("command:stderr", &ran.stderr),
            truncated: ran.truncated,
            elapsed_ms: u64::try_from(ran.elapsed.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// Runs a shell command.
pub struct Bash(pub Shell);

/// Arguments of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BashArgs {
    /// The command, run with `sh -c`.
    pub command: String,
    /// The folder it runs in, relative to the workspace (default: its root).
    #[serde(default)]
    pub dir: Option<String>,
}

/// Judges paths from the folder a command runs in.
struct Here<'a> {
    workspace: &'a Workspace,
    folder: &'a Path,
}

impl Place for Here<'_> {
    fn inside(&self, path: &str) -> bool {
        !path.starts_with('~')
            && self
                .workspace
                .root_of(&Workspace::landing(self.folder, path))
                .is_some()
    }

    fn tracked(&self, path: &str) -> bool {
        std::process::Command::new("git")
            .arg("-C")
            .arg(self.folder)
            .args(["ls-files", "--error-unmatch", "--", path])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    }
}

impl Bash {
    fn reasons(&self, args: &BashArgs) -> Vec<String> {
        match self.0.folder(args.dir.as_deref()) {
            Ok(folder) => destructive_reasons(
                &args.command,
                &Here {
                    workspace: &self.0.workspace,
                    folder: &folder,
                },
            ),
            Err(error) => vec![error.to_string()],
        }
    }
}

#[async_trait]
impl TypedTool for Bash {
    const NAME: &'static str = "bash";
    const DESCRIPTION: &'static str = "Run a shell command in the sandbox, in a folder of the workspace (no network, CPU, memory and time limits). Commands that remove tracked files, install packages, restart services or write outside the workspace run dry until the CEO confirms.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["incident", "organizer"]);
    type Args = BashArgs;
    type Output = CommandResult;

    async fn call(&self, _ctx: &ToolContext, args: BashArgs) -> Result<CommandResult, ToolError> {
        let folder = self.0.folder(args.dir.as_deref())?;
        self.0.run(&folder, &args.command).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &BashArgs) -> Option<String> {
        Some(format!(
            "{} (destructive: {})",
            args.command,
            self.reasons(args).join("; ")
        ))
    }

    fn destructive(&self, args: &BashArgs) -> bool {
        !self.reasons(args).is_empty()
    }
}

/// Runs a project's tests.
pub struct RunTests(pub Shell);

/// Arguments of `run_tests`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunTestsArgs {
    /// The project's folder, relative to the workspace (default: its root).
    #[serde(default)]
    pub dir: Option<String>,
    /// Only the tests whose name contains this (passed to the test runner).
    #[serde(default)]
    pub filter: Option<String>,
}

/// The test command of a project, from its files.
fn test_command(folder: &Path, filter: Option<&str>) -> Option<String> {
    let has = |name: &str| folder.join(name).exists();
    let filter = filter.map(shell_quote);
    let with = |base: &str, sep: &str| match &filter {
        Some(f) => format!("{base}{sep}{f}"),
        None => base.to_owned(),
    };
    if has("Cargo.toml") {
        Some(with("cargo test --offline --quiet", " "))
    } else if has("package.json") {
        Some(with("npm test --silent", " -- "))
    } else if has("pyproject.toml") || has("setup.py") || has("pytest.ini") {
        Some(with("python3 -m pytest -q", " -k "))
    } else if has("Makefile") {
        Some("make test".to_owned())
    } else if has("tests") || has("test") {
        Some(with("python3 -m unittest discover -v", " -k "))
    } else {
        None
    }
}

/// `text` as one shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A test run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TestRun {
    /// Whether every test passed.
    pub passed: bool,
    /// What ran, and what it printed.
    pub result: CommandResult,
}

#[async_trait]
impl TypedTool for RunTests {
    const NAME: &'static str = "run_tests";
    const DESCRIPTION: &'static str = "Run a project's tests in the sandbox (cargo, npm, pytest, make or unittest, found from its files).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["tester"]);
    type Args = RunTestsArgs;
    type Output = TestRun;

    async fn call(&self, _ctx: &ToolContext, args: RunTestsArgs) -> Result<TestRun, ToolError> {
        let folder = self.0.folder(args.dir.as_deref())?;
        let Some(command) = test_command(&folder, args.filter.as_deref()) else {
            return Err(ToolError::Failed(format!(
                "no test command found in {}: no Cargo.toml, package.json, pyproject.toml, Makefile or tests folder",
                self.0.workspace.display(&folder)
            )));
        };
        let result = self.0.run(&folder, &command).await?;
        Ok(TestRun {
            passed: result.exit_code == Some(0) && !result.timed_out,
            result,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_test_command_follows_the_project_files() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(test_command(dir.path(), None), None);
        std::fs::create_dir(dir.path().join("tests")).unwrap();
        assert_eq!(
            test_command(dir.path(), Some("it's")).as_deref(),
            Some(r"python3 -m unittest discover -v -k 'it'\''s'")
        );
        std::fs::write(dir.path().join("Cargo.toml"), "").unwrap();
        assert_eq!(
            test_command(dir.path(), Some("parse")).as_deref(),
            Some("cargo test --offline --quiet 'parse'")
        );
    }
}
