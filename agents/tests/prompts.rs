//! The shipped agent files: they load, they follow the rules, and each
//! agent's assembled system prompt is pinned by a snapshot.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::{Path, PathBuf};

use ulias_agents::schemas::OutputSchemas;
use ulias_agents::spec::{Catalogue, PromptContext, render_system_prompt};
use ulias_agents::tools::ToolRegistry;

/// The catalogue's tools, the chain tools reading the default (unused) chains.
fn standard_tools() -> ToolRegistry {
    let settings = ulias_core::settings::Settings::default();
    ToolRegistry::standard(&ulias_agents::tools::Toolbox::offline(
        ulias_agents::chain::ChainReader::from_settings(&settings).unwrap(),
    ))
}

fn prompts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../prompts")
}

fn load(dir: &Path) -> Result<Catalogue, ulias_agents::spec::CatalogueError> {
    Catalogue::load(dir, &standard_tools(), &OutputSchemas::build().unwrap())
}

/// A copy of the shipped prompts in a temporary folder, to break one file.
fn copy_of_prompts() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("agents")).unwrap();
    for name in ["_preamble.md", "_json_protocol.md"] {
        std::fs::copy(prompts().join(name), dir.path().join(name)).unwrap();
    }
    for entry in std::fs::read_dir(prompts().join("agents")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            dir.path().join("agents").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    dir
}

#[test]
fn the_shipped_prompts_load_every_agent_of_both_seeds() {
    let catalogue = load(&prompts()).unwrap();
    assert_eq!(catalogue.len(), 34);
    for name in [
        "coder",
        "reviewer",
        "tester",
        "deployer",
        "architect",
        "monitor",
        "incident",
        "backup",
        "infra",
        "explorer",
        "analyst",
        "documenter",
        "transcriber",
        "vision",
        "organizer",
        "auditor",
        "watcher",
        "patcher",
        "strategist",
        "optimizer",
        "connector",
        "learner",
        "interpreter",
        "profiler",
        "anticipator",
        "simplifier",
        "scanner",
        "designer",
        "webdev",
        "cm",
        "tg_bot",
        "builder",
        "director",
    ] {
        assert!(catalogue.get(name).is_some(), "missing agent {name}");
    }
}

#[test]
fn a_prompt_with_six_tools_is_refused_naming_the_file_and_field() {
    let dir = copy_of_prompts();
    let file = dir.path().join("agents/coder.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let six = text.replace(
        "tools = [\"repo_read\", \"repo_edit\", \"repo_write\", \"ast_search\", \"git_diff\"]",
        "tools = [\"repo_read\", \"repo_edit\", \"repo_write\", \"ast_search\", \"git_diff\", \"git_status\"]",
    );
    assert_ne!(six, text);
    std::fs::write(&file, six).unwrap();

    let error = load(dir.path()).unwrap_err();

    assert_eq!(error.problems.len(), 1, "{error}");
    assert_eq!(error.problems[0].file, file);
    assert_eq!(error.problems[0].field, "tools");
    assert!(
        error.to_string().contains("coder.md: `tools`: 6 tools"),
        "{error}"
    );
}

#[test]
fn unknown_tools_schemas_teams_and_long_prompts_are_each_named() {
    let dir = copy_of_prompts();
    let edit = |name: &str, from: &str, to: &str| {
        let file = dir.path().join("agents").join(name);
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(from), "{name}: {from}");
        std::fs::write(&file, text.replacen(from, to, 1)).unwrap();
    };
    edit("vision.md", "\"ai_job\"", "\"teleport\"");
    edit("tester.md", "output = \"test_report\"", "output = \"poem\"");
    edit("monitor.md", "team = \"ops\"", "team = \"sales\"");
    edit(
        "simplifier.md",
        "Rules:",
        &format!("{}Rules:", "word ".repeat(600)),
    );

    let error = load(dir.path()).unwrap_err();
    let found: Vec<(String, String)> = error
        .problems
        .iter()
        .map(|p| {
            (
                p.file.file_name().unwrap().to_string_lossy().into_owned(),
                p.field.clone(),
            )
        })
        .collect();

    assert!(
        found.contains(&("vision.md".into(), "tools[0]".into())),
        "{error}"
    );
    assert!(
        found.contains(&("tester.md".into(), "output".into())),
        "{error}"
    );
    assert!(
        found.contains(&("monitor.md".into(), "team".into())),
        "{error}"
    );
    assert!(
        found.contains(&("simplifier.md".into(), "prompt".into())),
        "{error}"
    );
}

#[test]
fn a_file_without_front_matter_is_refused() {
    let dir = copy_of_prompts();
    std::fs::write(dir.path().join("agents/stray.md"), "Just a prompt.").unwrap();
    let error = load(dir.path()).unwrap_err();
    assert_eq!(error.problems[0].field, "front matter");
}

#[test]
fn every_agents_assembled_system_prompt_matches_its_snapshot() {
    let tools = standard_tools();
    let schemas = OutputSchemas::build().unwrap();
    let catalogue = Catalogue::load(&prompts(), &tools, &schemas).unwrap();
    for agent in catalogue.agents() {
        let schema = schemas.get(&agent.output).unwrap().schema().to_string();
        let layers = vec![catalogue.json_protocol.clone()];
        let context = PromptContext {
            date: "2026-12-02",
            language: "French",
            output_schema: &schema,
            layers: &layers,
        };
        let prompt = render_system_prompt(&catalogue.preamble, agent, &tools, &context);
        assert!(
            !prompt.contains("{{"),
            "{}: unfilled placeholder",
            agent.name
        );
        insta::assert_snapshot!(format!("system_prompt_{}", agent.name), prompt);
    }
}

#[test]
fn no_tool_reads_the_environment() {
    let mut folders = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tools")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue; // test data (a certificate)
            }
            let source = std::fs::read_to_string(&path).unwrap();
            for forbidden in ["std::env", "env::var", "env!(", "option_env!", "dotenv"] {
                assert!(
                    !source.contains(forbidden),
                    "{} reads the environment ({forbidden})",
                    path.display()
                );
            }
        }
    }
}
