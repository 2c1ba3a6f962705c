//! The `ulias` binary as a user runs it: real process, real files.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // tests fail loudly

use std::path::Path;
use std::process::{Command, Output};

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../ulias.example.toml");
const PROMPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../prompts");

/// How many migrations a new SQLite database gets.
fn migrations() -> usize {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../migrations/sqlite");
    std::fs::read_dir(dir).unwrap().count()
}

/// Runs `ulias` in `dir` with a clean environment plus `env`.
fn ulias(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ulias"))
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn check_accepts_the_example_settings_and_prints_a_one_screen_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(
        dir.path(),
        &["check", "--config", EXAMPLE],
        &[("ULIAS_PROMPTS_DIR", PROMPTS)],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("prompts    34 agents in 9 teams"),
        "{stdout}"
    );
    assert!(stdout.contains("ulias.example.toml: valid"), "{stdout}");
    let tools = stdout
        .lines()
        .find(|l| l.starts_with("tools      "))
        .expect("a tools line");
    assert!(
        tools.contains(" built, 0 not built yet"),
        "every tool the agent files name is built: {tools}"
    );
    assert!(
        !stdout.contains("not built, by agent:"),
        "no agent waits on a tool: {stdout}"
    );
    assert!(stdout.contains("models     2 pool(s)"), "{stdout}");
    assert!(
        stdout.contains("cloud $20.00/month, alerts at $5.00, $10.00, $15.00"),
        "{stdout}"
    );
    assert!(stdout.lines().count() <= 24, "one screen: {stdout}");
}

#[test]
fn check_refuses_a_bad_value_and_names_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(EXAMPLE).unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, example.replace("slots = 4", "slots = 0")).unwrap();

    let out = ulias(
        dir.path(),
        &["check", "--config", bad.to_str().unwrap()],
        &[],
    );

    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("`models.pools[1].slots`"), "{stderr}");
    assert!(stderr.contains("from 1 to 256"), "{stderr}");
}

#[test]
fn check_refuses_an_agent_file_with_six_tools_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(prompts.join("agents")).unwrap();
    for name in ["_preamble.md", "_json_protocol.md"] {
        std::fs::copy(Path::new(PROMPTS).join(name), prompts.join(name)).unwrap();
    }
    let coder = std::fs::read_to_string(Path::new(PROMPTS).join("agents/coder.md")).unwrap();
    let six = coder.replace("\"git_diff\"]", "\"git_diff\", \"grep\"]");
    std::fs::write(prompts.join("agents/coder.md"), six).unwrap();

    let out = ulias(dir.path(), &["check"], &[]);

    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("prompts/agents/coder.md: `tools`: 6 tools"),
        "{stderr}"
    );
}

#[test]
fn a_bad_environment_override_names_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(
        dir.path(),
        &["check"],
        &[("ULIAS_BUDGETS__MONTHLY_CLOUD_CAP_USD", "cheap")],
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("budgets.monthly_cloud_cap_usd"), "{stderr}");
    assert!(
        stderr.contains("ULIAS_BUDGETS__MONTHLY_CLOUD_CAP_USD"),
        "{stderr}"
    );
}

#[test]
fn a_missing_settings_file_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(dir.path(), &["check", "--config", "missing.toml"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read the settings file missing.toml"));
}

#[test]
fn run_without_a_bot_token_refuses_to_start_and_names_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(dir.path(), &["run"], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("`telegram.token` is not set"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    assert!(!dir.path().join("ulias.db").exists(), "run touched nothing");
}

#[test]
fn migrate_creates_the_schema_then_finds_nothing_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("org.db").display());
    let env = [("ULIAS_DATABASE__URL", url.as_str())];

    let first = ulias(dir.path(), &["migrate"], &env);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let applied = format!("applied {} migration(s)", migrations());
    assert!(
        text(&first.stdout).contains(&applied),
        "{}",
        text(&first.stdout)
    );
    assert!(dir.path().join("org.db").exists());

    let second = ulias(dir.path(), &["migrate"], &env);
    assert!(second.status.success());
    assert!(
        text(&second.stdout).contains("schema up to date"),
        "{}",
        text(&second.stdout)
    );
}

#[test]
fn json_logs_are_one_object_per_line_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(dir.path(), &["--log-format", "json", "migrate"], &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stderr)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let migrated = lines
        .iter()
        .find(|line| line["message"] == "database migrated")
        .unwrap();
    assert_eq!(migrated["level"], "INFO");
    assert_eq!(migrated["applied"], migrations());
}

#[test]
fn version_prints_the_release() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(dir.path(), &["--version"], &[]);
    assert!(out.status.success());
    assert_eq!(
        text(&out.stdout).trim(),
        format!("ulias {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn simulate_runs_the_takeover_and_ends_with_the_total_cost() {
    let dir = tempfile::tempdir().unwrap();
    let out = ulias(
        dir.path(),
        &["simulate", "--until", "30"],
        &[("ULIAS_PROMPTS_DIR", PROMPTS)],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}{stdout}", text(&out.stderr));
    assert!(
        stdout.contains(
            "76/76 steps completed, 0 late, 0 flagged step(s) without an approved validation"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("community  votes on poll") && stdout.contains("completed  vote.count"),
        "the approved poll is voted on and the vote counted: {stdout}"
    );
    assert!(
        stdout.contains("✗ rejected validation"),
        "the team rejects one output: {stdout}"
    );
    assert!(
        stdout.contains("ceo        \"vérifie les backups"),
        "{stdout}"
    );
    assert!(stdout.contains("scanner.verdict (scanner)"), "{stdout}");
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("total cost (recorded in the store): $"),
        "{last}"
    );
    assert!(
        !dir.path().join("ulias.db").exists(),
        "simulate never touches the real database"
    );
}

#[test]
fn simulate_keeps_its_rows_in_the_database_it_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite://{}?mode=rwc", dir.path().join("sim.db").display());
    let out = ulias(
        dir.path(),
        &["simulate", "--until", "2", "--quiet", "--db", &db],
        &[("ULIAS_PROMPTS_DIR", PROMPTS)],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}{stdout}", text(&out.stderr));
    assert!(
        !stdout.contains("step       "),
        "quiet prints the summary only: {stdout}"
    );
    assert!(dir.path().join("sim.db").exists());
}

#[test]
fn check_refuses_a_scheduled_job_whose_agent_has_no_built_tool() {
    let dir = tempfile::tempdir().unwrap();
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(prompts.join("agents")).unwrap();
    for name in ["_preamble.md", "_json_protocol.md", "schedule.toml"] {
        std::fs::copy(Path::new(PROMPTS).join(name), prompts.join(name)).unwrap();
    }
    for entry in std::fs::read_dir(Path::new(PROMPTS).join("agents")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(
            &path,
            prompts.join("agents").join(path.file_name().unwrap()),
        )
        .unwrap();
    }
    let webdev = std::fs::read_to_string(prompts.join("agents/webdev.md")).unwrap();
    let idle = webdev.replace(
        "tools = [\"read_file\", \"write_file\", \"site_build\", \"site_check\", \"site_publish\"]",
        "tools = [\"poll_results\"]",
    );
    assert_ne!(idle, webdev, "the Webdev's tools line changed");
    std::fs::write(prompts.join("agents/webdev.md"), idle).unwrap();
    let mut schedule = std::fs::read_to_string(prompts.join("schedule.toml")).unwrap();
    schedule.push_str(
        "\n[[jobs]]\nname = \"site_watch\"\nagent = \"webdev\"\ncron = \"*/5 * * * *\"\ntask = \"Check the site\"\n",
    );
    std::fs::write(prompts.join("schedule.toml"), schedule).unwrap();

    let out = ulias(dir.path(), &["check"], &[]);

    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "job `site_watch` runs webdev every time, but none of its tools is built (poll_results)"
        ),
        "{stderr}"
    );
}

#[test]
fn antispam_eval_counts_a_link_to_the_operations_own_domain_as_no_strangers_link() {
    let dir = tempfile::tempdir().unwrap();
    let spam = dir.path().join("spam.txt");
    let ham = dir.path().join("ham.txt");
    std::fs::write(
        &spam,
        "Send 0.1 ETH to 0x1111111111111111111111111111111111111111 and receive 0.2 ETH back, giveaway for the first 50\n",
    )
    .unwrap();
    std::fs::write(
        &ham,
        "Staking rewards are live on example.org, lock for 30 days, rewards paid every week\n\
         The official claim page for the airdrop is example.org/claim, nowhere else\n",
    )
    .unwrap();
    let eval = |extra: &[&str]| {
        let mut args = vec!["antispam", "eval", "--rules-only"];
        args.extend([
            "--spam",
            spam.to_str().unwrap(),
            "--ham",
            ham.to_str().unwrap(),
        ]);
        args.extend(extra);
        let out = ulias(dir.path(), &args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
    };

    let strangers = eval(&[]);
    let own = eval(&["--allowed-domain", "example.org"]);

    assert!(
        strangers.contains("false positives 100.00% (2 of 2 ham)"),
        "{strangers}"
    );
    assert!(own.contains("false positives 0.00% (0 of 2 ham)"), "{own}");
    assert!(
        own.contains("recall          1.000 (1 of 1 spam caught)"),
        "{own}"
    );
}
