//! The git tools, through the `git` command with a time limit, in a
//! repository inside the workspace: `git_status`, `git_diff`, `git_log`
//! read; `git_branch` switches to the task's work branch `ulias/<task>`;
//! `git_commit` commits only there, never on main; `git_push` is
//! destructive (a dry run until the CEO confirms; `force` rewrites history).

mod run;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::workspace::{Workspace, cap};
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;
use run::{Git, checked_pathspecs, checked_revision};

/// Work branches start with this; commits go nowhere else.
pub const WORK_BRANCH_PREFIX: &str = "ulias/";

/// The work branch of a task.
pub fn work_branch(task: &ulias_core::domain::Task) -> String {
    format!("{WORK_BRANCH_PREFIX}{}", task.id.get())
}

/// Arguments naming only the repository.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RepoArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
}

/// Shows the branch and the changed files.
pub struct GitStatus(pub Workspace);

/// The state of the working tree.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Status {
    /// The current branch (empty when detached).
    pub branch: String,
    /// `git status --short` lines (`M path`, `?? path`, …).
    pub changes: Vec<String>,
}

#[async_trait]
impl TypedTool for GitStatus {
    const NAME: &'static str = "git_status";
    const DESCRIPTION: &'static str = "Show the current branch and the changed files.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "reviewer", "tester"]);
    type Args = RepoArgs;
    type Output = Status;

    async fn call(&self, _ctx: &ToolContext, args: RepoArgs) -> Result<Status, ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        Ok(Status {
            branch: git.branch().await?.unwrap_or_default(),
            changes: git.changes().await?,
        })
    }
}

/// Shows the working changes.
pub struct GitDiff(pub Workspace);

/// Arguments of `git_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
    /// Compare with this commit or branch instead of the index (e.g. `main`, `HEAD~1`).
    #[serde(default)]
    pub base: Option<String>,
    /// Only the staged changes.
    #[serde(default)]
    pub staged: bool,
    /// Only these paths, relative to the repository.
    #[serde(default)]
    pub paths: Vec<String>,
}

/// A diff.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Diff {
    /// The unified diff, wrapped as untrusted text.
    pub diff: String,
    /// Whether the diff was cut to the size limit.
    pub truncated: bool,
    /// New files git does not track yet (not in the diff).
    pub untracked: Vec<String>,
}

#[async_trait]
impl TypedTool for GitDiff {
    const NAME: &'static str = "git_diff";
    const DESCRIPTION: &'static str =
        "Show the working changes as a diff, or against a base commit.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "reviewer"]);
    type Args = DiffArgs;
    type Output = Diff;

    async fn call(&self, _ctx: &ToolContext, args: DiffArgs) -> Result<Diff, ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let mut command = vec!["diff".to_owned(), "--no-ext-diff".to_owned()];
        if args.staged {
            command.push("--cached".into());
        }
        if let Some(base) = &args.base {
            command.push(checked_revision(base)?.to_owned());
        }
        command.push("--".into());
        command.extend(checked_pathspecs(&args.paths)?);
        let diff = git.run(&command).await?;
        let (shown, truncated) = cap(&diff, self.0.max_output());
        let untracked = git
            .changes()
            .await?
            .into_iter()
            .filter_map(|line| line.strip_prefix("?? ").map(str::to_owned))
            .collect();
        Ok(Diff {
            diff: wrap_untrusted("git:diff", shown),
            truncated,
            untracked,
        })
    }
}

/// Shows recent commits.
pub struct GitLog(pub Workspace);

/// Arguments of `git_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
    /// Only commits touching this path, relative to the repository.
    #[serde(default)]
    pub path: Option<String>,
    /// How many commits, newest first (1–50, default 10).
    #[serde(default)]
    pub max_count: Option<u32>,
}

/// Commits.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Log {
    /// One commit per line, `<hash> <date> <author>: <subject>`, wrapped as
    /// untrusted text.
    pub commits: String,
    /// How many commits are shown.
    pub count: u32,
}

#[async_trait]
impl TypedTool for GitLog {
    const NAME: &'static str = "git_log";
    const DESCRIPTION: &'static str = "Show recent commits: hash, date, author, subject.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["deployer", "explorer", "incident"]);
    type Args = LogArgs;
    type Output = Log;

    async fn call(&self, _ctx: &ToolContext, args: LogArgs) -> Result<Log, ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let count = args.max_count.unwrap_or(10).clamp(1, 50);
        let mut command = vec![
            "log".to_owned(),
            format!("--max-count={count}"),
            "--date=short".into(),
            "--format=%h %ad %an: %s".into(),
            "--".into(),
        ];
        command.extend(checked_pathspecs(args.path.as_slice())?);
        let log = git.run(&command).await?;
        let (shown, _) = cap(&log, self.0.max_output());
        Ok(Log {
            count: u32::try_from(shown.lines().count()).unwrap_or(u32::MAX),
            commits: wrap_untrusted("git:log", shown),
        })
    }
}

/// Creates or switches to the task's work branch.
pub struct GitBranch(pub Workspace);

/// The work branch.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Branch {
    /// `ulias/<task id>`.
    pub branch: String,
    /// Whether it was created now (else it existed and was switched to).
    pub created: bool,
}

#[async_trait]
impl TypedTool for GitBranch {
    const NAME: &'static str = "git_branch";
    const DESCRIPTION: &'static str = "Create or switch to this task's work branch `ulias/<task>`.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "tester"]);
    type Args = RepoArgs;
    type Output = Branch;

    async fn call(&self, ctx: &ToolContext, args: RepoArgs) -> Result<Branch, ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let branch = work_branch(&ctx.task);
        let exists = git
            .succeeds(&[
                "show-ref",
                "--verify",
                "--quiet",
                &format!("refs/heads/{branch}"),
            ])
            .await?;
        let command: &[&str] = if exists {
            &["switch", &branch]
        } else {
            &["switch", "-c", &branch]
        };
        git.run(command).await?;
        Ok(Branch {
            branch,
            created: !exists,
        })
    }
}

/// Commits the working changes on the work branch.
pub struct GitCommit(pub Workspace);

/// Arguments of `git_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommitArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
    /// The commit message: one summary line, then details if needed.
    pub message: String,
    /// Only these paths, relative to the repository (default: every change).
    #[serde(default)]
    pub paths: Vec<String>,
}

/// A commit made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Committed {
    pub branch: String,
    /// The new commit's short hash.
    pub commit: String,
    /// The files it changed.
    pub files: Vec<String>,
}

#[async_trait]
impl TypedTool for GitCommit {
    const NAME: &'static str = "git_commit";
    const DESCRIPTION: &'static str =
        "Commit the working changes on the work branch; refused on main.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["coder", "tester"]);
    type Args = CommitArgs;
    type Output = Committed;

    async fn call(&self, ctx: &ToolContext, args: CommitArgs) -> Result<Committed, ToolError> {
        if args.message.trim().is_empty() {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: "the commit message is empty".into(),
            });
        }
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let branch = git.work_branch().await?;
        let mut add = vec!["add".to_owned(), "--all".to_owned(), "--".to_owned()];
        if args.paths.is_empty() {
            add.push(".".into());
        }
        add.extend(checked_pathspecs(&args.paths)?);
        git.run(&add).await?;
        if git.succeeds(&["diff", "--cached", "--quiet"]).await? {
            return Err(ToolError::Failed("there is nothing to commit".into()));
        }
        git.commit(&args.message, &ctx.agent).await?;
        let files = git
            .run(&["show", "--name-only", "--format=", "HEAD"])
            .await?;
        Ok(Committed {
            branch,
            commit: git
                .run(&["rev-parse", "--short", "HEAD"])
                .await?
                .trim()
                .to_owned(),
            files: files.lines().map(str::to_owned).collect(),
        })
    }
}

/// Pushes the work branch; destructive.
pub struct GitPush(pub Workspace);

/// Arguments of `git_push`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PushArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
    /// The remote (default `origin`).
    #[serde(default)]
    pub remote: Option<String>,
    /// Replace the remote branch's history (`--force-with-lease`).
    #[serde(default)]
    pub force: bool,
}

/// A push made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Pushed {
    /// The command that ran.
    pub command: String,
    /// What git said, wrapped as untrusted text.
    pub output: String,
}

impl GitPush {
    /// The command a call runs; the work branch must be checked out.
    async fn command(&self, args: &PushArgs) -> Result<(Git, Vec<String>), ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let branch = git.work_branch().await?;
        let remote = checked_revision(args.remote.as_deref().unwrap_or("origin"))?.to_owned();
        let mut command = vec!["push".to_owned()];
        if args.force {
            command.push("--force-with-lease".into());
        }
        command.extend([remote, branch]);
        Ok((git, command))
    }
}

#[async_trait]
impl TypedTool for GitPush {
    const NAME: &'static str = "git_push";
    const DESCRIPTION: &'static str =
        "Push the work branch, or force it to rewrite history; needs the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["deployer"]);
    type Args = PushArgs;
    type Output = Pushed;

    async fn call(&self, _ctx: &ToolContext, args: PushArgs) -> Result<Pushed, ToolError> {
        let (git, command) = self.command(&args).await?;
        let output = git.run_with_stderr(&command).await?;
        let (shown, _) = cap(&output, self.0.max_output());
        Ok(Pushed {
            command: format!("git {}", command.join(" ")),
            output: wrap_untrusted("git:push", shown),
        })
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &PushArgs) -> Option<String> {
        match self.command(args).await {
            Ok((_, command)) => Some(format!("git {}", command.join(" "))),
            Err(error) => Some(format!("nothing: {error}")),
        }
    }
}

/// Shows who last changed each line of a file.
pub struct GitBlame(pub Workspace);

/// Arguments of `git_blame`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BlameArgs {
    /// A folder of the repository, relative to the workspace (default: its root).
    #[serde(default)]
    pub repo: Option<String>,
    /// The file, relative to the repository.
    pub path: String,
    /// The first line (1-based, default 1).
    #[serde(default)]
    pub start_line: Option<u32>,
    /// The last line (default: 200 lines from the first).
    #[serde(default)]
    pub end_line: Option<u32>,
}

/// The blamed lines.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Blame {
    /// One line per source line: `<hash> (<author> <date> <line>) <text>`,
    /// wrapped as untrusted text.
    pub lines: String,
    /// Whether the text was cut to the size limit.
    pub truncated: bool,
}

#[async_trait]
impl TypedTool for GitBlame {
    const NAME: &'static str = "git_blame";
    const DESCRIPTION: &'static str =
        "Show who last changed each line of a file, with the commit and its date.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["reviewer"]);
    type Args = BlameArgs;
    type Output = Blame;

    async fn call(&self, _ctx: &ToolContext, args: BlameArgs) -> Result<Blame, ToolError> {
        let git = Git::open(&self.0, args.repo.as_deref()).await?;
        let start = args.start_line.unwrap_or(1).max(1);
        let end = args.end_line.unwrap_or(start + 199).max(start);
        let mut command = vec![
            "blame".to_owned(),
            "--root".into(),
            "--date=short".into(),
            format!("-L{start},{end}"),
            "--".into(),
        ];
        command.extend(checked_pathspecs(std::slice::from_ref(&args.path))?);
        let blame = git.run(&command).await?;
        let (shown, truncated) = cap(&blame, self.0.max_output());
        Ok(Blame {
            lines: wrap_untrusted(&format!("git:blame:{}", args.path), shown),
            truncated,
        })
    }
}
