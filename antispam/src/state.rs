//! What the engine remembers about a group between events. The bot keeps
//! one per group; everything in it is bounded by the policy's windows.

use std::collections::{HashMap, VecDeque};

/// One member's recent history.
#[derive(Debug, Clone, Default)]
pub struct MemberState {
    /// When their recent messages were sent (within the flood window).
    pub recent: VecDeque<i64>,
    /// Clean messages long enough to count toward trust.
    pub clean: u32,
    /// When they were last penalised (for graduated actions), last day only.
    pub strikes: VecDeque<i64>,
    /// Penalties ever (the moderator shortlist wants none).
    pub strikes_ever: u32,
    /// When they were first seen writing.
    pub first_seen: Option<i64>,
}

/// A pending captcha.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingCaptcha {
    pub answer: i64,
    pub deadline: i64,
    /// A wrong button was pressed: no other answer counts.
    pub failed: bool,
}

/// A group's memory.
#[derive(Debug, Clone, Default)]
pub struct GroupState {
    pub members: HashMap<i64, MemberState>,
    /// Normalised texts recently posted by untrusted members: who and when.
    pub texts: HashMap<String, Vec<(i64, i64)>>,
    /// Joins within the last minute: when, and who.
    pub joins: VecDeque<(i64, i64)>,
    /// The last join, for ending raid mode after a quiet period.
    pub last_join: Option<i64>,
    /// Set while raid mode is on.
    pub raid_since: Option<i64>,
    /// The newcomers held (may not write) until the raid ends.
    pub raid_held: Vec<i64>,
    pub captchas: HashMap<i64, PendingCaptcha>,
}

impl GroupState {
    /// The member's state, created on first sight.
    pub fn member(&mut self, id: i64) -> &mut MemberState {
        self.members.entry(id).or_default()
    }

    /// Whether `id` has earned trust.
    pub fn is_trusted(&self, id: i64, trust_after: u32) -> bool {
        self.members
            .get(&id)
            .is_some_and(|m| m.clean >= trust_after)
    }

    /// Forgets what is older than the windows, so memory stays bounded.
    pub fn forget_before(&mut self, cutoff: i64) {
        self.texts.retain(|_, posts| {
            posts.retain(|(_, at)| *at >= cutoff);
            !posts.is_empty()
        });
    }
}
