//! A group's policy and the events the engine judges.

/// What the engine may do in a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Judge and report; take no action.
    #[default]
    DryRun,
    /// Delete and mute; never ban.
    Soft,
    /// Delete, mute and ban.
    Normal,
}

/// A person in the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub id: i64,
    pub display_name: String,
    pub username: Option<String>,
}

/// One group's rules.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    /// The operation's official contract addresses.
    pub official_addresses: Vec<String>,
    /// Domains whose links are fine (subdomains included).
    pub allowed_domains: Vec<String>,
    /// This group's own spam phrases.
    pub stop_phrases: Vec<String>,
    /// The group's admins: exempt, and protected from impersonation.
    pub admins: Vec<Member>,
    /// Ask newcomers to solve a sum before they may write.
    pub captcha: bool,
    /// Seconds a newcomer has to solve it.
    pub captcha_seconds: i64,
    /// More than this many messages …
    pub flood_messages: usize,
    /// … within this many seconds is a flood.
    pub flood_seconds: i64,
    /// This many different new users posting the same text …
    pub campaign_users: usize,
    /// … within this many seconds is a campaign.
    pub campaign_seconds: i64,
    /// Clean messages (of at least `trust_min_chars`) after which a member is trusted.
    pub trust_after: u32,
    pub trust_min_chars: usize,
    /// Joins in a minute beyond which raid mode starts.
    pub raid_joins_per_minute: usize,
    /// Seconds without a join after which raid mode ends.
    pub raid_quiet_seconds: i64,
    /// Seconds after which raid mode ends even if joins go on.
    pub raid_max_seconds: i64,
    /// Emoji beyond this count are suspicious.
    pub max_emoji: usize,
    /// The bot's own @username: a question put to it is someone asking
    /// for help, which the classifier alone never deletes.
    pub bot_username: Option<String>,
    /// Seconds a mute lasts.
    pub mute_seconds: i64,
}

impl Default for Policy {
    fn default() -> Self {
        Self {
            mode: Mode::DryRun,
            official_addresses: Vec::new(),
            allowed_domains: Vec::new(),
            stop_phrases: Vec::new(),
            admins: Vec::new(),
            captcha: true,
            captcha_seconds: 120,
            flood_messages: 5,
            flood_seconds: 10,
            campaign_users: 3,
            campaign_seconds: 600,
            trust_after: 5,
            trust_min_chars: 20,
            raid_joins_per_minute: 10,
            raid_quiet_seconds: 600,
            raid_max_seconds: 3600,
            bot_username: None,
            max_emoji: 8,
            mute_seconds: 3600,
        }
    }
}

/// Who sent a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sender {
    pub member: Member,
    /// Set when a channel posts as the sender: the channel is judged.
    pub as_channel: Option<i64>,
}

impl Sender {
    /// The id the engine judges: the channel's when one posts.
    pub fn judged_id(&self) -> i64 {
        self.as_channel.unwrap_or(self.member.id)
    }
}

/// A message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub id: i64,
    pub sender: Sender,
    pub text: String,
    /// Forwarded from elsewhere.
    pub forwarded: bool,
}

/// What happened in the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Message(Message),
    /// An edited message: judged again, as a spammer edits after the first check.
    Edited(Message),
    Join(Member),
    NameChange(Member),
    Reaction {
        member: Member,
    },
    /// A newcomer's answer to the captcha.
    CaptchaAnswer {
        member: Member,
        answer: i64,
    },
    /// Time passed (the bot sends one a minute): timeouts and raid ends.
    Tick,
}
