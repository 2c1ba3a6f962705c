//! Every text the bot sends, from `locales/` (Fluent, compiled in): French
//! by default, English when `locale = "en"`. Handlers name keys from
//! [`KEYS`]; nothing a person reads is written in the code.

use std::borrow::Cow;
use std::collections::HashMap;

use fluent_templates::fluent_bundle::FluentValue;
use fluent_templates::{LanguageIdentifier, Loader};
use ulias_core::settings::Locale;

fluent_templates::static_loader! {
    static LOCALES = {
        locales: "../locales",
        fallback_language: "fr",
        // Telegram shows Unicode isolation marks as stray characters.
        customise: |bundle| bundle.set_use_isolating(false),
    };
}

/// Every key the code looks up (a test checks both languages have each).
pub const KEYS: &[&str] = &[
    "refusal-stranger",
    "not-allowed",
    "unknown-command",
    "error-generic",
    "objective-created",
    "objective-question",
    "objective-corrected",
    "correction-nothing",
    "interpreter-failed",
    "progress-line",
    "progress-count",
    "progress-running",
    "progress-planning",
    "progress-completed",
    "progress-failed",
    "progress-cancelled",
    "progress-blocked",
    "validation-header",
    "validation-step",
    "validation-post",
    "validation-thread",
    "validation-album",
    "validation-site",
    "validation-pinned",
    "validation-poll",
    "validation-dossier",
    "validation-other",
    "button-approve",
    "button-reject",
    "validation-approved",
    "validation-rejected",
    "validation-already",
    "validation-reason-prompt",
    "validation-reason-stored",
    "decision-header",
    "decision-context",
    "decision-timeout",
    "decision-recommended",
    "decision-answered",
    "decision-timed-out",
    "decision-already",
    "urgency-low",
    "urgency-normal",
    "urgency-high",
    "urgency-critical",
    "alert-info",
    "alert-warning",
    "alert-critical",
    "alert-run-budget-title",
    "alert-run-budget-body",
    "alert-cloud-month-title",
    "alert-cloud-month-body",
    "alert-objective-finished-title",
    "alert-objective-finished-body",
    "alert-operation-stopped-title",
    "alert-operation-stopped-body",
    "alert-buyback-by-hand-title",
    "alert-buyback-by-hand-body",
    "alert-step-refused-title",
    "alert-step-refused-body",
    "alert-validation-waiting-title",
    "alert-validation-waiting-body",
    "alert-task-failed-title",
    "alert-task-failed-body",
    "alert-from-agent-title",
    "alert-from-agent-body",
    "alert-x-mention-title",
    "alert-x-mention-body",
    "log-batch-header",
    "log-line",
    "log-total",
    "status-title",
    "status-objectives",
    "status-tasks",
    "status-slots",
    "status-money",
    "status-paused",
    "objectives-title",
    "objectives-empty",
    "objectives-line",
    "decisions-title",
    "decisions-empty",
    "decisions-line",
    "validations-title",
    "validations-empty",
    "validations-line",
    "paused",
    "resumed",
    "stopped",
    "stop-usage",
    "log-usage",
    "log-title",
    "log-empty",
    "budget-title",
    "budget-today",
    "budget-month",
    "budget-cloud",
    "not-found",
    "help-title",
    "cmd-status",
    "cmd-objectives",
    "cmd-decisions",
    "cmd-validations",
    "cmd-pause",
    "cmd-resume",
    "cmd-stop",
    "cmd-budget",
    "cmd-log",
    "cmd-report",
    "cmd-help",
    "group-official-address",
    "group-captcha",
    "group-captcha-not-yours",
    "group-rights-missing",
    "right-delete",
    "right-restrict",
    "right-pin",
    "right-post",
    "ceo-not-started",
    "group-alert",
    "group-ban-report",
    "button-unban",
    "group-unbanned",
    "group-shortlist-title",
    "group-shortlist-line",
    "publication-unknown",
    "publication-failed",
    "publication-not-pinned",
    "publication-group-photo-not-set",
    "validation-reply-to",
    "validation-images",
    "validation-profile",
    "publication-x-automated-label",
    "x-refresh-failed",
    "vote-tie",
    "vote-decided",
    "vote-decided-already",
    "op-vote",
    "op-vote-tied",
    "vote-by-votes",
    "vote-by-x_votes",
    "vote-by-team",
    "button-resend",
    "publication-resent",
    "report-title",
    "report-objectives",
    "report-completed",
    "report-in-progress",
    "report-failed",
    "report-waiting",
    "report-teams",
    "report-team-line",
    "report-metrics",
    "report-autonomy",
    "report-confidence",
    "report-interventions",
    "report-tokens",
    "report-decisions",
    "report-decision-line",
    "report-none",
    "report-chart",
    "team-engineering",
    "team-ops",
    "team-research",
    "team-media",
    "team-security",
    "team-transversal",
    "team-ceo-intel",
    "team-takeover",
    "team-direction",
    "cmd-validation",
    "validation-usage",
    "validation-toggled",
    "validation-state-on",
    "validation-state-off",
    "alert-proposal-automatic-title",
    "alert-proposal-automatic-body",
    "alert-incident-opened-title",
    "alert-incident-opened-body",
    "alert-incident-resolved-title",
    "alert-incident-resolved-body",
    "answer-completed",
    "answer-failed",
    "answer-cancelled",
    "answer-reason",
    "answer-reason-stopped",
    "answer-nothing",
    "answer-follow-up",
    "button-details",
    "button-redo",
    "button-follow-up",
    "details-title",
    "details-line",
    "details-total",
    "proposal-header",
    "proposal-accepted",
    "proposal-declined",
    "proposal-later",
    "button-accept",
    "button-decline",
    "button-later",
    "profile-empty",
    "profile-title",
    "profile-line",
    "profile-forgotten",
    "profile-kind-vocabulary",
    "profile-kind-preference",
    "profile-kind-pattern",
    "profile-kind-habit",
    "profile-kind-style",
    "profile-kind-priority",
    "button-forget",
    "cmd-stats",
    "cmd-profile",
    "stats-title",
    "stats-autonomy",
    "stats-generated",
    "stats-interventions",
    "stats-caught",
    "stats-accuracy",
    "stats-anticipated",
    "stats-proposer",
    "stats-proposals",
    "stats-more",
    "stats-percent",
    "stats-help-title",
    "stats-help-autonomy",
    "stats-help-generated",
    "stats-help-interventions",
    "stats-help-caught",
    "stats-help-accuracy",
    "stats-help-anticipated",
    "stats-help-proposals",
    "weekly-title",
    "weekly-autonomy",
    "weekly-generated",
    "weekly-interventions",
    "weekly-caught",
    "weekly-accuracy",
    "weekly-anticipated",
    "weekly-chart",
    "forwarded-ask",
    "publication-on-its-way",
    "publication-gone-already",
    "groups-unprotected",
    "groups-protected",
    "decision-doubt",
    "decision-escalation",
    "decision-confirmation",
    "decision-operation-start",
    "decision-operation-stop",
    "decision-option-accept",
    "decision-option-rerun",
    "decision-option-cancel",
    "decision-option-replan",
    "decision-option-drop",
    "decision-option-confirm",
    "decision-option-refuse",
    "decision-option-start",
    "decision-option-stop",
    "decision-option-keep",
    "decision-option-act",
    "decision-option-wait",
    "decision-incident",
    "cmd-takeover",
    "cmd-prereport",
    "cmd-ops",
    "cmd-op",
    "takeover-usage",
    "prereport-usage",
    "takeover-chain-unknown",
    "takeover-chain-unsupported",
    "takeover-address-invalid",
    "takeover-taken",
    "takeover-prereport-queued",
    "prereport-queued",
    "operation-started",
    "operation-stopped",
    "ops-title",
    "ops-empty",
    "ops-line",
    "ops-next-none",
    "op-usage",
    "op-unknown",
    "op-none",
    "op-header",
    "op-resources",
    "op-step",
    "op-more",
    "op-paused",
    "op-resumed",
    "op-not-now",
    "op-stop-asked",
    "bind-usage",
    "bind-done",
    "bind-taken",
    "group-answer-held",
    "validation-to-group",
    "validation-to-no-group",
    "validation-to-x",
    "validation-to-no-x",
    "validation-to-site",
    "validation-to-manual",
    "takeover-confirm",
    "takeover-run",
    "takeover-not",
    "takeover-dropped",
    "decision-validation-off",
    "validation-off-asked",
    "validation-changed-by",
    "escalation-words",
    "escalation-replanned",
    "validation-unreadable",
    "ntfy-decision-title",
    "ntfy-outcome-title",
    "ntfy-outcome-answered",
    "ntfy-outcome-timed-out",
    "ntfy-outcome-cancelled",
    "ntfy-more-in-chat",
    // Utilities (the Builder): a skipped utility, a released command, /price.
    "alert-utility-skipped-title",
    "alert-utility-skipped-body",
    "utility-released-command",
    "utility-price-alerts",
    "utility-price-alert-above",
    "utility-price-alert-below",
];

/// The texts of one language.
#[derive(Debug, Clone)]
pub struct Texts {
    language: LanguageIdentifier,
}

/// One argument of a text.
pub type Arg<'a> = (&'static str, FluentValue<'a>);

impl Texts {
    /// The texts of `locale`.
    pub fn new(locale: Locale) -> Self {
        let language = match locale {
            Locale::Fr => fluent_templates::langid!("fr"),
            Locale::En => fluent_templates::langid!("en"),
        };
        Self { language }
    }

    /// The text `key`, without arguments.
    pub fn get(&self, key: &str) -> String {
        LOCALES.lookup(&self.language, key)
    }

    /// `value` with `places` decimals, written as the language writes
    /// numbers (a decimal comma in French).
    pub fn decimal(&self, value: f64, places: usize) -> String {
        let text = format!("{value:.places$}");
        if self.language == fluent_templates::langid!("fr") {
            text.replace('.', ",")
        } else {
            text
        }
    }

    /// The text `key` with its arguments.
    pub fn with(&self, key: &str, args: &[Arg<'_>]) -> String {
        let args: HashMap<Cow<'static, str>, FluentValue<'_>> = args
            .iter()
            .map(|(name, value)| (Cow::Borrowed(*name), value.clone()))
            .collect();
        LOCALES.lookup_with_args(&self.language, key, &args)
    }
}

/// A text argument from anything printable.
pub fn arg(name: &'static str, value: impl ToString) -> Arg<'static> {
    (name, FluentValue::from(value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(file: &str) -> Vec<String> {
        let mut keys: Vec<String> = file
            .lines()
            .filter(|line| line.chars().next().is_some_and(|c| c.is_ascii_lowercase()))
            .filter_map(|line| line.split_once(" =").map(|(key, _)| key.trim().to_owned()))
            .collect();
        keys.sort();
        keys
    }

    /// The `{ $name }` variables of `key`'s message (its first line and the
    /// indented lines after it).
    fn variables_of(file: &str, key: &str) -> Vec<&'static str> {
        let start = format!("{key} =");
        let mut lines = file.lines().skip_while(|l| !l.starts_with(&start));
        let mut text = lines.next().unwrap_or_default().to_owned();
        for line in lines.take_while(|l| l.starts_with(' ')) {
            text.push_str(line);
        }
        text.split("{ $")
            .skip(1)
            .filter_map(|rest| rest.split_once(' ').map(|(name, _)| name.to_owned()))
            .map(|name| &*Box::leak(name.into_boxed_str()))
            .collect()
    }

    #[test]
    fn both_languages_have_the_same_keys_and_no_unused_one() {
        let fr = keys_of(include_str!("../../locales/fr/main.ftl"));
        let en = keys_of(include_str!("../../locales/en/main.ftl"));
        assert_eq!(fr, en);
        let mut used: Vec<String> = KEYS.iter().map(|k| (*k).to_owned()).collect();
        used.sort();
        assert_eq!(
            fr, used,
            "every key the code uses is in the files, and no other"
        );
        for (locale, file) in [
            (Locale::Fr, include_str!("../../locales/fr/main.ftl")),
            (Locale::En, include_str!("../../locales/en/main.ftl")),
        ] {
            let texts = Texts::new(locale);
            for key in KEYS {
                let args: Vec<Arg<'_>> = variables_of(file, key)
                    .into_iter()
                    .map(|v| arg(v, "x"))
                    .collect();
                let text = texts.with(key, &args);
                assert!(
                    !text.contains("Unknown localization"),
                    "{key} in {locale}: {text}"
                );
            }
        }
    }

    #[test]
    fn every_alert_of_the_runtime_has_a_title_and_a_body() {
        for key in ulias_agents::alerts::ALERT_KEYS {
            for part in ["title", "body"] {
                let full = format!("{key}-{part}");
                assert!(KEYS.contains(&full.as_str()), "{full} is missing");
            }
        }
    }

    #[test]
    fn arguments_are_filled_without_isolation_marks() {
        let texts = Texts::new(Locale::En);
        let text = texts.with(
            "objective-created",
            &[arg("id", 12), arg("title", "Check"), arg("priority", 6)],
        );
        assert_eq!(
            text,
            "Objective #12 created: Check (priority 6). I'll keep you posted here."
        );
        assert!(
            Texts::new(Locale::Fr)
                .get("help-title")
                .starts_with("Commandes")
        );
    }
}
