//! `ast_search` and `repo_map` on small Rust, TypeScript and Python files
//! written into a temporary workspace, called as the runner would call
//! them (and once through the runner, by the Architect).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::PathBuf;

use serde_json::{Value, json};
use ulias_agents::runner::RunMode;
use ulias_agents::tools::Workspace;
use ulias_core::settings::WorkspaceSettings;
use ulias_tests::harness::{Harness, Options};

const RUST: &str = "\
pub struct Engine {
    speed: u32,
}

impl Engine {
    pub fn new(speed: u32) -> Self {
        Self { speed }
    }

    pub fn run(&self) -> u32 {
        helper(self.speed)
    }
}

pub trait Start {
    fn start(&self);
}

impl Start for Engine {
    fn start(&self) {
        let _ = self.run();
    }
}

pub enum Mode {
    Fast,
}

pub type Speed = u32;

pub const MAX_SPEED: u32 = 300;

fn helper(speed: u32) -> u32 {
    speed.min(MAX_SPEED)
}
";

const TYPESCRIPT: &str = "\
export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private r: number) {}

  area(): number {
    return square(this.r) * Math.PI;
  }
}

export function square(x: number): number {
  return x * x;
}

export const unit = () => new Circle(1);

export type Id = string;

export enum Color {
  Red,
}

const LIMIT = 10;
";

const PYTHON: &str = "\
MAX_ITEMS = 50


class Cart:
    def __init__(self):
        self.items = []

    @property
    def total(self):
        return sum_prices(self.items)


def sum_prices(items):
    return sum(i.price for i in items)
";

/// A workspace with one file per language, and a folder outside it.
struct Fixture {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    outside: PathBuf,
    workspace: Workspace,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    for folder in ["src", "web", "py"] {
        std::fs::create_dir_all(repo.join(folder)).unwrap();
    }
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(repo.join("src/lib.rs"), RUST).unwrap();
    std::fs::write(repo.join("web/app.ts"), TYPESCRIPT).unwrap();
    std::fs::write(repo.join("py/models.py"), PYTHON).unwrap();
    std::fs::write(repo.join("README.md"), "fn not_code() {}\n").unwrap();
    std::fs::write(outside.join("secret.rs"), "pub fn leaked() {}\n").unwrap();
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

/// Calls `tool` as the runner would, for the Explorer.
async fn call(h: &Harness, tool: &str, args: Value) -> Result<Value, String> {
    let task = h.claimed_task("explorer", json!({})).await;
    let ctx = h.tool_context(&task, "explorer");
    let tool = h.runner.tools.built(tool).unwrap();
    tool.run(&ctx, args).await.map_err(|e| e.to_string())
}

/// `(path, line, kind, name)` of each match.
fn found(result: &Value) -> Vec<(String, u64, String, String)> {
    result["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap().to_owned(),
                m["line"].as_u64().unwrap(),
                m["kind"].as_str().unwrap().to_owned(),
                m["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn row(path: &str, line: u64, kind: &str, name: &str) -> (String, u64, String, String) {
    (path.into(), line, kind.into(), name.into())
}

#[tokio::test]
async fn rust_definitions_are_found_with_their_lines_kinds_and_wrapped_signatures() {
    let f = fixture();
    let h = harness(&f, vec![]).await;

    let engine = call(&h, "ast_search", json!({"name": "Engine"}))
        .await
        .unwrap();
    let start = call(&h, "ast_search", json!({"name": "start"}))
        .await
        .unwrap();
    let others = call(
        &h,
        "ast_search",
        json!({"pattern": "^(run|Mode|Speed|MAX_SPEED)$", "path": "src"}),
    )
    .await
    .unwrap();

    assert_eq!(
        found(&engine),
        [
            row("src/lib.rs", 1, "struct", "Engine"),
            row("src/lib.rs", 5, "impl", "Engine"),
            row("src/lib.rs", 19, "impl", "Engine"),
        ]
    );
    assert_eq!(
        found(&start),
        [
            row("src/lib.rs", 16, "method", "start"),
            row("src/lib.rs", 20, "method", "start"),
        ]
    );
    assert_eq!(
        found(&others),
        [
            row("src/lib.rs", 10, "method", "run"),
            row("src/lib.rs", 25, "enum", "Mode"),
            row("src/lib.rs", 29, "type", "Speed"),
            row("src/lib.rs", 31, "const", "MAX_SPEED"),
        ]
    );
    assert_eq!(
        others["matches"][0]["signature"],
        "<untrusted source=\"repo:ast_search\">pub fn run(&amp;self) -&gt; u32 {</untrusted>"
    );
    assert_eq!(engine["truncated"], false);
}

#[tokio::test]
async fn typescript_and_python_definitions_are_found_with_their_kinds() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let all = "^(Shape|area|Circle|square|unit|Id|Color|LIMIT|MAX_ITEMS|Cart|total|sum_prices)$";

    let ts = call(
        &h,
        "ast_search",
        json!({"pattern": all, "language": "typescript"}),
    )
    .await
    .unwrap();
    let py = call(
        &h,
        "ast_search",
        json!({"pattern": all, "path": "py/models.py"}),
    )
    .await
    .unwrap();

    assert_eq!(
        found(&ts),
        [
            row("web/app.ts", 1, "interface", "Shape"),
            row("web/app.ts", 2, "method", "area"),
            row("web/app.ts", 5, "class", "Circle"),
            row("web/app.ts", 8, "method", "area"),
            row("web/app.ts", 13, "function", "square"),
            row("web/app.ts", 17, "function", "unit"),
            row("web/app.ts", 19, "type", "Id"),
            row("web/app.ts", 21, "enum", "Color"),
            row("web/app.ts", 25, "const", "LIMIT"),
        ]
    );
    assert_eq!(
        found(&py),
        [
            row("py/models.py", 1, "const", "MAX_ITEMS"),
            row("py/models.py", 4, "class", "Cart"),
            row("py/models.py", 9, "method", "total"),
            row("py/models.py", 13, "function", "sum_prices"),
        ]
    );
    assert_eq!(
        py["matches"][2]["signature"],
        "<untrusted source=\"repo:ast_search\">def total(self):</untrusted>"
    );
}

#[tokio::test]
async fn call_sites_are_found_and_any_gives_definitions_and_calls() {
    let f = fixture();
    let h = harness(&f, vec![]).await;

    let helper = call(&h, "ast_search", json!({"name": "helper", "kind": "any"}))
        .await
        .unwrap();
    let calls = call(
        &h,
        "ast_search",
        json!({"pattern": "^(square|Circle|sum_prices|run)$", "kind": "call"}),
    )
    .await
    .unwrap();

    assert_eq!(
        found(&helper),
        [
            row("src/lib.rs", 11, "call", "helper"),
            row("src/lib.rs", 33, "function", "helper"),
        ]
    );
    assert_eq!(
        found(&calls),
        [
            row("py/models.py", 10, "call", "sum_prices"),
            row("src/lib.rs", 21, "call", "run"),
            row("web/app.ts", 9, "call", "square"),
            row("web/app.ts", 17, "call", "Circle"),
        ]
    );
}

#[tokio::test]
async fn repo_map_outlines_each_file_with_its_members() {
    let f = fixture();
    let h = harness(&f, vec![]).await;

    let map = call(&h, "repo_map", json!({})).await.unwrap();

    assert_eq!(map["files"], 3);
    assert_eq!(map["truncated"], false);
    assert_eq!(
        map["outline"],
        "<untrusted source=\"repo:repo_map\">\
         py/models.py\n  const MAX_ITEMS\n  class Cart: def __init__, def total\n  def sum_prices\n\
         src/lib.rs\n  struct Engine\n  impl Engine: fn new, fn run\n  trait Start: fn start\n  \
         impl Start for Engine: fn start\n  enum Mode\n  type Speed\n  const MAX_SPEED\n  fn helper\n\
         web/app.ts\n  interface Shape: area\n  class Circle: constructor, area\n  \
         function square\n  function unit\n  type Id\n  enum Color\n  const LIMIT\n\
         </untrusted>"
    );
}

#[tokio::test]
async fn repo_map_lists_at_most_max_files_and_says_so() {
    let f = fixture();
    let h = harness(&f, vec![]).await;

    let map = call(&h, "repo_map", json!({"max_files": 1})).await.unwrap();

    assert_eq!(map["files"], 1);
    assert_eq!(map["truncated"], true);
    assert!(
        map["outline"].as_str().unwrap().contains(">py/models.py\n"),
        "{map}"
    );
}

#[tokio::test]
async fn a_path_outside_the_workspace_is_refused_by_both_tools() {
    let f = fixture();
    let h = harness(&f, vec![]).await;
    let outside = f.outside.display().to_string();

    for path in [outside.as_str(), "../outside", "/etc"] {
        let search = call(&h, "ast_search", json!({"name": "leaked", "path": path}))
            .await
            .unwrap_err();
        let map = call(&h, "repo_map", json!({"path": path}))
            .await
            .unwrap_err();
        for error in [search, map] {
            assert!(
                error.contains("outside the workspace") || error.contains("`..` is not allowed"),
                "{path}: {error}"
            );
        }
    }
}

#[tokio::test]
async fn a_link_leading_out_is_refused_as_a_path_and_not_followed_in_a_walk() {
    let f = fixture();
    std::os::unix::fs::symlink(&f.outside, f.repo.join("out")).unwrap();
    std::os::unix::fs::symlink(f.outside.join("secret.rs"), f.repo.join("src/secret.rs")).unwrap();
    let h = harness(&f, vec![]).await;

    let through_folder = call(&h, "ast_search", json!({"name": "leaked", "path": "out"}))
        .await
        .unwrap_err();
    let through_file = call(&h, "repo_map", json!({"path": "src/secret.rs"}))
        .await
        .unwrap_err();
    let walked = call(&h, "ast_search", json!({"name": "leaked"}))
        .await
        .unwrap();
    let map = call(&h, "repo_map", json!({})).await.unwrap();

    assert!(
        through_folder.contains("outside the workspace"),
        "{through_folder}"
    );
    assert!(
        through_file.contains("outside the workspace"),
        "{through_file}"
    );
    assert_eq!(walked["count"], 0);
    assert!(
        !map["outline"].as_str().unwrap().contains("leaked"),
        "{map}"
    );
}

#[tokio::test]
async fn binary_and_broken_files_are_skipped_without_failing_the_call() {
    let f = fixture();
    std::fs::write(f.repo.join("src/blob.rs"), b"fn hidden() {}\0\x01\x02\xff").unwrap();
    std::fs::write(f.repo.join("src/broken.rs"), "fn broken( {{{ ]]] impl").unwrap();
    std::fs::write(f.repo.join("py/bad.py"), "def (:::\n\tclass\n").unwrap();
    std::fs::write(f.repo.join("web/bad.ts"), b"\xff\xfe export class {").unwrap();
    let h = harness(&f, vec![]).await;

    let hidden = call(&h, "ast_search", json!({"name": "hidden"}))
        .await
        .unwrap();
    let engine = call(&h, "ast_search", json!({"name": "Engine"}))
        .await
        .unwrap();
    let map = call(&h, "repo_map", json!({})).await.unwrap();

    assert_eq!(hidden["count"], 0);
    assert_eq!(engine["count"], 3);
    let outline = map["outline"].as_str().unwrap();
    assert!(
        outline.contains("src/lib.rs\n  struct Engine\n"),
        "{outline}"
    );
    assert!(!outline.contains("src/blob.rs"), "{outline}");
}

#[tokio::test]
async fn a_gitignored_file_is_not_searched_or_mapped() {
    let f = fixture();
    std::fs::write(f.repo.join(".gitignore"), "generated/\n").unwrap();
    std::fs::create_dir_all(f.repo.join("generated")).unwrap();
    std::fs::write(f.repo.join("generated/gen.rs"), "pub fn helper() {}\n").unwrap();
    let h = harness(&f, vec![]).await;

    let helper = call(&h, "ast_search", json!({"name": "helper"}))
        .await
        .unwrap();
    let map = call(&h, "repo_map", json!({})).await.unwrap();

    assert_eq!(
        found(&helper),
        [row("src/lib.rs", 33, "function", "helper")]
    );
    assert_eq!(map["files"], 3);
}

#[tokio::test]
async fn a_search_needs_exactly_one_of_name_and_pattern() {
    let f = fixture();
    let h = harness(&f, vec![]).await;

    let neither = call(&h, "ast_search", json!({})).await.unwrap_err();
    let both = call(&h, "ast_search", json!({"name": "a", "pattern": "b"}))
        .await
        .unwrap_err();
    let bad = call(&h, "ast_search", json!({"pattern": "("}))
        .await
        .unwrap_err();

    assert!(
        neither.contains("give either `name` or `pattern`"),
        "{neither}"
    );
    assert!(both.contains("give either `name` or `pattern`"), "{both}");
    assert!(bad.contains("invalid arguments for ast_search"), "{bad}");
}

#[tokio::test]
async fn the_architect_maps_the_repository_through_the_runner() {
    let f = fixture();
    let turns = vec![
        json!({"tool_calls": [{"name": "repo_map", "arguments": {"path": "src"}}]}),
        json!({"tool_calls": [{"name": "finish", "arguments": {
            "summary": "one engine", "findings": [], "confidence": 0.7}}]}),
    ];
    let h = harness(&f, turns).await;
    let task = h.claimed_task("architect", json!({})).await;

    h.runner.run(&task, RunMode::Live).await.unwrap();

    let requests = h.llm.requests();
    let messages = requests[1]["messages"].as_array().unwrap();
    let result: Value =
        serde_json::from_str(messages.last().unwrap()["content"].as_str().unwrap()).unwrap();
    assert_eq!(result["files"], 1, "{result}");
    assert!(
        result["outline"]
            .as_str()
            .unwrap()
            .contains("src/lib.rs\n  struct Engine\n"),
        "{result}"
    );
}
