//! What the engine decided, and why: every rule that fired, with its score
//! and details, and the actions to take.

/// A rule of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    StopPhrase,
    DmScam,
    EasyMoney,
    Promotion,
    ForeignLink,
    OnlyLink,
    OnlyMention,
    Contact,
    Shouting,
    Forward,
    Emoji,
    MixedScript,
    Invisible,
    ForeignAddress,
    Flood,
    Campaign,
    Impersonation,
    Raid,
    Captcha,
    Classifier,
    SimilarSpam,
    FakeSupport,
    SeedPhrase,
    WalletDrainer,
    Giveaway,
    FundRecovery,
    OffPlatform,
    PresaleOffer,
    FakeEvent,
    Investment,
    JobOffer,
    AdultOrGambling,
    HypedOffer,
    PaidService,
    LoanOffer,
    PrivateDeal,
}

impl Rule {
    /// Whether the rule is a phrase family or a group's stop phrase.
    pub fn is_phrase(self) -> bool {
        matches!(
            self,
            Self::StopPhrase | Self::DmScam | Self::EasyMoney | Self::Promotion
        ) || self.is_scam_family()
    }

    /// Whether the rule is a crypto-scam family, which stands alone.
    pub fn is_scam_family(self) -> bool {
        matches!(
            self,
            Self::FakeSupport
                | Self::SeedPhrase
                | Self::WalletDrainer
                | Self::Giveaway
                | Self::FundRecovery
                | Self::OffPlatform
                | Self::PresaleOffer
                | Self::FakeEvent
                | Self::Investment
                | Self::JobOffer
                | Self::AdultOrGambling
                | Self::HypedOffer
                | Self::PaidService
                | Self::LoanOffer
                | Self::PrivateDeal
        )
    }

    /// The rule's stable id, for logs and the team.
    pub fn id(self) -> &'static str {
        match self {
            Self::StopPhrase => "stop_phrase",
            Self::DmScam => "dm_scam",
            Self::EasyMoney => "easy_money",
            Self::Promotion => "promotion",
            Self::ForeignLink => "foreign_link",
            Self::OnlyLink => "only_link",
            Self::OnlyMention => "only_mention",
            Self::Contact => "contact",
            Self::Shouting => "shouting",
            Self::Forward => "forward",
            Self::Emoji => "emoji",
            Self::MixedScript => "mixed_script",
            Self::Invisible => "invisible",
            Self::ForeignAddress => "foreign_address",
            Self::Flood => "flood",
            Self::Campaign => "campaign",
            Self::Impersonation => "impersonation",
            Self::Raid => "raid",
            Self::Captcha => "captcha",
            Self::Classifier => "classifier",
            Self::SimilarSpam => "similar_spam",
            Self::FakeSupport => "fake_support",
            Self::SeedPhrase => "seed_phrase",
            Self::WalletDrainer => "wallet_drainer",
            Self::Giveaway => "giveaway",
            Self::FundRecovery => "fund_recovery",
            Self::OffPlatform => "off_platform",
            Self::PresaleOffer => "presale_offer",
            Self::FakeEvent => "fake_event",
            Self::Investment => "investment",
            Self::JobOffer => "job_offer",
            Self::AdultOrGambling => "adult_or_gambling",
            Self::HypedOffer => "hyped_offer",
            Self::PaidService => "paid_service",
            Self::LoanOffer => "loan_offer",
            Self::PrivateDeal => "private_deal",
        }
    }
}

/// One rule that fired.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub rule: Rule,
    pub score: f32,
    pub details: String,
}

/// An action for the bot to carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Delete {
        message: i64,
    },
    /// Restrict until `until` (Unix seconds).
    Mute {
        user: i64,
        until: i64,
    },
    Ban {
        user: i64,
    },
    /// Remind the group of the official address.
    RemindOfficialAddress,
    /// Muted until the team reviews (impersonation).
    HoldForReview {
        user: i64,
    },
    /// Ask a newcomer `a + b` with one button per choice (the sum among
    /// them), restricted until solved or `deadline`.
    Captcha {
        user: i64,
        a: i64,
        b: i64,
        choices: Vec<i64>,
        deadline: i64,
    },
    /// Lift a newcomer's restriction (captcha solved).
    Release {
        user: i64,
    },
    /// Remove a newcomer who did not solve the captcha in time.
    Kick {
        user: i64,
    },
    /// Raid mode: this newcomer may not write until the raid ends (then
    /// [`Action::Release`]).
    HoldNewcomer {
        user: i64,
    },
    AlertTeam {
        text: String,
    },
}

/// The engine's answer to one event.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Verdict {
    pub hits: Vec<Hit>,
    pub actions: Vec<Action>,
    /// Set in dry-run mode: `actions` are what would have been done.
    pub dry_run: bool,
}

impl Verdict {
    /// The sum of the hits' scores.
    pub fn score(&self) -> f32 {
        self.hits.iter().map(|hit| hit.score).sum()
    }

    /// Holds `rule`'s hits to at most `score` each (a vote, not a
    /// decision), saying why in their details.
    pub fn cap(&mut self, rule: Rule, score: f32, why: &str) {
        for hit in self
            .hits
            .iter_mut()
            .filter(|h| h.rule == rule && h.score > score)
        {
            hit.score = score;
            hit.details = format!("{} — {why}", hit.details);
        }
    }

    /// Holds the hits of `rules` to at most `score` all together (one
    /// vote however many of them fired), saying why in their details.
    pub fn cap_together(&mut self, rules: &[Rule], score: f32, why: &str) {
        let mut left = score;
        for hit in self.hits.iter_mut().filter(|h| rules.contains(&h.rule)) {
            let kept = hit.score.min(left);
            left -= kept;
            if kept < hit.score {
                hit.score = kept;
                hit.details = format!("{} — {why}", hit.details);
            }
        }
    }

    /// The ids of the rules that fired.
    pub fn rules(&self) -> Vec<&'static str> {
        self.hits.iter().map(|hit| hit.rule.id()).collect()
    }

    pub(crate) fn hit(&mut self, rule: Rule, score: f32, details: impl Into<String>) {
        self.hits.push(Hit {
            rule,
            score,
            details: details.into(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_capped_together_cast_one_vote_between_them() {
        let mut verdict = Verdict::default();
        verdict.hit(Rule::Promotion, 1.0, "vip group");
        verdict.hit(Rule::DmScam, 1.5, "en mp");
        verdict.hit(Rule::ForeignAddress, 10.0, "base address 0x…");
        verdict.cap_together(&[Rule::DmScam, Rule::Promotion], 0.5, "a warning");
        assert_eq!(verdict.score(), 10.5, "the two phrases count 0.5 in all");
        assert_eq!(verdict.hits[1].details, "en mp — a warning");
    }

    #[test]
    fn a_capped_rule_only_votes_and_says_why() {
        let mut verdict = Verdict::default();
        verdict.hit(Rule::Classifier, 2.0, "spam probability 0.608");
        verdict.hit(Rule::ForeignAddress, 10.0, "base address 0x…");
        verdict.cap(Rule::Classifier, 1.0, "a question put to the bot");
        assert_eq!(verdict.score(), 11.0, "only the classifier is held back");
        assert_eq!(
            verdict.hits[0].details,
            "spam probability 0.608 — a question put to the bot"
        );
    }
}
