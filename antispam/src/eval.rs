//! Evaluation: k-fold cross-validation with a fixed seed, training on one
//! set and testing on another, or the rules alone (no trained model, as on
//! a deployment's first day). A message counts as caught when the engine,
//! seeing it from a new member (or from a trusted one), deletes it.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::SpamModel;
use crate::policy::{Event, Member, Message, Mode, Policy, Sender};
use crate::shuffle::shuffled;
use crate::state::GroupState;
use crate::verdict::Action;
use crate::{CompiledPolicy, PolicyError, check};

/// The figures of one evaluation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub spam: usize,
    pub ham: usize,
    pub caught: usize,
    pub false_positives: usize,
    /// Each false positive, with the rules that fired on it.
    pub false_positive_details: Vec<(String, Vec<&'static str>)>,
    /// Each spam that went through, with the rules that fired short of deleting it.
    pub missed: Vec<(String, Vec<&'static str>)>,
    /// Per rule: the spam it fired on, and the ham it fired on that was deleted.
    pub rules: BTreeMap<&'static str, RuleCount>,
}

/// What one rule did in an evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RuleCount {
    /// Spam messages it fired on.
    pub spam: usize,
    /// Ham messages it fired on that were deleted (its false positives).
    pub false_positives: usize,
}

/// Who posts the tested messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Poster {
    /// A member seen for the first time.
    #[default]
    Newcomer,
    /// A member trusted by their clean messages.
    Member,
}

/// How an evaluation judges.
#[derive(Debug, Clone, Default)]
pub struct Setup {
    /// The operation's official addresses: not a scam when posted.
    pub official: Vec<String>,
    /// The operation's own sites (`example.org`): a link there is no
    /// stranger's link, as in the group's policy.
    pub allowed_domains: Vec<String>,
    pub poster: Poster,
}

impl Report {
    pub fn recall(&self) -> f64 {
        ratio(self.caught, self.spam)
    }

    pub fn precision(&self) -> f64 {
        ratio(self.caught, self.caught + self.false_positives)
    }

    pub fn false_positive_rate(&self) -> f64 {
        ratio(self.false_positives, self.ham)
    }

    fn add(&mut self, other: Report) {
        self.spam += other.spam;
        self.ham += other.ham;
        self.caught += other.caught;
        self.false_positives += other.false_positives;
        self.false_positive_details
            .extend(other.false_positive_details);
        self.missed.extend(other.missed);
        for (rule, count) in other.rules {
            let mine = self.rules.entry(rule).or_default();
            mine.spam += count.spam;
            mine.false_positives += count.false_positives;
        }
    }

    fn count(&mut self, rules: &[&'static str], spam: bool, deleted: bool) {
        for rule in rules {
            let count = self.rules.entry(rule).or_default();
            if spam {
                count.spam += 1;
            } else if deleted {
                count.false_positives += 1;
            }
        }
    }
}

fn ratio(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// The policy evaluations run under: normal mode, the given official
/// addresses and allowed domains, no stop phrases.
fn evaluation_policy(setup: &Setup) -> Policy {
    Policy {
        mode: Mode::Normal,
        official_addresses: setup.official.clone(),
        allowed_domains: setup.allowed_domains.clone(),
        ..Policy::default()
    }
}

/// Trains on `train_*`, tests on `test_*`.
pub fn train_and_test(
    train_spam: &[String],
    train_ham: &[String],
    test_spam: &[String],
    test_ham: &[String],
    setup: &Setup,
) -> Result<Report, PolicyError> {
    let model = Arc::new(SpamModel::train(train_spam, train_ham));
    let compiled = CompiledPolicy::with_model(evaluation_policy(setup), model)?;
    Ok(test(&compiled, test_spam, test_ham, setup.poster))
}

/// The rules alone, with no trained model: a deployment's first day.
pub fn rules_only(spam: &[String], ham: &[String], setup: &Setup) -> Result<Report, PolicyError> {
    let compiled = CompiledPolicy::new(evaluation_policy(setup))?;
    Ok(test(&compiled, spam, ham, setup.poster))
}

fn test(compiled: &CompiledPolicy, spam: &[String], ham: &[String], poster: Poster) -> Report {
    let mut report = Report {
        spam: spam.len(),
        ham: ham.len(),
        ..Report::default()
    };
    for text in spam {
        let (deleted, rules) = is_deleted(compiled, text, poster);
        report.count(&rules, true, deleted);
        match deleted {
            true => report.caught += 1,
            false => report.missed.push((text.clone(), rules)),
        }
    }
    for text in ham {
        let (deleted, rules) = is_deleted(compiled, text, poster);
        report.count(&rules, false, deleted);
        if deleted {
            report.false_positives += 1;
            report.false_positive_details.push((text.clone(), rules));
        }
    }
    report
}

/// `folds`-fold cross-validation, shuffled with `seed`.
pub fn cross_validate(
    spam: &[String],
    ham: &[String],
    folds: usize,
    seed: u64,
    setup: &Setup,
) -> Result<Report, PolicyError> {
    let folds = folds.max(2);
    let spam_order = shuffled(spam.len(), seed);
    let ham_order = shuffled(ham.len(), seed.wrapping_add(1));
    let mut total = Report::default();
    for fold in 0..folds {
        let (test_spam, train_spam) = split(spam, &spam_order, fold, folds);
        let (test_ham, train_ham) = split(ham, &ham_order, fold, folds);
        total.add(train_and_test(
            &train_spam,
            &train_ham,
            &test_spam,
            &test_ham,
            setup,
        )?);
    }
    Ok(total)
}

fn is_deleted(compiled: &CompiledPolicy, text: &str, poster: Poster) -> (bool, Vec<&'static str>) {
    let mut state = GroupState::default();
    if poster == Poster::Member {
        state.member(1_000_000).clean = compiled.policy.trust_after;
    }
    let event = Event::Message(Message {
        id: 1,
        sender: Sender {
            member: Member {
                id: 1_000_000,
                display_name: "newcomer".into(),
                username: None,
            },
            as_channel: None,
        },
        text: text.to_owned(),
        forwarded: false,
    });
    let verdict = check(compiled, &mut state, &event, 0);
    let deleted = verdict
        .actions
        .iter()
        .any(|a| matches!(a, Action::Delete { .. }));
    (deleted, verdict.rules())
}

fn split(
    items: &[String],
    order: &[usize],
    fold: usize,
    folds: usize,
) -> (Vec<String>, Vec<String>) {
    let (mut test, mut train) = (Vec::new(), Vec::new());
    for (position, index) in order.iter().enumerate() {
        let item = items[*index].clone();
        if position % folds == fold {
            test.push(item)
        } else {
            train.push(item)
        }
    }
    (test, train)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_validation_tests_every_message_once() {
        let spam: Vec<String> = (0..10)
            .map(|i| format!("DM me for the presale whitelist spot {i}"))
            .collect();
        let ham: Vec<String> = (0..20)
            .map(|i| format!("thanks for the update on the roadmap {i}"))
            .collect();
        let report = cross_validate(&spam, &ham, 5, 7, &Setup::default()).unwrap();
        assert_eq!((report.spam, report.ham), (10, 20));
        assert_eq!(report.recall(), 1.0);
        assert_eq!(report.false_positives, 0);
    }
}
