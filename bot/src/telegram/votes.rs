//! Community votes in the team chat: a tie the X votes could not break is
//! put to the team with one button per tied option; the first member to
//! press settles it (a second press is told it is decided), the buttons
//! go, and the takeover goes on with the winner.

use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_agents::engine::TieError;
use ulias_core::store::VoteOutcome;

use super::buttons::Button;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{Common, Roles, Work};
use crate::i18n::arg;

/// Asks the team about each tie not asked yet (once: it is marked asked
/// when the message went out).
pub async fn announce_ties(common: &Common, roles: &Roles) -> HandlerResult {
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    for tie in common.store.unannounced_ties().await? {
        let text = common.texts.with(
            "vote-tie",
            &[
                arg("id", tie.id),
                arg("question", &tie.question),
                arg("totals", totals(&tie)),
            ],
        );
        let buttons: Vec<Vec<InlineKeyboardButton>> = tie
            .tied
            .iter()
            .flatten()
            .filter_map(|&option| {
                let label = tie.options.get(option)?;
                let data = Button::VoteTie {
                    vote: tie.id,
                    option,
                }
                .data();
                Some(vec![InlineKeyboardButton::callback(label.clone(), data)])
            })
            .collect();
        common
            .bot
            .send_message(ChatId(team), clip(&text))
            .reply_markup(InlineKeyboardMarkup::new(buttons))
            .await?;
        common
            .store
            .mark_tie_announced(tie.id, common.clock.now())
            .await?;
    }
    Ok(())
}

/// A team member's choice on a tie.
pub async fn choose(
    common: &Common,
    work: &Work,
    press: &Press,
    vote: i64,
    option: usize,
) -> Result<Option<String>, HandlerError> {
    let outcome = match work.engine.settle_tie(vote, option, &press.user_name).await {
        Ok(outcome) => outcome,
        Err(TieError::Decided(_)) => return Ok(Some(common.texts.get("vote-decided-already"))),
        Err(TieError::Store(error)) => return Err(error.into()),
    };
    if let Some((chat, message)) = press.message {
        common
            .bot
            .edit_message_reply_markup(ChatId(chat), message)
            .reply_markup(InlineKeyboardMarkup::default())
            .await?;
    }
    work.wake.notify_one();
    Ok(Some(common.texts.with(
        "vote-decided",
        &[
            arg("id", outcome.id),
            arg("winner", outcome.winner_label().unwrap_or_default()),
            arg("who", &press.user_name),
        ],
    )))
}

/// The outcome's line in `/op`.
pub fn op_line(common: &Common, outcome: &VoteOutcome) -> String {
    match (outcome.winner_label(), outcome.decided_by) {
        (Some(winner), Some(by)) => common.texts.with(
            "op-vote",
            &[
                arg("winner", winner),
                arg("by", common.texts.get(&format!("vote-by-{by}"))),
                arg("totals", totals(outcome)),
            ],
        ),
        _ => common
            .texts
            .with("op-vote-tied", &[arg("totals", totals(outcome))]),
    }
}

/// "A 7 (X 1) · B 7 (X 5)".
fn totals(outcome: &VoteOutcome) -> String {
    outcome
        .options
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let all = outcome.totals.get(i).copied().unwrap_or_default();
            let x = outcome.x_totals.get(i).copied().unwrap_or_default();
            format!("{label} {all} (X {x})")
        })
        .collect::<Vec<_>>()
        .join(" · ")
}
