//! `agent_catalogue`: the agents the Director may plan for, from the
//! catalogue the runner loaded (the same list the Director's input
//! carries): name, team, what it does, its tools and model tier.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// Lists the agents.
pub struct AgentCatalogue;

/// Arguments of `agent_catalogue`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogueArgs {
    /// Only this team's agents (engineering, ops, research, security,
    /// media, transversal, ceo_intel, takeover…).
    #[serde(default)]
    pub team: Option<String>,
}

/// The agents, by name.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Roster {
    pub agents: Vec<AgentEntry>,
}

/// One agent.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgentEntry {
    pub name: String,
    pub team: String,
    pub description: String,
    pub tools: Vec<String>,
    /// thinker, executor or cloud.
    pub tier: String,
}

#[async_trait]
impl TypedTool for AgentCatalogue {
    const NAME: &'static str = "agent_catalogue";
    const DESCRIPTION: &'static str =
        "List the agents you may plan for: team, what each does, its tools and model tier.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["director"]);
    type Args = CatalogueArgs;
    type Output = Roster;

    async fn call(&self, ctx: &ToolContext, args: CatalogueArgs) -> Result<Roster, ToolError> {
        let mut agents: Vec<AgentEntry> = ctx
            .catalogue
            .agents()
            // The Director plans for the others, never for itself.
            .filter(|a| a.name.as_str() != ctx.agent)
            .filter(|a| args.team.as_deref().is_none_or(|t| a.team.as_str() == t))
            .map(|a| AgentEntry {
                name: a.name.to_string(),
                team: a.team.to_string(),
                description: a.description.clone(),
                tools: a.tools.clone(),
                tier: a.tier.to_string(),
            })
            .collect();
        agents.sort_by(|a, b| a.name.cmp(&b.name));
        if let (true, Some(team)) = (agents.is_empty(), args.team) {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: format!("no agent in team `{team}`"),
            });
        }
        Ok(Roster { agents })
    }
}
