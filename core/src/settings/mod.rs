//! Settings: one typed [`Settings`], read from `ulias.toml` plus `ULIAS_…`
//! environment overrides and validated once, at load. Every key has a
//! default (the committed `ulias.example.toml` lists them all); secrets are
//! [`SecretString`]s, exposed only where a client is built.

mod chains;
mod infra;
mod load;
mod ops;
mod sites;
mod validate;
mod workspace;

use secrecy::SecretString;
use serde::Deserialize;
use url::Url;

pub use chains::{
    ChainEndpoints, ChainName, ChainsSettings, TakeoverThresholds, VerdictThresholds,
};
pub use infra::{InfraSettings, ProxmoxSettings, ResearchSettings};
pub use load::{ENV_PREFIX, Problem, SettingsError, SettingsSource};
pub use ops::{
    HostPort, HostSettings, InvalidHostPort, SandboxSettings, ServiceSettings, SshSettings,
};
pub use sites::{CloudflareAccount, CloudflareSettings, PublicApiSettings};
pub use workspace::WorkspaceSettings;

text_enum! {
    /// The language of every text the bot sends.
    #[derive(Default)]
    pub enum Locale as "locale" {
        /// French, the default.
        #[default]
        Fr => "fr",
        /// English.
        En => "en",
    }
}

impl Locale {
    /// The language's name in English, as prompts name it.
    pub fn language(self) -> &'static str {
        match self {
            Self::Fr => "French",
            Self::En => "English",
        }
    }
}

text_enum! {
    /// How the bot receives Telegram updates.
    pub enum UpdateMode as "update mode" {
        /// Long polling: works behind NAT, one process.
        Polling => "polling",
        /// A webhook behind a reverse proxy (several processes behind a load balancer).
        Webhook => "webhook",
    }
}

text_enum! {
    /// What the anti-spam engine may do in a group.
    pub enum ModerationMode as "moderation mode" {
        /// Log verdicts only; delete and ban nothing.
        DryRun => "dry_run",
        /// Delete and mute, never ban.
        Soft => "soft",
        /// Delete, mute and ban.
        Normal => "normal",
    }
}

text_enum! {
    /// The kind of work a model pool is for (seed 003's GPU split).
    pub enum Tier as "model tier" {
        /// Reasoning agents (the big GPU).
        Thinker => "thinker",
        /// Quick, formatting and routing agents (the small GPU).
        Executor => "executor",
        /// The paid fallback, under the monthly cap.
        Cloud => "cloud",
    }
}

text_enum! {
    /// How the runner asks a model for tool calls.
    pub enum ToolProtocol as "tool protocol" {
        /// The server's native tool calls.
        Tools => "tools",
        /// One JSON object per turn, constrained by a JSON schema.
        Json => "json",
    }
}

/// Everything Ulias can be told before it starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// The language the bot speaks.
    pub locale: Locale,
    /// The folder of agent files, preamble and playbooks.
    pub prompts_dir: std::path::PathBuf,
    /// Where the files the organisation makes live (brand images, built
    /// sites and utilities), relative to the working directory.
    pub data_dir: std::path::PathBuf,
    /// Where the store lives.
    pub database: DatabaseSettings,
    /// The Telegram bot, its people and its chats.
    pub telegram: TelegramSettings,
    /// The model servers (GPUs) and the cloud fallback.
    pub models: ModelSettings,
    /// Money limits.
    pub budgets: BudgetSettings,
    /// Push notifications and A/B/C answers.
    pub ntfy: NtfySettings,
    /// The task engine's pace and thresholds.
    pub engine: EngineSettings,
    /// Posting to X.
    pub x: XSettings,
    /// The conversation with the CEO: answers, follow-ups, profile, proposals.
    pub ceo: CeoSettings,
    /// What outsiders can make the bot do, per unit of time.
    pub limits: LimitSettings,
    /// How long the bot waits on the HTTP services it calls (ntfy, X).
    pub http: HttpSettings,
    /// Where the Scanner reads tokens: one section per chain.
    pub chains: ChainsSettings,
    /// The takeover's deterministic thresholds (pre-check, day-7 verdict).
    pub takeover: TakeoverThresholds,
    /// The folders the code and git tools may touch.
    pub workspace: WorkspaceSettings,
    /// The limits of sandboxed commands.
    pub sandbox: SandboxSettings,
    /// How hosts are reached.
    pub ssh: SshSettings,
    /// The hosts agents may reach over ssh.
    pub hosts: Vec<HostSettings>,
    /// The services agents check and deploy.
    pub services: Vec<ServiceSettings>,
    /// The machines the infra tools reach (Docker, Loki, Proxmox).
    pub infra: InfraSettings,
    /// The services the research and media tools reach (SearXNG,
    /// connectors, GPU jobs).
    pub research: ResearchSettings,
    /// Where approved sites go live (Cloudflare Pages and DNS).
    pub cloudflare: CloudflareSettings,
    /// The read-only API the sites' live widgets read.
    pub public_api: PublicApiSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            locale: Locale::default(),
            prompts_dir: "prompts".into(),
            data_dir: "data".into(),
            database: DatabaseSettings::default(),
            telegram: TelegramSettings::default(),
            models: ModelSettings::default(),
            budgets: BudgetSettings::default(),
            ntfy: NtfySettings::default(),
            engine: EngineSettings::default(),
            x: XSettings::default(),
            ceo: CeoSettings::default(),
            limits: LimitSettings::default(),
            http: HttpSettings::default(),
            chains: ChainsSettings::default(),
            takeover: TakeoverThresholds::default(),
            workspace: WorkspaceSettings::default(),
            sandbox: SandboxSettings::default(),
            ssh: SshSettings::default(),
            hosts: Vec::new(),
            services: Vec::new(),
            infra: InfraSettings::default(),
            research: ResearchSettings::default(),
            cloudflare: CloudflareSettings::default(),
            public_api: PublicApiSettings::default(),
        }
    }
}

/// Where the store lives.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DatabaseSettings {
    /// `sqlite://ulias.db` (created when missing) or `postgres://user:pass@host/db`.
    pub url: SecretString,
    /// Connections in the pool.
    pub max_connections: u32,
}

impl Default for DatabaseSettings {
    fn default() -> Self {
        Self {
            url: SecretString::from("sqlite://ulias.db"),
            max_connections: 8,
        }
    }
}

/// The Telegram bot, its people and its chats.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramSettings {
    /// The token from BotFather. Without it, `ulias run` refuses to start.
    pub token: Option<SecretString>,
    /// The Bot API server: Telegram's, a self-hosted one, or a test fake.
    pub api_url: Url,
    /// Long polling or webhook.
    pub mode: UpdateMode,
    /// Webhook settings, when `mode = "webhook"`.
    pub webhook: Option<WebhookSettings>,
    /// Who may do what.
    pub users: RoleUsers,
    /// Where the bot talks.
    pub chats: Chats,
    /// Community groups the bot moderates, each with its own policy.
    pub groups: Vec<GroupSettings>,
}

impl Default for TelegramSettings {
    fn default() -> Self {
        Self {
            token: None,
            api_url: default_url("https://api.telegram.org"),
            mode: UpdateMode::Polling,
            webhook: None,
            users: RoleUsers::default(),
            chats: Chats::default(),
            groups: Vec::new(),
        }
    }
}

/// Where Telegram delivers updates in webhook mode.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookSettings {
    /// The local address to listen on, e.g. `0.0.0.0:8443`.
    pub listen: std::net::SocketAddr,
    /// The public HTTPS URL Telegram posts to.
    pub public_url: Url,
    /// A secret Telegram echoes in each request, checked on arrival.
    pub secret_token: Option<SecretString>,
}

/// Telegram user ids by role.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RoleUsers {
    /// The CEO(s): command by message, answer decisions.
    pub ceo: Vec<i64>,
    /// The team: approve or reject public outputs, moderate.
    pub team: Vec<i64>,
}

/// The chats the bot writes to.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Chats {
    /// The CEO's private chat with the bot (usually the CEO's user id).
    pub ceo: Option<i64>,
    /// The team's group, where validations appear.
    pub team: Option<i64>,
    /// The public log channel.
    pub log_channel: Option<i64>,
}

/// One community group and its moderation policy.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSettings {
    /// The group's chat id (negative; supergroups start with -100).
    pub chat_id: i64,
    /// A name for logs and reports.
    pub name: String,
    /// What the anti-spam engine may do.
    #[serde(default = "default_moderation_mode")]
    pub mode: ModerationMode,
    /// Ask new members to solve a captcha.
    #[serde(default = "default_true")]
    pub captcha: bool,
    /// Official contract addresses for a group bound to no operation (a
    /// bound group uses its operation's); any other is a scam.
    #[serde(default)]
    pub official_addresses: Vec<String>,
    /// The operation this group belongs to (also `/bind <op>` in the group).
    #[serde(default)]
    pub operation: Option<i64>,
    /// Domains whose links are allowed.
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// Phrases that mark a message as spam in this group.
    #[serde(default)]
    pub stop_phrases: Vec<String>,
    /// Joins per minute that start raid mode.
    #[serde(default = "default_raid_joins")]
    pub raid_joins_per_minute: u32,
    /// Seconds without a join after which raid mode ends by itself.
    #[serde(default = "default_raid_quiet")]
    pub raid_quiet_seconds: u32,
    /// Seconds after which raid mode ends even if joins go on.
    #[serde(default = "default_raid_max")]
    pub raid_max_seconds: u32,
    /// Seconds a newcomer has to solve the captcha.
    #[serde(default = "default_captcha_seconds")]
    pub captcha_seconds: u32,
}

/// The model pools: one per GPU (or server), plus the cloud fallback.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelSettings {
    /// Every pool; at least one must be local.
    pub pools: Vec<PoolSettings>,
    /// How long one model call may take before its pool counts as failing
    /// (1–3600 seconds).
    pub request_timeout_seconds: u64,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            pools: vec![
                PoolSettings::local("thinker", "devstral-small-2", Tier::Thinker, 2),
                PoolSettings::local("executor", "qwen3-coder-next", Tier::Executor, 4),
            ],
            request_timeout_seconds: 300,
        }
    }
}

/// One OpenAI-compatible model server and how much it can take at once.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolSettings {
    /// A name for routing rules and reports.
    pub name: String,
    /// The server's OpenAI-compatible base URL (ending in `/v1`).
    pub base_url: Url,
    /// The model name the server expects.
    pub model: String,
    /// The API key, when the server needs one.
    #[serde(default)]
    pub api_key: Option<SecretString>,
    /// Requests the server handles well at once.
    #[serde(default = "default_slots")]
    pub slots: u32,
    /// What kind of work it is for.
    pub tier: Tier,
    /// How the runner asks it for tool calls.
    #[serde(default = "default_protocol")]
    pub protocol: ToolProtocol,
    /// Real price, US dollars per 1,000 input tokens (0 for local GPUs).
    #[serde(default)]
    pub price_in_per_1k: f64,
    /// Real price, US dollars per 1,000 output tokens.
    #[serde(default)]
    pub price_out_per_1k: f64,
    /// What the same input would cost on a cloud API, for reports.
    #[serde(default)]
    pub cloud_equiv_in_per_1k: f64,
    /// What the same output would cost on a cloud API, for reports.
    #[serde(default)]
    pub cloud_equiv_out_per_1k: f64,
}

impl PoolSettings {
    fn local(name: &str, model: &str, tier: Tier, slots: u32) -> Self {
        Self {
            name: name.into(),
            base_url: default_url("http://127.0.0.1:11434/v1"),
            model: model.into(),
            api_key: None,
            slots,
            tier,
            protocol: ToolProtocol::Json,
            price_in_per_1k: 0.0,
            price_out_per_1k: 0.0,
            cloud_equiv_in_per_1k: 0.003,
            cloud_equiv_out_per_1k: 0.015,
        }
    }
}

/// Money limits, in US dollars.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BudgetSettings {
    /// An agent run's budget when its file names none.
    pub default_run_usd: f64,
    /// What one objective may spend in all.
    pub objective_cap_usd: f64,
    /// What one operation (all its steps, over its 30 days) may spend.
    pub operation_cap_usd: f64,
    /// What the cloud pool may spend per calendar month.
    pub monthly_cloud_cap_usd: f64,
    /// Monthly cloud spend at which the CEO is alerted, once each.
    pub alert_thresholds_usd: Vec<f64>,
    /// Share of a run's budget at which its one alert is sent.
    pub run_alert_fraction: f64,
}

impl Default for BudgetSettings {
    fn default() -> Self {
        Self {
            default_run_usd: 0.5,
            objective_cap_usd: 5.0,
            operation_cap_usd: 50.0,
            monthly_cloud_cap_usd: 20.0,
            alert_thresholds_usd: vec![5.0, 10.0, 15.0],
            run_alert_fraction: 0.8,
        }
    }
}

/// The task engine's pace and thresholds.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EngineSettings {
    /// Seconds between two engine ticks (due tasks, leases, timeouts).
    pub tick_seconds: u64,
    /// Seconds between two looks for new validations, decisions and progress to show.
    pub notify_seconds: u64,
    /// Seconds between two batches of the public log channel.
    pub log_batch_seconds: u64,
    /// Under this confidence (0–1), a result waits for the CEO.
    pub confidence_threshold: f64,
    /// Hours the CEO has before a decision's automatic choice applies.
    pub decision_timeout_hours: u32,
    /// The hour (UTC, 0–23) the daily summary is sent.
    pub daily_report_hour: u32,
    /// Seconds a stopping process waits for Telegram and the publishers
    /// before it exits anyway (work in flight is left to the crash path).
    pub stop_grace_seconds: u64,
    /// Seconds between two price readings for released price alerts.
    pub price_alert_seconds: u64,
}

impl Default for EngineSettings {
    fn default() -> Self {
        Self {
            tick_seconds: 60,
            notify_seconds: 2,
            log_batch_seconds: 60,
            confidence_threshold: 0.7,
            decision_timeout_hours: 24,
            daily_report_hour: 20,
            stop_grace_seconds: 10,
            price_alert_seconds: 60,
        }
    }
}

/// How long the bot waits on the HTTP services it calls (Telegram, ntfy, X),
/// so a peer that accepts connections and never answers holds nothing up.
/// The connect timeout also applies to model servers and chain APIs, whose
/// whole requests have their own limits (`models.request_timeout_seconds`,
/// `chains.<name>.timeout_seconds`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpSettings {
    /// Seconds to open a connection.
    pub connect_timeout_seconds: u64,
    /// Seconds for a whole request, answer included.
    pub request_timeout_seconds: u64,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            connect_timeout_seconds: 5,
            request_timeout_seconds: 30,
        }
    }
}

/// Rate limits on what outsiders can make the bot do: above them, a
/// question is not queued (no model runs), a stranger's message is not
/// audited again.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LimitSettings {
    /// Questions one member may ask the bot per hour, in one group.
    pub questions_per_member_per_hour: u32,
    /// Questions one group may ask the bot per minute.
    pub questions_per_group_per_minute: u32,
    /// Model runs per minute that group traffic may start, all groups together.
    pub group_model_calls_per_minute: u32,
    /// Private messages per hour from one stranger that are audited.
    pub stranger_messages_per_hour: u32,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            questions_per_member_per_hour: 6,
            questions_per_group_per_minute: 10,
            group_model_calls_per_minute: 20,
            stranger_messages_per_hour: 3,
        }
    }
}

/// The conversation with the CEO.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CeoSettings {
    /// The Profiler runs after this many CEO messages (and once a day).
    pub profile_every_interactions: u32,
    /// Minutes after an answer during which a new message may continue its
    /// objective without replying to it.
    pub follow_up_window_minutes: u32,
    /// Minutes without a message from the CEO after which answers also go by
    /// ntfy (0: always).
    pub away_after_minutes: u32,
    /// Days every proposer's proposals wait for the CEO's buttons, whatever their record.
    pub proposals_supervised_days: u32,
    /// After the supervised days, a proposer whose acceptance rate (0–1) is at
    /// least this creates objectives on its own (the CEO is told); above 1 never.
    pub proposals_autonomy_rate: f64,
    /// Answered proposals a proposer needs before its rate counts.
    pub proposals_autonomy_min_answered: u32,
    /// Hours before a proposal the CEO put off comes back.
    pub proposals_remind_hours: u32,
    /// The hour (UTC, 0–23) on Sunday the weekly figures are sent.
    pub weekly_report_hour: u32,
    /// The CEO's calendar, read by the Anticipator's `calendar` tool: an
    /// iCalendar (.ics) address (`https://…`, `http://…`) or file (`file:///…`
    /// or an absolute path). A secret: private calendar addresses carry a key.
    pub calendar_url: Option<SecretString>,
}

impl Default for CeoSettings {
    fn default() -> Self {
        Self {
            profile_every_interactions: 5,
            follow_up_window_minutes: 10,
            away_after_minutes: 60,
            proposals_supervised_days: 14,
            proposals_autonomy_rate: 0.8,
            proposals_autonomy_min_answered: 10,
            proposals_remind_hours: 24,
            weekly_report_hour: 20,
            calendar_url: None,
        }
    }
}

/// Posting to X (API v2) with each account's OAuth 2.0 user token, kept
/// encrypted in the store.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct XSettings {
    /// The API's base URL.
    pub api_url: Url,
    /// The key tokens are encrypted with: 64 hex characters (32 bytes).
    pub token_key: Option<SecretString>,
    /// At most one post per account per this many seconds (threads excepted).
    pub min_post_interval_seconds: u32,
    /// Seconds between two looks at each account's mentions.
    pub mentions_poll_seconds: u32,
    /// The app's OAuth 2.0 client id: refreshes access tokens before they
    /// expire (accounts connected with a refresh token).
    pub client_id: Option<String>,
    /// The client secret of a confidential app (sent with Basic auth on
    /// refresh); none for a public client.
    pub client_secret: Option<SecretString>,
}

impl Default for XSettings {
    fn default() -> Self {
        Self {
            api_url: default_url("https://api.x.com"),
            token_key: None,
            min_post_interval_seconds: 1800,
            mentions_poll_seconds: 900,
            client_id: None,
            client_secret: None,
        }
    }
}

/// ntfy push notifications and A/B/C answers.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NtfySettings {
    /// The ntfy server.
    pub server: Url,
    /// The topic alerts and results are pushed to; empty turns ntfy off.
    pub topic: String,
    /// The private topic A/B/C buttons post answers to.
    pub reply_topic: String,
    /// Bearer token for publishing and subscribing.
    pub token: Option<SecretString>,
    /// A token that may only publish to the reply topic: it is visible to
    /// anyone who can read the alert topic, since buttons carry it.
    pub reply_token: Option<SecretString>,
    /// The key A/B/C answers are signed with: 64 hex characters (32 bytes).
    /// Each button carries a signature of (decision, option, expiry); a
    /// reply without a valid one changes nothing. Required with a topic.
    pub signing_key: Option<SecretString>,
}

impl Default for NtfySettings {
    fn default() -> Self {
        Self {
            server: default_url("https://ntfy.sh"),
            topic: String::new(),
            reply_topic: String::new(),
            token: None,
            reply_token: None,
            signing_key: None,
        }
    }
}

impl NtfySettings {
    /// Whether ntfy is configured.
    pub fn enabled(&self) -> bool {
        !self.topic.is_empty()
    }
}

#[allow(clippy::expect_used)] // constant literals, parsed by every test that loads defaults
fn default_url(text: &'static str) -> Url {
    Url::parse(text).expect("default URLs are valid")
}

fn default_moderation_mode() -> ModerationMode {
    ModerationMode::DryRun
}

fn default_true() -> bool {
    true
}

fn default_raid_joins() -> u32 {
    10
}

fn default_raid_max() -> u32 {
    3600
}

fn default_raid_quiet() -> u32 {
    600
}

fn default_captcha_seconds() -> u32 {
    120
}

fn default_slots() -> u32 {
    1
}

fn default_protocol() -> ToolProtocol {
    ToolProtocol::Json
}

#[cfg(test)]
mod tests;
