//! Carrying out one tool call: the allowlist, the effect's rule (publish →
//! a validation; destructive → dry unless confirmed), then the tool.

use std::collections::{HashMap, VecDeque};

use serde_json::{Value, json};
use ulias_core::domain::{
    DecisionId, DecisionKind, DecisionOption, DecisionStatus, NewDecision, NewValidation,
    PublicationTarget, Task, Urgency, ValidationKind,
};

use super::RunError;
use crate::model::ToolCall;
use crate::publications::Content;
use crate::spec::AgentSpec;
use crate::tools::{Effect, ToolContext, ToolError, ToolRegistry};

/// The task input field naming the decision that confirmed its
/// destructive call.
pub const CONFIRMED_BY: &str = "confirmed_by_decision";

/// How many identical calls make a run stuck.
pub const STUCK_AFTER: u32 = 3;

/// What happened to one call, for the log and for the model.
pub(crate) struct Dispatched {
    pub result: Value,
    pub refused: bool,
    pub summary: String,
}

/// Tool results come from the tools, or (replay) from the recording.
pub(crate) enum ToolSource {
    Live,
    Recorded(VecDeque<Value>),
}

/// Counts identical calls to catch a model going round in circles.
#[derive(Default)]
pub(crate) struct Repeats(HashMap<(String, String), u32>);

impl Repeats {
    /// Records the call; fails on its [`STUCK_AFTER`]th identical occurrence.
    pub(crate) fn note(&mut self, call: &ToolCall) -> Result<(), RunError> {
        let key = (call.name.clone(), call.arguments.to_string());
        let count = self.0.entry(key).or_insert(0);
        *count += 1;
        if *count >= STUCK_AFTER {
            return Err(RunError::Stuck {
                tool: call.name.clone(),
                arguments: call.arguments.clone(),
                count: *count,
            });
        }
        Ok(())
    }
}

pub(crate) async fn dispatch(
    call: &ToolCall,
    spec: &AgentSpec,
    registry: &ToolRegistry,
    ctx: &ToolContext,
    source: &mut ToolSource,
) -> Result<Dispatched, RunError> {
    let agent = spec.name.as_str();
    let allowed_here = spec.tools.contains(&call.name);
    let tool_spec = registry.spec(&call.name);
    let allowed = allowed_here && tool_spec.is_some_and(|tool| tool.agents.allows(agent));
    let Some(tool_spec) = tool_spec.filter(|_| allowed) else {
        return Ok(Dispatched {
            result: json!({"refused": format!(
                "`{}` is not one of your tools; you may use: {}",
                call.name,
                spec.tools.join(", ")
            )}),
            refused: true,
            summary: format!(
                "{agent} tried {}, which it may not use: refused",
                tried(registry, &call.name)
            ),
        });
    };
    if let ToolSource::Recorded(results) = source {
        let result = results.pop_front().unwrap_or(Value::Null);
        return Ok(Dispatched {
            result,
            refused: false,
            summary: format!("{agent} called {} (replayed result)", tool_spec.name),
        });
    }
    let outcome = match tool_spec.effect {
        Effect::Publish { kind, target } => {
            // A built publish tool vets the call first (a site's check,
            // say): what its `run` returns is what the content is made of.
            let vetted = match registry.built(&call.name) {
                Some(tool) => tool.run(ctx, call.arguments.clone()).await,
                None => Ok(call.arguments.clone()),
            };
            let published = match vetted {
                Ok(args) => publish(call, &args, kind, target, ctx).await,
                Err(refused) => Err(refused),
            };
            if let Ok(result) = &published
                && result.get("publication_id").is_some()
            {
                return Ok(Dispatched {
                    result: result.clone(),
                    refused: false,
                    summary: format!(
                        "{agent} called {}: published directly (validation off)",
                        tool_spec.name
                    ),
                });
            }
            published
        }
        Effect::Destructive
            if registry
                .built(&call.name)
                .is_none_or(|tool| tool.destructive(&call.arguments))
                && !confirmed_by_ceo(ctx, call).await? =>
        {
            let asked = ask_confirmation(ctx, call).await?;
            let mut dry = json!({
                "dry_run": true,
                "would_run": call.name,
                "args": call.arguments,
                "confirmation_decision": asked.get(),
                "note": "destructive tools run dry until the CEO confirms this exact call; the CEO was asked",
            });
            if let Some(tool) = registry.built(&call.name)
                && let Some(command) = tool.would_run(ctx, &call.arguments).await
            {
                dry["command"] = json!(command);
            }
            Ok(dry)
        }
        _ => match registry.built(&call.name) {
            Some(tool) => tool.run(ctx, call.arguments.clone()).await,
            None => Err(ToolError::NotBuilt(tool_spec.name)),
        },
    };
    Ok(match outcome {
        Ok(result) => Dispatched {
            summary: format!("{agent} called {}: ok", tool_spec.name),
            result,
            refused: false,
        },
        // The error's words may echo the model's arguments: the log line
        // says it failed, the run's messages keep why.
        Err(error) => Dispatched {
            summary: format!(
                "{agent} called {}: failed ({})",
                tool_spec.name,
                error_kind(&error)
            ),
            result: json!({"error": error.to_string()}),
            refused: false,
        },
    })
}

/// A publish call: its (vetted) arguments `args` become typed content
/// (refused back to the model when they do not fit it or its target's
/// limits), then a
/// validation for the team, or, when the team turned validation off for
/// the operation, a publication. A poll runs on each platform the
/// operation has: Telegram, and X when it has an account there.
async fn publish(
    call: &ToolCall,
    args: &Value,
    kind: ValidationKind,
    target: PublicationTarget,
    ctx: &ToolContext,
) -> Result<Value, ToolError> {
    let refused = |message: String| ToolError::InvalidArgs {
        tool: "publish",
        message,
    };
    let content = Content::from_tool(&call.name, kind, args).map_err(|e| refused(e.to_string()))?;
    let mut targets = vec![target];
    if let (Content::Poll { .. }, Some(operation)) = (&content, ctx.task.operation_id)
        && !ctx.store.accounts_of_operation(operation).await?.is_empty()
    {
        targets.push(PublicationTarget::X);
    }
    for target in &targets {
        content
            .check_for(*target)
            .map_err(|e| refused(e.to_string()))?;
    }
    let origin = json!({"tool": call.name, "args": call.arguments, "kind": kind});
    let payload = content.payload(origin);
    let mut answers = Vec::new();
    for target in targets {
        answers.push(queue_for(ctx, kind, target, &payload).await?);
    }
    Ok(match answers.len() {
        1 => answers.swap_remove(0),
        _ => json!({"queued": answers}),
    })
}

/// One target's validation (or, validation off, its publication).
async fn queue_for(
    ctx: &ToolContext,
    kind: ValidationKind,
    target: PublicationTarget,
    payload: &Value,
) -> Result<Value, ToolError> {
    if let Some(operation) = ctx.task.operation_id
        && !ctx.store.operation(operation).await?.validation_required
    {
        let queued = ctx
            .store
            .publish_directly(operation, target, payload, ctx.clock.now())
            .await?;
        return Ok(
            json!({"publication_id": queued, "target": target, "status": "queued for publishing: the team turned validation off for this operation"}),
        );
    }
    let validation = NewValidation {
        task_id: Some(ctx.task.id),
        operation_id: ctx.task.operation_id,
        kind,
        target,
        payload: payload.clone(),
    };
    let created = ctx
        .store
        .create_validation(&validation, ctx.clock.now())
        .await?;
    Ok(
        json!({"validation_id": created.id, "target": target, "status": "waiting for the team's approval"}),
    )
}

/// A destructive call runs for real only when the task carries
/// [`CONFIRMED_BY`] naming a decision that confirmed this very call: the
/// same tool with the same arguments, answered "confirm". A yes given for
/// another call, or another decision, confirms nothing.
async fn confirmed_by_ceo(ctx: &ToolContext, call: &ToolCall) -> Result<bool, RunError> {
    let Some(id) = decision_of(&ctx.task) else {
        return Ok(false);
    };
    let decision = ctx.store.decision(id).await?;
    Ok(decision.task_id.is_some()
        && decision.kind.confirms(&call.name, &call.arguments)
        && decision.chosen() == Some(DecisionOption::Confirm))
}

/// Asks the CEO to confirm this exact call (once per task and call; an
/// open question is not asked twice). Refused if nobody answers in time.
async fn ask_confirmation(ctx: &ToolContext, call: &ToolCall) -> Result<DecisionId, RunError> {
    let asked = ctx
        .store
        .decisions_of_task(ctx.task.id, "confirmation")
        .await?;
    if let Some(open) = asked.iter().find(|d| {
        d.status == DecisionStatus::Pending && d.kind.confirms(&call.name, &call.arguments)
    }) {
        return Ok(open.id);
    }
    let now = ctx.clock.now();
    let decision = NewDecision {
        task_id: Some(ctx.task.id),
        objective_id: ctx.task.objective_id,
        operation_id: ctx.task.operation_id,
        recommended: Some(DecisionOption::Refuse),
        urgency: Urgency::High,
        timeout_at: Some(now + chrono::TimeDelta::hours(24)),
        auto_decision: Some(DecisionOption::Refuse),
        ..NewDecision::new(DecisionKind::Confirmation {
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
        })
    };
    Ok(ctx.store.create_decision(&decision, now).await?.id)
}

fn decision_of(task: &Task) -> Option<DecisionId> {
    task.input
        .get(CONFIRMED_BY)
        .and_then(Value::as_i64)
        .map(DecisionId::new)
}

/// A tool error's kind, in fixed words.
fn error_kind(error: &ToolError) -> &'static str {
    match error {
        ToolError::InvalidArgs { .. } => "invalid arguments",
        ToolError::Forbidden(_) => "forbidden",
        ToolError::NotBuilt(_) => "not built yet",
        ToolError::Store(_) => "storage error",
        _ => "error",
    }
}

/// A refused call as the log names it: a catalogue tool in backticks, or
/// words of ours for a name the model made up.
fn tried(registry: &ToolRegistry, called: &str) -> String {
    match registry.spec(called) {
        Some(spec) => format!("`{}`", spec.name),
        None => "a tool that does not exist".to_owned(),
    }
}
