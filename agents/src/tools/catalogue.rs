//! Tools agents' files may name that are not built yet. Each has its effect,
//! so the runner already applies the right rule (a publish tool creates a
//! validation, a destructive one runs dry); a call to one that would run
//! returns [`ToolError::NotBuilt`](super::ToolError::NotBuilt).

use serde_json::json;
use ulias_core::domain::{PublicationTarget as To, ValidationKind as Kind};

use super::{AgentsAllowed, Effect, ToolSpec};

const READ: Effect = Effect::Read;

const fn publish(kind: Kind, target: To) -> Effect {
    Effect::Publish { kind, target }
}

/// `(name, effect, description)` of every declared tool.
const DECLARED: &[(&str, Effect, &str)] = &[
    (
        "poll_create",
        publish(Kind::Poll, To::Telegram),
        "Propose a poll.",
    ),
    ("poll_results", READ, "Read a poll's results."),
    ("x_post", publish(Kind::Post, To::X), "Propose a post on X."),
    (
        "x_thread",
        publish(Kind::Thread, To::X),
        "Propose a thread on X.",
    ),
    (
        "x_profile_update",
        publish(Kind::Profile, To::X),
        "Propose an X profile update.",
    ),
    ("x_mentions", READ, "Read recent mentions on X."),
    (
        "tg_post",
        publish(Kind::Post, To::Telegram),
        "Propose a Telegram post.",
    ),
    (
        "tg_group_setup",
        publish(Kind::Pinned, To::Telegram),
        "Propose the group's pinned message.",
    ),
    ("faq_lookup", READ, "Look up the operation's FAQ."),
];

/// The declared tools' specs. A publish tool's input is its content's
/// arguments (`publications`); the others' are free-form until built.
pub fn declared() -> Vec<ToolSpec> {
    DECLARED
        .iter()
        .map(|&(name, effect, description)| ToolSpec {
            name,
            description,
            effect,
            agents: AgentsAllowed::Any,
            input_schema: crate::publications::tool_schema(name)
                .unwrap_or_else(|| json!({"type": "object"})),
            output_schema: json!({"type": "object"}),
        })
        .collect()
}
