//! The Builder's tools: utilities built and tested in the sandbox.
//!
//! `utility_build_and_test` checks the config against the template's
//! schema, builds and tests it in a fresh folder in the sandbox, and
//! records the run. A failing template is followed by the fallbacks the
//! call names (other templates of the same publish kind, with their
//! configs), or the result names the next template to try; after
//! [`MAX_FAILURES`] failed runs the utility is `skipped` and the team is
//! alerted. `utility_publish` is a publish tool: its call becomes a
//! validation, refused unless the template's latest run passed with that
//! very config ([`release::releasable`]), checked again at publish time.

pub mod release;
mod run;
pub mod templates;

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ulias_core::domain::{OperationId, PublicationTarget, ValidationKind};
use ulias_core::store::{NewUtilityRun, UtilityRun, UtilityRunStatus};

use super::{AgentsAllowed, Effect, Tool, ToolContext, ToolError, Toolbox, Typed, TypedTool};
use crate::alerts::{Alert, AlertLevel, keys};
use crate::publications::UtilityArgs;
use crate::sandbox::Sandbox;
use crate::untrusted::wrap_untrusted;
use templates::UtilityTemplate;

/// Failed runs after which a utility is given up.
pub const MAX_FAILURES: usize = 3;

/// The utility tools, reaching what `toolbox` allows.
pub(super) fn tools(toolbox: &Toolbox) -> Vec<Arc<dyn Tool>> {
    vec![
        Arc::new(Typed::new(UtilityBuildAndTest {
            sandbox: run::utility_sandbox(toolbox.sandbox.limits()),
            data_dir: toolbox.data_dir.clone(),
        })),
        Arc::new(Typed::new(UtilityPublish)),
    ]
}

/// `utility_build_and_test`.
pub struct UtilityBuildAndTest {
    sandbox: Sandbox,
    /// `None` offline: the tool refuses.
    data_dir: Option<PathBuf>,
}

/// A template and its config.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    /// tg-quiz-bot, tg-price-alerts, web-minigame or holders-leaderboard.
    pub template: String,
    /// Its config, as the template's schema says.
    pub config: Value,
}

/// What to build and test.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BuildArgs {
    /// tg-quiz-bot, tg-price-alerts, web-minigame or holders-leaderboard.
    pub template: String,
    /// Its config, as the template's schema says.
    pub config: Value,
    /// Other templates of the same publish kind, with their configs,
    /// tried in order if this one fails.
    #[serde(default)]
    pub fallbacks: Vec<Attempt>,
}

/// One run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct RunReport {
    pub run_id: i64,
    /// The utility's attempt number, from 1.
    pub attempt: u32,
    pub template: String,
    /// passed, failed or skipped.
    pub status: String,
    /// The end of the build's and tests' output, untrusted.
    pub output_tail: String,
}

/// A template to try next.
#[derive(Debug, Serialize, JsonSchema)]
pub struct NextTemplate {
    pub template: String,
    pub description: String,
    /// Its config's JSON Schema.
    pub schema: Value,
}

/// How the utility stands.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BuildOutput {
    /// passed (utility_publish may propose it), failed (try the next
    /// template), or skipped (given up after 3 failed runs; the team was alerted).
    pub status: String,
    /// The template of the last run.
    pub template: String,
    /// Where it goes once approved: a bot command (/quiz) or a site page.
    pub publish_to: String,
    /// The runs this call made.
    pub runs: Vec<RunReport>,
    /// Failed runs of this utility so far.
    pub failures: usize,
    /// After a failure, the next template of the same kind to try.
    pub next_template: Option<NextTemplate>,
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: UtilityBuildAndTest::NAME,
        message,
    }
}

/// The template named, and the problems of its config.
fn checked(attempt: &Attempt) -> Result<&'static UtilityTemplate, ToolError> {
    let template = templates::get(&attempt.template).ok_or_else(|| {
        invalid(format!(
            "{} is not a template (one of: {})",
            attempt.template,
            templates::names().join(", ")
        ))
    })?;
    let problems = template.check(&attempt.config);
    if !problems.is_empty() {
        return Err(invalid(format!(
            "the config does not fit {}'s schema: {}",
            attempt.template,
            problems.join("; ")
        )));
    }
    Ok(template)
}

#[async_trait]
impl TypedTool for UtilityBuildAndTest {
    const NAME: &'static str = "utility_build_and_test";
    const DESCRIPTION: &'static str = "Build and test a utility template with its config in the sandbox (its config checked against the template's schema first). A failing template is followed by `fallbacks` (other templates of the same publish kind with their configs); the result names the next template to try. After 3 failed runs the utility is skipped and the team alerted.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["builder"]);
    type Args = BuildArgs;
    type Output = BuildOutput;

    async fn call(&self, ctx: &ToolContext, args: BuildArgs) -> Result<BuildOutput, ToolError> {
        let data_dir = self.data_dir.as_deref().ok_or_else(|| {
            ToolError::Failed(
                "no data folder is set here (offline): utilities cannot be built".into(),
            )
        })?;
        let operation = ctx.task.operation_id.ok_or_else(|| {
            ToolError::Forbidden("a utility belongs to an operation: this task has none".into())
        })?;
        let attempts = attempts_of(args)?;
        let mut past = ctx
            .store
            .utility_runs_of_task(operation, ctx.task.id)
            .await?;
        let mut reports = Vec::new();
        for attempt in &attempts {
            if let Some(given_up) = self.given_up(ctx, operation, &mut past, attempt).await? {
                reports.push(given_up);
                break;
            }
            let recorded = self
                .run_one(ctx, data_dir, operation, attempt, &past)
                .await?;
            let passed = recorded.status == UtilityRunStatus::Passed;
            reports.push(report(&recorded));
            past.push(recorded);
            if passed {
                break;
            }
        }
        // A call whose last run failed is given up now if it was the last chance.
        if let (Some(last), Some(attempt)) = (past.last(), attempts.last())
            && last.status == UtilityRunStatus::Failed
            && let Some(given_up) = self.given_up(ctx, operation, &mut past, attempt).await?
        {
            reports.push(given_up);
        }
        Ok(outcome(&past, reports))
    }
}

/// The call's attempts, each checked against its schema; fallbacks must be
/// published like the first.
fn attempts_of(args: BuildArgs) -> Result<Vec<Attempt>, ToolError> {
    let first = Attempt {
        template: args.template,
        config: args.config,
    };
    let kind = checked(&first)?.manifest.publish;
    let mut attempts = vec![first];
    for fallback in args.fallbacks {
        if checked(&fallback)?.manifest.publish != kind {
            return Err(invalid(format!(
                "{} is not published like {}: fallbacks are templates of the same kind",
                fallback.template, attempts[0].template
            )));
        }
        attempts.push(fallback);
    }
    Ok(attempts)
}

fn attempt_number(past: &[UtilityRun]) -> u32 {
    u32::try_from(past.len() + 1).unwrap_or(u32::MAX)
}

fn failures(past: &[UtilityRun]) -> usize {
    past.iter()
        .filter(|r| r.status == UtilityRunStatus::Failed)
        .count()
}

fn report(run: &UtilityRun) -> RunReport {
    RunReport {
        run_id: run.id,
        attempt: run.attempt,
        template: run.template.clone(),
        status: run.status.to_string(),
        output_tail: wrap_untrusted("utility:output", &run.output_tail),
    }
}

impl UtilityBuildAndTest {
    /// Builds and tests one attempt in a fresh folder; records the run.
    async fn run_one(
        &self,
        ctx: &ToolContext,
        data_dir: &std::path::Path,
        operation: OperationId,
        attempt: &Attempt,
        past: &[UtilityRun],
    ) -> Result<UtilityRun, ToolError> {
        let template = checked(attempt)?;
        let runs = run::runs_folder(data_dir, operation);
        let done = run::attempt(&self.sandbox, &runs, template, &attempt.config)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let new = NewUtilityRun {
            operation_id: operation,
            task_id: Some(ctx.task.id),
            template: attempt.template.clone(),
            config: attempt.config.clone(),
            status: done.status,
            output_tail: done.output_tail,
            attempt: attempt_number(past),
            dir: Some(done.dir.display().to_string()),
        };
        Ok(ctx.store.record_utility_run(&new, ctx.clock.now()).await?)
    }

    /// When the utility has failed [`MAX_FAILURES`] times: the `skipped`
    /// run (recorded in the store and in `past`, and the team alerted, the
    /// first time only).
    async fn given_up(
        &self,
        ctx: &ToolContext,
        operation: OperationId,
        past: &mut Vec<UtilityRun>,
        attempt: &Attempt,
    ) -> Result<Option<RunReport>, ToolError> {
        if let Some(skipped) = past.iter().find(|r| r.status == UtilityRunStatus::Skipped) {
            return Ok(Some(report(skipped)));
        }
        if failures(past) < MAX_FAILURES {
            return Ok(None);
        }
        let tried: Vec<&str> = past.iter().map(|r| r.template.as_str()).collect();
        let last_error = past
            .last()
            .and_then(|r| r.output_tail.lines().rev().find(|l| !l.trim().is_empty()))
            .unwrap_or_default()
            .to_owned();
        let new = NewUtilityRun {
            operation_id: operation,
            task_id: Some(ctx.task.id),
            template: attempt.template.clone(),
            config: attempt.config.clone(),
            status: UtilityRunStatus::Skipped,
            output_tail: format!("not run: {MAX_FAILURES} runs failed ({})", tried.join(", ")),
            attempt: attempt_number(past),
            dir: None,
        };
        let skipped = ctx.store.record_utility_run(&new, ctx.clock.now()).await?;
        let alert = Alert::new(AlertLevel::Warning, keys::UTILITY_SKIPPED)
            .with("operation", skipped.operation_id.get())
            .with("task", ctx.task.id.get())
            .with("attempts", MAX_FAILURES)
            .with("templates", tried.join(", "))
            .with("error", last_error);
        if let Err(error) = ctx.alerter.alert(alert).await {
            tracing::warn!(%error, "the skipped utility's alert was not sent");
        }
        let answer = report(&skipped);
        past.push(skipped);
        Ok(Some(answer))
    }
}

/// The call's answer, from the utility's runs so far.
fn outcome(past: &[UtilityRun], runs: Vec<RunReport>) -> BuildOutput {
    let last = past.last();
    let template = last.map(|r| r.template.clone()).unwrap_or_default();
    let status = last.map_or(UtilityRunStatus::Failed, |r| r.status);
    let failed: Vec<String> = past
        .iter()
        .filter(|r| r.status == UtilityRunStatus::Failed)
        .map(|r| r.template.clone())
        .collect();
    let next_template = (status == UtilityRunStatus::Failed)
        .then(|| templates::next_of_kind(&template, &failed))
        .flatten()
        .map(|next| NextTemplate {
            template: next.name().to_owned(),
            description: next.manifest.description.clone(),
            schema: next.schema.clone(),
        });
    BuildOutput {
        status: status.to_string(),
        publish_to: templates::get(&template)
            .map(UtilityTemplate::target)
            .unwrap_or_default(),
        template,
        runs,
        failures: failures(past),
        next_template,
    }
}

/// `utility_publish`: a publish tool; the runner turns its call into a
/// validation (see the module's docs). Its `run` vets the call first: only
/// a template and config whose latest run passed are proposed.
pub struct UtilityPublish;

#[async_trait]
impl TypedTool for UtilityPublish {
    const NAME: &'static str = "utility_publish";
    const DESCRIPTION: &'static str = "Propose a utility's release to the team: the template and the exact config of its latest passed utility_build_and_test run (refused otherwise). Once approved, a bot command is served in the group, a page is added to the site.";
    const EFFECT: Effect = Effect::Publish {
        kind: ValidationKind::Utility,
        target: PublicationTarget::Telegram,
    };
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["builder"]);
    type Args = UtilityArgs;
    type Output = Value;

    async fn call(&self, ctx: &ToolContext, args: UtilityArgs) -> Result<Value, ToolError> {
        match release::releasable(
            &ctx.store,
            ctx.task.operation_id,
            &args.template,
            &args.config,
        )
        .await
        {
            Ok(_) => Ok(json!({"template": args.template, "config": args.config})),
            Err(release::NotReleasable::Store(e)) => Err(e.into()),
            Err(refused) => Err(ToolError::Failed(refused.to_string())),
        }
    }
}
