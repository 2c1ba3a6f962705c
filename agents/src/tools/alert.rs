//! `alert`: an agent tells people something needs attention now.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Effect, ToolContext, ToolError, TypedTool};
use crate::alerts::{Alert, AlertLevel, keys};

/// Sends an alert.
pub struct AlertTool;

/// Arguments of `alert`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AlertArgs {
    /// info, warning or critical.
    pub level: String,
    pub title: String,
    pub body: String,
}

/// Whether the alert went out.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Sent {
    pub sent: bool,
}

#[async_trait]
impl TypedTool for AlertTool {
    const NAME: &'static str = "alert";
    const DESCRIPTION: &'static str = "Alert the team and the CEO (info, warning or critical).";
    const EFFECT: Effect = Effect::Write;
    type Args = AlertArgs;
    type Output = Sent;

    async fn call(&self, ctx: &ToolContext, args: AlertArgs) -> Result<Sent, ToolError> {
        let level = match args.level.as_str() {
            "info" => AlertLevel::Info,
            "warning" => AlertLevel::Warning,
            "critical" => AlertLevel::Critical,
            other => {
                return Err(ToolError::InvalidArgs {
                    tool: Self::NAME,
                    message: format!("level `{other}`: expected info, warning or critical"),
                });
            }
        };
        let alert = Alert::new(level, keys::FROM_AGENT)
            .with("agent", &ctx.agent)
            .with("title", args.title)
            .with("body", args.body);
        ctx.alerter.alert(alert).await.map_err(ToolError::Failed)?;
        Ok(Sent { sent: true })
    }
}
