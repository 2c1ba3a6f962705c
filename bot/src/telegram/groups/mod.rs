//! Community groups: every update goes through the deterministic anti-spam
//! engine (`ulias-antispam`), its actions are carried out through the bot
//! and logged with the verdict; questions reach the TG Bot agent, which
//! answers from the operation's file with read-only tools. The team's loop:
//! `/spam` (as a reply) deletes, bans and learns the sample; a ban report in
//! the team chat has an Unban button that lifts the ban and learns the
//! message as ham. Each group has its own policy from the settings.

//!
//! # Layout
//! - [`registry`]: the guarded groups, their policies and the spam model
//!   (load, rebind, retrain).
//! - [`moderation`]: judging messages, members and captcha presses, the
//!   groups' own time.
//! - [`actions`]: the verdicts carried out through the bot, ban reports.
//! - [`labels`]: the team's `/spam` and Unban.
//! - [`rights`]: what the bot may do in each group, told to the team.
//! - [`shortlist`]: the weekly moderator shortlist.
//! - [`questions`]: questions queued for the TG Bot agent, `/bind`.

mod actions;
mod labels;
mod moderation;
mod questions;
mod registry;
mod rights;
mod shortlist;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use teloxide::types::{ChatPermissions, MessageId};
use ulias_antispam::{CompiledPolicy, GroupState};
use ulias_core::domain::Operation;
use ulias_core::settings::GroupSettings;

use super::limits::Limits;

pub use self::labels::unban;
pub use self::moderation::{captcha_pressed, on_member, on_message, tick};
pub use self::questions::{ASKED, allowances};
pub use self::registry::guard;
pub use self::rights::{check_rights, on_my_member};

/// Where a group question's task keeps the message to answer.
pub(super) const REPLY_TO: &str = "reply_to";

/// The message a group question's answer replies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(super) struct ReplyTo {
    pub chat_id: i64,
    pub message_id: i32,
}

/// One guarded group.
struct Guarded {
    /// The group's settings, its official addresses those of the operation
    /// it is bound to (if any).
    settings: GroupSettings,
    /// The operation the group belongs to.
    operation: Option<Operation>,
    policy: Arc<CompiledPolicy>,
    state: Mutex<GroupState>,
    /// The name each member was last seen with: Telegram sends no update
    /// when a name changes, so a changed name is noticed on the next message.
    names: Mutex<HashMap<i64, String>>,
    /// Each open captcha's message, by newcomer: deleted once answered or
    /// expired (shared with the group's renewed copies).
    captcha_messages: Arc<Mutex<HashMap<i64, MessageId>>>,
    /// The group's own default member permissions, read with `getChat`
    /// when first needed: what a released newcomer gets back.
    defaults: Arc<Mutex<Option<ChatPermissions>>>,
}

/// The community side: the guarded groups as configured and as loaded,
/// the bot's @username (which questions address), and the limits on what
/// outsiders can make the bot do.
pub struct Community {
    pub guard: Guard,
    pub limits: Limits,
    /// The bot's @username, asked of Telegram once at start.
    pub username: String,
    /// The community groups of the settings.
    pub groups: Vec<GroupSettings>,
}

/// Every guarded group, by chat id.
pub struct Guard {
    groups: Mutex<HashMap<i64, Arc<Guarded>>>,
}
