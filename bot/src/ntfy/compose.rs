//! What is pushed, as queued pushes: titles in the chat's language, a
//! message cut to ntfy's limit (the rest is in the chat), and a decision's
//! buttons signed until its expiry.

use chrono::{DateTime, TimeDelta, Utc};
use ulias_core::domain::{Decision, DecisionStatus, Urgency};
use ulias_core::store::{NewPush, PushAction, PushKind, PushPayload};

use super::{LETTERS, Signer};
use crate::decision_text::{option_label, option_labels};
use crate::i18n::{Texts, arg};

/// ntfy refuses a message over 4,096 bytes (400).
pub const MAX_MESSAGE_BYTES: usize = 4096;

/// How long the buttons of a decision without a timeout stay valid.
pub const UNTIMED_ANSWER_WINDOW: TimeDelta = TimeDelta::days(7);

/// `message`, cut at a character boundary and pointed to the chat if it
/// is over ntfy's limit.
pub fn fit(texts: &Texts, message: &str) -> String {
    if message.len() <= MAX_MESSAGE_BYTES {
        return message.to_owned();
    }
    let more = format!("\n{}", texts.get("ntfy-more-in-chat"));
    let mut end = MAX_MESSAGE_BYTES.saturating_sub(more.len());
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{more}", &message[..end])
}

/// An alert or a summary.
pub fn alert(texts: &Texts, title: &str, message: &str, urgency: Urgency) -> NewPush {
    NewPush {
        kind: PushKind::Alert,
        decision: None,
        payload: PushPayload {
            title: title.to_owned(),
            message: fit(texts, message),
            urgency,
            actions: Vec::new(),
        },
    }
}

/// Until when a decision's buttons answer it: its timeout, or
/// [`UNTIMED_ANSWER_WINDOW`] after it was asked.
pub fn expiry(decision: &Decision) -> DateTime<Utc> {
    decision
        .timeout_at
        .unwrap_or(decision.created_at + UNTIMED_ANSWER_WINDOW)
}

/// A decision with one signed button per option (at most 3: A, B, C);
/// `text` is the decision as the chat shows it.
pub fn decision(texts: &Texts, signer: &Signer, decision: &Decision, text: &str) -> NewPush {
    let expires = expiry(decision);
    let actions = option_labels(texts, decision)
        .into_iter()
        .zip(LETTERS)
        .map(|(label, letter)| PushAction {
            label: format!("{letter}: {label}"),
            body: signer.body(decision.id.get(), letter, expires),
        })
        .collect();
    NewPush {
        kind: PushKind::Decision,
        decision: Some(decision.id),
        payload: PushPayload {
            title: texts.with("ntfy-decision-title", &[arg("id", decision.id)]),
            message: fit(texts, text),
            urgency: decision.urgency,
            actions,
        },
    }
}

/// How a decision ended, without buttons: it follows the decision's push
/// so the phone does not keep answering a closed question. `None` while
/// it is pending.
pub fn outcome(texts: &Texts, decision: &Decision) -> Option<NewPush> {
    let option = option_label(texts, decision, decision.response);
    let message = match decision.status {
        DecisionStatus::Answered => texts.with(
            "ntfy-outcome-answered",
            &[
                arg("option", option),
                arg("who", decision.responded_by.clone().unwrap_or_default()),
            ],
        ),
        DecisionStatus::TimedOut => texts.with("ntfy-outcome-timed-out", &[arg("option", option)]),
        DecisionStatus::Cancelled => texts.get("ntfy-outcome-cancelled"),
        DecisionStatus::Pending => return None,
    };
    Some(NewPush {
        kind: PushKind::Outcome,
        decision: Some(decision.id),
        payload: PushPayload {
            title: texts.with("ntfy-outcome-title", &[arg("id", decision.id)]),
            message,
            urgency: Urgency::Low,
            actions: Vec::new(),
        },
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use ulias_core::settings::Locale;

    use super::*;

    #[test]
    fn a_message_over_ntfys_limit_is_cut_and_points_to_the_chat() {
        let texts = Texts::new(Locale::En);
        let short = "Disk at 91 %.";
        assert_eq!(fit(&texts, short), short);
        let long = "é".repeat(3000); // 6,000 bytes
        let fitted = fit(&texts, &long);
        assert!(fitted.len() <= MAX_MESSAGE_BYTES, "{}", fitted.len());
        assert!(
            fitted.ends_with("the rest is in the Telegram chat."),
            "{fitted}"
        );
        assert!(fitted.starts_with("ééé"));
    }
}
