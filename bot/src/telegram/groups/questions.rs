//! Questions in groups, queued for the TG Bot agent, and `/bind`.

use serde_json::json;
use teloxide::prelude::*;
use ulias_agents::engine::GROUP_QUESTION;
use ulias_agents::untrusted::wrap_untrusted;
use ulias_core::domain::{NewTask, OperationStatus, Priority};
use ulias_core::store::StoreError;

use super::{Community, Guard, Guarded, REPLY_TO, ReplyTo};
use crate::i18n::arg;
use crate::telegram::error::HandlerResult;
use crate::telegram::{Common, Work};

/// The agent that answers questions in groups.
const TG_BOT: &str = "tg_bot";

/// The task input field holding a group question's words as asked (shown
/// to the team if its answer is held).
pub const ASKED: &str = "asked";

/// What a guarded group allows the bot to say: its official addresses and
/// allowed domains, and its name.
pub fn allowances(guard: &Guard, chat: i64) -> Option<(Vec<String>, Vec<String>, String)> {
    guard.get(chat).map(|g| {
        (
            g.settings.official_addresses.clone(),
            g.settings.allowed_domains.clone(),
            g.settings.name.clone(),
        )
    })
}

/// `/bind <operation>` by a team member in a guarded group: the group
/// belongs to that operation from now on.
pub(super) async fn bind(
    common: &Common,
    community: &Community,
    chat: i64,
    args: &str,
) -> HandlerResult {
    let t = &common.texts;
    let text = match crate::telegram::operations::operation_id(args) {
        None => t.get("bind-usage"),
        Some(id) => match common.store.operation(id).await {
            Err(StoreError::NotFound { .. }) => t.with("op-unknown", &[arg("id", id)]),
            Err(error) => return Err(error.into()),
            Ok(operation) => {
                match common
                    .store
                    .bind_group(chat, id, "team", common.clock.now())
                    .await
                {
                    Ok(()) => {
                        let done =
                            t.with("bind-done", &[arg("id", id), arg("name", &operation.name)]);
                        community.rebind(&common.store, chat, operation).await?;
                        done
                    }
                    Err(StoreError::Taken { operation, .. }) => {
                        t.with("bind-taken", &[arg("id", operation)])
                    }
                    Err(error) => return Err(error.into()),
                }
            }
        },
    };
    common.bot.send_message(ChatId(chat), text).await?;
    Ok(())
}

/// A question in a group: queued for the TG Bot agent, which answers from
/// the operation's file with its read-only tools (the question reaches it
/// as untrusted text). No model runs here: the engine runs the task and
/// [`crate::telegram::group_replies`] sends the answer, so moderation never waits.
pub(super) async fn answer_question(
    common: &Common,
    work: &Work,
    guarded: &Guarded,
    message: &Message,
    text: &str,
) -> HandlerResult {
    let runner = &work.engine.runner;
    let Some(spec) = runner.catalogue.get(TG_BOT) else {
        return Ok(());
    };
    // A bound group's questions read its operation's file, and wait while
    // it is paused; an ended operation's group is left to people.
    let operation = guarded.operation.as_ref();
    if operation.is_some_and(|o| o.status != OperationStatus::Running) {
        return Ok(());
    }
    let now = common.clock.now();
    let mut task = NewTask::new(
        spec.name.clone(),
        spec.team,
        format!("Question in {}", guarded.settings.name),
        now,
    );
    task.kind = Some(GROUP_QUESTION.to_owned());
    task.operation_id = operation.map(|o| o.id);
    task.priority = Priority::new(8).unwrap_or_default();
    task.max_attempts = 1;
    let reply_to = ReplyTo {
        chat_id: message.chat.id.0,
        message_id: message.id.0,
    };
    task.input = json!({
        "question": wrap_untrusted(&format!("telegram group {}", guarded.settings.name), text),
        "official_addresses": guarded.settings.official_addresses,
        "allowed_domains": guarded.settings.allowed_domains,
        ASKED: text,
        "sections": ["scan", "telegram", "faq"],
        REPLY_TO: reply_to,
    });
    common.store.create_task(&task, now).await?;
    work.wake.notify_one();
    Ok(())
}
