//! Telegram's 429: a moderation call refused with "retry after N" is tried
//! again after N seconds, so a ban or a delete during a flood still lands.

use std::future::Future;
use std::time::Duration;

use teloxide::RequestError;

/// Tries again this many times after a 429.
const RETRIES: usize = 3;
/// Never waits longer than this for one retry.
const LONGEST_WAIT: Duration = Duration::from_secs(60);

/// Runs `call`, waiting out each 429's `retry_after` and calling again
/// (at most [`RETRIES`] times); any other outcome is returned as is.
pub async fn after_429<T, F, Fut>(mut call: F) -> Result<T, RequestError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, RequestError>>,
{
    for _ in 0..RETRIES {
        match call().await {
            Err(RequestError::RetryAfter(after)) => {
                tracing::info!(seconds = after.seconds(), "Telegram asked to wait");
                tokio::time::sleep(after.duration().min(LONGEST_WAIT)).await;
            }
            other => return other,
        }
    }
    call().await
}
