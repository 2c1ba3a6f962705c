//! The join gate: a captcha for newcomers, impersonation checked at the
//! door, and raid mode when joins come faster than a group grows.

use crate::behaviour::impersonation;
use crate::policy::{Member, Policy};
use crate::state::{GroupState, PendingCaptcha};
use crate::verdict::{Action, Rule, Verdict};

/// A newcomer arrives.
pub fn join(policy: &Policy, state: &mut GroupState, member: &Member, now: i64) -> Verdict {
    let mut verdict = Verdict::default();
    state.joins.push_back(now);
    while state.joins.front().is_some_and(|at| *at <= now - 60) {
        state.joins.pop_front();
    }
    state.last_join = Some(now);
    if state.raid_since.is_none() && state.joins.len() > policy.raid_joins_per_minute {
        state.raid_since = Some(now);
        verdict.hit(
            Rule::Raid,
            0.0,
            format!("{} joins in a minute", state.joins.len()),
        );
        verdict.actions.push(Action::LockNewMembers);
        verdict.actions.push(Action::AlertTeam {
            text: format!(
                "raid: {} joins in a minute; new members restricted",
                state.joins.len()
            ),
        });
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
            },
        );
        verdict.hit(Rule::Captcha, 0.0, "captcha asked");
        verdict.actions.push(Action::Captcha {
            user: member.id,
            a,
            b,
            deadline,
        });
    }
    verdict
}

/// A newcomer answers the captcha: the right sum releases them.
pub fn answer(state: &mut GroupState, member: &Member, answer: i64) -> Verdict {
    let mut verdict = Verdict::default();
    if state
        .captchas
        .get(&member.id)
        .is_some_and(|pending| pending.answer == answer)
    {
        state.captchas.remove(&member.id);
        verdict.actions.push(Action::Release { user: member.id });
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
    if state.raid_since.is_some() && quiet {
        state.raid_since = None;
        verdict.actions.push(Action::UnlockNewMembers);
        verdict.actions.push(Action::AlertTeam {
            text: "raid over: new members may write again".into(),
        });
    }
    verdict
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
