//! `smart_deploy` and `rollback`: the deploy and rollback commands of a
//! listed service (`[[services]]`), never a command an agent writes. Both
//! are destructive: they run dry, naming the command, until the CEO
//! confirms. A deploy is followed by the service's health check; an
//! unhealthy service is rolled back at once (that rollback needs no second
//! confirmation: it is part of the deploy the CEO confirmed).
//! They run outside the sandbox: a deploy needs the network.

use std::process::Stdio;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::process::Command;
use ulias_core::settings::ServiceSettings;

use super::health::{Checks, HttpCheck};
use super::workspace::cap;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The event a successful deploy emits (`event:deploy` in agents' files).
pub const DEPLOY_EVENT: &str = "deploy";

/// Arguments naming a service.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceArgs {
    /// The service's name, as configured.
    pub service: String,
}

/// A deploy or rollback command's run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommandRun {
    pub command: String,
    /// Its exit code; absent when it was killed at the time limit.
    pub exit_code: Option<i32>,
    /// What it printed (output and errors), wrapped as untrusted text.
    pub output: String,
}

impl CommandRun {
    fn succeeded(&self) -> bool {
        self.exit_code == Some(0)
    }
}

/// What a deploy did.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Deployed {
    pub service: String,
    pub deploy: CommandRun,
    /// The health check after it (absent when the service has none, or the
    /// deploy failed).
    pub healthy: Option<bool>,
    /// The rollback run because the deploy failed or left it unhealthy.
    pub rollback: Option<CommandRun>,
    /// Deployed and healthy.
    pub ok: bool,
}

fn service<'a>(checks: &'a Checks, name: &str) -> Result<&'a ServiceSettings, ToolError> {
    checks
        .services
        .iter()
        .find(|s| s.name == name)
        .ok_or_else(|| ToolError::Forbidden(format!("no service is called {name} ([[services]])")))
}

fn command_of<'a>(
    service: &'a ServiceSettings,
    command: Option<&'a String>,
    what: &str,
) -> Result<&'a str, ToolError> {
    command.map(String::as_str).ok_or_else(|| {
        ToolError::Failed(format!(
            "the service {} has no {what} configured",
            service.name
        ))
    })
}

/// Runs a configured command in the service's folder, with its time limit.
async fn run(
    service: &ServiceSettings,
    command: &str,
    max_output: usize,
) -> Result<CommandRun, ToolError> {
    let Some(dir) = &service.deploy_dir else {
        return Err(ToolError::Failed(format!(
            "the service {} has no deploy_dir",
            service.name
        )));
    };
    let child = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| {
            ToolError::Failed(format!(
                "cannot start the command in {}: {e}",
                dir.display()
            ))
        })?;
    let limit = Duration::from_secs(service.deploy_timeout_seconds);
    let (exit_code, text) = match tokio::time::timeout(limit, child.wait_with_output()).await {
        Ok(Ok(output)) => {
            let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&output.stderr));
            (output.status.code(), text)
        }
        Ok(Err(error)) => (None, error.to_string()),
        Err(_) => (
            None,
            format!("killed after {} s", service.deploy_timeout_seconds),
        ),
    };
    let (shown, _) = cap(&text, max_output);
    Ok(CommandRun {
        command: command.to_owned(),
        exit_code,
        output: wrap_untrusted(&format!("deploy:{}", service.name), shown),
    })
}

/// Deploys a service, checks it, rolls it back when unhealthy.
pub struct SmartDeploy {
    pub checks: Checks,
    pub max_output: usize,
}

#[async_trait]
impl TypedTool for SmartDeploy {
    const NAME: &'static str = "smart_deploy";
    const DESCRIPTION: &'static str = "Deploy a listed service with its configured command, check its health, and roll it back if unhealthy; needs the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["deployer"]);
    type Args = ServiceArgs;
    type Output = Deployed;

    async fn call(&self, ctx: &ToolContext, args: ServiceArgs) -> Result<Deployed, ToolError> {
        let service = service(&self.checks, &args.service)?;
        let deploy_command =
            command_of(service, service.deploy_command.as_ref(), "deploy_command")?;
        let deploy = run(service, deploy_command, self.max_output).await?;
        let healthy = if deploy.succeeded() && service.health_url.is_some() {
            let check = HttpCheck(self.checks.clone());
            match &service.health_url {
                Some(url) => Some(
                    check
                        .check(ctx, Some(service), url, service.expect.as_deref())
                        .await?
                        .ok,
                ),
                None => None,
            }
        } else {
            None
        };
        let ok = deploy.succeeded() && healthy != Some(false);
        if ok {
            let event = serde_json::json!({"service": service.name, "task": ctx.task.id});
            ctx.store
                .emit_event(DEPLOY_EVENT, &event, ctx.clock.now())
                .await?;
        }
        let rollback = match (ok, &service.rollback_command) {
            (false, Some(command)) => Some(run(service, command, self.max_output).await?),
            _ => None,
        };
        Ok(Deployed {
            service: service.name.clone(),
            deploy,
            healthy,
            rollback,
            ok,
        })
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &ServiceArgs) -> Option<String> {
        Some(match service(&self.checks, &args.service) {
            Ok(s) => format!(
                "deploy {}: {}",
                s.name,
                s.deploy_command
                    .as_deref()
                    .unwrap_or("(no deploy_command configured)")
            ),
            Err(error) => format!("nothing: {error}"),
        })
    }
}

/// Puts a service's previous version back.
pub struct Rollback {
    pub checks: Checks,
    pub max_output: usize,
}

#[async_trait]
impl TypedTool for Rollback {
    const NAME: &'static str = "rollback";
    const DESCRIPTION: &'static str = "Roll a listed service back with its configured rollback command; needs the CEO's confirmation.";
    const EFFECT: Effect = Effect::Destructive;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["deployer"]);
    type Args = ServiceArgs;
    type Output = CommandRun;

    async fn call(&self, _ctx: &ToolContext, args: ServiceArgs) -> Result<CommandRun, ToolError> {
        let service = service(&self.checks, &args.service)?;
        let command = command_of(
            service,
            service.rollback_command.as_ref(),
            "rollback_command",
        )?;
        run(service, command, self.max_output).await
    }

    async fn would_run(&self, _ctx: &ToolContext, args: &ServiceArgs) -> Option<String> {
        Some(match service(&self.checks, &args.service) {
            Ok(s) => format!(
                "roll back {}: {}",
                s.name,
                s.rollback_command
                    .as_deref()
                    .unwrap_or("(no rollback_command configured)")
            ),
            Err(error) => format!("nothing: {error}"),
        })
    }
}
