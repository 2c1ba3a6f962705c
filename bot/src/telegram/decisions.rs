//! Decisions as messages with buttons, and what pressing them does. A
//! message is re-rendered from the store when it is edited, so what it
//! shows is always what is stored.

use serde_json::json;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, MessageId};
use ulias_core::domain::{Decision, DecisionAnswer, DecisionId, DecisionStatus, Urgency};
use ulias_core::store::StoreError;

use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::HandlerError;
use super::previews::audit;
use super::{Common, Roles, Work};
use crate::decision_text;
use crate::i18n::{Texts, arg};

/// Shows a decision to the CEO with its options as buttons.
pub async fn post_decision(
    common: &Common,
    chat: i64,
    decision: &Decision,
) -> Result<MessageId, HandlerError> {
    let labels = decision_text::option_labels(&common.texts, decision);
    let rows = labels.into_iter().enumerate().map(|(option, label)| {
        let label = if decision.recommended == Some(option) {
            common
                .texts
                .with("decision-recommended", &[arg("option", label)])
        } else {
            label
        };
        vec![InlineKeyboardButton::callback(
            label.chars().take(60).collect::<String>(),
            Button::Decide {
                decision: decision.id.get(),
                option,
            }
            .data(),
        )]
    });
    let sent = common
        .bot
        .send_message(ChatId(chat), clip(&decision_text(&common.texts, decision)))
        .reply_markup(InlineKeyboardMarkup::new(rows))
        .await?;
    Ok(sent.id)
}

/// The text of a decision's message, with its answer once made.
pub fn decision_text(texts: &Texts, decision: &Decision) -> String {
    let urgency = match decision.urgency {
        Urgency::Low => "urgency-low",
        Urgency::Normal => "urgency-normal",
        Urgency::High => "urgency-high",
        Urgency::Critical => "urgency-critical",
    };
    let mut lines = vec![
        texts.with(
            "decision-header",
            &[arg("id", decision.id), arg("urgency", texts.get(urgency))],
        ),
        decision_text::question(texts, decision),
    ];
    if !decision.context_summary.is_empty() {
        lines.push(texts.with(
            "decision-context",
            &[arg("context", &decision.context_summary)],
        ));
    }
    let option = |i: Option<usize>| decision_text::option_label(texts, decision, i);
    match decision.status {
        DecisionStatus::Pending => {
            if let (Some(at), Some(_)) = (decision.timeout_at, decision.auto_decision) {
                lines.push(texts.with(
                    "decision-timeout",
                    &[
                        arg("at", at.format("%Y-%m-%d %H:%M UTC")),
                        arg("default", option(decision.auto_decision)),
                    ],
                ));
            }
        }
        DecisionStatus::Answered | DecisionStatus::TimedOut => {
            let at = decision
                .responded_at
                .map(|t| t.format("%H:%M").to_string())
                .unwrap_or_default();
            lines.push(texts.with(
                "decision-answered",
                &[
                    arg("option", option(decision.response)),
                    arg("who", decision.responded_by.clone().unwrap_or_default()),
                    arg("at", at),
                ],
            ));
        }
        DecisionStatus::Cancelled => {}
    }
    lines.join("\n")
}

/// An option pressed: the decision is answered once and applied.
pub async fn decide(
    common: &Common,
    work: &Work,
    roles: &Roles,
    press: &Press,
    id: i64,
    option: usize,
) -> Result<Option<String>, HandlerError> {
    let answer = DecisionAnswer {
        option,
        by: press.user_name.clone(),
    };
    let decision = match common
        .store
        .answer_decision(DecisionId::new(id), &answer, common.clock.now())
        .await
    {
        Ok(decision) => decision,
        Err(StoreError::IllegalTransition { .. }) => {
            return Ok(Some(common.texts.get("decision-already")));
        }
        Err(error) => return Err(error.into()),
    };
    // Carried out now so the CEO sees the outcome; if it fails, the next
    // tick carries it out (the answer is recorded either way).
    let applied = match work.engine.apply_decision(&decision).await {
        Ok(applied) => Some(applied),
        Err(error) => {
            tracing::warn!(decision = id, %error, "decision answered, not carried out yet");
            None
        }
    };
    audit(
        common,
        roles,
        press.user_id,
        "decision_answered",
        "decision",
        id,
        json!({"option": option}),
    )
    .await?;
    if let Some((chat, message)) = press.message {
        refresh_message(common, chat, message, &decision).await?;
        super::operations::tell_applied(common, chat, applied.as_ref()).await?;
    }
    Ok(None)
}

/// Shows a decision's message as the decision now stands (its answer, or
/// the automatic choice), without its buttons.
pub async fn refresh_message(
    common: &Common,
    chat: i64,
    message: MessageId,
    decision: &Decision,
) -> Result<(), HandlerError> {
    common
        .bot
        .edit_message_text(
            ChatId(chat),
            message,
            clip(&decision_text(&common.texts, decision)),
        )
        .await?;
    Ok(())
}
