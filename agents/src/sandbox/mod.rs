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
//!
//! [`Sandbox::run_allowing`] opens an allowlist in that closed network: the
//! command still has only its loopback, where a [`forward`]er relays
//! connections through a Unix socket to a [`proxy`] on the host that only
//! connects to the allowlisted `host:port` pairs. The command learns its
//! routes from its environment (`ULIAS_ALLOW_<n>`, `HTTPS_PROXY`).

pub mod classify;
pub mod forward;
mod proxy;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use ulias_core::settings::{HostPort, SandboxSettings};

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
    /// An allowlist was asked for, but its relay cannot be set up.
    #[error("the sandbox's allowlist cannot be opened ({0}); nothing was run")]
    NoForwarder(String),
}

/// The socket the forwarder reaches the host's proxy by, in the working
/// folder (a Unix socket's path is at most 107 bytes).
const PROXY_SOCKET: &str = ".ulias-sandbox.sock";
const MAX_SOCKET_PATH: usize = 107;

/// How the sandbox reaches its allowlist: the forwarder started inside,
/// the proxy's socket, the pairs.
struct Forwarding<'a> {
    program: &'a Path,
    socket: &'a Path,
    allow: &'a [HostPort],
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
        self.run_with(dir, script, None).await
    }

    /// Runs `script` like [`run`](Self::run), in its own network namespace
    /// whatever the settings say, reaching only the `allow` pairs (through
    /// the forwarder, see the module's docs). An empty allowlist is no
    /// network at all.
    pub async fn run_allowing(
        &self,
        dir: &Path,
        script: &str,
        allow: &[HostPort],
    ) -> Result<Ran, SandboxError> {
        if allow.is_empty() {
            let closed = Self::new(SandboxSettings {
                network: false,
                ..self.limits.clone()
            });
            return closed.run(dir, script).await;
        }
        // The forwarder runs in `dir`: the socket's path must not be relative.
        let dir = &tokio::fs::canonicalize(dir)
            .await
            .map_err(|_| SandboxError::NoFolder(dir.display().to_string()))?;
        if !dir.is_dir() {
            return Err(SandboxError::NoFolder(dir.display().to_string()));
        }
        let program = self.limits.forwarder.as_deref().ok_or_else(|| {
            SandboxError::NoForwarder("no `sandbox.forwarder` program is set".into())
        })?;
        let socket = dir.join(PROXY_SOCKET);
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(SandboxError::NoForwarder(format!(
                "the folder's path is too long for a Unix socket: {}",
                socket.display()
            )));
        }
        let _proxy = proxy::Proxy::start(&socket, allow.to_vec())
            .map_err(|e| SandboxError::NoForwarder(format!("{}: {e}", socket.display())))?;
        let forwarding = Forwarding {
            program,
            socket: &socket,
            allow,
        };
        self.run_with(dir, script, Some(&forwarding)).await
    }

    async fn run_with(
        &self,
        dir: &Path,
        script: &str,
        forwarding: Option<&Forwarding<'_>>,
    ) -> Result<Ran, SandboxError> {
        if !dir.is_dir() {
            return Err(SandboxError::NoFolder(dir.display().to_string()));
        }
        let started = Instant::now();
        let mut child = self
            .command(dir, script, forwarding)
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

    fn command(&self, dir: &Path, script: &str, forwarding: Option<&Forwarding<'_>>) -> Command {
        let limits = &self.limits;
        let mut command = Command::new("unshare");
        command.env_clear();
        command.args([
            "--user",
            "--map-root-user",
            "--pid",
            "--fork",
            "--kill-child",
        ]);
        // The namespace's loopback starts down; bring it up so that a test
        // server on 127.0.0.1 inside the sandbox still works.
        let lo_up = "ip link set lo up 2>/dev/null";
        let mut words: Vec<std::ffi::OsString> = Vec::new();
        let script = match forwarding {
            Some(forwarding) => {
                command.arg("--net");
                // The forwarder runs the script: `sh -c '…; exec "$@"' sh
                // FORWARDER ARGS -- sh -c SCRIPT` needs no quoting.
                words.push("sh".into());
                words.push(forwarding.program.into());
                words.extend(forward::args(forwarding.socket, forwarding.allow));
                words.extend(["sh".into(), "-c".into(), script.into()]);
                command.envs(forward::env(forwarding.allow));
                format!("{lo_up}\nexec \"$@\"")
            }
            None if limits.network => script.to_owned(),
            None => {
                command.arg("--net");
                format!("{lo_up}\n{script}")
            }
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
            .args(words)
            .current_dir(dir)
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
