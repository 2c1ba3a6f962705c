//! The one sandbox of the project: a command runs in a separate process
//! tree, in a folder of the workspace, with CPU, memory, process and file
//! size limits, a wall-clock limit that kills everything it started, its
//! output capped, and no network unless the settings allow it.
//!
//! It is built from util-linux's `unshare` and `prlimit`, present on every
//! Linux host: `unshare --user --map-root-user --pid --fork --kill-child`
//! gives the command its own PID namespace (when time is up, killing
//! `unshare` kills the namespace's first process, and the kernel kills
//! every other one with it), and `--net` a network namespace of its own
//! whose only interface is its loopback, brought up inside. The host needs
//! unprivileged user namespaces (`kernel.unprivileged_userns_clone=1`, the
//! default on Debian and Ubuntu); without them every command is refused,
//! never run unsandboxed. The filesystem is the host's: what a command may
//! change there is decided before it runs ([`classify`]).

pub mod classify;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use ulias_core::settings::SandboxSettings;

/// Why a command could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `unshare`/`prlimit` are missing, or user namespaces are off.
    #[error(
        "the sandbox is not available on this host ({0}): it needs util-linux's unshare and prlimit and unprivileged user namespaces; nothing was run"
    )]
    Unavailable(String),
    /// The working folder does not exist.
    #[error("cannot run in {0}: not a folder")]
    NoFolder(String),
}

/// What a sandboxed command did.
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    /// Its exit code; `None` when it was killed.
    pub exit_code: Option<i32>,
    /// Its output, cut to the limit.
    pub stdout: String,
    /// Its errors, cut to the limit.
    pub stderr: String,
    /// Whether the wall-clock limit killed it.
    pub timed_out: bool,
    /// Whether an output was cut.
    pub truncated: bool,
    /// How long it ran.
    pub elapsed: Duration,
}

impl Ran {
    /// Whether it ran to the end and exited 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out
    }
}

/// The sandbox, with its limits.
#[derive(Debug, Clone)]
pub struct Sandbox {
    limits: SandboxSettings,
}

impl Sandbox {
    /// A sandbox with these limits.
    pub fn new(limits: SandboxSettings) -> Self {
        Self { limits }
    }

    /// Its limits.
    pub fn limits(&self) -> &SandboxSettings {
        &self.limits
    }

    /// Runs `script` with `sh -c` in `dir`, inside the sandbox.
    pub async fn run(&self, dir: &Path, script: &str) -> Result<Ran, SandboxError> {
        if !dir.is_dir() {
            return Err(SandboxError::NoFolder(dir.display().to_string()));
        }
        let started = Instant::now();
        let mut child = self
            .command(dir, script)
            .spawn()
            .map_err(|e| SandboxError::Unavailable(format!("unshare: {e}")))?;
        let cap = self.limits.max_output_bytes;
        let stdout = tokio::spawn(read_capped(child.stdout.take(), cap));
        let stderr = tokio::spawn(read_capped(child.stderr.take(), cap));
        let limit = Duration::from_secs(self.limits.timeout_seconds);
        let (status, timed_out) = match tokio::time::timeout(limit, child.wait()).await {
            Ok(status) => (status.ok(), false),
            Err(_) => {
                // Killing unshare kills the namespace's first process, and
                // with it every process of the namespace.
                let _ = child.kill().await;
                (None, true)
            }
        };
        let (out, out_cut) = stdout.await.unwrap_or_default();
        let (err, err_cut) = stderr.await.unwrap_or_default();
        if status.and_then(|s| s.code()) == Some(UNSHARE_FAILED) && err.starts_with("unshare:") {
            return Err(SandboxError::Unavailable(err.trim().to_owned()));
        }
        Ok(Ran {
            exit_code: if timed_out {
                None
            } else {
                status.and_then(|s| s.code())
            },
            stdout: out,
            stderr: err,
            timed_out,
            truncated: out_cut || err_cut,
            elapsed: started.elapsed(),
        })
    }

    fn command(&self, dir: &Path, script: &str) -> Command {
        let limits = &self.limits;
        let mut command = Command::new("unshare");
        command.args([
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--kill-child",
        ]);
        let script = if limits.network {
            script.to_owned()
        } else {
            command.arg("--net");
            // The namespace's loopback starts down; bring it up so that a
            // test server on 127.0.0.1 inside the sandbox still works.
            format!("ip link set lo up 2>/dev/null\n{script}")
        };
        command
            .args(["--", "prlimit"])
            .arg(format!("--cpu={}", limits.cpu_seconds))
            .arg(format!("--as={}", limits.memory_mb.saturating_mul(1 << 20)))
            .arg(format!("--nproc={}", limits.max_processes))
            .arg(format!(
                "--fsize={}",
                limits.max_file_mb.saturating_mul(1 << 20)
            ))
            .args(["--", "sh", "-c"])
            .arg(script)
            .current_dir(dir)
            .env_clear()
            .envs(&limits.env)
            .env("TERM", "dumb")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        command
    }
}

/// `unshare`'s exit code when it could not set the namespaces up.
const UNSHARE_FAILED: i32 = 1;

/// Reads all of `pipe`, keeping the first `cap` bytes (as text) and saying
/// whether more came.
async fn read_capped<R: AsyncRead + Unpin>(pipe: Option<R>, cap: usize) -> (String, bool) {
    let Some(mut pipe) = pipe else {
        return (String::new(), false);
    };
    let mut kept = Vec::new();
    let mut more = false;
    let mut chunk = [0_u8; 8192];
    while let Ok(read) = pipe.read(&mut chunk).await {
        if read == 0 {
            break;
        }
        let room = cap.saturating_sub(kept.len());
        kept.extend_from_slice(&chunk[..read.min(room)]);
        more |= read > room;
    }
    (String::from_utf8_lossy(&kept).into_owned(), more)
}
