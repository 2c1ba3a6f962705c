//! A scripted OpenAI-compatible server on loopback: real HTTP, real JSON.
//! Each chat call gets the script's next turn; the server records every
//! request it received, and answers 500 once its script runs out (so a test
//! that calls the model more often than it expects fails loudly).
//!
//! A turn is either shorthand — `{"content": …, "tool_calls": [{"name", "arguments"}],
//! "usage": {"prompt_tokens", "completion_tokens"}}` — wrapped into a chat
//! completion, or `{"raw": {…}}` sent as is (for servers' quirks), or
//! `{"status": 503}` for a failing server; any turn may add `"delay_ms"`
//! to answer only after that long (a slow model). Embeddings are deterministic
//! bags of words, so similar texts get similar vectors.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

/// Dimensions of the fake embeddings.
pub const EMBEDDING_DIMS: usize = 64;

#[derive(Default)]
struct Script {
    turns: Vec<Value>,
    next: usize,
    requests: Vec<Value>,
}

/// A running scripted server.
#[derive(Clone)]
pub struct FakeLlm {
    /// The base URL to give a client (`http://127.0.0.1:PORT/v1`).
    pub base_url: String,
    script: Arc<Mutex<Script>>,
}

impl FakeLlm {
    /// Starts a server that will play `turns`.
    pub async fn start(turns: Vec<Value>) -> Self {
        let script = Arc::new(Mutex::new(Script {
            turns,
            ..Script::default()
        }));
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/embeddings", post(embeddings))
            .with_state(Arc::clone(&script));
        let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self {
            base_url: format!("http://{address}/v1"),
            script,
        }
    }

    /// The turns of `fixtures/llm/<name>.json` (`{"turns": […]}`).
    pub fn fixture(name: &str) -> Vec<Value> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures/llm")
            .join(format!("{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let fixture: Value = serde_json::from_str(&text).unwrap();
        fixture["turns"].as_array().unwrap().clone()
    }

    /// Every chat request received, in order.
    pub fn requests(&self) -> Vec<Value> {
        self.script.lock().unwrap().requests.clone()
    }

    /// How many turns were played.
    pub fn played(&self) -> usize {
        self.script.lock().unwrap().next
    }
}

async fn chat(
    State(script): State<Arc<Mutex<Script>>>,
    Json(request): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let turn = {
        let mut script = script.lock().unwrap();
        script.requests.push(request);
        let Some(turn) = script.turns.get(script.next).cloned() else {
            let played = script.next;
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("script exhausted after {played} turns"),
            );
        };
        script.next += 1;
        turn
    };
    // A slow model: the answer comes after the delay (the script is free
    // for other requests meanwhile).
    if let Some(delay) = turn.get("delay_ms").and_then(Value::as_u64) {
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    }
    if let Some(status) = turn.get("status").and_then(Value::as_u64) {
        let status = StatusCode::from_u16(status as u16).unwrap();
        return error(status, "scripted failure");
    }
    if let Some(raw) = turn.get("raw") {
        return (StatusCode::OK, Json(raw.clone()));
    }
    (StatusCode::OK, Json(completion(&turn)))
}

fn completion(turn: &Value) -> Value {
    let mut message = json!({"role": "assistant", "content": turn.get("content").cloned().unwrap_or(Value::Null)});
    if let Some(calls) = turn.get("tool_calls").and_then(Value::as_array) {
        message["tool_calls"] = calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                json!({"id": format!("call_{i}"), "type": "function", "function": {
                    "name": call["name"],
                    "arguments": call["arguments"].to_string(),
                }})
            })
            .collect();
    }
    let usage = turn
        .get("usage")
        .cloned()
        .unwrap_or_else(|| json!({"prompt_tokens": 100, "completion_tokens": 20}));
    json!({
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 1_764_633_600,
        "model": "scripted-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        "usage": usage,
    })
}

async fn embeddings(Json(request): Json<Value>) -> Json<Value> {
    let inputs: Vec<String> = match &request["input"] {
        Value::String(text) => vec![text.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(index, text)| json!({"object": "embedding", "index": index, "embedding": bag_of_words(text)}))
        .collect();
    Json(
        json!({"object": "list", "data": data, "model": "scripted-embedder",
                "usage": {"prompt_tokens": 1, "total_tokens": 1}}),
    )
}

/// Each lowercase word adds 1 to a dimension picked by a stable hash.
pub fn bag_of_words(text: &str) -> Vec<f32> {
    let mut vector = vec![0.0; EMBEDDING_DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let hash = word.to_lowercase().bytes().fold(2_166_136_261_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(16_777_619)
        });
        vector[hash as usize % EMBEDDING_DIMS] += 1.0;
    }
    vector
}

fn error(status: StatusCode, message: &str) -> (StatusCode, Json<Value>) {
    (
        status,
        Json(
            json!({"error": {"message": message, "type": "server_error", "param": null, "code": null}}),
        ),
    )
}
