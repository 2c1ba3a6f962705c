//! The code and git tools on a real repository made in a temporary folder
//! (`git init`), through the runner where an agent's file lists the tool,
//! else called as the runner would call them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};
use ulias_agents::runner::RunMode;
use ulias_agents::schemas::OutputSchemas;
use ulias_agents::spec::Catalogue;
use ulias_agents::tools::{ReadLog, ToolContext, Workspace};
use ulias_core::domain::{DecisionStatus, Task};
use ulias_core::settings::WorkspaceSettings;
use ulias_tests::harness::{Harness, Options, prompts_dir};
use ulias_tests::repo::git;

/// A repository on `main` with one commit, inside the workspace root, and
/// a folder outside it.
struct Fixture {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    outside: PathBuf,
    workspace: Workspace,
}

const LIB: &str =
    "pub fn answer() -> u32 {\n    41\n}\n\npub fn twice() -> Vec<u32> {\n    vec![41, 41]\n}\n";

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(repo.join("src")).unwrap();
    std::fs::create_dir_all(repo.join("target")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(repo.join("src/lib.rs"), LIB).unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    std::fs::write(repo.join("target/built.rs"), "pub fn answer() {}\n").unwrap();
    std::fs::write(outside.join("secret.txt"), "the key\n").unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    git(&repo, &["add", "--all"]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let settings = WorkspaceSettings {
        roots: vec![repo.clone()],
        ..WorkspaceSettings::default()
    };
    let workspace = Workspace::from_settings(&settings).unwrap();
    Fixture {
        _dir: dir,
        repo,
        outside,
        workspace,
    }
}

async fn harness(fixture: &Fixture, turns: Vec<Value>) -> Harness {
    let options = Options {
        workspace: Some(fixture.workspace.clone()),
        ..Options::default()
    };
    Harness::with(options, turns).await
}

/// What a tool sees when `agent` calls it in `task`, with its own read log.
fn context(h: &Harness, task: &Task, agent: &str, reads: &ReadLog) -> ToolContext {
    ToolContext {
        reads: reads.clone(),
        ..h.tool_context(task, agent)
    }
}

/// Calls `tool` as the runner would.
async fn call(h: &Harness, ctx: &ToolContext, tool: &str, args: Value) -> Result<Value, String> {
    let tool = h.runner.tools.built(tool).unwrap();
    tool.run(ctx, args).await.map_err(|e| e.to_string())
}

/// The tool result the model received in its `index`th request.
fn tool_result(h: &Harness, index: usize) -> Value {
    let requests = h.llm.requests();
    let messages = requests[index]["messages"].as_array().unwrap();
    serde_json::from_str(messages.last().unwrap()["content"].as_str().unwrap()).unwrap()
}

fn finish_code_change() -> Value {
    json!({"tool_calls": [{"name": "finish", "arguments": {
        "summary": "answer is 42", "files_changed": ["src/lib.rs"], "confidence": 0.8}}]})
}

#[tokio::test]
async fn the_coder_reads_edits_and_sees_its_change_in_the_diff() {
    let f = fixture();
    let turns = vec![
        json!({"tool_calls": [{"name": "repo_read", "arguments": {"path": "src/lib.rs", "start_line": 1, "end_line": 3}}]}),
        json!({"tool_calls": [{"name": "repo_edit", "arguments": {"path": "src/lib.rs", "old": "    41\n}", "new": "    42\n}"}}]}),
        json!({"tool_calls": [{"name": "git_diff", "arguments": {}}]}),
        finish_code_change(),
    ];
    let h = harness(&f, turns).await;
    let task = h.claimed_task("coder", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let read = tool_result(&h, 1);
    assert_eq!(read["total_lines"], 7);
    assert_eq!(read["next_line"], 4);
    let text = read["text"].as_str().unwrap();
    assert!(
        text.starts_with("<untrusted source=\"repo:src/lib.rs\">"),
        "{text}"
    );
    assert!(text.contains("2\t    41\n"), "{text}");
    assert_eq!(tool_result(&h, 2)["line"], 2);
    let diff = tool_result(&h, 3)["diff"].as_str().unwrap().to_owned();
    assert!(diff.contains("-    41\n+    42\n"), "{diff}");
    let on_disk = std::fs::read_to_string(f.repo.join("src/lib.rs")).unwrap();
    assert!(on_disk.starts_with("pub fn answer() -> u32 {\n    42\n}"));
}

#[tokio::test]
async fn an_edit_of_a_file_not_read_in_this_task_is_refused_and_changes_nothing() {
    let f = fixture();
    let turns = vec![
        json!({"tool_calls": [{"name": "repo_edit", "arguments": {"path": "src/lib.rs", "old": "    41\n}", "new": "    42\n}"}}]}),
        finish_code_change(),
    ];
    let h = harness(&f, turns).await;
    let task = h.claimed_task("coder", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let error = tool_result(&h, 1)["error"].as_str().unwrap().to_owned();
    assert!(error.contains("was not read in this task"), "{error}");
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/lib.rs")).unwrap(),
        LIB
    );
}

#[tokio::test]
async fn a_read_in_another_run_does_not_allow_an_edit_in_this_one() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let earlier = context(&h, &task, "coder", &ReadLog::default());
    call(&h, &earlier, "repo_read", json!({"path": "src/lib.rs"}))
        .await
        .unwrap();

    let now = context(&h, &task, "coder", &ReadLog::default());
    let edit = json!({"path": "src/lib.rs", "old": "    41\n}", "new": "    42\n}"});
    let error = call(&h, &now, "repo_edit", edit.clone()).await.unwrap_err();

    assert!(error.contains("was not read in this task"), "{error}");
    call(&h, &earlier, "repo_edit", edit).await.unwrap();
}

#[tokio::test]
async fn an_edit_whose_passage_occurs_twice_is_refused_and_changes_nothing() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let ctx = context(&h, &task, "coder", &ReadLog::default());
    call(&h, &ctx, "repo_read", json!({"path": "src/lib.rs"}))
        .await
        .unwrap();

    let error = call(
        &h,
        &ctx,
        "repo_edit",
        json!({"path": "src/lib.rs", "old": "41", "new": "42"}),
    )
    .await
    .unwrap_err();

    assert!(error.contains("occurs 3 times"), "{error}");
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/lib.rs")).unwrap(),
        LIB
    );
}

#[tokio::test]
async fn a_path_outside_the_workspace_is_refused() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let ctx = context(&h, &task, "coder", &ReadLog::default());
    let secret = f.outside.join("secret.txt").display().to_string();

    for path in [secret.as_str(), "../outside/secret.txt", "/etc/passwd"] {
        let error = call(&h, &ctx, "repo_read", json!({"path": path}))
            .await
            .unwrap_err();
        assert!(
            error.contains("outside the workspace") || error.contains("`..` is not allowed"),
            "{path}: {error}"
        );
    }
    let write = json!({"path": f.outside.join("new.txt").display().to_string(), "content": "x"});
    let error = call(&h, &ctx, "repo_write", write).await.unwrap_err();
    assert!(error.contains("outside the workspace"), "{error}");
    assert!(!f.outside.join("new.txt").exists());
}

#[tokio::test]
async fn a_link_leading_out_of_the_workspace_is_refused_for_reading_and_writing() {
    let f = fixture();
    std::os::unix::fs::symlink(f.outside.join("secret.txt"), f.repo.join("secret.txt")).unwrap();
    std::os::unix::fs::symlink(&f.outside, f.repo.join("out")).unwrap();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let ctx = context(&h, &task, "coder", &ReadLog::default());

    let read = call(&h, &ctx, "repo_read", json!({"path": "secret.txt"}))
        .await
        .unwrap_err();
    let write = call(
        &h,
        &ctx,
        "repo_write",
        json!({"path": "out/planted.txt", "content": "x"}),
    )
    .await
    .unwrap_err();

    assert!(read.contains("outside the workspace"), "{read}");
    assert!(write.contains("outside the workspace"), "{write}");
    assert!(!f.outside.join("planted.txt").exists());
}

#[tokio::test]
async fn the_git_folder_cannot_be_read_or_written_so_no_hook_can_be_planted() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let ctx = context(&h, &task, "coder", &ReadLog::default());

    let read = call(&h, &ctx, "repo_read", json!({"path": ".git/config"}))
        .await
        .unwrap_err();
    let hook = json!({"path": ".git/hooks/post-checkout", "content": "#!/bin/sh\ntouch pwned\n"});
    let write = call(&h, &ctx, "repo_write", hook).await.unwrap_err();

    assert!(read.contains("inside a .git folder"), "{read}");
    assert!(write.contains("inside a .git folder"), "{write}");
    assert!(!f.repo.join(".git/hooks/post-checkout").exists());
}

#[tokio::test]
async fn repo_write_creates_a_new_file_and_refuses_to_overwrite_one() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("tester", json!({})).await;
    let ctx = context(&h, &task, "tester", &ReadLog::default());

    let made = call(
        &h,
        &ctx,
        "repo_write",
        json!({"path": "tests/answer.rs", "content": "#[test]\nfn t() {}\n"}),
    )
    .await
    .unwrap();
    let again = call(
        &h,
        &ctx,
        "repo_write",
        json!({"path": "src/lib.rs", "content": ""}),
    )
    .await
    .unwrap_err();

    assert_eq!(made["path"], "tests/answer.rs");
    assert_eq!(made["total_lines"], 2);
    assert!(f.repo.join("tests/answer.rs").is_file());
    assert!(again.contains("already exists"), "{again}");
    assert_eq!(
        std::fs::read_to_string(f.repo.join("src/lib.rs")).unwrap(),
        LIB
    );
}

#[tokio::test]
async fn glob_and_grep_skip_what_gitignore_ignores_and_wrap_the_lines_found() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("explorer", json!({})).await;
    let ctx = context(&h, &task, "explorer", &ReadLog::default());

    let globbed = call(&h, &ctx, "glob", json!({"pattern": "**/*.rs"}))
        .await
        .unwrap();
    let found = call(
        &h,
        &ctx,
        "grep",
        json!({"pattern": r"fn\s+answer", "glob": "**/*.rs"}),
    )
    .await
    .unwrap();

    assert_eq!(globbed["files"], json!(["src/lib.rs"]));
    assert_eq!(found["count"], 1);
    assert_eq!(
        found["matches"],
        "<untrusted source=\"repo:grep\">src/lib.rs:1: pub fn answer() -&gt; u32 {\n</untrusted>"
    );
}

#[tokio::test]
async fn git_log_shows_the_commits_of_the_repository() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("explorer", json!({})).await;
    let ctx = context(&h, &task, "explorer", &ReadLog::default());

    let log = call(&h, &ctx, "git_log", json!({"path": "src/lib.rs"}))
        .await
        .unwrap();

    assert_eq!(log["count"], 1);
    assert!(
        log["commits"].as_str().unwrap().contains(" Test: first"),
        "{log}"
    );
}

#[tokio::test]
async fn a_commit_on_main_is_refused_and_one_on_the_work_branch_is_made() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("coder", json!({})).await;
    let ctx = context(&h, &task, "coder", &ReadLog::default());
    std::fs::write(f.repo.join("src/new.rs"), "pub fn new() {}\n").unwrap();
    let commit = json!({"message": "Add new()"});

    let on_main = call(&h, &ctx, "git_commit", commit.clone())
        .await
        .unwrap_err();
    assert!(
        on_main.contains("`main`") && on_main.contains("git_branch"),
        "{on_main}"
    );
    assert_eq!(git(&f.repo, &["rev-list", "--count", "HEAD"]).trim(), "1");

    let branch = call(&h, &ctx, "git_branch", json!({})).await.unwrap();
    let status = call(&h, &ctx, "git_status", json!({})).await.unwrap();
    let made = call(&h, &ctx, "git_commit", commit).await.unwrap();

    let work = format!("ulias/{}", task.id.get());
    assert_eq!(branch, json!({"branch": work, "created": true}));
    assert_eq!(status["changes"], json!(["?? src/new.rs"]));
    assert_eq!(made["branch"], work);
    assert_eq!(made["files"], json!(["src/new.rs"]));
    assert_eq!(
        git(&f.repo, &["log", "-1", "--format=%an|%s", &work]).trim(),
        "Ulias coder|Add new()"
    );
    assert_eq!(
        git(&f.repo, &["rev-list", "--count", "main"]).trim(),
        "1",
        "main is untouched"
    );
}

#[tokio::test]
async fn git_push_sends_the_work_branch_and_refuses_to_push_from_main() {
    let f = fixture();
    let remote = f.outside.join("remote.git");
    git(
        &f.outside,
        &["init", "--quiet", "--bare", remote.to_str().unwrap()],
    );
    git(
        &f.repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("deployer", json!({})).await;
    let ctx = context(&h, &task, "deployer", &ReadLog::default());

    let from_main = call(&h, &ctx, "git_push", json!({})).await.unwrap_err();
    let work = format!("ulias/{}", task.id.get());
    git(&f.repo, &["switch", "--quiet", "-c", &work]);
    let pushed = call(&h, &ctx, "git_push", json!({})).await.unwrap();

    assert!(from_main.contains("`main`"), "{from_main}");
    assert_eq!(pushed["command"], format!("git push origin {work}"));
    assert_eq!(
        git(&remote, &["branch", "--list", "--format=%(refname:short)"]).trim(),
        work
    );
}

/// The shipped prompts with the Deployer also holding `git_push`.
fn catalogue_with_push(h: &Harness) -> (tempfile::TempDir, Catalogue) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("agents")).unwrap();
    for name in ["_preamble.md", "_json_protocol.md"] {
        std::fs::copy(prompts_dir().join(name), dir.path().join(name)).unwrap();
    }
    for entry in std::fs::read_dir(prompts_dir().join("agents")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap().replace(
            "tools = [\"smart_deploy\", \"rollback\", \"docker\", \"ssh\", \"git_log\"]",
            "tools = [\"smart_deploy\", \"ssh\", \"git_log\", \"git_push\"]",
        );
        std::fs::write(
            dir.path().join("agents").join(path.file_name().unwrap()),
            text,
        )
        .unwrap();
    }
    let schemas = OutputSchemas::build().unwrap();
    let catalogue = Catalogue::load(dir.path(), &h.runner.tools, &schemas).unwrap();
    (dir, catalogue)
}

#[tokio::test]
async fn a_push_without_the_ceos_confirmation_runs_dry_and_names_the_command() {
    let f = fixture();
    let remote = f.outside.join("remote.git");
    git(
        &f.outside,
        &["init", "--quiet", "--bare", remote.to_str().unwrap()],
    );
    git(
        &f.repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    let turns = vec![
        json!({"tool_calls": [{"name": "git_push", "arguments": {"force": true}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "summary": "push asked", "findings": [], "confidence": 0.5}}]}),
    ];
    let mut h = harness(&f, turns).await;
    let (_prompts, catalogue) = catalogue_with_push(&h);
    h.runner.catalogue = Arc::new(catalogue);
    let task = h.claimed_task("deployer", json!({})).await;
    let work = format!("ulias/{}", task.id.get());
    git(&f.repo, &["switch", "--quiet", "-c", &work]);

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let result = tool_result(&h, 1);
    assert_eq!(result["dry_run"], true);
    assert_eq!(
        result["command"],
        format!("git push --force-with-lease origin {work}")
    );
    let asked =
        h.db.store
            .decisions_of_task(task.id, "confirmation")
            .await
            .unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].status, DecisionStatus::Pending);
    let pushed = git(&remote, &["branch", "--list"]);
    assert!(pushed.is_empty(), "nothing reached the remote: {pushed}");
}

#[tokio::test]
async fn git_blame_names_the_commit_and_author_of_each_line_and_refuses_paths_out() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let task = h.claimed_task("reviewer", json!({})).await;
    let ctx = context(&h, &task, "reviewer", &ReadLog::default());
    let first = git(&f.repo, &["rev-parse", "HEAD"]);

    let blame = call(
        &h,
        &ctx,
        "git_blame",
        json!({"path": "src/lib.rs", "start_line": 2, "end_line": 3}),
    )
    .await
    .unwrap();
    let outside = call(
        &h,
        &ctx,
        "git_blame",
        json!({"path": "../outside/secret.txt"}),
    )
    .await
    .unwrap_err();

    let lines = blame["lines"].as_str().unwrap();
    assert!(
        lines.starts_with("<untrusted source=\"git:blame:src/lib.rs\">"),
        "{lines}"
    );
    let blamed: Vec<&str> = lines.lines().filter(|l| l.contains("(Test ")).collect();
    assert_eq!(blamed.len(), 2, "{lines}");
    assert!(blamed.iter().all(|l| l.contains(&first[..7])), "{lines}");
    assert!(
        blamed[0].ends_with(" 2)     41") && blamed[1].ends_with(" 3) }"),
        "{lines}"
    );
    assert!(outside.contains("without `..`"), "{outside}");
}
