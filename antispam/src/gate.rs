//! The join gate: a captcha for newcomers, impersonation checked at the
//! door, and raid mode when joins come faster than a group grows (it holds
//! the newcomers, not the group, and ends when quiet or after its maximum).

use crate::behaviour::impersonation;
use crate::policy::{Member, Policy};
use crate::state::{GroupState, PendingCaptcha};
use crate::verdict::{Action, Rule, Verdict};

/// How many buttons a captcha offers (one right answer).
pub const CAPTCHA_CHOICES: usize = 4;

/// A newcomer arrives. Raid mode holds the newcomers only — those of the
/// burst that started it and every one who joins while it lasts — never
/// the members already there. Telegram reports one join twice to an admin
/// bot (the service message and the `chat_member` update): a second join
/// of the same member within the minute is the same join, judged once.
pub fn join(policy: &Policy, state: &mut GroupState, member: &Member, now: i64) -> Verdict {
    let mut verdict = Verdict::default();
    while state.joins.front().is_some_and(|(at, _)| *at <= now - 60) {
        state.joins.pop_front();
    }
    if state.joins.iter().any(|(_, user)| *user == member.id) {
        return verdict;
    }
    state.joins.push_back((now, member.id));
    state.last_join = Some(now);
    if state.raid_since.is_none() && state.joins.len() > policy.raid_joins_per_minute {
        state.raid_since = Some(now);
        verdict.hit(
            Rule::Raid,
            0.0,
            format!("{} joins in a minute", state.joins.len()),
        );
        verdict.actions.push(Action::AlertTeam {
            text: format!(
                "raid: {} joins in a minute; newcomers held until it ends",
                state.joins.len()
            ),
        });
        let burst: Vec<i64> = state.joins.iter().map(|(_, user)| *user).collect();
        for user in burst {
            hold(state, user, &mut verdict);
        }
    } else if state.raid_since.is_some() {
        hold(state, member.id, &mut verdict);
    }
    impersonation(policy, member, &mut verdict);
    if verdict.hits.iter().any(|h| h.rule == Rule::Impersonation) {
        verdict
            .actions
            .push(Action::HoldForReview { user: member.id });
        verdict.actions.push(Action::AlertTeam {
            text: format!(
                "possible impersonation by {} ({})",
                member.display_name, member.id
            ),
        });
        return verdict;
    }
    if policy.captcha && state.raid_since.is_none() {
        let (a, b) = challenge(member.id, now);
        let deadline = now + policy.captcha_seconds;
        state.captchas.insert(
            member.id,
            PendingCaptcha {
                answer: a + b,
                deadline,
                failed: false,
            },
        );
        verdict.hit(Rule::Captcha, 0.0, "captcha asked");
        verdict.actions.push(Action::Captcha {
            user: member.id,
            a,
            b,
            choices: choices(a + b, member.id ^ now),
            deadline,
        });
    }
    verdict
}

/// Holds a raid's newcomer (once) until the raid ends.
fn hold(state: &mut GroupState, user: i64, verdict: &mut Verdict) {
    if !state.raid_held.contains(&user) {
        state.raid_held.push(user);
        // A captcha asked before the raid is moot: the hold replaces it.
        state.captchas.remove(&user);
        verdict.actions.push(Action::HoldNewcomer { user });
    }
}

/// A newcomer answers the captcha: the right sum releases them; a wrong
/// one fails it for good (no second guess: with four buttons, guessing
/// would pass every bot), and they are removed at the deadline.
pub fn answer(state: &mut GroupState, member: &Member, answer: i64) -> Verdict {
    let mut verdict = Verdict::default();
    let Some(pending) = state.captchas.get_mut(&member.id) else {
        return verdict;
    };
    if pending.failed {
        return verdict;
    }
    if pending.answer == answer {
        state.captchas.remove(&member.id);
        verdict.actions.push(Action::Release { user: member.id });
    } else {
        pending.failed = true;
        verdict.hit(
            Rule::Captcha,
            0.0,
            format!("{} answered {answer}, not {}", member.id, pending.answer),
        );
    }
    verdict
}

/// Time passes: unsolved captchas expire, a quiet raid ends.
pub fn tick(policy: &Policy, state: &mut GroupState, now: i64) -> Verdict {
    let mut verdict = Verdict::default();
    let mut expired: Vec<i64> = state
        .captchas
        .iter()
        .filter(|(_, pending)| pending.deadline <= now)
        .map(|(user, _)| *user)
        .collect();
    expired.sort_unstable();
    for user in expired {
        state.captchas.remove(&user);
        verdict.hit(
            Rule::Captcha,
            0.0,
            format!("{user} did not solve the captcha"),
        );
        verdict.actions.push(Action::Kick { user });
    }
    let quiet = state
        .last_join
        .is_none_or(|at| now - at >= policy.raid_quiet_seconds);
    let too_long = state
        .raid_since
        .is_some_and(|since| now - since >= policy.raid_max_seconds);
    if state.raid_since.is_some() && (quiet || too_long) {
        state.raid_since = None;
        for user in std::mem::take(&mut state.raid_held) {
            verdict.actions.push(Action::Release { user });
        }
        verdict.actions.push(Action::AlertTeam {
            text: "raid over: its newcomers may write".into(),
        });
    }
    verdict
}

/// The buttons of a captcha: the right `sum` and three wrong answers near
/// it, in an order fixed by `seed` (the right one is not always first).
fn choices(sum: i64, seed: i64) -> Vec<i64> {
    let mut values = vec![sum];
    let mut step = 1;
    while values.len() < CAPTCHA_CHOICES {
        for candidate in [sum + step, sum - step] {
            if candidate > 0 && values.len() < CAPTCHA_CHOICES {
                values.push(candidate);
            }
        }
        step += 1;
    }
    crate::shuffle::shuffled(values.len(), seed as u64)
        .into_iter()
        .map(|index| values[index])
        .collect()
}

/// Two small numbers, the same for the same member and minute (no randomness
/// here: the engine is deterministic).
fn challenge(user: i64, now: i64) -> (i64, i64) {
    let mix = (user as u64 ^ (now as u64 / 60)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (
        2 + (mix >> 60) as i64 % 8,
        1 + (mix >> 52 & 0xff) as i64 % 9,
    )
}
