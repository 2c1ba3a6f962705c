//! `read_file` and `write_file`: the operation's file, versioned, one
//! section per agent. Reading is open to every agent that lists the tool;
//! writing a section is reserved to the agent that owns it.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Effect, ToolContext, ToolError, TypedTool};

/// Which agent owns each section of an operation's file.
const OWNERS: &[(&str, &str)] = &[
    ("scan", "scanner"),
    ("verdict", "scanner"),
    ("identity", "designer"),
    ("site", "webdev"),
    ("x", "cm"),
    ("telegram", "tg_bot"),
    ("utility", "builder"),
    ("faq", "cm"),
];

/// The agent that may write `section`, if it is a section.
pub fn section_owner(section: &str) -> Option<&'static str> {
    OWNERS
        .iter()
        .find(|(name, _)| *name == section)
        .map(|(_, owner)| *owner)
}

/// Reads the latest version of a section.
pub struct ReadFile;

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadArgs {
    /// scan, verdict, identity, site, x, telegram, utility or faq.
    pub section: String,
}

/// A section as read.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SectionContent {
    pub section: String,
    /// 0 when the section was never written.
    pub version: u32,
    pub content: Value,
}

#[async_trait]
impl TypedTool for ReadFile {
    const NAME: &'static str = "read_file";
    const DESCRIPTION: &'static str =
        "Read the latest version of a section of the operation's file.";
    const EFFECT: Effect = Effect::Read;
    type Args = ReadArgs;
    type Output = SectionContent;

    async fn call(&self, ctx: &ToolContext, args: ReadArgs) -> Result<SectionContent, ToolError> {
        if section_owner(&args.section).is_none() {
            return Err(unknown_section(&args.section));
        }
        let latest = ctx
            .store
            .latest_section(ctx.task.operation_id, &args.section)
            .await?;
        Ok(match latest {
            Some(file) => SectionContent {
                section: file.section,
                version: file.version,
                content: file.content,
            },
            None => SectionContent {
                section: args.section,
                version: 0,
                content: Value::Null,
            },
        })
    }
}

/// Writes a new version of the agent's own section.
pub struct WriteFile;

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteArgs {
    /// Your own section (scanner: scan or verdict; designer: identity; …).
    pub section: String,
    /// The section's whole new content.
    pub content: Value,
}

/// What was written.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Written {
    pub section: String,
    pub version: u32,
}

#[async_trait]
impl TypedTool for WriteFile {
    const NAME: &'static str = "write_file";
    const DESCRIPTION: &'static str =
        "Write a new version of your own section of the operation's file.";
    const EFFECT: Effect = Effect::Write;
    type Args = WriteArgs;
    type Output = Written;

    async fn call(&self, ctx: &ToolContext, args: WriteArgs) -> Result<Written, ToolError> {
        match section_owner(&args.section) {
            None => return Err(unknown_section(&args.section)),
            Some(owner) if owner != ctx.agent => {
                return Err(ToolError::Forbidden(format!(
                    "the section `{}` belongs to {owner}; {} may only read it",
                    args.section, ctx.agent
                )));
            }
            Some(_) => {}
        }
        let file = ctx
            .store
            .write_section(
                ctx.task.operation_id,
                &args.section,
                &args.content,
                &ctx.agent,
                Some(ctx.task.id),
                ctx.clock.now(),
            )
            .await?;
        Ok(Written {
            section: file.section,
            version: file.version,
        })
    }
}

fn unknown_section(section: &str) -> ToolError {
    let known: Vec<&str> = OWNERS.iter().map(|(name, _)| *name).collect();
    ToolError::InvalidArgs {
        tool: "read_file/write_file",
        message: format!("no section `{section}`; sections: {}", known.join(", ")),
    }
}
