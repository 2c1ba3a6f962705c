//! Learning from the group: a share of the clean messages of trusted
//! members becomes ham samples (capped per member and per day, kept once),
//! and a message later deleted or reported takes its sample back. `/spam`
//! and Unban stay the team's labels; learned ham joins the corpus at the
//! next retraining.

use ulias_antispam::learning::{is_learnable_ham, sampled};
use ulias_antispam::normalize::normalize;
use ulias_core::store::{Learned, LearnedHam, Store};

use super::Common;
use super::error::HandlerResult;

/// One clean message of a trusted member in this many is offered.
const ONE_IN: u32 = 4;
/// Samples a member gives in a day, at most.
const CAP_PER_DAY: u32 = 5;

/// Offers a clean message of a trusted member as a ham sample.
pub(super) async fn offer_ham(
    common: &Common,
    chat_id: i64,
    user_id: i64,
    message_id: i64,
    text: &str,
) -> HandlerResult {
    if !sampled(chat_id, message_id, ONE_IN) || !is_learnable_ham(&normalize(text)) {
        return Ok(());
    }
    let ham = LearnedHam {
        chat_id,
        user_id,
        message_id,
        text,
    };
    let learned = common
        .store
        .learn_ham(&ham, CAP_PER_DAY, common.clock.now())
        .await?;
    if learned == Learned::Added {
        tracing::debug!(
            chat_id,
            user_id,
            message_id,
            "a clean message learned as ham"
        );
    }
    Ok(())
}

/// Takes back the ham learned from a message now deleted or reported.
pub(super) async fn withdraw(store: &Store, chat_id: i64, message_id: i64) -> HandlerResult {
    if store.withdraw_learned_ham(chat_id, message_id).await? {
        tracing::info!(
            chat_id,
            message_id,
            "learned ham withdrawn: its message was removed"
        );
    }
    Ok(())
}
