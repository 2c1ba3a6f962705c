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
pub(crate) use bait::is_well_known_link;

use crate::normalize::{Normalized, skeleton_of};
use crate::verdict::Verdict;
use families::families;

/// The longest message (in bytes) whose quotes are read apart from the
/// rest, as a member's report of what they were sent.
const QUOTED_REPORT_BYTES: usize = 600;
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
    /// Alone, lonely, bored tonight: a stranger's flirt.
    Lonely,
    /// "Handsome", "babe", "amor": a stranger's pet names.
    Sweet,
    /// "Only in private, never in public": the secret asked for privately.
    NotPublic,
    /// "They sent me", "I got a DM": a member reporting what reached them.
    Reported,
    /// A listing on an exchange, announced.
    Listing,
    /// Buy now, get in while it is cheap.
    BuyNow,
    /// Verified or aged accounts, KYC done: what account sellers sell.
    KycGoods,
    /// Buying, as account buyers do.
    Buy,
    /// "Flash USDT": counterfeit tokens.
    Counterfeit,
    /// Mixers, "clean your dirty crypto".
    Launder,
    /// Cloud mining, mining pools.
    Mining,
    /// "To the first 20".
    FirstComers,
    /// "A phone and two hours a day": what a job offer asks.
    SpareTime,
    /// "My photos are on my profile".
    MyPhotos,
    /// "I can put you in touch with the lawyer who helped me".
    Introduce,
    /// "You get 40 % of the profits": a promise made to the reader.
    YouGet,
    /// Donations asked for.
    Donate,
    /// "I need 80 USDT, I'll send back 150": a stranger's plea.
    Plea,
    /// Locked tokens, sold before the unlock.
    Locked,
    /// "By e-mail only": how a lender or an employer is reached.
    ByMail,
    /// "Dear", "querida": a stranger's endearment.
    Endear,
    /// "I saw your comment", "you seem like a kind person".
    SawYou,
    /// "How are you?", "where are you from?": a stranger asked about themself.
    AboutYou,
    /// "Sorry, wrong person": a stranger's mistake, as openers make it.
    WrongPerson,
    /// "Guys", "everyone": the group spoken to.
    ToAll,
    /// A price, a chart, a swap, a listing: the group's subject.
    ProjectTalk,
    /// "Check my bio": the reader sent to the writer's profile.
    MyBio,
    /// "Never again", "nunca mais": a "never" that denies nothing.
    NeverAgain,
    /// "Want to know how?", "who wants the link?".
    AskHow,
    /// Five words or fewer: a message with room for nothing but a lure.
    Brief,
    /// "I'm on the team", "je fais partie de l'équipe": staff by their own word.
    IAmStaff,
    /// "The only official site is …".
    OnlyOfficial,
    /// "Free", "geschenkt": money given for nothing, if an amount is near.
    Free,
    /// "APY", "годовых": a yearly yield, if a percentage is near.
    Yield,
    /// "Drop your questions below", "right here in the group": what is
    /// asked happens in the group.
    HereInGroup,
    /// "I'm new here", "bin neu hier", "gruba yeni katıldım".
    NewHere,
    /// Looking for friends, people to talk to, a mentor.
    Befriend,
    /// "Approve", "Genehmigung erteilen", "imzala": granting a site the
    /// right to move one's tokens.
    Approve,
    /// A link to the operation's own site (an allowed domain).
    OwnSite,
    /// "Good pay", "доход достойный": a job ad's promise without a figure.
    GoodPay,
    /// "Withdraw your funds now": what a panic about the contract asks.
    Withdraw,
    /// "At a 10 % discount": crypto sold below its price.
    Discount,
    /// "Check your DMs, I sent you something": the talk already waits
    /// in private.
    CheckDms,
    /// "DM me", "schreib mir": the writer asks to be written to.
    DmMe,
    /// "Trading academy", "курс по трейдингу": lessons sold.
    Course,
    /// "Tell him I sent you": a referral that makes praise a funnel.
    Referral,
    /// "Just like videos": a task scam's paid task.
    Task,
    /// "C'est urgent", "срочно": the hurry that opens a private talk.
    Urgent,
}

impl Concept {
    fn bit(self) -> u128 {
        1 << self as u8
    }
}

/// The concepts found in a message, with the first term of each.
#[derive(Debug, Clone, Default)]
pub struct Found {
    mask: u128,
    terms: Vec<(Concept, &'static str)>,
    /// Every "write" of going private is part of a phrase that keeps the
    /// talk in the group ("пишите вопросы" in the comments).
    private_only_in_group: bool,
}

impl Found {
    fn has(&self, concept: Concept) -> bool {
        self.mask & concept.bit() != 0
    }

    /// A warning, not a scammer saying "no scam", nor one opening with
    /// "attention" to ask for the secret with no "never" anywhere.
    fn is_protective(&self) -> bool {
        self.has(Concept::Protective)
            && !self.has(Concept::Reassure)
            && !self.hands_over_a_helper()
            && !self.asks_to_be_written_to()
            && !self.demands_secret()
            && !self.offers_recovery()
            && !self.staff_offers_private_help()
    }

    /// "I'm on the tech team, DM me": no warning says that without
    /// "never", whatever else it says ("your blocked withdrawal").
    fn staff_offers_private_help(&self) -> bool {
        use Concept::*;
        self.has(IAmStaff) && self.has(GoPrivate) && self.denies_nothing()
    }

    /// "Lost money to fake brokers? I can put you in touch with the lawyer
    /// who got mine back": calling the first scam by its name is the
    /// second one's opening, not a warning.
    fn offers_recovery(&self) -> bool {
        use Concept::*;
        self.has(Recover)
            && self.has(Loss)
            && self.has(Introduce)
            && (!self.has(Never) || self.never_only_again())
    }

    /// "Enter your recovery phrase to unlock your wallet", "the support
    /// needs your phrase", not denied — or denied only for the public
    /// ("by private message, never in public").
    fn demands_secret(&self) -> bool {
        use Concept::*;
        self.has(Secret)
            && self.has(HandOver)
            && (self.has(Verify)
                || self.has(Repair)
                || self.has(Threat)
                || self.has(Unlock)
                || self.has(Staff))
            && self.denies_nothing()
    }

    /// A stranger's "wrong number" or "we met at" leading to investing:
    /// a question only in its form ("are you into crypto too?"). Or the
    /// opener alone, addressed to one stranger ("hello dear", "sorry,
    /// wrong person") and asking about them ("how are you?", "can we get
    /// to know each other?"): nothing is sold yet, the talk is to go on in
    /// private; a group's member talks to the group, or about its subject.
    fn opens_as_a_stranger(&self) -> bool {
        use Concept::*;
        let stranger = self.has(WeMet) || self.has(WrongNumber);
        let about_the_group = self.has(ToAll) || self.has(ProjectTalk);
        let endeared = self.has(Endear) || self.has(Sweet);
        let addressed = (self.has(WrongPerson) || endeared)
            && (self.has(AboutYou) || self.has(WeMet))
            && !about_the_group;
        // "Hello dear, can we chat in private?"
        let invited = endeared && self.has(GoPrivate) && !about_the_group && !self.has(Never);
        // "New here, looking for friends, message me privately": a newcomer
        // asks the group for nothing, only for private talk.
        let befriends = (self.has(NewHere) || self.has(Befriend))
            && self.has(GoPrivate)
            && !self.private_only_in_group
            && !self.has(Never)
            && !self.has(Reported);
        // "Sorry, wrong person, are you Sasha?": in a group nobody writes
        // to the wrong person, unless it is money sent there.
        let mistaken = self.has(WrongPerson)
            && !about_the_group
            && !self.has(Wallet)
            && !self.has(Loss)
            && !self.has(Problem);
        // "Entschuldige die Störung… wir kennen uns aus der Gruppe": a
        // stranger's apology for a meeting that never was.
        let apologised =
            self.has(WrongNumber) && self.has(WeMet) && !about_the_group && !self.has(Reported);
        (stranger && (self.has(Opportunity) || self.has(Returns) || self.has(Invest)))
            || apologised
            || self.courts()
            || addressed
            || invited
            || befriends
            || mistaken
    }

    /// "Good morning dear, I saw your comment, you seem like a kind
    /// person", "tu as l'air sympa, on discute en privé ?": a stranger's
    /// compliment needs no way out yet.
    fn courts(&self) -> bool {
        use Concept::*;
        self.has(SawYou)
            && (self.has(Endear) || self.has(Sweet) || self.has(WrongNumber) || self.has(GoPrivate))
    }

    /// "… before anyone, DM me", "support team here, DM me, we never ask
    /// for funds": a warning never asks to be written to unless it calls a
    /// scam by its name ("'DM me' is a scam").
    fn asks_to_be_written_to(&self) -> bool {
        use Concept::*;
        self.has(DmMe) && !self.has(Denounce) && !self.has(Report)
    }

    /// "Many here lose money… my mentor helped me, I can give you his
    /// contact": the thanks hand someone over, whatever warning opens it.
    fn hands_over_a_helper(&self) -> bool {
        use Concept::*;
        self.has(Credit) && (self.has(Introduce) || self.has(Referral))
    }

    /// A stranger's flirt: a pet name or loneliness with a date, a
    /// profile or private talk ("hi handsome, bored tonight, write me";
    /// "кто хочет познакомиться? пиши мне в инсту": a date moved to a
    /// social network).
    fn flirts(&self) -> bool {
        use Concept::*;
        let has = |c| self.has(c);
        (has(Sweet) && (has(Lonely) || has(Dating) || has(GoPrivate) || has(MyBio)))
            || (has(Lonely) && (has(Dating) || has(MyBio)))
            || (has(Endear) && (has(Lonely) || has(Dating)) && (has(MyBio) || has(GoPrivate)))
            || (has(Lonely) && (has(DmMe) || has(GoPrivate)) && !has(ProjectTalk))
            // "Hola cariño, ¿hablamos por WhatsApp?": a pet name and another
            // messenger.
            || (has(Sweet) && has(OffPlatform) && !has(HereInGroup))
            || ((has(NewHere) || has(Befriend)) && has(Dating) && has(MyBio))
            || (has(Dating) && has(Invite) && has(Social) && !has(HereInGroup) && !has(ProjectTalk))
    }

    /// Whether the reader is asked to come ("DM me", "who wants it?",
    /// "his contact", "see my bio") or courted.
    fn invites(&self) -> bool {
        use Concept::*;
        [
            DmMe, Invite, AskHow, Introduce, Referral, MyBio, Pointer, CheckDms,
        ]
        .iter()
        .any(|c| self.has(*c))
            || self.opens_as_a_stranger()
    }

    /// No "never", or only "never in public".
    pub(super) fn denies_nothing(&self) -> bool {
        !self.has(Concept::Never) || self.has(Concept::NotPublic)
    }

    /// "Never" only as "never again" ("I thought I'd never see it again").
    fn never_only_again(&self) -> bool {
        self.has(Concept::NeverAgain)
    }

    /// A listing, marketing or audit offered for a fee: an offer even
    /// when it ends by asking who to talk to, or by "DM for prices".
    fn sells_a_service(&self) -> bool {
        use Concept::*;
        // A sum next to the service offered is its price ("an audit for
        // only 0.3 ETH").
        let priced = (self.has(Fee) || self.has(Money))
            && (self.has(WeOffer) || self.has(GoPrivate) || self.has(MyBio));
        let offered =
            self.has(WeOffer) && (self.has(GoPrivate) || self.has(MyBio) || self.has(CheckDms));
        self.has(Service) && (priced || offered) && !self.has(Never)
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
                let skeleton = without_marks(&skeleton_of(&text.to_lowercase())).into_owned();
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
        // "recuperacao" is "recuperação": accents are not read, on either side.
        let skeleton = &*without_marks(skeleton);
        let mut found = Found::default();
        // Where "go private" and "here in the group" were read (rare: no
        // allocation for most messages).
        let (mut private, mut here) = (Vec::new(), Vec::new());
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
            match pattern.concept {
                Concept::GoPrivate => private.push(hit.span()),
                Concept::HereInGroup => here.push(hit.span()),
                _ => {}
            }
            found.add(pattern.concept, pattern.term);
        }
        found.private_only_in_group = !private.is_empty()
            && private
                .iter()
                .all(|p| here.iter().any(|h| h.start <= p.start && p.end <= h.end));
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
        if found.has(Concept::Free) && money.named && amounts::free_money(&text.text) {
            found.add(Concept::Giveaway, "money given for nothing");
            found.add(Concept::Money, "an amount of money");
        }
        if found.has(Concept::Yield) && amounts::high_yield(&text.text) {
            found.add(Concept::Returns, "a yield of 100 % a year or more");
        }
        if amounts::big_multiplier(&text.text) {
            found.add(Concept::Pump, "a call of 5x or more");
        }
        if is_brief(&text.text) {
            found.add(Concept::Brief, "five words or fewer");
        }
        let bait = Bait::of(&text.text, allowed_domains);
        if links_own_site(&text.text, allowed_domains) {
            found.add(Concept::OwnSite, "the operation's own site");
        }
        // A warning pointing to the wallet's own site, or naming the
        // scammer's account ("beware of @fake_support, it's fake"), is
        // still a warning: it calls the scam by its name and sends nobody
        // anywhere.
        let warns_with_a_source = bait.only_well_known() && found.is_protective();
        let names_the_scammer = bait.link.is_none()
            && bait.phone.is_none()
            && !bait.email
            && found.is_protective()
            && (found.has(Concept::Denounce) || found.has(Concept::Report))
            && !found.has(Concept::Recover)
            // "Support has moved, write only to @…" pushes an account.
            && !found.has(Concept::OnlyOfficial)
            // Thanks to a moderator are no testimonial.
            && (!found.has(Concept::Credit)
                || found.has(Concept::OurSide)
                || found.has(Concept::Staff))
            && (!found.has(Concept::GoPrivate)
                || found.has(Concept::Never)
                || found.has(Concept::Report))
            // "Notice from the team: re-verify your wallet with
            // @ValidatorBot" sends the reader to the account it names.
            && !(found.has(Concept::Wallet)
                && found.has(Concept::Repair)
                && !found.has(Concept::Never)
                && !found.has(Concept::Reported)
                && !found.has(Concept::Report));
        // "The site claim-token.net is fake, don't connect your wallet":
        // a warning that names the scam's site and tells not to go there,
        // pushing no other ("the only official site is …").
        let names_the_site = bait.link.is_some()
            && !bait.contact()
            && found.is_protective()
            && found.has(Concept::Denounce)
            && found.has(Concept::Never)
            && !found.has(Concept::GoPrivate)
            && !found.has(Concept::Pointer)
            && !found.has(Concept::OnlyOfficial)
            && !found.has(Concept::Recover);
        // "They wrote me 'I'm from support, give me your 12 words', blocked":
        // what is quoted is someone else's; the member's own words report it.
        // A member's report is a few lines; a long message's quotes are
        // not read twice (the cost of a check grows with its length).
        let short = text.text.len() <= QUOTED_REPORT_BYTES;
        if !trusted
            && short
            && let Some(tone) = self.quote_reading(&text.text, allowed_domains)
        {
            return tone;
        }
        let questioned = is_question(&text.text);
        // A question about a transaction on the explorer is a question.
        let asks_with_a_source = bait.only_well_known() && questioned;
        if !bait.any()
            || warns_with_a_source
            || names_the_scammer
            || names_the_site
            || asks_with_a_source
        {
            // "Who wants the link?" is an offer, not a question.
            // A member reporting what reached them ("they sent me this
            // link, is it official?") asks too, whatever follows.
            let reports = found.has(Concept::Reported) && text.text.contains(['?', '？']);
            let asks = (questioned || reports)
                && !found.sells_a_service()
                && !found.opens_as_a_stranger()
                && !found.flirts()
                && !found.has(Concept::Invite)
                && !found.has(Concept::AskHow);
            // "A 'girl' wrote me in private about investing, the scams get
            // creative": what reached the member, called a scam.
            let reports_a_scam = found.has(Concept::Reported) && found.has(Concept::Denounce);
            // "They wrote me about a bot with 3 % a day": what reached the
            // member, with no way to anyone and nothing asked of the reader.
            let only_reports = found.has(Concept::Reported) && !found.invites();
            if found.is_protective() || trusted || asks || reports_a_scam || only_reports {
                let warning = (found.is_protective() || reports_a_scam)
                    && (found.has(Concept::Denounce) || found.has(Concept::Report));
                return if warning {
                    Tone::Warning
                } else if asks {
                    Tone::Question
                } else if stays_at_home(&found, &bait, &text.text, allowed_domains) {
                    Tone::AtHome
                } else {
                    Tone::Plain
                };
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
        if stays_at_home(&found, &bait, &text.text, allowed_domains) {
            Tone::AtHome
        } else {
            Tone::Plain
        }
    }
}

/// Whether a message keeps the reader in the group ("drop your questions
/// below") or sends them only to the operation's own site, with no way
/// to its writer.
fn stays_at_home(found: &Found, bait: &Bait, text: &str, allowed_domains: &[String]) -> bool {
    use Concept::*;
    // "Пишите вопросы": the "write" of a question asked in the group.
    let private = found.has(GoPrivate) && !found.private_only_in_group;
    let elsewhere =
        bait.any() || private || found.has(OffPlatform) || found.has(MyBio) || found.has(Pointer);
    !elsewhere && (found.has(HereInGroup) || links_own_site(text, allowed_domains))
}

/// Whether a lowercased message names one of the operation's own domains.
fn links_own_site(text: &str, allowed_domains: &[String]) -> bool {
    allowed_domains
        .iter()
        .any(|domain| !domain.is_empty() && text.contains(&domain.to_lowercase()))
}

impl ScamRules {
    /// How a message that quotes ten characters or more reads by the words
    /// outside its quotes: a warning when they report or warn ("someone
    /// wrote me", "blocked", "scam alert", "report them"), plain talk when
    /// they offer nothing ("'DM me for 10x gains' — every message in the
    /// other groups"); `None` when they carry bait or an offer of their own,
    /// or when nothing long is quoted.
    fn quote_reading(&self, text: &str, allowed_domains: &[String]) -> Option<Tone> {
        let outside = outside_quotes(text)?;
        let found = self.concepts(&skeleton_of(&outside));
        let bait = Bait::of(&outside, allowed_domains);
        // "… link in my profile" outside the quote is a way out of its own.
        if bait.any()
            || found.has(Concept::Reassure)
            || found.has(Concept::Pointer)
            || found.has(Concept::MyBio)
        {
            return None;
        }
        let private = found.has(Concept::GoPrivate) && !found.has(Concept::Reported);
        let reports = found.has(Concept::Reported)
            || found.has(Concept::Report)
            || found.has(Concept::Denounce)
            || found.is_protective();
        if reports && !private {
            Some(Tone::Warning)
        } else if !private && families(&found, &bait).is_empty() {
            Some(Tone::Plain)
        } else {
            None
        }
    }
}

/// The text without its quotes ("…", «…», “…”, „…“) of ten characters or
/// more; `None` when it quotes nothing that long.
fn outside_quotes(text: &str) -> Option<String> {
    const PAIRS: [(char, char); 4] = [('"', '"'), ('«', '»'), ('“', '”'), ('„', '“')];
    if !text.contains(['"', '«', '“', '„']) {
        return None;
    }
    let mut outside = String::with_capacity(text.len());
    let mut rest = text;
    let mut quoted = false;
    'scan: loop {
        for (open, close) in PAIRS {
            if let Some(start) = rest.find(open) {
                let after = &rest[start + open.len_utf8()..];
                if let Some(end) = after.find(close) {
                    // The first opening quote in the text wins.
                    let earlier = PAIRS.iter().any(|(o, _)| {
                        *o != open && rest.find(*o).is_some_and(|other| other < start)
                    });
                    if earlier {
                        continue;
                    }
                    let inside = &after[..end];
                    outside.push_str(&rest[..start]);
                    if inside.chars().count() >= 10 {
                        quoted = true;
                        outside.push(' ');
                    } else {
                        outside.push_str(inside);
                    }
                    rest = &after[end + close.len_utf8()..];
                    continue 'scan;
                }
            }
        }
        break;
    }
    outside.push_str(rest);
    quoted.then_some(outside)
}

/// The skeleton without its combining marks (accents, cedillas, tildes,
/// breves, diaereses), so that a message typed without them reads like
/// the terms written with them; borrowed when it has none.
fn without_marks(skeleton: &str) -> std::borrow::Cow<'_, str> {
    let is_mark = |c: char| ('\u{300}'..='\u{36f}').contains(&c);
    if skeleton.chars().any(is_mark) {
        std::borrow::Cow::Owned(skeleton.chars().filter(|c| !is_mark(*c)).collect())
    } else {
        std::borrow::Cow::Borrowed(skeleton)
    }
}

/// How a message reads, for the rules that judge it after the families.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// A warning with no bait: never deleted for its words.
    Warning,
    /// A question with no bait, or only a well-known site's link.
    Question,
    /// Sends the reader nowhere but the group ("drop your questions
    /// below") or the operation's own site: no stranger's pitch.
    AtHome,
    Plain,
}

/// A message asking something: people ask about their wallet, the
/// migration or the presale; scammers tell. The question may end in the
/// link or the account it is about ("is this official? site.app").
fn is_question(text: &str) -> bool {
    let Some(at) = text.rfind(['?', '？']) else {
        return false;
    };
    text[at..]
        .split_whitespace()
        .skip(1)
        .chain(
            text[at..]
                .split_whitespace()
                .next()
                .map(|w| w.trim_start_matches(['?', '？'])),
        )
        .all(|word| {
            word.is_empty()
                || word.starts_with('@')
                || crate::content::is_link(word)
                || word.chars().all(|c| !c.is_alphanumeric())
        })
}

/// The most words a message has for [`Concept::Brief`].
const BRIEF_WORDS: usize = 5;

/// Whether the message has [`BRIEF_WORDS`] words or fewer (an emoji is
/// no word, nor a letter alone: "slt ecris moi stp c urgent").
fn is_brief(text: &str) -> bool {
    text.split_whitespace()
        .filter(|word| {
            word.chars()
                .filter(|c| c.is_alphanumeric())
                .nth(1)
                .is_some()
        })
        .nth(BRIEF_WORDS)
        .is_none()
}
