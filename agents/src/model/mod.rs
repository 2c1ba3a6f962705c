//! The model port: chat and embeddings against any OpenAI-compatible
//! server, with our own request and response types so the runner never
//! sees a server's quirks.

pub mod lenient;
mod openai;
mod replay;
mod scripted;

use std::sync::Arc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ulias_core::domain::MessageRole;

pub use lenient::{parse_chat_response, parse_json_protocol};
pub use openai::{OpenAiClient, Timeouts};
pub use replay::ReplayClient;
pub use scripted::{SCRIPTED_MODEL, ScriptError, ScriptedClient};

/// One message sent to or received from a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: MessageRole,
    pub content: String,
    /// Tool calls an assistant message made (native protocol).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The call a tool message answers (native protocol).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl ChatMessage {
    /// A message with text only.
    pub fn text(role: MessageRole, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }
}

/// A tool call, arguments already parsed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// A tool the model may call (native protocol).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A JSON Schema the answer must follow (`response_format: json_schema`).
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseSchema {
    pub name: String,
    pub schema: Value,
}

/// One chat request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatRequest {
    /// The name of the output schema the run ends with (`scan_report`):
    /// for scripted answers and logs, never sent to a server.
    pub output: String,
    pub messages: Vec<ChatMessage>,
    pub tools: Vec<ToolDefinition>,
    pub response_schema: Option<ResponseSchema>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

/// Tokens a call used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    /// The server reported no usage; these are our estimates.
    pub estimated: bool,
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// Text, with any tool call written into it removed.
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    /// The model that answered, as the server names it.
    pub model: String,
}

/// Why a model call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The server could not be reached, or did not answer in time.
    #[error("model server unreachable: {0}")]
    Unreachable(String),
    /// The server answered with an error status.
    #[error("model server answered {status}: {message}")]
    Status { status: u16, message: String },
    /// The answer is not a chat completion we can read.
    #[error("unreadable model answer: {0}")]
    Malformed(String),
    /// A scripted or replayed client has no more answers.
    #[error("no more recorded answers (after {0})")]
    Exhausted(usize),
}

impl ModelError {
    /// Whether another server might do better (the cloud fallback's cue):
    /// unreachable, overloaded or failing, not a request we got wrong.
    pub fn is_server_failure(&self) -> bool {
        match self {
            Self::Unreachable(_) => true,
            Self::Status { status, .. } => *status == 429 || *status >= 500,
            Self::Malformed(_) | Self::Exhausted(_) => false,
        }
    }
}

/// A model server.
#[async_trait]
pub trait ModelClient: Send + Sync {
    /// One chat completion.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError>;
    /// One embedding per text, in order.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError>;
}

/// A shared model client.
pub type SharedModelClient = Arc<dyn ModelClient>;
