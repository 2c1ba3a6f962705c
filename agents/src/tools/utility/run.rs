//! One build-and-test of a template: a fresh folder under
//! `<data_dir>/utilities/operation-<id>/run-<n>/` with the template's files
//! and the config, the build then the tests in the sandbox (under the
//! utilities' own limits, reaching only the allowlist).

use std::path::{Path, PathBuf};

use ulias_core::domain::OperationId;
use ulias_core::settings::SandboxSettings;
use ulias_core::store::UtilityRunStatus;

use super::templates::UtilityTemplate;
use crate::sandbox::{Ran, Sandbox, SandboxError};

/// The most a utility's build or tests may take: CPU seconds, MiB of
/// memory, wall-clock seconds (the sandbox settings' own, when lower).
const MAX_CPU_SECONDS: u64 = 60;
const MAX_MEMORY_MB: u64 = 1024;
const MAX_SECONDS: u64 = 120;
/// How much of the output is kept (its end: where errors are).
const TAIL_CHARS: usize = 2000;

/// How one attempt ended.
#[derive(Debug, Clone)]
pub(super) struct Attempted {
    pub status: UtilityRunStatus,
    pub output_tail: String,
    pub dir: PathBuf,
}

/// The sandbox of utility runs: the settings' limits, capped; Python's
/// byte-code kept out of `dist/`.
pub(super) fn utility_sandbox(limits: &SandboxSettings) -> Sandbox {
    let mut env = limits.env.clone();
    env.insert("PYTHONDONTWRITEBYTECODE".to_owned(), "1".to_owned());
    Sandbox::new(SandboxSettings {
        cpu_seconds: limits.cpu_seconds.min(MAX_CPU_SECONDS),
        memory_mb: limits.memory_mb.min(MAX_MEMORY_MB),
        timeout_seconds: limits.timeout_seconds.min(MAX_SECONDS),
        network: false,
        env,
        ..limits.clone()
    })
}

/// The folder of the operation's runs.
pub(super) fn runs_folder(data_dir: &Path, operation: OperationId) -> PathBuf {
    data_dir
        .join("utilities")
        .join(format!("operation-{}", operation.get()))
}

/// Builds and tests `template` with `config` in a new run folder.
pub(super) async fn attempt(
    sandbox: &Sandbox,
    runs: &Path,
    template: &UtilityTemplate,
    config: &serde_json::Value,
) -> Result<Attempted, SandboxError> {
    let dir = fresh_folder(runs)
        .await
        .map_err(|e| SandboxError::NoFolder(format!("{}: {e}", runs.display())))?;
    let written = write_files(&dir, template, config).await;
    if let Err(error) = written {
        return Err(SandboxError::NoFolder(format!(
            "{}: {error}",
            dir.display()
        )));
    }
    let allow = &sandbox.limits().allow;
    let build = sandbox
        .run_allowing(&dir, &template.manifest.build, allow)
        .await?;
    let mut output = describe("build", &template.manifest.build, &build);
    let passed = if build.succeeded() {
        let test = sandbox
            .run_allowing(&dir, &template.manifest.test, allow)
            .await?;
        output.push_str(&describe("test", &template.manifest.test, &test));
        test.succeeded() && dir.join("dist").is_dir()
    } else {
        false
    };
    Ok(Attempted {
        status: if passed {
            UtilityRunStatus::Passed
        } else {
            UtilityRunStatus::Failed
        },
        output_tail: tail(&output),
        dir,
    })
}

/// `run-<n>`, the first number not taken (made at once: two runs never
/// share a folder).
async fn fresh_folder(runs: &Path) -> std::io::Result<PathBuf> {
    tokio::fs::create_dir_all(runs).await?;
    let mut n = 1_u32;
    loop {
        let dir = runs.join(format!("run-{n}"));
        match tokio::fs::create_dir(&dir).await {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            Err(e) => return Err(e),
        }
    }
}

async fn write_files(
    dir: &Path,
    template: &UtilityTemplate,
    config: &serde_json::Value,
) -> std::io::Result<()> {
    for (name, text) in template.files {
        tokio::fs::write(dir.join(name), text).await?;
    }
    let config = serde_json::to_string_pretty(config).map_err(std::io::Error::other)?;
    tokio::fs::write(dir.join("config.json"), config).await
}

/// A step's output for the record: what ran, how it ended, what it said.
fn describe(step: &str, command: &str, ran: &Ran) -> String {
    let ended = match (ran.timed_out, ran.exit_code) {
        (true, _) => "killed at the time limit".to_owned(),
        (false, Some(code)) => format!("exit {code}"),
        (false, None) => "killed".to_owned(),
    };
    format!(
        "$ {command}  [{step}: {ended}]\n{}{}",
        ran.stdout, ran.stderr
    )
}

/// The end of `text`, at most [`TAIL_CHARS`] characters.
fn tail(text: &str) -> String {
    let count = text.chars().count();
    text.chars()
        .skip(count.saturating_sub(TAIL_CHARS))
        .collect()
}
