//! The sandbox's forwarder as its own small program, for tests (the
//! `ulias` binary runs the same code as `ulias sandbox-forward`).

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let code = ulias_agents::sandbox::forward::main(&args);
    std::process::ExitCode::from(u8::try_from(code).unwrap_or(1))
}
