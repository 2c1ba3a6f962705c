//! The host's half of the allowlist: a Unix socket the
//! [forwarder](super::forward) inside the sandbox connects to. Each
//! connection names the `host:port` it wants on its first line; the proxy
//! answers `OK` and relays only for a pair of the allowlist (and only once
//! the connection to it is made), `NO <reason>` otherwise. It is the only
//! way out of the sandbox's network namespace.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::{JoinHandle, JoinSet};
use ulias_core::settings::HostPort;

/// How long a connection to an allowlisted pair may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest first line read.
const MAX_LINE: usize = 300;

/// A running proxy; dropping it stops it (and every relay) and removes
/// its socket.
pub(crate) struct Proxy {
    accept: JoinHandle<()>,
    path: PathBuf,
}

impl Proxy {
    /// Listens on `path` for the forwarder, reaching only `allow`.
    pub(crate) fn start(path: &Path, allow: Vec<HostPort>) -> std::io::Result<Self> {
        let _ = std::fs::remove_file(path);
        let listener = UnixListener::bind(path)?;
        let accept = tokio::spawn(async move {
            let mut relays = JoinSet::new();
            while let Ok((stream, _)) = listener.accept().await {
                relays.spawn(relay(stream, allow.clone()));
                // Forget the finished ones as we go.
                while relays.try_join_next().is_some() {}
            }
        });
        Ok(Self {
            accept,
            path: path.to_owned(),
        })
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.accept.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

async fn relay(mut inside: UnixStream, allow: Vec<HostPort>) {
    let asked = match first_line(&mut inside).await {
        Some(line) => line,
        None => return,
    };
    let pair = match asked.parse::<HostPort>() {
        Ok(pair) if allow.contains(&pair) => pair,
        Ok(_) => {
            tracing::info!(target = %asked, "sandbox: a connection outside the allowlist was refused");
            let _ = inside.write_all(b"NO not in the allowlist\n").await;
            return;
        }
        Err(_) => {
            let _ = inside.write_all(b"NO not host:port\n").await;
            return;
        }
    };
    let connected = tokio::time::timeout(
        CONNECT_TIMEOUT,
        TcpStream::connect((pair.host.as_str(), pair.port)),
    )
    .await;
    let mut outside = match connected {
        Ok(Ok(stream)) => stream,
        Ok(Err(error)) => {
            let _ = inside
                .write_all(format!("NO cannot connect: {error}\n").as_bytes())
                .await;
            return;
        }
        Err(_) => {
            let _ = inside.write_all(b"NO connection timed out\n").await;
            return;
        }
    };
    if inside.write_all(b"OK\n").await.is_ok() {
        let _ = tokio::io::copy_bidirectional(&mut inside, &mut outside).await;
    }
}

/// The first line, without its newline, read byte by byte (what follows
/// is the relayed stream).
async fn first_line(stream: &mut UnixStream) -> Option<String> {
    let mut line = Vec::new();
    loop {
        let byte = stream.read_u8().await.ok()?;
        if byte == b'\n' {
            return String::from_utf8(line).ok();
        }
        if line.len() >= MAX_LINE {
            return None;
        }
        line.push(byte);
    }
}
