//! The `ulias` binary: parse the command line, start logging, run the command.

use std::process::ExitCode;

use clap::Parser;
use ulias_bot::cli::Cli;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Err(error) = ulias_bot::logging::init(cli.log_format, cli.log_filter.as_deref()) {
        eprintln!("ulias: cannot start logging: {error:#}");
        return ExitCode::FAILURE;
    }
    let outcome = ulias_bot::commands::dispatch(&cli, std::env::vars()).await;
    ulias_bot::commands::finish(outcome)
}
