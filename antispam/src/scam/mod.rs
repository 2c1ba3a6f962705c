//! Crypto-scam families that stand alone: each is a combination of
//! concepts (written in [`terms`] in seven languages) and of bait — a link
//! outside the group's domains, an account, a phone number, an e-mail, a
//! messenger outside Telegram. A newcomer's message that clearly belongs to
//! a family is deleted on that family alone; a trusted member's only when it
//! carries bait, and never more than deleted (strikes graduate the rest).
//!
//! Protective messages ("admins never DM you first", "never share your seed
//! phrase") and questions do not fire a family unless they carry bait: the
//! same words wrapped around a contact or a link are the scam.

mod amounts;
mod bait;
mod families;
mod terms;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

pub use bait::Bait;

use crate::normalize::{Normalized, skeleton_of};
use crate::verdict::Verdict;
use families::families;

/// What a family alone scores for a newcomer: enough to delete.
const NEWCOMER_SCORE: f32 = 2.5;
/// What it scores for a trusted member: delete, and a strike.
const TRUSTED_SCORE: f32 = 2.0;

/// An idea a scam is made of, whatever the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Concept {
    /// Support, admin, moderator: who a scammer pretends to be.
    Staff,
    /// Taking the talk to private messages ("DM me", "écrivez-moi").
    GoPrivate,
    /// Seed phrase, private key, recovery phrase.
    Secret,
    /// Send, share, enter, type.
    HandOver,
    Wallet,
    /// Synchronise, validate, rectify, unlock.
    Repair,
    /// Suspended, locked, frozen.
    Threat,
    /// Double, x2, twice.
    Double,
    Giveaway,
    /// Recover, get back.
    Recover,
    /// Lost, scammed, stolen.
    Loss,
    /// Presale, private sale, whitelist, allocation.
    Presale,
    /// Migration, snapshot, airdrop, claim, compensation.
    OfficialEvent,
    /// Account managers, guaranteed or daily returns.
    Returns,
    Pump,
    /// WhatsApp and other messengers.
    OffPlatform,
    /// Never, beware, reminder, report, fake.
    Protective,
    /// Thanks to, recommend, legit: praise for a person or a platform.
    Credit,
    /// Click here, the link below, this link: pointing at a link.
    Pointer,
    /// Trouble, stuck, pending, error.
    Problem,
    /// Bonus, extra or free tokens.
    Bonus,
    /// Limited time, don't miss, exclusive, last chance.
    Hype,
    /// Made, earned, withdrew, profit: what a testimonial claims.
    Gain,
    /// Trading, arbitrage and MEV bots.
    Bot,
    /// Hiring, remote work, part-time.
    Job,
    /// USDT, per day, per hour: how a job is paid.
    Pay,
    /// Escorts, intimate photos, dating.
    Adult,
    /// Casinos, betting, free spins, promo codes.
    Gambling,
    /// No scam, 100% legit, no delay: reassurance no warning gives.
    Reassure,
    /// Everyone in this group, dear members, calling all.
    GroupAddress,
    /// Verify, confirm, check: what a secret is asked "for".
    Verify,
    /// Girls, women, singles: who dating spam shows.
    Girls,
    /// Meeting, dates, tonight, private videos: what it offers with them.
    Dating,
    /// Scam, fake, beware, "es timo": a scam called by its name.
    Denounce,
    /// Receive, get back, получи: what a giveaway promises for what is sent.
    Receive,
    /// Less sent than promised back ("send 0.05 ETH, get 0.15 ETH").
    MoreBack,
    /// Listings, marketing, audits: services sold to a project's admins.
    Service,
    /// Fee, price, discount: what a service costs.
    Fee,
    /// "We can", "we offer", "podemos": an offer made to the reader.
    WeOffer,
    /// Never, don't, niemals, asla: a warning's negation.
    Never,
    /// Unlock, release, freischalten: what a secret is asked "to" do.
    Unlock,
    /// Instagram and other networks a lure continues on.
    Social,
    /// "Who wants it?", "interested?": an offer put as a question.
    Invite,
    /// Casinos, betting, free spins: gambling itself, not "promo code".
    Casino,
    /// A code to type in.
    Code,
    /// Loans, credit.
    Loan,
    /// Selling, for sale.
    Sell,
    /// Accounts, channels, groups, followers: what account sellers sell.
    Goods,
    /// "We met at …": a stranger pretending to know the reader.
    WeMet,
    /// "A great investment opportunity for you".
    Opportunity,
    /// An amount of money or a percentage ("$500", "70 USDT", "3 %").
    Money,
    /// "Sorry, wrong number": a stranger's opener.
    WrongNumber,
    /// Investing, trading, an opportunity: what the opener leads to.
    Invest,
    /// Report, block: what a warning asks to do with an account.
    Report,
    /// The team, the community, the project: praise a member gives.
    OurSide,
    /// Cash for crypto.
    Cash,
    /// "Best rate, any city": a dealer's boast.
    Rate,
    /// Bank cards and accounts rented out.
    Mule,
}

impl Concept {
    fn bit(self) -> u64 {
        1 << self as u8
    }
}

/// The concepts found in a message, with the first term of each.
#[derive(Debug, Clone, Default)]
pub struct Found {
    mask: u64,
    terms: Vec<(Concept, &'static str)>,
}

impl Found {
    fn has(&self, concept: Concept) -> bool {
        self.mask & concept.bit() != 0
    }

    /// A warning, not a scammer saying "no scam", nor one opening with
    /// "attention" to ask for the secret with no "never" anywhere.
    fn is_protective(&self) -> bool {
        self.has(Concept::Protective) && !self.has(Concept::Reassure) && !self.demands_secret()
    }

    /// "Enter your recovery phrase to unlock your wallet", not denied.
    fn demands_secret(&self) -> bool {
        use Concept::*;
        self.has(Secret)
            && self.has(HandOver)
            && (self.has(Verify) || self.has(Repair) || self.has(Threat))
            && !self.has(Never)
    }

    /// A listing, marketing or audit offered for a fee: an offer even
    /// when it ends by asking who to talk to.
    fn sells_a_service(&self) -> bool {
        use Concept::*;
        self.has(Service) && self.has(Fee) && self.has(WeOffer) && !self.has(Never)
    }

    fn term(&self, concept: Concept) -> &'static str {
        self.terms
            .iter()
            .find(|(c, _)| *c == concept)
            .map_or("", |(_, term)| term)
    }

    fn add(&mut self, concept: Concept, term: &'static str) {
        if !self.has(concept) {
            self.mask |= concept.bit();
            self.terms.push((concept, term));
        }
    }
}

/// The compiled terms.
pub struct ScamRules {
    matcher: AhoCorasick,
    patterns: Vec<Pattern>,
}

struct Pattern {
    concept: Concept,
    term: &'static str,
    /// The skeleton must start a word here (its first character is a letter or digit).
    starts_word: bool,
    /// … and end one (a term written with a trailing `$`).
    ends_word: bool,
}

impl ScamRules {
    /// Compiles every concept's terms.
    pub fn new() -> Result<Self, aho_corasick::BuildError> {
        let mut patterns = Vec::new();
        let mut skeletons = Vec::new();
        for (concept, terms) in terms::TERMS {
            for term in *terms {
                // "made $" is a dollar sign; "dm$" ends a word.
                let (text, ends_word) = match term.strip_suffix('$') {
                    Some(text) if !text.ends_with(' ') => (text, true),
                    _ => (*term, false),
                };
                let skeleton = skeleton_of(&text.to_lowercase());
                patterns.push(Pattern {
                    concept: *concept,
                    term: text,
                    starts_word: skeleton.starts_with(char::is_alphanumeric),
                    ends_word: ends_word && skeleton.ends_with(char::is_alphanumeric),
                });
                skeletons.push(skeleton);
            }
        }
        // A contiguous NFA: every message is scanned, and with four
        // thousand terms a DFA's table no longer stays in cache beside the
        // model (measured: the NFA scans as fast and the whole check is
        // faster, p99 most of all).
        let matcher = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&skeletons)?;
        Ok(Self { matcher, patterns })
    }

    /// The concepts in a normalised message.
    pub fn concepts(&self, skeleton: &str) -> Found {
        let mut found = Found::default();
        for hit in self.matcher.find_overlapping_iter(skeleton) {
            let pattern = &self.patterns[hit.pattern().as_usize()];
            let before = skeleton[..hit.start()].chars().next_back();
            let after = skeleton[hit.end()..].chars().next();
            if pattern.starts_word && before.is_some_and(crate::normalize::is_letter_or_digit) {
                continue;
            }
            if pattern.ends_word && after.is_some_and(crate::normalize::is_letter_or_digit) {
                continue;
            }
            found.add(pattern.concept, pattern.term);
        }
        found
    }

    /// Adds a hit for each family the message belongs to, and says
    /// whether it reads as a warning: protective words that call a scam by
    /// its name or alert ("always a scam", "es timo", "beware"), with no
    /// link, account, phone or e-mail.
    pub fn judge(
        &self,
        text: &Normalized,
        allowed_domains: &[String],
        trusted: bool,
        verdict: &mut Verdict,
    ) -> Tone {
        let mut found = self.concepts(&text.skeleton);
        let money = amounts::money(&text.text);
        if money.more_back {
            found.add(Concept::MoreBack, "more back than sent");
        }
        if money.grows {
            found.add(Concept::Gain, "a sum grown threefold");
        }
        if money.named {
            found.add(Concept::Money, "an amount of money");
        }
        if amounts::big_multiplier(&text.text) {
            found.add(Concept::Pump, "a call of 5x or more");
        }
        let bait = Bait::of(&text.text, allowed_domains);
        // A warning pointing to the wallet's own site, or naming the
        // scammer's account ("beware of @fake_support, it's fake"), is
        // still a warning: it calls the scam by its name and sends nobody
        // anywhere.
        let warns_with_a_source = bait.only_well_known() && found.is_protective();
        let names_the_scammer = bait.link.is_none()
            && bait.phone.is_none()
            && !bait.email
            && found.is_protective()
            && found.has(Concept::Denounce)
            && !found.has(Concept::Recover)
            && !found.has(Concept::Credit)
            && (!found.has(Concept::GoPrivate)
                || found.has(Concept::Never)
                || found.has(Concept::Report));
        if !bait.any() || warns_with_a_source || names_the_scammer {
            // "Who wants the link?" is an offer, not a question.
            let asks =
                is_question(&text.text) && !found.sells_a_service() && !found.has(Concept::Invite);
            if found.is_protective() || trusted || asks {
                let warning = found.is_protective() && found.has(Concept::Denounce);
                return if warning { Tone::Warning } else { Tone::Plain };
            }
        } else if trusted && found.is_protective() {
            return Tone::Plain;
        }
        for (rule, why) in families(&found, &bait) {
            if trusted && !bait.any() {
                continue;
            }
            let score = if trusted {
                TRUSTED_SCORE
            } else {
                NEWCOMER_SCORE
            };
            let details = match bait.describe() {
                Some(bait) => format!("{why}, with {bait}"),
                None => why,
            };
            verdict.hit(rule, score, details);
        }
        Tone::Plain
    }
}

/// How a message reads, for the rules that judge it after the families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// A warning with no bait: never deleted for its words.
    Warning,
    Plain,
}

/// A message asking something: people ask about their wallet, the
/// migration or the presale; scammers tell.
fn is_question(text: &str) -> bool {
    text.trim_end().ends_with('?') || text.trim_end().ends_with('？')
}
