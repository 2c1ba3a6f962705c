//! Sends the queued pushes, oldest first, on its own interval: nothing
//! else ever waits on ntfy. A push ntfy refuses for the moment (down, 429,
//! 5xx, a timeout) is tried again after a growing wait, and the pushes
//! behind it wait too, so the phone sees them in order; one refused for
//! good (400) is logged and dropped. A decision's buttons that did not go
//! out before it closed are not sent (its outcome is), nor a push older
//! than [`MAX_AGE`].

use std::time::Duration;

use chrono::TimeDelta;
use ulias_core::clock::SharedClock;
use ulias_core::domain::DecisionStatus;
use ulias_core::store::{Push, PushKind, Store, StoreError};

use super::Ntfy;

/// How often due pushes are looked for.
const EVERY: Duration = Duration::from_secs(1);
/// The first wait after a refusal, and the longest.
const RETRY_MIN: TimeDelta = TimeDelta::seconds(2);
const RETRY_MAX: TimeDelta = TimeDelta::minutes(5);
/// A push still unsent after this is stale news: it is dropped.
pub const MAX_AGE: TimeDelta = TimeDelta::hours(24);

/// Sends due pushes until the process stops. A push found `sending` for
/// longer than `stale_after` (its sender died mid-send) is sent again:
/// `stale_after` must exceed the longest request.
pub async fn run(store: Store, clock: SharedClock, ntfy: Ntfy, stale_after: TimeDelta) {
    let mut every = tokio::time::interval(EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = send_due(&store, &clock, &ntfy, stale_after).await {
            tracing::warn!(%error, "could not send the queued ntfy pushes");
        }
    }
}

/// Sends every push due now, stopping at the first that must wait.
async fn send_due(
    store: &Store,
    clock: &SharedClock,
    ntfy: &Ntfy,
    stale_after: TimeDelta,
) -> Result<(), StoreError> {
    loop {
        let now = clock.now();
        let Some(push) = store.claim_push(now, now - stale_after).await? else {
            return Ok(());
        };
        send_one(store, clock, ntfy, &push).await?;
    }
}

async fn send_one(
    store: &Store,
    clock: &SharedClock,
    ntfy: &Ntfy,
    push: &Push,
) -> Result<(), StoreError> {
    if let Some(why) = not_worth_sending(store, clock, push).await? {
        return store.cancel_push(push.id, why).await;
    }
    match ntfy.send(&push.payload).await {
        Ok(()) => store.mark_push_sent(push.id, clock.now()).await,
        Err(error) if error.is_permanent() => {
            tracing::warn!(%error, push = push.id, title = %push.payload.title, "ntfy refused a push for good");
            store.mark_push_failed(push.id, &error.to_string()).await
        }
        Err(error) => {
            let wait = retry_wait(push.attempts);
            tracing::warn!(%error, push = push.id, %wait, "ntfy refused a push; trying again later");
            store
                .retry_push(push.id, &error.to_string(), clock.now() + wait)
                .await
        }
    }
}

async fn not_worth_sending(
    store: &Store,
    clock: &SharedClock,
    push: &Push,
) -> Result<Option<&'static str>, StoreError> {
    if clock.now() - push.created_at > MAX_AGE {
        return Ok(Some("too old to be news"));
    }
    if let (PushKind::Decision, Some(id)) = (push.kind, push.decision)
        && store.decision(id).await?.status != DecisionStatus::Pending
    {
        return Ok(Some("the decision closed before its buttons went out"));
    }
    Ok(None)
}

/// The wait after the `attempts`-th refusal: [`RETRY_MIN`], doubled each
/// time, at most [`RETRY_MAX`].
fn retry_wait(attempts: u32) -> TimeDelta {
    let doublings = attempts.saturating_sub(1).min(16);
    (RETRY_MIN * 2_i32.pow(doublings)).min(RETRY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_pushes_wait_longer_each_time_up_to_five_minutes() {
        let waits: Vec<i64> = (1..=10).map(|n| retry_wait(n).num_seconds()).collect();
        assert_eq!(waits, [2, 4, 8, 16, 32, 64, 128, 256, 300, 300]);
        assert_eq!(retry_wait(u32::MAX), RETRY_MAX);
    }
}
