//! A client that answers from a script keyed by output schema: `ulias
//! simulate` runs every agent of an operation on recorded answers without a
//! model server. Each run is played from its schema's list, turn by turn
//! (the turn is how many answers the conversation already holds), so runs
//! in any order and in parallel get the same answers. It answers in the
//! JSON protocol (one JSON object of text per turn).

use std::collections::HashMap;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::Value;
use ulias_core::domain::MessageRole;

use super::{ChatRequest, ChatResponse, ModelClient, ModelError, Usage};

/// The model name scripted answers carry.
pub const SCRIPTED_MODEL: &str = "scripted";

/// A script: per output schema, the turns of one run.
#[derive(Debug, Clone)]
pub struct ScriptedClient {
    by_schema: HashMap<String, Vec<Turn>>,
    usage: TokenCount,
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct TokenCount {
    prompt_tokens: u64,
    completion_tokens: u64,
}

#[derive(Debug, Clone)]
struct Turn {
    content: String,
    usage: Option<TokenCount>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default, rename = "about")]
    _about: String,
    usage: TokenCount,
    by_schema: HashMap<String, Vec<Value>>,
}

/// A script that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("invalid answer script: {0}")]
pub struct ScriptError(String);

impl ScriptedClient {
    /// Reads a script (see `fixtures/simulation/answers.json`).
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let file: ScriptFile =
            serde_json::from_str(text).map_err(|e| ScriptError(e.to_string()))?;
        let mut by_schema = HashMap::new();
        for (schema, turns) in file.by_schema {
            let ends_well = turns.last().is_some_and(|t| t.get("finish").is_some());
            if !ends_well {
                return Err(ScriptError(format!(
                    "`{schema}` must end with a finish turn"
                )));
            }
            let turns = turns
                .into_iter()
                .map(|turn| to_turn(&schema, turn))
                .collect::<Result<_, _>>()?;
            by_schema.insert(schema, turns);
        }
        Ok(Self {
            by_schema,
            usage: file.usage,
        })
    }

    /// The schemas the script answers.
    pub fn schemas(&self) -> impl Iterator<Item = &str> {
        self.by_schema.keys().map(String::as_str)
    }
}

fn to_turn(schema: &str, mut turn: Value) -> Result<Turn, ScriptError> {
    let usage = match turn.as_object_mut().and_then(|t| t.remove("usage")) {
        Some(usage) => Some(
            serde_json::from_value(usage)
                .map_err(|e| ScriptError(format!("`{schema}`: a turn's usage: {e}")))?,
        ),
        None => None,
    };
    Ok(Turn {
        content: turn.to_string(),
        usage,
    })
}

#[async_trait]
impl ModelClient for ScriptedClient {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let turns = self.by_schema.get(&request.output).ok_or_else(|| {
            ModelError::Malformed(format!(
                "the script has no answers for `{}`",
                request.output
            ))
        })?;
        let answered = request
            .messages
            .iter()
            .filter(|m| m.role == MessageRole::Assistant)
            .count();
        let turn = turns
            .get(answered)
            .or_else(|| turns.last())
            .ok_or(ModelError::Exhausted(answered))?;
        let usage = turn.usage.unwrap_or(self.usage);
        Ok(ChatResponse {
            content: turn.content.clone(),
            tool_calls: Vec::new(),
            usage: Usage {
                input: usage.prompt_tokens,
                output: usage.completion_tokens,
                estimated: false,
            },
            model: SCRIPTED_MODEL.to_owned(),
        })
    }

    async fn embed(&self, _texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        Err(ModelError::Malformed(
            "a script has no recorded embeddings".to_owned(),
        ))
    }
}
