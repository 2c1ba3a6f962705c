//! Tools agents' files may name that are not built yet. Each has its effect,
//! so the runner already applies the right rule (a publish tool creates a
//! validation, a destructive one runs dry); a call to one that would run
//! returns [`ToolError::NotBuilt`](super::ToolError::NotBuilt).

use serde_json::json;
use ulias_core::domain::{PublicationTarget as To, ValidationKind as Kind};

use super::{AgentsAllowed, Effect, ToolSpec};

const READ: Effect = Effect::Read;
const WRITE: Effect = Effect::Write;
const DESTRUCTIVE: Effect = Effect::Destructive;

const fn publish(kind: Kind, target: To) -> Effect {
    Effect::Publish { kind, target }
}

/// `(name, effect, description)` of every declared tool.
const DECLARED: &[(&str, Effect, &str)] = &[
    (
        "ast_search",
        READ,
        "Find definitions and callers by syntax tree.",
    ),
    ("bash", DESTRUCTIVE, "Run a shell command in the sandbox."),
    ("run_tests", READ, "Run a project's tests in the sandbox."),
    (
        "smart_deploy",
        DESTRUCTIVE,
        "Deploy a service, with rollback.",
    ),
    ("docker", DESTRUCTIVE, "Inspect or restart containers."),
    ("ssh", DESTRUCTIVE, "Run a command on a host."),
    ("loki_query", READ, "Query logs in Loki."),
    ("http_check", READ, "Check an HTTP endpoint."),
    ("rsync", DESTRUCTIVE, "Copy files between hosts."),
    ("zfs_status", READ, "List ZFS pools and snapshots."),
    ("cron_check", READ, "Check that scheduled jobs ran."),
    (
        "proxmox_api",
        DESTRUCTIVE,
        "Manage VMs and containers on Proxmox.",
    ),
    ("apt", DESTRUCTIVE, "Install or upgrade packages."),
    ("ai_job", WRITE, "Queue a GPU job (transcription, vision)."),
    ("connector_fetch", READ, "Fetch from a connected service."),
    ("nmap_light", READ, "Scan the open ports of our own hosts."),
    ("read_config", READ, "Read a service's configuration."),
    ("fail2ban", DESTRUCTIVE, "Ban or unban an address."),
    ("web_search", READ, "Search the web."),
    ("socials_read", READ, "Read a token's social accounts."),
    ("image_generate", WRITE, "Generate an image asset."),
    ("brand_render", WRITE, "Render brand templates to PNG."),
    (
        "poll_create",
        publish(Kind::Poll, To::Telegram),
        "Propose a poll.",
    ),
    ("poll_results", READ, "Read a poll's results."),
    ("site_build", WRITE, "Build a site from a template."),
    ("site_check", READ, "Check a built site (links, address)."),
    (
        "site_publish",
        publish(Kind::Site, To::Site),
        "Propose a site for publication.",
    ),
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
    (
        "utility_build_and_test",
        WRITE,
        "Build and test a utility in the sandbox.",
    ),
    (
        "utility_publish",
        publish(Kind::Utility, To::Telegram),
        "Propose a utility's release.",
    ),
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
