//! The `ulias` binary: parse the command line, start logging, run the command.

use std::process::ExitCode;

use clap::Parser;
use ulias_agents::sandbox::forward;
use ulias_bot::cli::Cli;

fn main() -> ExitCode {
    // The sandbox's forwarder is this binary started inside a sandbox:
    // caught before anything else starts (no runtime, no logging).
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == forward::SUBCOMMAND) {
        let code = forward::main(&args);
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    run()
}

#[tokio::main]
async fn run() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = ulias_bot::logging::init(cli.log_format, cli.log_filter.as_deref()) {
        eprintln!("ulias: cannot start logging: {error:#}");
        return ExitCode::FAILURE;
    }
    let outcome = ulias_bot::commands::dispatch(&cli, std::env::vars()).await;
    ulias_bot::commands::finish(outcome)
}
