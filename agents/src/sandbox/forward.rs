//! The forwarder: the first program inside a sandbox that may reach an
//! allowlist. It listens on the namespace's loopback — one port per
//! allowlisted `host:port`, and an HTTP `CONNECT` proxy — relays each
//! connection through a Unix socket to the host's [`proxy`](super::proxy),
//! which alone decides what is reached, then runs the sandboxed command
//! and exits with its status (everything else in the namespace dies with
//! it).
//!
//! It is plain blocking code with small threads: it runs under the
//! sandbox's memory and process limits, before and beside the command.
//!
//! What the command sees, in its environment:
//! - `ULIAS_ALLOW_<n>=<host>:<port>=127.0.0.1:<local port>` for each
//!   allowlisted pair (`n` from 0): a plain TCP connection to the local
//!   port reaches that host and port;
//! - `HTTPS_PROXY` / `https_proxy` = `http://127.0.0.1:<proxy port>`: a
//!   `CONNECT host:port` to it reaches an allowlisted pair (TLS stays end
//!   to end), anything else is answered `403`.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

use ulias_core::settings::HostPort;

/// The subcommand that starts the forwarder (`ulias sandbox-forward …`).
pub const SUBCOMMAND: &str = "sandbox-forward";
/// The loopback port of the `CONNECT` proxy inside the sandbox.
pub const PROXY_PORT: u16 = 18080;
/// The loopback port of the first allowlisted pair (then one up each).
pub const FIRST_PORT: u16 = 20000;

/// The longest line of the relay protocol or request head we read.
const MAX_HEAD: usize = 8192;
/// Relay threads need little stack.
const THREAD_STACK: usize = 128 * 1024;

/// The arguments the host gives the forwarder (after the program's path).
pub fn args(socket: &Path, allow: &[HostPort]) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec![SUBCOMMAND.into(), "--socket".into(), socket.into()];
    for (port, pair) in local_ports(allow) {
        args.push("--map".into());
        args.push(format!("{port}={pair}").into());
    }
    args.push("--proxy".into());
    args.push(PROXY_PORT.to_string().into());
    args.push("--".into());
    args
}

/// The environment that tells the sandboxed command its routes.
pub fn env(allow: &[HostPort]) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = local_ports(allow)
        .enumerate()
        .map(|(n, (port, pair))| {
            (
                format!("ULIAS_ALLOW_{n}"),
                format!("{pair}=127.0.0.1:{port}"),
            )
        })
        .collect();
    let proxy = format!("http://127.0.0.1:{PROXY_PORT}");
    env.push(("HTTPS_PROXY".to_owned(), proxy.clone()));
    env.push(("https_proxy".to_owned(), proxy));
    env
}

fn local_ports(allow: &[HostPort]) -> impl Iterator<Item = (u16, &HostPort)> {
    (FIRST_PORT..).zip(allow)
}

/// What the forwarder was asked to do.
#[derive(Debug, PartialEq)]
struct Plan {
    socket: PathBuf,
    maps: Vec<(u16, HostPort)>,
    proxy: Option<u16>,
    command: Vec<OsString>,
}

fn parse(args: &[OsString]) -> Result<Plan, String> {
    let mut args = args.iter().skip_while(|a| *a == SUBCOMMAND);
    let mut plan = Plan {
        socket: PathBuf::new(),
        maps: Vec::new(),
        proxy: None,
        command: Vec::new(),
    };
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .and_then(|v| v.to_str())
                .ok_or_else(|| format!("{} needs a value", arg.to_string_lossy()))
        };
        match arg.to_str() {
            Some("--socket") => plan.socket = value()?.into(),
            Some("--map") => {
                let text = value()?;
                let (port, pair) = text
                    .split_once('=')
                    .ok_or_else(|| format!("--map {text}: expected PORT=HOST:PORT"))?;
                let port = port.parse().map_err(|_| format!("bad port in {text}"))?;
                let pair = pair.parse().map_err(|e| format!("{e}"))?;
                plan.maps.push((port, pair));
            }
            Some("--proxy") => {
                plan.proxy = Some(value()?.parse().map_err(|_| "bad proxy port")?);
            }
            Some("--") => {
                plan.command = args.cloned().collect();
                break;
            }
            _ => return Err(format!("unknown argument {}", arg.to_string_lossy())),
        }
    }
    if plan.socket.as_os_str().is_empty() || plan.command.is_empty() {
        return Err("usage: sandbox-forward --socket PATH [--map PORT=HOST:PORT]… [--proxy PORT] -- COMMAND…".into());
    }
    Ok(plan)
}

/// Runs the forwarder with `args` (the words after the program's name);
/// returns the command's exit status (128 + signal when killed; 125 when
/// the forwarder itself could not start it).
pub fn main(args: &[OsString]) -> i32 {
    match run(args) {
        Ok(code) => code,
        Err(error) => {
            let _ = writeln!(io::stderr(), "sandbox-forward: {error}");
            125
        }
    }
}

fn run(args: &[OsString]) -> Result<i32, String> {
    let plan = parse(args)?;
    for (port, pair) in &plan.maps {
        let listener = bind(*port)?;
        let (socket, pair) = (plan.socket.clone(), pair.clone());
        spawn(move || accept(&listener, &socket, &Route::Fixed(pair)));
    }
    if let Some(port) = plan.proxy {
        let listener = bind(port)?;
        let socket = plan.socket.clone();
        spawn(move || accept(&listener, &socket, &Route::Connect));
    }
    let (program, rest) = plan.command.split_first().ok_or("no command")?;
    let status = std::process::Command::new(program)
        .args(rest)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", program.to_string_lossy()))?;
    use std::os::unix::process::ExitStatusExt;
    Ok(status
        .code()
        .unwrap_or_else(|| 128 + status.signal().unwrap_or(0)))
}

fn bind(port: u16) -> Result<TcpListener, String> {
    TcpListener::bind(("127.0.0.1", port)).map_err(|e| format!("cannot listen on {port}: {e}"))
}

fn spawn(work: impl FnOnce() + Send + 'static) {
    if let Err(error) = std::thread::Builder::new()
        .stack_size(THREAD_STACK)
        .spawn(work)
    {
        let _ = writeln!(io::stderr(), "sandbox-forward: no thread: {error}");
    }
}

/// Where a local port's connections go.
enum Route {
    /// Always this pair.
    Fixed(HostPort),
    /// Where the client's `CONNECT` asks.
    Connect,
}

fn accept(listener: &TcpListener, socket: &Path, route: &Route) {
    for client in listener.incoming().flatten() {
        let socket = socket.to_owned();
        let fixed = match route {
            Route::Fixed(pair) => Some(pair.clone()),
            Route::Connect => None,
        };
        spawn(move || {
            let _ = serve(client, &socket, fixed);
        });
    }
}

fn serve(mut client: TcpStream, socket: &Path, fixed: Option<HostPort>) -> io::Result<()> {
    let proxied = fixed.is_none();
    let target = match fixed {
        Some(pair) => pair.to_string(),
        None => match connect_target(&mut client)? {
            Ok(target) => target,
            Err(status) => return client.write_all(status.as_bytes()),
        },
    };
    let mut host = UnixStream::connect(socket)?;
    host.write_all(format!("{target}\n").as_bytes())?;
    let answer = read_until(&mut host, b"\n")?;
    let allowed = answer.starts_with("OK");
    // A proxied client waits for a status line; a fixed port's client has
    // sent nothing and is simply closed when refused.
    if proxied {
        client.write_all(status_line(allowed, answer.trim()).as_bytes())?;
    }
    if allowed { relay(client, host) } else { Ok(()) }
}

/// The `CONNECT` answer: established, or refused with the host's reason.
fn status_line(allowed: bool, answer: &str) -> String {
    if allowed {
        return "HTTP/1.1 200 Connection established\r\n\r\n".to_owned();
    }
    let reason = answer.trim_start_matches("NO").trim();
    format!(
        "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{reason}",
        reason.len()
    )
}

/// The `host:port` of a `CONNECT` request, or the error status to send.
fn connect_target(client: &mut TcpStream) -> io::Result<Result<String, &'static str>> {
    let head = read_until(client, b"\r\n\r\n")?;
    let mut words = head.lines().next().unwrap_or_default().split_whitespace();
    Ok(match (words.next(), words.next()) {
        (Some(method), Some(target)) if method.eq_ignore_ascii_case("CONNECT") => {
            Ok(target.to_owned())
        }
        _ => {
            Err("HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        }
    })
}

/// Reads byte by byte up to and including `end` (never past it: what
/// follows belongs to the relayed stream).
fn read_until(stream: &mut impl Read, end: &[u8]) -> io::Result<String> {
    let mut read = Vec::new();
    let mut byte = [0_u8; 1];
    while !read.ends_with(end) {
        if read.len() >= MAX_HEAD || stream.read(&mut byte)? == 0 {
            break;
        }
        read.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&read).into_owned())
}

fn relay(client: TcpStream, host: UnixStream) -> io::Result<()> {
    let (mut client_in, mut host_out) = (client.try_clone()?, host.try_clone()?);
    spawn(move || {
        let _ = io::copy(&mut client_in, &mut host_out);
        let _ = host_out.shutdown(Shutdown::Write);
    });
    let (mut host_in, mut client_out) = (host, client);
    io::copy(&mut host_in, &mut client_out)?;
    client_out.shutdown(Shutdown::Write)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hosts_arguments_parse_back_into_the_same_plan() {
        let allow: Vec<HostPort> = vec![
            "api.dexscreener.com:443".parse().unwrap(),
            "127.0.0.1:8080".parse().unwrap(),
        ];
        let mut words = args(Path::new("/tmp/s.sock"), &allow);
        words.extend(["sh".into(), "-c".into(), "true".into()]);
        let plan = parse(&words).unwrap();
        assert_eq!(plan.socket, Path::new("/tmp/s.sock"));
        assert_eq!(
            plan.maps,
            vec![(20000, allow[0].clone()), (20001, allow[1].clone())]
        );
        assert_eq!(plan.proxy, Some(PROXY_PORT));
        assert_eq!(plan.command, ["sh", "-c", "true"]);
        assert_eq!(
            env(&allow)[1],
            (
                "ULIAS_ALLOW_1".to_owned(),
                "127.0.0.1:8080=127.0.0.1:20001".to_owned()
            )
        );
    }
}
