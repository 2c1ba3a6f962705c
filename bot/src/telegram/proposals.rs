//! The organisation's proposals in the CEO's chat, each with Accept /
//! Decline / Later: Accept makes it an objective (confirmed and planned
//! like the CEO's own), Decline records the no, Later shows it again after
//! `ceo.proposals_remind_hours`. A second press is refused by the store.

use chrono::TimeDelta;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};
use ulias_core::domain::{NewObjective, Proposal, ProposalId, ProposalStatus};
use ulias_core::settings::CeoSettings;
use ulias_core::store::StoreError;

use super::buttons::{Button, ProposalChoice};
use super::ceo::confirm;
use super::edge::{Press, clip};
use super::error::{HandlerError, HandlerResult};
use super::{Common, Roles, Work};
use crate::i18n::{Texts, arg};

/// Shows every new proposal, and every postponed one whose time came.
pub async fn show(common: &Common, roles: &Roles) -> HandlerResult {
    let Some(chat) = roles.ceo_chat else {
        return Ok(());
    };
    for proposal in common.store.proposals_to_show(common.clock.now()).await? {
        let buttons = [
            (ProposalChoice::Accept, "button-accept"),
            (ProposalChoice::Decline, "button-decline"),
            (ProposalChoice::Later, "button-later"),
        ]
        .map(|(choice, key)| {
            InlineKeyboardButton::callback(
                common.texts.get(key),
                Button::Proposal {
                    proposal: proposal.id.get(),
                    choice,
                }
                .data(),
            )
        });
        let sent = common
            .bot
            .send_message(ChatId(chat), clip(&proposal_text(&common.texts, &proposal)))
            .reply_markup(InlineKeyboardMarkup::new([buttons]))
            .await?;
        common
            .store
            .set_proposal_message(proposal.id, chat, i64::from(sent.id.0))
            .await?;
    }
    Ok(())
}

fn proposal_text(texts: &Texts, proposal: &Proposal) -> String {
    let mut lines = vec![texts.with(
        "proposal-header",
        &[
            arg("id", proposal.id),
            arg("proposer", &proposal.proposer),
            arg("title", &proposal.title),
        ],
    )];
    for text in [&proposal.description, &proposal.rationale] {
        if !text.is_empty() && text != &proposal.title {
            lines.push(text.clone());
        }
    }
    lines.join("\n")
}

/// The CEO's press on a proposal.
pub async fn answer(
    common: &Common,
    work: &Work,
    ceo: &CeoSettings,
    press: &Press,
    id: i64,
    choice: ProposalChoice,
) -> Result<Option<String>, HandlerError> {
    let now = common.clock.now();
    let (to, remind_at) = match choice {
        ProposalChoice::Accept => (ProposalStatus::Accepted, None),
        ProposalChoice::Decline => (ProposalStatus::Declined, None),
        ProposalChoice::Later => (
            ProposalStatus::Later,
            Some(now + TimeDelta::hours(i64::from(ceo.proposals_remind_hours))),
        ),
    };
    let proposal = match common
        .store
        .decide_proposal(ProposalId::new(id), to, remind_at, now)
        .await
    {
        Ok(proposal) => proposal,
        Err(StoreError::IllegalTransition { .. }) => {
            return Ok(Some(common.texts.get("decision-already")));
        }
        Err(error) => return Err(error.into()),
    };
    let outcome = match choice {
        ProposalChoice::Accept => "proposal-accepted",
        ProposalChoice::Decline => "proposal-declined",
        ProposalChoice::Later => "proposal-later",
    };
    if let Some((chat, message)) = press.message {
        let text = format!(
            "{}\n{}",
            proposal_text(&common.texts, &proposal),
            common
                .texts
                .with(outcome, &[arg("hours", ceo.proposals_remind_hours)])
        );
        common
            .bot
            .edit_message_text(ChatId(chat), message, clip(&text))
            .await?;
    }
    if choice == ProposalChoice::Accept {
        accept(common, work, press, &proposal).await?;
    }
    Ok(None)
}

async fn accept(common: &Common, work: &Work, press: &Press, proposal: &Proposal) -> HandlerResult {
    let mut new = NewObjective::from_ceo(proposal.title.clone(), proposal.description.clone());
    new.source = proposal.source();
    new.source_agent = Some(proposal.proposer.to_string());
    new.priority = proposal.priority;
    new.team = proposal.team;
    let objective = common
        .store
        .create_objective(&new, common.clock.now())
        .await?;
    common
        .store
        .link_proposal(proposal.id, objective.id)
        .await?;
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    confirm(common, work, chat, &objective).await
}
