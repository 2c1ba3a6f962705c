//! The CEO's chat: a message becomes an objective through the Interpreter
//! (confirmed with its id, its progress then shown in that message), or —
//! short and unsure — one question with the guessed meanings as buttons. A
//! correction ("non, je voulais dire …") fixes the last objective and is
//! kept as feedback.

use std::time::Duration;

use serde_json::{Value, json};
use teloxide::prelude::*;
use teloxide::types::{
    ChatAction, InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ReplyParameters,
};
use ulias_agents::director::queue_planning;
use ulias_agents::interpreter::{Interpreted, interpret, objective_of, read};
use ulias_agents::schemas::Interpretation;
use ulias_core::domain::{
    Decision, DecisionAnswer, DecisionKind, DecisionOption, NewObjective, Objective,
};
use ulias_core::settings::CeoSettings;
use ulias_core::store::NewInteraction;

use super::buttons::Button;
use super::continuation::{
    CONTEXT_INTERACTIONS, context, continuing, profile_now_and_then, redo_corrected,
};
use super::edge::{Incoming, Press};
use super::error::{HandlerError, HandlerResult};
use super::{Common, TgBot, Work};
use crate::i18n::arg;

/// How a correction starts, in French and English (lowercase).
const CORRECTION_PREFIXES: [&str; 4] = [
    "non, je voulais dire",
    "non je voulais dire",
    "no, i meant",
    "no i meant",
];

/// A text from the CEO that is not a command.
pub async fn on_text(
    common: &Common,
    work: &Work,
    ceo: &CeoSettings,
    incoming: &Incoming,
) -> HandlerResult {
    if let Some(reply) = incoming.reply_to
        && let Some(decision) = common
            .store
            .pending_decision_at(incoming.chat_id, i64::from(reply))
            .await?
        && matches!(decision.kind, DecisionKind::Escalation { .. })
    {
        return replan_with_words(common, work, incoming, &decision).await;
    }
    if let Some(corrected) = correction(&incoming.text) {
        return correct(common, work, incoming, corrected).await;
    }
    let continuing = continuing(common, ceo, incoming).await?;
    let forwarded = incoming.replied_forward.as_deref();
    let context = context(&common.store, &incoming.text, forwarded, continuing).await?;
    let reading = with_typing(&common.bot, incoming.chat_id, async {
        interpret(
            &work.engine.runner,
            &incoming.text,
            context,
            &work.engine.config.worker,
            continuing,
        )
        .await
    })
    .await;
    let reading = match reading {
        Ok(reading) => reading,
        Err(error) => {
            let text = common
                .texts
                .with("interpreter-failed", &[arg("error", error)]);
            common
                .bot
                .send_message(ChatId(incoming.chat_id), text)
                .await?;
            return Ok(());
        }
    };
    match reading {
        Interpreted::Objective(objective, reading) => {
            let interaction = record(common, incoming, &reading, Some(&objective)).await?;
            common
                .store
                .settle_interaction(interaction, Some(objective.id), None)
                .await?;
            confirm(common, work, incoming.chat_id, &objective).await
        }
        Interpreted::Ask(reading) => {
            let interaction = record(common, incoming, &reading, None).await?;
            ask(common, incoming, interaction, &reading).await
        }
        Interpreted::Answer(answer, reading) => {
            record(common, incoming, &reading, None).await?;
            common
                .bot
                .send_message(ChatId(incoming.chat_id), super::edge::clip(&answer))
                .reply_parameters(ReplyParameters::new(MessageId(incoming.message_id)))
                .await?;
            Ok(())
        }
        Interpreted::Takeover(ask, reading) => {
            let interaction = record(common, incoming, &reading, None).await?;
            super::operations::offer_takeover(common, incoming.chat_id, interaction, &ask).await
        }
        Interpreted::Correction(reading) => {
            let interaction = record(common, incoming, &reading, None).await?;
            match continuing {
                Some(c) => {
                    redo_corrected(common, work, incoming, interaction, c.objective, &reading).await
                }
                None => Ok(()),
            }
        }
    }?;
    profile_now_and_then(common, work, ceo).await
}

/// The CEO answered the Director's escalation in words: they go into the
/// objective, and the Director plans it again with them.
async fn replan_with_words(
    common: &Common,
    work: &Work,
    incoming: &Incoming,
    decision: &Decision,
) -> HandlerResult {
    let Some(id) = decision.objective_id else {
        return Ok(());
    };
    let objective = common.store.objective(id).await?;
    let description = format!(
        "{}\n\n{}",
        objective.description.trim(),
        common
            .texts
            .with("escalation-words", &[arg("words", &incoming.text)])
    );
    common
        .store
        .rewrite_objective(id, &objective.title, description.trim())
        .await?;
    let Some(option) = decision.kind.index_of(DecisionOption::Replan) else {
        return Ok(());
    };
    let answer = DecisionAnswer {
        option,
        by: incoming.user_name.clone(),
    };
    let answered = common
        .store
        .answer_decision(decision.id, &answer, common.clock.now())
        .await?;
    if let Err(error) = work.engine.apply_decision(&answered).await {
        tracing::warn!(decision = %decision.id, %error, "replanning waits for the next tick");
    }
    work.wake.notify_one();
    let text = common.texts.with(
        "escalation-replanned",
        &[arg("id", id), arg("title", &objective.title)],
    );
    common
        .bot
        .send_message(ChatId(incoming.chat_id), text)
        .reply_parameters(ReplyParameters::new(MessageId(incoming.message_id)))
        .await?;
    Ok(())
}

/// The CEO chose one of the guesses.
pub async fn on_guess(
    common: &Common,
    work: &Work,
    press: &Press,
    interaction: i64,
    option: usize,
) -> Result<Option<String>, HandlerError> {
    let asked = common.store.interaction(interaction).await?;
    if asked.objective_id.is_some() {
        return Ok(Some(common.texts.get("decision-already")));
    }
    let guesses = guesses_of(asked.interpreted_as.as_ref());
    let Some(guess) = guesses.get(option) else {
        return Ok(None);
    };
    let objective = common
        .store
        .create_objective(
            &NewObjective::from_ceo(guess.clone(), asked.raw_message.clone()),
            common.clock.now(),
        )
        .await?;
    common
        .store
        .settle_interaction(
            interaction,
            Some(objective.id),
            Some(&format!("chose: {guess}")),
        )
        .await?;
    let chat = press.message.map_or(press.user_id, |(chat, _)| chat);
    confirm(common, work, chat, &objective).await?;
    Ok(None)
}

/// Confirms an objective with its id, keeps the message for progress, and
/// queues its planning by the Director. Planning that fails fails the
/// objective with its reason, which the CEO then reads as its answer.
pub(super) async fn confirm(
    common: &Common,
    work: &Work,
    chat: i64,
    objective: &Objective,
) -> HandlerResult {
    let text = common.texts.with(
        "objective-created",
        &[
            arg("id", objective.id),
            arg("title", &objective.title),
            arg("priority", objective.priority.get()),
        ],
    );
    let sent = common.bot.send_message(ChatId(chat), text).await?;
    common
        .store
        .set_progress_message(objective.id, chat, i64::from(sent.id.0))
        .await?;
    // The engine plans it, woken now: a crash or a restart resumes the
    // planning, and a failure ends the objective with its reason.
    queue_planning(&work.engine.runner, objective).await?;
    work.wake.notify_one();
    Ok(())
}

async fn ask(
    common: &Common,
    incoming: &Incoming,
    interaction: i64,
    reading: &Interpretation,
) -> HandlerResult {
    let guesses = if reading.guesses.is_empty() {
        vec![reading.title.clone()]
    } else {
        reading.guesses.iter().take(3).cloned().collect()
    };
    let rows = guesses.iter().enumerate().map(|(option, guess)| {
        vec![InlineKeyboardButton::callback(
            guess.chars().take(60).collect::<String>(),
            Button::Guess {
                interaction,
                option,
            }
            .data(),
        )]
    });
    let text = common
        .texts
        .with("objective-question", &[arg("message", &incoming.text)]);
    common
        .bot
        .send_message(ChatId(incoming.chat_id), text)
        .reply_markup(InlineKeyboardMarkup::new(rows))
        .await?;
    Ok(())
}

/// Applies a correction to the last objective the CEO created.
async fn correct(
    common: &Common,
    work: &Work,
    incoming: &Incoming,
    corrected: &str,
) -> HandlerResult {
    let last = common
        .store
        .recent_interactions(CONTEXT_INTERACTIONS)
        .await?
        .into_iter()
        .find(|i| i.objective_id.is_some());
    let (Some(last), false) = (last, corrected.is_empty()) else {
        common
            .bot
            .send_message(
                ChatId(incoming.chat_id),
                common.texts.get("correction-nothing"),
            )
            .await?;
        return Ok(());
    };
    let Some(objective_id) = last.objective_id else {
        return Ok(());
    };
    let context = json!({"correcting": last.raw_message});
    let reading = with_typing(&common.bot, incoming.chat_id, async {
        read(
            &work.engine.runner,
            corrected,
            context,
            &work.engine.config.worker,
        )
        .await
    })
    .await;
    let fixed = match reading {
        Ok(reading) => objective_of(&reading),
        Err(_) => NewObjective::from_ceo(corrected, corrected),
    };
    let (title, description) = (fixed.title, fixed.description);
    common
        .store
        .rewrite_objective(objective_id, &title, &description)
        .await?;
    common
        .store
        .settle_interaction(last.id, None, Some(&incoming.text))
        .await?;
    common.store.mark_interaction_corrected(last.id).await?;
    let text = common.texts.with(
        "objective-corrected",
        &[arg("id", objective_id), arg("title", &title)],
    );
    common
        .bot
        .send_message(ChatId(incoming.chat_id), text)
        .await?;
    Ok(())
}

/// The text after a correction's opening words, if it is one.
fn correction(text: &str) -> Option<&str> {
    let lower = text.to_lowercase();
    CORRECTION_PREFIXES.iter().find_map(|prefix| {
        lower.starts_with(prefix).then(|| {
            text.get(prefix.len()..)
                .unwrap_or_default()
                .trim_start_matches([' ', ':', ','])
                .trim()
        })
    })
}

async fn record(
    common: &Common,
    incoming: &Incoming,
    reading: &Interpretation,
    objective: Option<&Objective>,
) -> Result<i64, HandlerError> {
    let interaction = NewInteraction {
        chat_id: Some(incoming.chat_id),
        message_id: Some(i64::from(incoming.message_id)),
        raw_message: incoming.text.clone(),
        interpreted_as: serde_json::to_value(reading).ok(),
        confidence: Some(reading.confidence),
        objective_id: objective.map(|o| o.id),
    };
    Ok(common
        .store
        .record_interaction(&interaction, common.clock.now())
        .await?)
}

fn guesses_of(reading: Option<&Value>) -> Vec<String> {
    let Some(reading) = reading else {
        return Vec::new();
    };
    let guesses: Vec<String> = reading
        .get("guesses")
        .and_then(Value::as_array)
        .map(|g| {
            g.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if guesses.is_empty() {
        reading
            .get("title")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .into_iter()
            .collect()
    } else {
        guesses
    }
}

/// Shows "typing…" while `work` runs (Telegram clears it after 5 s).
async fn with_typing<T>(bot: &TgBot, chat: i64, work: impl Future<Output = T>) -> T {
    let bot = bot.clone();
    let typing = tokio::spawn(async move {
        loop {
            if let Err(error) = bot.send_chat_action(ChatId(chat), ChatAction::Typing).await {
                tracing::debug!(%error, "typing indicator");
            }
            tokio::time::sleep(Duration::from_secs(4)).await;
        }
    });
    let done = work.await;
    typing.abort();
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_correction_is_recognised_in_french_and_english() {
        assert_eq!(
            correction("Non, je voulais dire les logs"),
            Some("les logs")
        );
        assert_eq!(correction("no, I meant: the site"), Some("the site"));
        assert_eq!(correction("vérifie les backups"), None);
    }
}
