//! Reading what local servers really send. A strict client refuses tool
//! calls whose `arguments` is an object (llama.cpp has sent that), calls
//! without `"type"`, calls written into the text (`<tool_call>{…}</tool_call>`
//! from Hermes-style templates, `<function=name><parameter=…>` from
//! Qwen3-Coder), and answers without usage. This reads all of them.

use serde_json::{Map, Value};

use super::{ChatResponse, ModelError, ToolCall, Usage};
use crate::tokens::estimate_tokens;

/// Reads a chat completion. `estimated_input` is our estimate of the
/// request's tokens, used when the server reports no usage.
pub fn parse_chat_response(body: &Value, estimated_input: u64) -> Result<ChatResponse, ModelError> {
    let message = body.pointer("/choices/0/message").ok_or_else(|| {
        ModelError::Malformed(format!("no choices[0].message in {}", preview(body)))
    })?;
    let mut content = content_text(message.get("content"));
    let mut tool_calls = match message.get("tool_calls") {
        Some(Value::Array(calls)) => calls
            .iter()
            .enumerate()
            .filter_map(|(i, call)| native_call(call, i))
            .collect(),
        _ => Vec::new(),
    };
    if tool_calls.is_empty() {
        let (calls, rest) = calls_in_text(&content);
        if !calls.is_empty() {
            tool_calls = calls;
            content = rest;
        }
    }
    let usage = read_usage(body.get("usage"), estimated_input, &content, &tool_calls);
    let model = body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Ok(ChatResponse {
        content,
        tool_calls,
        usage,
        model,
    })
}

/// One turn of the JSON protocol: a tool call or the final output.
#[derive(Debug, Clone, PartialEq)]
pub enum JsonTurn {
    /// `{"tool": name, "args": {…}}`
    Tool { name: String, args: Value },
    /// `{"finish": {…}}`
    Finish(Value),
}

/// Reads a JSON-protocol answer, tolerating code fences and text around
/// the object. The error says what was expected, for the model.
pub fn parse_json_protocol(content: &str) -> Result<JsonTurn, String> {
    let object = outermost_object(content)
        .and_then(|text| serde_json::from_str::<Value>(text).ok())
        .ok_or_else(|| {
            "answer with one JSON object: {\"tool\": NAME, \"args\": {...}} or {\"finish\": {...}}"
                .to_owned()
        })?;
    if let Some(output) = object.get("finish") {
        return Ok(JsonTurn::Finish(output.clone()));
    }
    match object.get("tool").and_then(Value::as_str) {
        Some(name) => Ok(JsonTurn::Tool {
            name: name.to_owned(),
            args: object
                .get("args")
                .or_else(|| object.get("arguments"))
                .cloned()
                .unwrap_or_else(|| Value::Object(Map::new())),
        }),
        None => Err("the object needs a \"tool\" (with \"args\") or a \"finish\" key".to_owned()),
    }
}

fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        // Content as an array of parts: keep the text parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn native_call(call: &Value, index: usize) -> Option<ToolCall> {
    let function = call.get("function").unwrap_or(call);
    let name = function.get("name")?.as_str()?.to_owned();
    let arguments = arguments_value(
        function
            .get("arguments")
            .or_else(|| function.get("parameters")),
    );
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map_or_else(|| format!("call_{index}"), str::to_owned);
    Some(ToolCall {
        id,
        name,
        arguments,
    })
}

/// Arguments as sent: a JSON string (the standard), an object (llama.cpp),
/// or missing. A string that is not JSON is kept as text, so the tool's
/// argument check can explain the problem to the model.
fn arguments_value(arguments: Option<&Value>) -> Value {
    match arguments {
        Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Object(Map::new()),
    }
}

/// Tool calls written into the text, and the text without them.
fn calls_in_text(content: &str) -> (Vec<ToolCall>, String) {
    let mut calls = Vec::new();
    let mut rest = String::new();
    let mut remaining = content;
    while let Some(start) = next_marker(remaining) {
        rest.push_str(&remaining[..start]);
        let tail = &remaining[start..];
        let (call, consumed) = if tail.starts_with("<tool_call>") {
            hermes_call(tail, calls.len())
        } else {
            qwen_coder_call(tail, calls.len())
        };
        match call {
            Some(call) => calls.push(call),
            None => rest.push_str(&tail[..consumed]),
        }
        remaining = &tail[consumed..];
    }
    rest.push_str(remaining);
    (calls, rest.trim().to_owned())
}

fn next_marker(text: &str) -> Option<usize> {
    [text.find("<tool_call>"), text.find("<function=")]
        .into_iter()
        .flatten()
        .min()
}

/// `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
fn hermes_call(tail: &str, index: usize) -> (Option<ToolCall>, usize) {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    let body_end = tail.find(CLOSE).unwrap_or(tail.len());
    let consumed = (body_end + CLOSE.len()).min(tail.len());
    let body = &tail[OPEN.len()..body_end];
    let call = serde_json::from_str::<Value>(body.trim())
        .ok()
        .and_then(|value| native_call(&value, index));
    (call, consumed)
}

/// `<function=name><parameter=key>value</parameter>…</function>`
fn qwen_coder_call(tail: &str, index: usize) -> (Option<ToolCall>, usize) {
    const CLOSE: &str = "</function>";
    let end = tail.find(CLOSE).unwrap_or(tail.len());
    let consumed = (end + CLOSE.len()).min(tail.len());
    let block = &tail["<function=".len()..end];
    let Some(name_end) = block.find('>') else {
        return (None, consumed);
    };
    let name = block[..name_end].trim().to_owned();
    let mut arguments = Map::new();
    let mut params = &block[name_end + 1..];
    while let Some(start) = params.find("<parameter=") {
        let after = &params[start + "<parameter=".len()..];
        let Some(key_end) = after.find('>') else {
            break;
        };
        let key = after[..key_end].trim().to_owned();
        let value_text = &after[key_end + 1..];
        let value_end = value_text.find("</parameter>").unwrap_or(value_text.len());
        let raw = value_text[..value_end].trim();
        let value = serde_json::from_str(raw).unwrap_or_else(|_| Value::String(raw.to_owned()));
        arguments.insert(key, value);
        params = &value_text[value_end..];
    }
    let call = (!name.is_empty()).then(|| ToolCall {
        id: format!("call_{index}"),
        name,
        arguments: Value::Object(arguments),
    });
    (call, consumed)
}

fn read_usage(
    usage: Option<&Value>,
    estimated_input: u64,
    content: &str,
    calls: &[ToolCall],
) -> Usage {
    let field = |name: &str| usage.and_then(|u| u.get(name)).and_then(Value::as_u64);
    match (field("prompt_tokens"), field("completion_tokens")) {
        (Some(input), Some(output)) => Usage {
            input,
            output,
            estimated: false,
        },
        _ => {
            let calls_text: String = calls
                .iter()
                .map(|c| format!("{}{}", c.name, c.arguments))
                .collect();
            Usage {
                input: estimated_input,
                output: estimate_tokens(content) + estimate_tokens(&calls_text),
                estimated: true,
            }
        }
    }
}

fn outermost_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (end > start).then(|| &text[start..=end])
}

fn preview(value: &Value) -> String {
    let text = value.to_string();
    text.chars().take(200).collect()
}
