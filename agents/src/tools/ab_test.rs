//! `ab_test`: the Optimizer starts, reads or stops an A/B test between two
//! prompt versions of an agent (`prompt_versions`). The store refuses a
//! test of versions that do not exist and a second running test of one
//! agent; reading returns both versions' recorded figures.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::store::{AbTest as StoredTest, PromptVersion, StoreError};

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// Starts, reads or stops an A/B test.
pub struct AbTest;

/// What to do.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AbAction {
    /// Start a 50/50 test of `version_a` against `version_b`.
    Start,
    /// Read the running test and its versions' figures.
    Read,
    /// Stop the running test (promotion is a separate, human step).
    Stop,
}

/// Arguments of `ab_test`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AbArgs {
    pub action: AbAction,
    /// The agent whose prompt versions are tested.
    pub agent: String,
    /// For `start`: the current version.
    #[serde(default)]
    pub version_a: Option<u32>,
    /// For `start`: the variant.
    #[serde(default)]
    pub version_b: Option<u32>,
}

/// The test (if any) and the agent's versions with their figures.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AbReport {
    pub agent: String,
    /// The test started, read or stopped; null when none runs.
    pub test: Option<TestSeen>,
    pub versions: Vec<VersionSeen>,
}

/// A test.
#[derive(Debug, Serialize, JsonSchema)]
pub struct TestSeen {
    pub id: i64,
    pub version_a: u32,
    pub version_b: u32,
    pub started_by: String,
    /// RFC 3339.
    pub started_at: String,
    pub stopped_at: Option<String>,
}

/// One prompt version's recorded figures.
#[derive(Debug, Serialize, JsonSchema)]
pub struct VersionSeen {
    pub version: u32,
    pub is_active: bool,
    pub success_rate: Option<f64>,
    pub avg_confidence: Option<f64>,
    pub avg_tokens: Option<f64>,
    pub sample_size: u64,
}

#[async_trait]
impl TypedTool for AbTest {
    const NAME: &'static str = "ab_test";
    const DESCRIPTION: &'static str = "Start, read or stop an A/B test between two prompt versions of an agent, with each version's figures.";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["optimizer"]);
    type Args = AbArgs;
    type Output = AbReport;

    async fn call(&self, ctx: &ToolContext, args: AbArgs) -> Result<AbReport, ToolError> {
        let store = &ctx.store;
        let now = ctx.clock.now();
        let test = match args.action {
            AbAction::Start => {
                let (Some(a), Some(b)) = (args.version_a, args.version_b) else {
                    return Err(ToolError::InvalidArgs {
                        tool: Self::NAME,
                        message: "start needs version_a and version_b".into(),
                    });
                };
                let started = store
                    .start_ab_test(&args.agent, (a, b), &ctx.agent, Some(ctx.task.id), now)
                    .await
                    .map_err(refused)?;
                Some(started)
            }
            AbAction::Read => store.running_ab_test(&args.agent).await?,
            AbAction::Stop => store.stop_ab_test(&args.agent, now).await?,
        };
        let versions = store.prompt_versions(&args.agent).await?;
        Ok(AbReport {
            agent: args.agent,
            test: test.map(test_seen),
            versions: versions.into_iter().map(version_seen).collect(),
        })
    }
}

fn refused(error: StoreError) -> ToolError {
    match error {
        StoreError::Invalid(reason) => ToolError::Forbidden(reason),
        other => ToolError::Store(other),
    }
}

fn test_seen(test: StoredTest) -> TestSeen {
    TestSeen {
        id: test.id,
        version_a: test.version_a,
        version_b: test.version_b,
        started_by: test.started_by,
        started_at: test.started_at.to_rfc3339(),
        stopped_at: test.stopped_at.map(|at| at.to_rfc3339()),
    }
}

fn version_seen(version: PromptVersion) -> VersionSeen {
    VersionSeen {
        version: version.version,
        is_active: version.is_active,
        success_rate: version.success_rate,
        avg_confidence: version.avg_confidence,
        avg_tokens: version.avg_tokens,
        sample_size: version.sample_size,
    }
}
