//! What a button carries: a short id only (Telegram allows 64 bytes).

use std::str::FromStr;

/// A button's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    Approve(i64),
    Reject(i64),
    /// A decision's option.
    Decide {
        decision: i64,
        option: usize,
    },
    /// One of the Interpreter's guesses for a short message.
    Guess {
        interaction: i64,
        option: usize,
    },
    /// Undo an anti-spam ban (its message becomes ham).
    Unban(i64),
    /// Send an interrupted or failed publication again.
    Resend(i64),
    /// An answered objective's tasks, results and costs.
    Details(i64),
    /// Run an answered objective again.
    Redo(i64),
    /// Start the follow-up an objective's result names.
    FollowUp(i64),
    /// The CEO's answer to a proposal.
    Proposal {
        proposal: i64,
        choice: ProposalChoice,
    },
    /// Forget a profile entry.
    Forget(i64),
    /// A takeover asked in words (the interaction): run its pre-report, or not.
    Takeover {
        interaction: i64,
        run: bool,
    },
    /// A newcomer's answer to their captcha.
    Captcha {
        user: i64,
        answer: i64,
    },
    /// The team's choice of a tied vote's winner.
    VoteTie {
        vote: i64,
        option: usize,
    },
}

/// What the CEO does with a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProposalChoice {
    Accept,
    Decline,
    Later,
}

impl ProposalChoice {
    const ALL: [Self; 3] = [Self::Accept, Self::Decline, Self::Later];

    fn index(self) -> usize {
        match self {
            Self::Accept => 0,
            Self::Decline => 1,
            Self::Later => 2,
        }
    }
}

impl Button {
    /// The `callback_data` text.
    pub fn data(self) -> String {
        match self {
            Self::Approve(id) => format!("va:{id}"),
            Self::Reject(id) => format!("vr:{id}"),
            Self::Decide { decision, option } => format!("d:{decision}:{option}"),
            Self::Guess {
                interaction,
                option,
            } => format!("g:{interaction}:{option}"),
            Self::Unban(sample) => format!("ub:{sample}"),
            Self::Resend(publication) => format!("rs:{publication}"),
            Self::Details(objective) => format!("od:{objective}"),
            Self::Redo(objective) => format!("or:{objective}"),
            Self::FollowUp(objective) => format!("of:{objective}"),
            Self::Proposal { proposal, choice } => format!("p:{proposal}:{}", choice.index()),
            Self::Forget(entry) => format!("pf:{entry}"),
            Self::Takeover { interaction, run } => format!("tk:{interaction}:{}", u8::from(run)),
            Self::Captcha { user, answer } => format!("cap:{user}:{answer}"),
            Self::VoteTie { vote, option } => format!("vt:{vote}:{option}"),
        }
    }
}

impl FromStr for Button {
    type Err = ();

    fn from_str(data: &str) -> Result<Self, ()> {
        let mut parts = data.split(':');
        let kind = parts.next().ok_or(())?;
        let id: i64 = parts.next().ok_or(())?.parse().map_err(|_| ())?;
        let option = parts.next().map(str::parse::<usize>);
        let button = match (kind, option) {
            ("va", None) => Self::Approve(id),
            ("vr", None) => Self::Reject(id),
            ("ub", None) => Self::Unban(id),
            ("rs", None) => Self::Resend(id),
            ("od", None) => Self::Details(id),
            ("or", None) => Self::Redo(id),
            ("of", None) => Self::FollowUp(id),
            ("pf", None) => Self::Forget(id),
            ("p", Some(Ok(choice))) => Self::Proposal {
                proposal: id,
                choice: *ProposalChoice::ALL.get(choice).ok_or(())?,
            },
            ("d", Some(Ok(option))) => Self::Decide {
                decision: id,
                option,
            },
            ("tk", Some(Ok(run @ 0..=1))) => Self::Takeover {
                interaction: id,
                run: run == 1,
            },
            ("cap", Some(Ok(answer))) => Self::Captcha {
                user: id,
                answer: i64::try_from(answer).map_err(|_| ())?,
            },
            ("vt", Some(Ok(option))) => Self::VoteTie { vote: id, option },
            ("g", Some(Ok(option))) => Self::Guess {
                interaction: id,
                option,
            },
            _ => return Err(()),
        };
        match parts.next() {
            None => Ok(button),
            Some(_) => Err(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_button_survives_the_round_trip_within_64_bytes() {
        for button in [
            Button::Approve(i64::MAX),
            Button::Takeover {
                interaction: i64::MAX,
                run: true,
            },
            Button::Takeover {
                interaction: 3,
                run: false,
            },
            Button::Reject(7),
            Button::Unban(i64::MAX),
            Button::Resend(i64::MAX),
            Button::Decide {
                decision: i64::MAX,
                option: 2,
            },
            Button::Guess {
                interaction: i64::MAX,
                option: 1,
            },
            Button::Details(i64::MAX),
            Button::Redo(i64::MAX),
            Button::FollowUp(i64::MAX),
            Button::Forget(i64::MAX),
            Button::Proposal {
                proposal: i64::MAX,
                choice: ProposalChoice::Later,
            },
            Button::Captcha {
                user: i64::MAX,
                answer: 17,
            },
            Button::VoteTie {
                vote: i64::MAX,
                option: 2,
            },
        ] {
            let data = button.data();
            assert!(data.len() <= 64, "{data}");
            assert_eq!(data.parse::<Button>(), Ok(button));
        }
        assert!("va:x".parse::<Button>().is_err());
        assert!("d:1".parse::<Button>().is_err());
        assert!("va:1:2".parse::<Button>().is_err());
        assert!("p:1:3".parse::<Button>().is_err(), "no fourth choice");
    }
}
