//! A community vote counted over both platforms: the totals per option
//! are summed; the most votes win; on a tie, the tied option with the most
//! X votes wins; still tied, the team chooses among them with buttons.
//! Pure: the counts come in, the outcome goes out.

text_enum! {
    /// Where a poll runs.
    pub enum PollPlatform as "poll platform" {
        /// A native poll in the operation's group.
        Telegram => "telegram",
        /// An X poll from the operation's account.
        X => "x",
    }
}

text_enum! {
    /// What settled a vote.
    pub enum DecidedBy as "vote decider" {
        /// One option had the most votes.
        Votes => "votes",
        /// A tie, broken by the X votes.
        XVotes => "x_votes",
        /// Still tied after the X votes: the team chose.
        Team => "team",
    }
}

/// One poll's votes, option by option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PollCount {
    pub platform: PollPlatform,
    pub counts: Vec<u64>,
}

/// How a vote ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VoteResult {
    /// Option `winner` (0-based) won.
    Won { winner: usize, by: DecidedBy },
    /// These options are still tied: the team decides.
    Tied { options: Vec<usize> },
}

/// The vote's totals (both platforms, and X alone) and its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    pub totals: Vec<u64>,
    pub x_totals: Vec<u64>,
    pub result: VoteResult,
}

/// Counts a vote of `options` options. A poll with fewer counts than
/// options adds nothing to the missing ones; extra counts are ignored.
pub fn tally(options: usize, polls: &[PollCount]) -> Tally {
    let mut totals = vec![0_u64; options];
    let mut x_totals = vec![0_u64; options];
    for poll in polls {
        for (option, votes) in poll.counts.iter().take(options).enumerate() {
            totals[option] += votes;
            if poll.platform == PollPlatform::X {
                x_totals[option] += votes;
            }
        }
    }
    let leaders = best(&totals, 0..options);
    let result = match leaders.as_slice() {
        [winner] => VoteResult::Won {
            winner: *winner,
            by: DecidedBy::Votes,
        },
        tied => match best(&x_totals, tied.iter().copied()).as_slice() {
            [winner] => VoteResult::Won {
                winner: *winner,
                by: DecidedBy::XVotes,
            },
            still => VoteResult::Tied {
                options: still.to_vec(),
            },
        },
    };
    Tally {
        totals,
        x_totals,
        result,
    }
}

/// The options among `among` with the highest count.
fn best(counts: &[u64], among: impl Iterator<Item = usize> + Clone) -> Vec<usize> {
    let top = among.clone().filter_map(|i| counts.get(i)).max().copied();
    among.filter(|&i| counts.get(i).copied() == top).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poll(platform: PollPlatform, counts: &[u64]) -> PollCount {
        PollCount {
            platform,
            counts: counts.to_vec(),
        }
    }

    #[test]
    fn votes_are_summed_and_ties_go_to_x_then_to_the_team() {
        use PollPlatform::{Telegram as Tg, X};
        let cases: &[(&str, Vec<PollCount>, VoteResult)] = &[
            (
                "the most votes over both platforms win",
                vec![poll(Tg, &[5, 1, 0]), poll(X, &[0, 3, 1])],
                VoteResult::Won {
                    winner: 0,
                    by: DecidedBy::Votes,
                },
            ),
            (
                "a tie is broken by the X votes",
                vec![poll(Tg, &[6, 2, 0]), poll(X, &[1, 5, 1])],
                VoteResult::Won {
                    winner: 1,
                    by: DecidedBy::XVotes,
                },
            ),
            (
                "the X votes only choose among the tied options",
                vec![poll(Tg, &[4, 4, 0]), poll(X, &[1, 1, 3])],
                VoteResult::Tied {
                    options: vec![0, 1],
                },
            ),
            (
                "a three-way tie, two of them tied on X too: the team decides between those",
                vec![poll(Tg, &[1, 1, 2]), poll(X, &[2, 2, 1])],
                VoteResult::Tied {
                    options: vec![0, 1],
                },
            ),
            (
                "no vote at all is a tie of every option",
                vec![],
                VoteResult::Tied {
                    options: vec![0, 1, 2],
                },
            ),
            (
                "Telegram alone still counts",
                vec![poll(Tg, &[0, 0, 7])],
                VoteResult::Won {
                    winner: 2,
                    by: DecidedBy::Votes,
                },
            ),
        ];
        for (case, polls, expected) in cases {
            assert_eq!(&tally(3, polls).result, expected, "{case}");
        }
        let counted = tally(3, &[poll(Tg, &[6, 2, 0]), poll(X, &[1, 5, 1])]);
        assert_eq!(counted.totals, [7, 7, 1], "summed over both platforms");
        assert_eq!(counted.x_totals, [1, 5, 1]);
    }
}
