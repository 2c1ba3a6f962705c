//! What the bot itself may say in a community group. An answer is held for
//! the team, not sent, when it names an address other than the official
//! ones, links outside the allowed domains, or cites no source: a model
//! tricked by the question (or wrong) must not post a scammer's address.
//! Pure and deterministic, like the rest of the crate.

use crate::content::{foreign_addresses, host_of, is_link};

/// Why an answer is held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerProblem {
    /// An address that is not one of the operation's official addresses.
    ForeignAddress(String),
    /// A link whose host is not an allowed domain (or under one).
    ForeignLink(String),
    /// The answer names no section of the operation's file or FAQ.
    NoSources,
}

impl std::fmt::Display for AnswerProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ForeignAddress(address) => write!(f, "address {address} is not official"),
            Self::ForeignLink(host) => write!(f, "link to {host} is not an allowed domain"),
            Self::NoSources => f.write_str("no source"),
        }
    }
}

/// Every reason to hold `answer`; empty when it may be sent.
pub fn check_answer(
    answer: &str,
    sources: &[String],
    official_addresses: &[String],
    allowed_domains: &[String],
) -> Vec<AnswerProblem> {
    let mut problems: Vec<AnswerProblem> = foreign_addresses(answer, official_addresses)
        .into_iter()
        .map(|a| AnswerProblem::ForeignAddress(a.canonical))
        .collect();
    for word in answer.split_whitespace().filter(|w| is_link(w)) {
        let host = host_of(word);
        if !allowed(&host, allowed_domains) {
            problems.push(AnswerProblem::ForeignLink(host));
        }
    }
    if sources.iter().all(|s| s.trim().is_empty()) {
        problems.push(AnswerProblem::NoSources);
    }
    problems
}

fn allowed(host: &str, domains: &[String]) -> bool {
    domains.iter().any(|domain| {
        let domain = domain.trim().trim_start_matches("www.").to_lowercase();
        !domain.is_empty() && (host == domain || host.ends_with(&format!(".{domain}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const OFFICIAL: &str = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed";
    const FOREIGN: &str = "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359";

    fn problems(answer: &str, sources: &[&str]) -> Vec<AnswerProblem> {
        let sources: Vec<String> = sources.iter().map(|s| (*s).to_owned()).collect();
        check_answer(
            answer,
            &sources,
            &[OFFICIAL.to_owned()],
            &["pepe2.fun".to_owned()],
        )
    }

    #[test]
    fn what_an_answer_may_say_in_a_group() {
        let cases: [(&str, &[&str], Vec<AnswerProblem>); 6] = [
            (
                &format!("The contract is {OFFICIAL}, see https://pepe2.fun/buy"),
                &["scan"],
                vec![],
            ),
            ("Docs live at https://docs.pepe2.fun.", &["faq"], vec![]),
            (
                &format!("Send to {FOREIGN} for the migration"),
                &["faq"],
                vec![AnswerProblem::ForeignAddress(FOREIGN.to_lowercase())],
            ),
            (
                "Claim at https://pepe2-claim.xyz/now",
                &["faq"],
                vec![AnswerProblem::ForeignLink("pepe2-claim.xyz".into())],
            ),
            ("The team is doxxed.", &[], vec![AnswerProblem::NoSources]),
            ("Ask in the group.", &[" "], vec![AnswerProblem::NoSources]),
        ];
        for (answer, sources, expected) in cases {
            assert_eq!(problems(answer, sources), expected, "{answer}");
        }
    }
}
