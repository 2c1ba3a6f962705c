//! Rate limits on what outsiders can make the bot do (governor, keyed):
//! questions per member and per group, model runs per minute from all
//! groups' traffic, and private messages from each stranger (refused once,
//! audited up to the allowance, so a flood cannot fill the audit).

use std::num::NonZeroU32;

use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::HashMapStateStore;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use ulias_core::settings::LimitSettings;

type Keyed<K, C> = RateLimiter<K, HashMapStateStore<K>, C, NoOpMiddleware<<C as Clock>::Instant>>;
type Direct<C> = RateLimiter<NotKeyed, InMemoryState, C, NoOpMiddleware<<C as Clock>::Instant>>;

/// Which limit a question ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    /// This member asked too often.
    Member,
    /// This group asked too often.
    Group,
    /// All groups together started too many model runs.
    ModelCalls,
}

/// The limits, on clock `C` (the system's monotonic clock in production).
pub struct Limits<C: Clock = DefaultClock> {
    member_questions: Keyed<(i64, i64), C>,
    group_questions: Keyed<i64, C>,
    group_model_calls: Direct<C>,
    strangers: Keyed<i64, C>,
}

impl Limits {
    /// The limits of `settings` on the system clock.
    pub fn from_settings(settings: &LimitSettings) -> Self {
        Self::with_clock(settings, &DefaultClock::default())
    }
}

impl<C: Clock + Clone> Limits<C> {
    /// The limits of `settings` on `clock`.
    pub fn with_clock(settings: &LimitSettings, clock: &C) -> Self {
        let per_hour = |n: u32| Quota::per_hour(nonzero(n));
        let per_minute = |n: u32| Quota::per_minute(nonzero(n));
        Self {
            member_questions: RateLimiter::new(
                per_hour(settings.questions_per_member_per_hour),
                HashMapStateStore::default(),
                clock.clone(),
            ),
            group_questions: RateLimiter::new(
                per_minute(settings.questions_per_group_per_minute),
                HashMapStateStore::default(),
                clock.clone(),
            ),
            group_model_calls: RateLimiter::new(
                per_minute(settings.group_model_calls_per_minute),
                InMemoryState::default(),
                clock.clone(),
            ),
            strangers: RateLimiter::new(
                per_hour(settings.stranger_messages_per_hour),
                HashMapStateStore::default(),
                clock.clone(),
            ),
        }
    }

    /// Whether `user` may have a question answered in `chat` now (which
    /// counts it against each limit it passes).
    pub fn admit_question(&self, chat: i64, user: i64) -> Result<(), Limited> {
        self.member_questions
            .check_key(&(chat, user))
            .map_err(|_| Limited::Member)?;
        self.group_questions
            .check_key(&chat)
            .map_err(|_| Limited::Group)?;
        self.group_model_calls
            .check()
            .map_err(|_| Limited::ModelCalls)
    }

    /// Whether a private message from stranger `user` is audited.
    pub fn admit_stranger(&self, user: i64) -> bool {
        self.strangers.check_key(&user).is_ok()
    }
}

/// Settings are validated to be at least 1; a 0 that slipped through
/// still allows one.
fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use governor::clock::FakeRelativeClock;

    use super::*;

    fn limits(clock: &FakeRelativeClock) -> Limits<FakeRelativeClock> {
        let settings = LimitSettings {
            questions_per_member_per_hour: 2,
            questions_per_group_per_minute: 3,
            group_model_calls_per_minute: 4,
            stranger_messages_per_hour: 1,
        };
        Limits::with_clock(&settings, clock)
    }

    #[test]
    fn a_member_a_group_and_all_groups_each_have_their_allowance() {
        let clock = FakeRelativeClock::default();
        let limits = limits(&clock);
        assert_eq!(limits.admit_question(-1, 10), Ok(()));
        assert_eq!(limits.admit_question(-1, 10), Ok(()));
        assert_eq!(limits.admit_question(-1, 10), Err(Limited::Member));
        assert_eq!(limits.admit_question(-1, 11), Ok(()), "another member");
        assert_eq!(
            limits.admit_question(-1, 12),
            Err(Limited::Group),
            "3 a minute per group"
        );
        assert_eq!(limits.admit_question(-2, 20), Ok(()), "another group");
        assert_eq!(
            limits.admit_question(-3, 30),
            Err(Limited::ModelCalls),
            "4 a minute in all"
        );

        clock.advance(Duration::from_secs(60));
        assert_eq!(limits.admit_question(-1, 12), Ok(()), "a minute later");
        assert_eq!(
            limits.admit_question(-1, 10),
            Err(Limited::Member),
            "still within the hour"
        );
    }

    #[test]
    fn a_stranger_is_audited_up_to_the_allowance() {
        let clock = FakeRelativeClock::default();
        let limits = limits(&clock);
        assert!(limits.admit_stranger(7));
        assert!(!limits.admit_stranger(7));
        assert!(limits.admit_stranger(8), "another stranger");
        clock.advance(Duration::from_secs(3600));
        assert!(limits.admit_stranger(7));
    }
}
