//! The real client: async-openai against any OpenAI-compatible base URL
//! (Ollama, vLLM, llama.cpp's server, a cloud API). Requests and answers go
//! through async-openai's bring-your-own-types path as JSON, so the answer
//! is read by our lenient parser instead of a strict one.

use std::time::Duration;

use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_trait::async_trait;
use secrecy::{ExposeSecret, SecretString};
use serde_json::{Value, json};
use ulias_core::domain::MessageRole;
use ulias_core::settings::{HttpSettings, ModelSettings};

use super::{ChatMessage, ChatRequest, ChatResponse, ModelClient, ModelError, parse_chat_response};
use crate::tokens::estimate_tokens;

/// How long the client waits on a model server: to connect, and for a
/// whole answer. A server that accepts connections and never answers is
/// given up after `total`; one that does not accept them, after `connect`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    pub total: Duration,
}

impl Timeouts {
    /// The connect timeout of `[http]` and the model call's own limit of
    /// `[models]`.
    pub fn from_settings(models: &ModelSettings, http: &HttpSettings) -> Self {
        Self {
            connect: Duration::from_secs(http.connect_timeout_seconds),
            total: Duration::from_secs(models.request_timeout_seconds),
        }
    }
}

/// A model behind an OpenAI-compatible HTTP API.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    client: Client<OpenAIConfig>,
    model: String,
}

impl OpenAiClient {
    /// A client for `model` at `base_url` (ending in `/v1`), waiting on the
    /// server no longer than `timeouts`.
    pub fn new(
        base_url: &str,
        api_key: Option<&SecretString>,
        model: &str,
        timeouts: Timeouts,
    ) -> Result<Self, ModelError> {
        // reqwest is built without a default TLS provider: use ring, as sqlx
        // does. Installing twice is harmless (the first one stays).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let key = api_key.map_or("none", |key| key.expose_secret());
        let config = OpenAIConfig::new()
            .with_api_base(base_url.trim_end_matches('/'))
            .with_api_key(key);
        let http = reqwest::Client::builder()
            .timeout(timeouts.total)
            .connect_timeout(timeouts.connect)
            .build()
            .map_err(|e| ModelError::Unreachable(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self {
            client: Client::with_config(config).with_http_client(http),
            model: model.to_owned(),
        })
    }

    /// The request as the server expects it.
    pub fn request_body(&self, request: &ChatRequest) -> Value {
        let mut body = json!({
            "model": self.model,
            "stream": false,
            "messages": request.messages.iter().map(message_json).collect::<Vec<_>>(),
        });
        if !request.tools.is_empty() {
            body["tools"] = request
                .tools
                .iter()
                .map(|tool| {
                    json!({"type": "function", "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": tool.parameters,
                    }})
                })
                .collect();
        }
        if let Some(schema) = &request.response_schema {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {
                "name": schema.name, "schema": schema.schema, "strict": true,
            }});
        }
        if let Some(temperature) = request.temperature {
            body["temperature"] = json!(temperature);
        }
        if let Some(max_tokens) = request.max_tokens {
            body["max_tokens"] = json!(max_tokens);
        }
        body
    }
}

#[async_trait]
impl ModelClient for OpenAiClient {
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let body = self.request_body(request);
        let estimated_input = estimate_tokens(&body["messages"].to_string());
        let answer: Value = self
            .client
            .chat()
            .create_byot(body)
            .await
            .map_err(model_error)?;
        parse_chat_response(&answer, estimated_input)
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        let body = json!({"model": self.model, "input": texts, "encoding_format": "float"});
        let answer: Value = self
            .client
            .embeddings()
            .create_byot(body)
            .await
            .map_err(model_error)?;
        read_embeddings(&answer, texts.len())
    }
}

fn message_json(message: &ChatMessage) -> Value {
    let mut value = json!({"role": message.role.as_str(), "content": message.content});
    if message.role == MessageRole::Assistant && !message.tool_calls.is_empty() {
        value["tool_calls"] = message
            .tool_calls
            .iter()
            .map(|call| {
                json!({"id": call.id, "type": "function", "function": {
                    "name": call.name, "arguments": call.arguments.to_string(),
                }})
            })
            .collect();
    }
    if let Some(id) = &message.tool_call_id {
        value["tool_call_id"] = json!(id);
    }
    value
}

fn read_embeddings(answer: &Value, expected: usize) -> Result<Vec<Vec<f32>>, ModelError> {
    let data = answer
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| ModelError::Malformed("no `data` in the embeddings answer".into()))?;
    let mut indexed: Vec<(u64, Vec<f32>)> = data
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let index = item
                .get("index")
                .and_then(Value::as_u64)
                .unwrap_or(i as u64);
            let vector = item
                .get("embedding")
                .and_then(Value::as_array)
                .ok_or_else(|| ModelError::Malformed("an embedding is not a list".into()))?
                .iter()
                .map(|x| x.as_f64().map(|x| x as f32))
                .collect::<Option<Vec<f32>>>()
                .ok_or_else(|| ModelError::Malformed("an embedding holds a non-number".into()))?;
            Ok((index, vector))
        })
        .collect::<Result<_, ModelError>>()?;
    indexed.sort_by_key(|(index, _)| *index);
    if indexed.len() != expected {
        return Err(ModelError::Malformed(format!(
            "asked {expected} embeddings, got {}",
            indexed.len()
        )));
    }
    Ok(indexed.into_iter().map(|(_, vector)| vector).collect())
}

fn model_error(error: OpenAIError) -> ModelError {
    match error {
        OpenAIError::Reqwest(e) => ModelError::Unreachable(e.to_string()),
        OpenAIError::ApiError(e) => ModelError::Status {
            status: e.status_code.as_u16(),
            message: e.api_error.message.clone(),
        },
        OpenAIError::JSONDeserialize(e, body) => ModelError::Malformed(format!(
            "{e}: {}",
            body.chars().take(200).collect::<String>()
        )),
        other => ModelError::Malformed(other.to_string()),
    }
}
