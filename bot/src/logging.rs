//! Logging: tracing to stderr, so stdout stays the command's own output.

use tracing_subscriber::EnvFilter;

use crate::cli::LogFormat;

/// Installs the global subscriber. `filter` wins over `RUST_LOG`; without
/// either, `info`.
pub fn init(format: LogFormat, filter: Option<&str>) -> anyhow::Result<()> {
    let filter = match filter {
        Some(directives) => EnvFilter::try_new(directives)?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let installed = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).try_init(),
    };
    installed.map_err(|e| anyhow::anyhow!(e))
}
