//! Checks that go beyond types: ranges, consistency between keys, ids that
//! cannot be right. Every problem names its key and says what is expected.

use std::collections::HashSet;

use secrecy::ExposeSecret;

use super::{
    BudgetSettings, CeoSettings, EngineSettings, HttpSettings, LimitSettings, ModelSettings,
    NtfySettings, Problem, Settings, TelegramSettings, Tier, UpdateMode, XSettings,
};

/// Collects problems, each tied to a key.
#[derive(Default)]
struct Problems(Vec<Problem>);

impl Problems {
    fn add(&mut self, key: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem {
            key: key.into(),
            message: message.into(),
        });
    }

    fn check(&mut self, ok: bool, key: impl Into<String>, message: impl Into<String>) {
        if !ok {
            self.add(key, message);
        }
    }
}

impl Settings {
    /// Everything wrong with these settings; empty when they are usable.
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Problems::default();
        self.check_database(&mut problems);
        check_telegram(&self.telegram, &mut problems);
        check_models(&self.models, &mut problems);
        check_budgets(&self.budgets, &mut problems);
        check_engine(&self.engine, &mut problems);
        check_ceo(&self.ceo, &mut problems);
        check_limits(&self.limits, &mut problems);
        check_http(&self.http, &mut problems);
        check_ntfy(&self.ntfy, &mut problems);
        check_x(&self.x, &mut problems);
        problems.0.extend(self.chains.problems());
        problems.0.extend(self.takeover.problems());
        problems.0.extend(self.workspace.problems());
        problems.0.extend(super::ops::problems(
            &self.sandbox,
            &self.ssh,
            &self.hosts,
            &self.services,
        ));
        problems.0.extend(self.infra.problems());
        problems.0.extend(self.research.problems());
        problems.0.extend(self.cloudflare.problems());
        problems.0.extend(self.public_api.problems());
        problems.0
    }

    fn check_database(&self, problems: &mut Problems) {
        let url = self.database.url.expose_secret();
        let known = ["sqlite:", "postgres://", "postgresql://"];
        problems.check(
            known.iter().any(|scheme| url.starts_with(scheme)),
            "database.url",
            "expected `sqlite://FILE` or `postgres://USER@HOST/DB`",
        );
        problems.check(
            (1..=1000).contains(&self.database.max_connections),
            "database.max_connections",
            "expected a number of connections from 1 to 1000",
        );
    }
}

fn check_telegram(telegram: &TelegramSettings, problems: &mut Problems) {
    if let Some(token) = &telegram.token {
        problems.check(
            looks_like_bot_token(token.expose_secret()),
            "telegram.token",
            "expected BotFather's token, `<digits>:<35 characters>`",
        );
        problems.check(
            !telegram.users.ceo.is_empty(),
            "telegram.users.ceo",
            "a bot with a token needs at least one CEO user id",
        );
        problems.check(
            telegram.chats.ceo.is_some(),
            "telegram.chats.ceo",
            "a bot with a token needs the CEO's chat id",
        );
    }
    if telegram.mode == UpdateMode::Webhook && telegram.webhook.is_none() {
        problems.add(
            "telegram.webhook",
            "`mode = \"webhook\"` needs a [telegram.webhook] section with `listen` and `public_url`",
        );
    }
    if let Some(webhook) = &telegram.webhook {
        problems.check(
            webhook.public_url.scheme() == "https",
            "telegram.webhook.public_url",
            "Telegram only delivers webhooks to https:// URLs",
        );
        match &webhook.secret_token {
            // Without it anyone who finds the URL can post forged updates
            // (and several processes behind one URL cannot tell theirs).
            None if telegram.mode == UpdateMode::Webhook => problems.add(
                "telegram.webhook.secret_token",
                "webhook mode needs a secret token: 1–256 characters among A–Z, a–z, 0–9, _ and -",
            ),
            None => {}
            Some(secret) => problems.check(
                is_webhook_secret(secret.expose_secret()),
                "telegram.webhook.secret_token",
                "Telegram accepts 1–256 characters among A–Z, a–z, 0–9, _ and - only",
            ),
        }
    }
    for (role, ids) in [("ceo", &telegram.users.ceo), ("team", &telegram.users.team)] {
        for (i, id) in ids.iter().enumerate() {
            problems.check(
                *id > 0,
                format!("telegram.users.{role}[{i}]"),
                format!("{id} is not a user id (user ids are positive)"),
            );
        }
    }
    let chats = &telegram.chats;
    for (key, id) in [("team", chats.team), ("log_channel", chats.log_channel)] {
        if let Some(id) = id {
            problems.check(
                id < 0,
                format!("telegram.chats.{key}"),
                format!("{id} is not a group or channel id (those are negative)"),
            );
        }
    }
    check_groups(telegram, problems);
}

fn check_groups(telegram: &TelegramSettings, problems: &mut Problems) {
    let mut seen = HashSet::new();
    for (i, group) in telegram.groups.iter().enumerate() {
        let key = |field: &str| format!("telegram.groups[{i}].{field}");
        problems.check(
            group.chat_id < 0,
            key("chat_id"),
            format!(
                "{} is not a group id (group ids are negative)",
                group.chat_id
            ),
        );
        problems.check(
            seen.insert(group.chat_id),
            key("chat_id"),
            format!("group {} is listed twice", group.chat_id),
        );
        problems.check(
            !group.name.trim().is_empty(),
            key("name"),
            "expected a name",
        );
        problems.check(
            (2..=10_000).contains(&group.raid_joins_per_minute),
            key("raid_joins_per_minute"),
            "expected a number of joins from 2 to 10000",
        );
        problems.check(
            (1..=86_400).contains(&group.raid_quiet_seconds),
            key("raid_quiet_seconds"),
            "expected 1 to 86400 seconds",
        );
        problems.check(
            (60..=86_400).contains(&group.raid_max_seconds),
            key("raid_max_seconds"),
            "must be 60–86400 seconds",
        );
        problems.check(
            (10..=3_600).contains(&group.captcha_seconds),
            key("captcha_seconds"),
            "expected 10 to 3600 seconds",
        );
        for (j, domain) in group.allowed_domains.iter().enumerate() {
            problems.check(
                is_domain(domain),
                format!("telegram.groups[{i}].allowed_domains[{j}]"),
                format!("`{domain}` is not a domain name like `example.org`"),
            );
        }
        for (j, address) in group.official_addresses.iter().enumerate() {
            problems.check(
                !address.trim().is_empty() && !address.contains(char::is_whitespace),
                format!("telegram.groups[{i}].official_addresses[{j}]"),
                "expected a contract address without spaces",
            );
        }
    }
}

fn check_models(models: &ModelSettings, problems: &mut Problems) {
    problems.check(
        (1..=3600).contains(&models.request_timeout_seconds),
        "models.request_timeout_seconds",
        "must be 1–3600 seconds",
    );
    let mut names = HashSet::new();
    for (i, pool) in models.pools.iter().enumerate() {
        let key = |field: &str| format!("models.pools[{i}].{field}");
        problems.check(!pool.name.trim().is_empty(), key("name"), "expected a name");
        problems.check(
            names.insert(pool.name.as_str()),
            key("name"),
            format!("pool `{}` is declared twice", pool.name),
        );
        problems.check(
            !pool.model.trim().is_empty(),
            key("model"),
            "expected a model name",
        );
        problems.check(
            matches!(pool.base_url.scheme(), "http" | "https"),
            key("base_url"),
            "expected an http:// or https:// URL",
        );
        problems.check(
            (1..=256).contains(&pool.slots),
            key("slots"),
            "expected a number of concurrent requests from 1 to 256",
        );
        for (field, price) in [
            ("price_in_per_1k", pool.price_in_per_1k),
            ("price_out_per_1k", pool.price_out_per_1k),
            ("cloud_equiv_in_per_1k", pool.cloud_equiv_in_per_1k),
            ("cloud_equiv_out_per_1k", pool.cloud_equiv_out_per_1k),
        ] {
            problems.check(
                price.is_finite() && (0.0..1000.0).contains(&price),
                key(field),
                "expected a price in US dollars per 1,000 tokens, from 0 to 1000",
            );
        }
    }
    problems.check(
        models.pools.iter().any(|p| p.tier != Tier::Cloud),
        "models.pools",
        "expected at least one local pool (tier `thinker` or `executor`)",
    );
}

fn check_engine(engine: &EngineSettings, problems: &mut Problems) {
    for (key, seconds) in [
        ("engine.tick_seconds", engine.tick_seconds),
        ("engine.notify_seconds", engine.notify_seconds),
        ("engine.log_batch_seconds", engine.log_batch_seconds),
        ("engine.price_alert_seconds", engine.price_alert_seconds),
    ] {
        problems.check((1..=3600).contains(&seconds), key, "must be 1–3600 seconds");
    }
    problems.check(
        (0.0..=1.0).contains(&engine.confidence_threshold),
        "engine.confidence_threshold",
        "must be within 0–1",
    );
    problems.check(
        engine.daily_report_hour < 24,
        "engine.daily_report_hour",
        "must be an hour from 0 to 23 (UTC)",
    );
    problems.check(
        (1..=600).contains(&engine.stop_grace_seconds),
        "engine.stop_grace_seconds",
        "must be 1–600 seconds",
    );
    problems.check(
        (1..=720).contains(&engine.decision_timeout_hours),
        "engine.decision_timeout_hours",
        "must be 1–720 hours",
    );
}

fn check_ceo(ceo: &CeoSettings, problems: &mut Problems) {
    for (key, value, range) in [
        (
            "ceo.profile_every_interactions",
            ceo.profile_every_interactions,
            1..=1000,
        ),
        (
            "ceo.follow_up_window_minutes",
            ceo.follow_up_window_minutes,
            0..=1440,
        ),
        ("ceo.away_after_minutes", ceo.away_after_minutes, 0..=10080),
        (
            "ceo.proposals_supervised_days",
            ceo.proposals_supervised_days,
            0..=365,
        ),
        (
            "ceo.proposals_autonomy_min_answered",
            ceo.proposals_autonomy_min_answered,
            1..=10000,
        ),
        (
            "ceo.proposals_remind_hours",
            ceo.proposals_remind_hours,
            1..=720,
        ),
    ] {
        let (low, high) = (range.start(), range.end());
        problems.check(range.contains(&value), key, format!("must be {low}–{high}"));
    }
    problems.check(
        ceo.proposals_autonomy_rate.is_finite() && ceo.proposals_autonomy_rate >= 0.0,
        "ceo.proposals_autonomy_rate",
        "must be a rate from 0 to 1 (above 1: never autonomous)",
    );
    problems.check(
        ceo.weekly_report_hour < 24,
        "ceo.weekly_report_hour",
        "must be an hour from 0 to 23 (UTC)",
    );
    if let Some(calendar) = &ceo.calendar_url {
        problems.check(
            is_calendar_source(calendar.expose_secret()),
            "ceo.calendar_url",
            "must be an http(s):// or file:/// address, or an absolute path, of an .ics calendar",
        );
    }
}

/// Whether `source` names a calendar the `calendar` tool can read.
fn is_calendar_source(source: &str) -> bool {
    if source.starts_with('/') {
        return true;
    }
    match url::Url::parse(source) {
        Ok(url) => match url.scheme() {
            "http" | "https" => url.host().is_some(),
            "file" => url.to_file_path().is_ok(),
            _ => false,
        },
        Err(_) => false,
    }
}

/// Whether Telegram accepts `secret` as a webhook's `secret_token`.
fn is_webhook_secret(secret: &str) -> bool {
    (1..=256).contains(&secret.len())
        && secret
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check_http(http: &HttpSettings, problems: &mut Problems) {
    for (key, seconds) in [
        ("http.connect_timeout_seconds", http.connect_timeout_seconds),
        ("http.request_timeout_seconds", http.request_timeout_seconds),
    ] {
        problems.check((1..=600).contains(&seconds), key, "must be 1–600 seconds");
    }
}

fn check_limits(limits: &LimitSettings, problems: &mut Problems) {
    for (key, value) in [
        (
            "limits.questions_per_member_per_hour",
            limits.questions_per_member_per_hour,
        ),
        (
            "limits.questions_per_group_per_minute",
            limits.questions_per_group_per_minute,
        ),
        (
            "limits.group_model_calls_per_minute",
            limits.group_model_calls_per_minute,
        ),
        (
            "limits.stranger_messages_per_hour",
            limits.stranger_messages_per_hour,
        ),
    ] {
        problems.check((1..=10_000).contains(&value), key, "must be 1–10000");
    }
}

fn check_budgets(budgets: &BudgetSettings, problems: &mut Problems) {
    let amounts = [
        ("budgets.default_run_usd", budgets.default_run_usd),
        ("budgets.objective_cap_usd", budgets.objective_cap_usd),
        ("budgets.operation_cap_usd", budgets.operation_cap_usd),
        (
            "budgets.monthly_cloud_cap_usd",
            budgets.monthly_cloud_cap_usd,
        ),
    ];
    for (key, amount) in amounts {
        problems.check(
            amount.is_finite() && amount > 0.0 && amount < 1_000_000.0,
            key,
            "expected an amount in US dollars, above 0",
        );
    }
    problems.check(
        budgets.default_run_usd <= budgets.objective_cap_usd,
        "budgets.default_run_usd",
        "a run's budget cannot exceed `budgets.objective_cap_usd`",
    );
    let thresholds = &budgets.alert_thresholds_usd;
    problems.check(
        thresholds.windows(2).all(|w| w[0] < w[1]),
        "budgets.alert_thresholds_usd",
        "expected amounts in increasing order, e.g. [5, 10, 15]",
    );
    problems.check(
        thresholds
            .iter()
            .all(|t| t.is_finite() && *t > 0.0 && *t < budgets.monthly_cloud_cap_usd),
        "budgets.alert_thresholds_usd",
        "each alert threshold must be above 0 and below `budgets.monthly_cloud_cap_usd`",
    );
    problems.check(
        budgets.run_alert_fraction > 0.0 && budgets.run_alert_fraction < 1.0,
        "budgets.run_alert_fraction",
        "expected a fraction between 0 and 1, e.g. 0.8",
    );
}

fn check_ntfy(ntfy: &NtfySettings, problems: &mut Problems) {
    for (key, topic) in [
        ("ntfy.topic", &ntfy.topic),
        ("ntfy.reply_topic", &ntfy.reply_topic),
    ] {
        problems.check(
            topic.is_empty() || is_topic(topic),
            key,
            "expected a topic name: 1–64 letters, digits, `-` or `_`",
        );
    }
    if ntfy.enabled() {
        problems.check(
            !ntfy.reply_topic.is_empty(),
            "ntfy.reply_topic",
            "A/B/C answers need a private reply topic",
        );
        problems.check(
            ntfy.reply_topic != ntfy.topic,
            "ntfy.reply_topic",
            "the reply topic must differ from the alert topic",
        );
        problems.check(
            ntfy.signing_key.is_some(),
            "ntfy.signing_key",
            "A/B/C answers are signed: set 64 hex characters, e.g. from `openssl rand -hex 32`",
        );
        check_ntfy_tokens(ntfy, problems);
    }
    if let Some(key) = &ntfy.signing_key {
        let key = key.expose_secret();
        problems.check(
            key.len() == 64 && key.chars().all(|c| c.is_ascii_hexdigit()),
            "ntfy.signing_key",
            "expected 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`",
        );
    }
}

/// On a server others can reach, topics without tokens can be read and
/// written by anyone; the reply token, which buttons carry to whoever
/// reads the alert topic, must not be the bot's own.
fn check_ntfy_tokens(ntfy: &NtfySettings, problems: &mut Problems) {
    if !is_private_host(&ntfy.server) {
        for (key, token) in [
            ("ntfy.token", &ntfy.token),
            ("ntfy.reply_token", &ntfy.reply_token),
        ] {
            problems.check(
                token.is_some(),
                key,
                "a public ntfy server needs tokens: anyone could read the alerts and answer",
            );
        }
    }
    if let (Some(token), Some(reply)) = (&ntfy.token, &ntfy.reply_token) {
        problems.check(
            token.expose_secret() != reply.expose_secret(),
            "ntfy.reply_token",
            "the buttons show the reply token to whoever reads the alert topic: \
             use a token that may only publish to the reply topic",
        );
    }
}

/// Whether `url` names a host on this machine or a private network.
fn is_private_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() || ip.is_private() || ip.is_link_local(),
        Some(url::Host::Ipv6(ip)) => {
            ip.is_loopback() || ip.is_unique_local() || ip.is_unicast_link_local()
        }
        Some(url::Host::Domain(domain)) => {
            let domain = domain.to_ascii_lowercase();
            domain == "localhost"
                || [".localhost", ".local", ".lan", ".internal", ".home.arpa"]
                    .iter()
                    .any(|suffix| domain.ends_with(suffix))
        }
        None => false,
    }
}

fn looks_like_bot_token(token: &str) -> bool {
    match token.split_once(':') {
        Some((id, secret)) => {
            !id.is_empty()
                && id.bytes().all(|b| b.is_ascii_digit())
                && secret.len() >= 30
                && secret
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }
        None => false,
    }
}

fn check_x(x: &XSettings, problems: &mut Problems) {
    if let Some(key) = &x.token_key {
        let key = key.expose_secret();
        problems.check(
            key.len() == 64 && key.chars().all(|c| c.is_ascii_hexdigit()),
            "x.token_key",
            "expected 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`",
        );
    }
    problems.check(
        (1..=86_400).contains(&x.min_post_interval_seconds),
        "x.min_post_interval_seconds",
        "expected 1 to 86400 seconds",
    );
    problems.check(
        (1..=86_400).contains(&x.mentions_poll_seconds),
        "x.mentions_poll_seconds",
        "expected 1 to 86400 seconds",
    );
}

fn is_topic(topic: &str) -> bool {
    (1..=64).contains(&topic.len())
        && topic
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn is_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
}
