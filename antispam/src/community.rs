//! The community side of a group: which messages are questions for the TG
//! Bot agent, and the weekly shortlist of possible moderators.

use crate::state::GroupState;

/// Only questions reach the TG Bot agent: a message ending with "?" (any
/// script's question mark) or mentioning the bot. Everything else is chat.
pub fn is_question(text: &str, bot_username: &str) -> bool {
    let trimmed = text.trim_end_matches(|c: char| c.is_whitespace() || "!)".contains(c));
    let asks = trimmed.ends_with(['?', '？', '؟', ';']);
    let mention = format!("@{}", bot_username.trim_start_matches('@').to_lowercase());
    asks || text.to_lowercase().contains(&mention)
}

/// A member worth proposing as a moderator, and why: clean messages over
/// weeks, never moderated (the bot words it in the team's language).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub member: i64,
    pub clean: u32,
    pub weeks: i64,
}

/// Seconds in a week.
const WEEK: i64 = 7 * 86_400;

/// At most `limit` (5 in the playbook) members with a clean history, here
/// at least two weeks, most active first, each with a reason.
pub fn moderator_shortlist(state: &GroupState, now: i64, limit: usize) -> Vec<Candidate> {
    let mut eligible: Vec<(i64, u32, i64)> = state
        .members
        .iter()
        .filter(|(_, m)| m.strikes_ever == 0 && m.first_seen.is_some_and(|at| now - at >= 2 * WEEK))
        .filter(|(_, m)| m.clean >= 20)
        .map(|(id, m)| (*id, m.clean, m.first_seen.unwrap_or(now)))
        .collect();
    eligible.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)).then(a.0.cmp(&b.0)));
    eligible
        .into_iter()
        .take(limit.min(5))
        .map(|(member, clean, first_seen)| Candidate {
            member,
            clean,
            weeks: (now - first_seen) / WEEK,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_and_mentions_reach_the_bot_and_chat_does_not() {
        assert!(is_question("What is the official address?", "ulias_bot"));
        assert!(is_question("c'est quoi le ticker ?  ", "ulias_bot"));
        assert!(is_question("@Ulias_Bot tokenomics please", "ulias_bot"));
        assert!(!is_question(
            "send funds to 0xabc and get double",
            "ulias_bot"
        ));
        assert!(!is_question("gm everyone", "ulias_bot"));
    }

    #[test]
    fn the_shortlist_has_at_most_five_clean_regulars_each_with_a_reason() {
        let mut state = GroupState::default();
        let now = 100 * WEEK;
        for id in 0..8 {
            let member = state.member(id);
            member.first_seen = Some(now - 3 * WEEK);
            member.clean = 20 + id as u32;
        }
        state.member(3).strikes_ever = 1; // deleted once: not a moderator
        state.member(100).first_seen = Some(now - 86_400);
        state.member(100).clean = 500; // too new
        let list = moderator_shortlist(&state, now, 10);
        let ids: Vec<i64> = list.iter().map(|c| c.member).collect();
        assert_eq!(ids, [7, 6, 5, 4, 2]);
        assert_eq!((list[0].clean, list[0].weeks), (27, 3));
    }
}
