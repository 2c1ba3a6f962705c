//! # Layout
//!
//! `ulias-antispam` is the deterministic anti-spam engine for community
//! groups: [`check`] is a pure function of a group's [`CompiledPolicy`], its
//! [`GroupState`], one [`Event`] and the time passed in. No I/O, no async,
//! no clock, no model, and no dependency on any other crate of ours.
//!
//! - [`normalize`]: invisible characters, NFKC, confusables skeleton,
//!   words mixing alphabets.
//! - [`address`]: EVM (EIP-55), Solana (base58, 32 bytes), TON addresses.
//! - [`scam`]: crypto-scam families that stand alone (fake support, seed
//!   phrase, wallet drainers, giveaways, fund recovery, contact off
//!   Telegram, presale offers, fake official events, investment, jobs paid
//!   in crypto, adult and dating, gambling, hyped offers, listings and
//!   audits sold to admins for a fee, loans, accounts, cash and bank
//!   cards traded in private) in en, fr, es, pt, de, ru, tr; each is a
//!   lure and a way out (bait, "write to me", "who wants it?"), not a
//!   phrase. A warning ("always a scam", "es timo") with no bait, or
//!   naming the scammer's account, or citing a wallet's own site, is
//!   never deleted, by them or by the classifier.
//! - [`content`]: phrase families (en, fr, ru), stop phrases, links and
//!   their domains, only-a-link or only-a-mention, sending people to an
//!   account, shouting, forwards, emoji.
//! - [`behaviour`]: flood, campaigns, impersonation of admins.
//! - [`gate`]: the captcha on join and raid mode.
//! - [`verdict`]: every rule that fired, and the actions, graduated
//!   (delete → mute → ban) and shaped by the group's mode.
//!
//! - [`language`]: which language a message is in, roughly, so the
//!   classifier only judges languages it saw ordinary talk in.
//! - [`model`]: a classifier over spam and ham samples (logistic
//!   regression over hashed words and pieces of words), and an index of
//!   known spam for near-duplicates.
//! - [`learning`]: which clean messages of trusted members become ham
//!   samples, and what a sample needs to be learned (poisoning).
//! - [`eval`]: cross-validation and train/test figures.
//! - [`community`]: which messages are questions for the TG Bot agent, and
//!   the weekly moderator shortlist.

pub mod address;
pub mod answer_check;
pub mod behaviour;
pub mod community;
pub mod content;
pub mod eval;
pub mod gate;
pub mod language;
pub mod learning;
pub mod model;
pub mod normalize;
pub mod policy;
pub mod scam;
mod shuffle;
pub mod state;
pub mod verdict;

pub use policy::{Event, Member, Message, Mode, Policy, Sender};
pub use state::{GroupState, PendingCaptcha};
pub use verdict::{Action, Hit, Rule, Verdict};

use std::sync::Arc;

use content::Phrases;
use model::SpamModel;
use scam::ScamRules;

/// Seconds in a day: strikes older than this are forgiven.
const STRIKE_MEMORY: i64 = 86_400;

/// A policy with its phrase matcher built once, and the shared model.
pub struct CompiledPolicy {
    pub policy: Policy,
    phrases: Phrases,
    scams: ScamRules,
    model: Option<Arc<SpamModel>>,
}

/// A policy that cannot be compiled.
#[derive(Debug)]
pub struct PolicyError(String);

impl std::fmt::Display for PolicyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the group's phrase rules cannot be compiled: {}", self.0)
    }
}

impl std::error::Error for PolicyError {}

impl CompiledPolicy {
    /// Builds the phrase matcher for `policy`.
    pub fn new(policy: Policy) -> Result<Self, PolicyError> {
        let phrases = Phrases::new(&policy.stop_phrases).map_err(|e| PolicyError(e.to_string()))?;
        let scams = ScamRules::new().map_err(|e| PolicyError(e.to_string()))?;
        Ok(Self {
            policy,
            phrases,
            scams,
            model: None,
        })
    }

    /// The same, judging with a trained model too.
    pub fn with_model(policy: Policy, model: Arc<SpamModel>) -> Result<Self, PolicyError> {
        let mut compiled = Self::new(policy)?;
        compiled.model = Some(model);
        Ok(compiled)
    }
}

/// Judges one event. `now` is Unix seconds.
pub fn check(
    compiled: &CompiledPolicy,
    state: &mut GroupState,
    event: &Event,
    now: i64,
) -> Verdict {
    let policy = &compiled.policy;
    let mut verdict = match event {
        Event::Message(message) | Event::Edited(message) => judge_message(
            compiled,
            state,
            message,
            matches!(event, Event::Edited(_)),
            now,
        ),
        Event::Join(member) => gate::join(policy, state, member, now),
        Event::NameChange(member) => {
            let mut verdict = Verdict::default();
            behaviour::impersonation(policy, member, &mut verdict);
            if !verdict.hits.is_empty() {
                hold_for_review(member, &mut verdict);
            }
            verdict
        }
        Event::Reaction { .. } => Verdict::default(),
        Event::CaptchaAnswer { member, answer } => gate::answer(state, member, *answer),
        Event::Tick => gate::tick(policy, state, now),
    };
    if policy.mode == policy::Mode::DryRun && !verdict.actions.is_empty() {
        verdict.dry_run = true;
    }
    verdict
}

fn judge_message(
    compiled: &CompiledPolicy,
    state: &mut GroupState,
    message: &Message,
    edited: bool,
    now: i64,
) -> Verdict {
    let policy = &compiled.policy;
    let mut verdict = Verdict::default();
    let sender = &message.sender;
    let id = sender.judged_id();
    let is_admin =
        sender.as_channel.is_none() && policy.admins.iter().any(|a| a.id == sender.member.id);
    if is_admin {
        return verdict;
    }
    let foreign = content::foreign_addresses(&message.text, &policy.official_addresses);
    let posted = foreign
        .iter()
        .find(|address| !content::asks_about_its_page(&message.text, address));
    if let Some(address) = posted {
        verdict.hit(
            Rule::ForeignAddress,
            10.0,
            format!("{:?} address {}", address.chain, address.text),
        );
        verdict.actions = vec![
            Action::Delete {
                message: message.id,
            },
            ban_or_mute(policy, id, now),
            Action::RemindOfficialAddress,
        ];
        return verdict;
    }
    let text = normalize::normalize(&message.text);
    let trusted = state.is_trusted(id, policy.trust_after);
    compiled.phrases.judge(&text, trusted, &mut verdict);
    let tone = compiled
        .scams
        .judge(&text, &policy.allowed_domains, trusted, &mut verdict);
    // "The team will never contact you in DM" names what it warns of, as
    // "that «remote job for USDT» is a scam" does: with a model or without,
    // the phrases it names are one vote between them, so that with the
    // classifier's a warning stays under a deletion.
    if tone == scam::Tone::Warning {
        verdict.cap_together(
            &[Rule::DmScam, Rule::EasyMoney, Rule::Promotion],
            0.5,
            "a warning, with no link or contact",
        );
    }
    if let Some(model) = compiled.model.as_deref().filter(|_| !trusted) {
        model.judge(&text, &mut verdict);
        match tone {
            scam::Tone::Warning => {
                verdict.cap(Rule::Classifier, 1.0, "a warning, with no link or contact");
            }
            scam::Tone::Question => {
                verdict.cap(Rule::Classifier, 1.0, "a question, with no link or contact");
            }
            scam::Tone::AtHome => {
                verdict.cap(
                    Rule::Classifier,
                    1.0,
                    "sends nobody out of the group or off the operation's site",
                );
            }
            scam::Tone::Plain => {}
        }
        let asks_the_bot = policy.bot_username.as_deref().is_some_and(|bot| {
            message
                .text
                .to_lowercase()
                .contains(&format!("@{}", bot.to_lowercase()))
                && community::is_question(&message.text, bot)
        });
        if asks_the_bot {
            verdict.cap(Rule::Classifier, 1.0, "a question put to the bot");
        }
    }
    if content::answers_by_name(&text.text) {
        verdict.cap(Rule::Classifier, 1.0, "an answer to someone named first");
        verdict.cap(Rule::DmScam, 0.5, "an answer to someone named first");
    }
    if !trusted {
        content::judge_form(
            &text,
            message.forwarded,
            &policy.allowed_domains,
            policy.max_emoji,
            &mut verdict,
        );
        if !edited {
            behaviour::campaign(policy, state, id, &text.skeleton, now, &mut verdict);
        }
    }
    if !edited {
        behaviour::flood(policy, state, id, now, &mut verdict);
    }
    graduate(policy, state, id, message, now, &mut verdict);
    verdict
}

/// Delete from a score of 2; mute from 3.5 or on a second strike within a
/// day; ban from 5 or on a third strike. Soft mode mutes instead of banning.
fn graduate(
    policy: &Policy,
    state: &mut GroupState,
    id: i64,
    message: &Message,
    now: i64,
    verdict: &mut Verdict,
) {
    let score = verdict.score();
    let member = state.member(id);
    member.first_seen.get_or_insert(now);
    while member
        .strikes
        .front()
        .is_some_and(|at| *at <= now - STRIKE_MEMORY)
    {
        member.strikes.pop_front();
    }
    if score < 2.0 {
        if verdict.hits.is_empty() && message.text.chars().count() >= policy.trust_min_chars {
            member.clean += 1;
        }
        return;
    }
    member.strikes.push_back(now);
    member.strikes_ever += 1;
    let strikes = member.strikes.len();
    verdict.actions.push(Action::Delete {
        message: message.id,
    });
    if score >= 5.0 || strikes >= 3 {
        verdict.actions.push(ban_or_mute(policy, id, now));
    } else if score >= 3.5 || strikes >= 2 {
        verdict.actions.push(Action::Mute {
            user: id,
            until: now + policy.mute_seconds,
        });
    }
}

fn ban_or_mute(policy: &Policy, id: i64, now: i64) -> Action {
    match policy.mode {
        policy::Mode::Soft => Action::Mute {
            user: id,
            until: now + 30 * STRIKE_MEMORY,
        },
        _ => Action::Ban { user: id },
    }
}

fn hold_for_review(member: &Member, verdict: &mut Verdict) {
    verdict
        .actions
        .push(Action::HoldForReview { user: member.id });
    let details = verdict
        .hits
        .iter()
        .map(|h| h.details.as_str())
        .collect::<Vec<_>>()
        .join("; ");
    verdict.actions.push(Action::AlertTeam {
        text: format!(
            "possible impersonation by {} ({}): {details}",
            member.display_name, member.id
        ),
    });
}
