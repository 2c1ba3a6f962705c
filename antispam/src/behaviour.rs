//! Behaviour rules: how a member acts, not what one message says.

use strsim::jaro_winkler;

use crate::normalize::skeleton_of;
use crate::policy::{Member, Policy};
use crate::state::GroupState;
use crate::verdict::{Rule, Verdict};

/// How close (Jaro-Winkler, on skeletons) a name may come to an admin's.
pub const IMPERSONATION_SIMILARITY: f64 = 0.9;

/// Words that claim authority in a name.
const AUTHORITY_WORDS: &[&str] = &[
    "admin",
    "administrator",
    "support",
    "mod",
    "mods",
    "moderator",
    "helpdesk",
];

/// More than `flood_messages` within `flood_seconds`.
pub fn flood(policy: &Policy, state: &mut GroupState, id: i64, now: i64, verdict: &mut Verdict) {
    let member = state.member(id);
    member.recent.push_back(now);
    while member
        .recent
        .front()
        .is_some_and(|at| *at <= now - policy.flood_seconds)
    {
        member.recent.pop_front();
    }
    if member.recent.len() > policy.flood_messages {
        verdict.hit(
            Rule::Flood,
            2.0,
            format!(
                "{} messages in {} s",
                member.recent.len(),
                policy.flood_seconds
            ),
        );
    }
}

/// The same normalised text from several untrusted members within the window.
pub fn campaign(
    policy: &Policy,
    state: &mut GroupState,
    id: i64,
    skeleton: &str,
    now: i64,
    verdict: &mut Verdict,
) {
    let mut key = String::with_capacity(skeleton.len());
    for word in skeleton.split_whitespace() {
        if !key.is_empty() {
            key.push(' ');
        }
        key.push_str(word);
    }
    if key.chars().nth(11).is_none() {
        return; // "gm", "thanks": short texts repeat innocently.
    }
    state.forget_before(now - policy.campaign_seconds);
    let posts = state.texts.entry(key).or_default();
    if !posts.iter().any(|(user, _)| *user == id) {
        posts.push((id, now));
    }
    if posts.len() >= policy.campaign_users {
        verdict.hit(
            Rule::Campaign,
            3.0,
            format!("the same text from {} new members", posts.len()),
        );
    }
}

/// A display name or username too close to an admin's, or claiming authority.
pub fn impersonation(policy: &Policy, member: &Member, verdict: &mut Verdict) {
    if policy.admins.iter().any(|admin| admin.id == member.id) {
        return;
    }
    let names: Vec<String> = std::iter::once(member.display_name.as_str())
        .chain(member.username.as_deref())
        .map(|name| skeleton_of(&name.to_lowercase()))
        .collect();
    for admin in &policy.admins {
        let admin_names: Vec<String> = std::iter::once(admin.display_name.as_str())
            .chain(admin.username.as_deref())
            .map(|name| skeleton_of(&name.to_lowercase()))
            .collect();
        for name in &names {
            for admin_name in &admin_names {
                let similarity = jaro_winkler(name, admin_name);
                if similarity >= IMPERSONATION_SIMILARITY {
                    verdict.hit(
                        Rule::Impersonation,
                        3.0,
                        format!("\"{name}\" looks like admin \"{admin_name}\" ({similarity:.2})"),
                    );
                    return;
                }
            }
        }
    }
    for name in &names {
        let claims = name
            .split(|c: char| !crate::normalize::is_letter_or_digit(c))
            .find(|word| AUTHORITY_WORDS.iter().any(|w| skeleton_of(w) == *word));
        if let Some(word) = claims {
            verdict.hit(
                Rule::Impersonation,
                3.0,
                format!("\"{name}\" claims to be {word}"),
            );
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: i64, name: &str, username: Option<&str>) -> Member {
        Member {
            id,
            display_name: name.into(),
            username: username.map(str::to_owned),
        }
    }

    fn policy() -> Policy {
        Policy {
            admins: vec![member(1, "Alice Martin", Some("alice_martin"))],
            ..Policy::default()
        }
    }

    fn judged(candidate: &Member) -> Vec<&'static str> {
        let mut verdict = Verdict::default();
        impersonation(&policy(), candidate, &mut verdict);
        verdict.rules()
    }

    #[test]
    fn names_close_to_an_admins_or_claiming_authority_are_impersonation() {
        assert_eq!(judged(&member(9, "Alice Martín", None)), ["impersonation"]);
        assert_eq!(
            judged(&member(9, "x", Some("a1ice_martin"))),
            ["impersonation"]
        );
        assert_eq!(
            judged(&member(9, "Al\u{0456}ce Martin", None)),
            ["impersonation"]
        );
        assert_eq!(judged(&member(9, "Token Support", None)), ["impersonation"]);
        assert_eq!(
            judged(&member(9, "Bob", Some("official_admin"))),
            ["impersonation"]
        );
    }

    #[test]
    fn ordinary_names_and_the_admin_herself_are_left_alone() {
        assert!(judged(&member(9, "Bob Durand", Some("bobd"))).is_empty());
        assert!(judged(&member(9, "Modern Art Fan", None)).is_empty());
        assert!(judged(&member(1, "Alice Martin", Some("alice_martin"))).is_empty());
    }
}
