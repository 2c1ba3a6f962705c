//! `ulias run`: the long-running process — the engine, the schedule and the
//! Telegram bot — until Ctrl-C or SIGTERM.

use ulias_core::settings::Settings;

use super::Outcome;

/// Runs until interrupted.
pub async fn run(settings: &Settings) -> anyhow::Result<Outcome> {
    let clock = std::sync::Arc::new(ulias_core::clock::SystemClock);
    crate::telegram::run(settings.clone(), clock, shutdown_signal()).await?;
    Ok(Outcome::Done)
}

/// Ctrl-C, or SIGTERM (systemd's stop).
async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut signal) => {
                    signal.recv().await;
                }
                Err(error) => {
                    tracing::warn!(%error, "no SIGTERM handler");
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::select! {
            _ = interrupt => {}
            () = terminate => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
    tracing::info!("stopping");
}
