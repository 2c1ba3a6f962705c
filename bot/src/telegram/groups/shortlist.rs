//! The moderator shortlist: once a week, up to five members with a clean
//! history, each with a reason, for the team to consider.

use std::sync::PoisonError;

use teloxide::prelude::*;

use super::Guarded;
use crate::i18n::arg;
use crate::telegram::edge::clip;
use crate::telegram::error::HandlerResult;
use crate::telegram::{Common, Roles};

/// At most 5 members with a clean history, each with a reason, posted to
/// the team chat once per ISO week (when there is anyone to propose).
pub(super) async fn weekly_shortlist(
    common: &Common,
    roles: &Roles,
    guarded: &Guarded,
) -> HandlerResult {
    use chrono::Datelike;
    let Some(team) = roles.team_chat else {
        return Ok(());
    };
    let now = common.clock.now();
    let candidates = {
        let state = guarded.state.lock().unwrap_or_else(PoisonError::into_inner);
        ulias_antispam::community::moderator_shortlist(&state, now.timestamp(), 5)
    };
    if candidates.is_empty() {
        return Ok(());
    }
    let week = now.iso_week();
    let key = format!(
        "{}:{}-W{:02}",
        guarded.settings.chat_id,
        week.year(),
        week.week()
    );
    if !common
        .store
        .mark_alert_sent("moderator_shortlist", &key, now)
        .await?
    {
        return Ok(());
    }
    let names = guarded
        .names
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let mut lines = vec![common.texts.with(
        "group-shortlist-title",
        &[arg("group", &guarded.settings.name)],
    )];
    for candidate in candidates {
        let who = names
            .get(&candidate.member)
            .cloned()
            .unwrap_or_else(|| candidate.member.to_string());
        lines.push(common.texts.with(
            "group-shortlist-line",
            &[
                arg("user", who),
                arg("clean", candidate.clean),
                arg("weeks", candidate.weeks),
            ],
        ));
    }
    common
        .bot
        .send_message(ChatId(team), clip(&lines.join("\n")))
        .await?;
    Ok(())
}
