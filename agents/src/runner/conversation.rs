//! The exchange with the model, in either protocol: building each request
//! and reading each answer into an [`Action`].

use serde_json::{Value, json};
use ulias_core::domain::MessageRole;
use ulias_core::settings::ToolProtocol;

use crate::model::lenient::JsonTurn;
use crate::model::{
    ChatMessage, ChatRequest, ChatResponse, ResponseSchema, ToolCall, ToolDefinition,
    parse_json_protocol,
};
use crate::tools::{FINISH, ToolRegistry};

/// What the model asked for in one answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Action {
    /// Call these tools, in order.
    Calls(Vec<ToolCall>),
    /// The run's output.
    Finish(Value),
    /// Nothing usable: tell the model what is expected.
    Nudge(String),
}

/// The messages so far and how to talk to this pool.
pub(crate) struct Conversation {
    protocol: ToolProtocol,
    messages: Vec<ChatMessage>,
    tools: Vec<ToolDefinition>,
    response_schema: Option<ResponseSchema>,
    max_tokens: u32,
    temperature: Option<f32>,
    json_calls: usize,
}

impl Conversation {
    pub(crate) fn new(
        protocol: ToolProtocol,
        system: String,
        task: String,
        agent_tools: &[String],
        registry: &ToolRegistry,
        output_schema: &Value,
        config: &super::RunnerConfig,
    ) -> Self {
        let (tools, response_schema) = match protocol {
            ToolProtocol::Tools => (native_tools(agent_tools, registry, output_schema), None),
            ToolProtocol::Json => (
                Vec::new(),
                Some(json_turn_schema(agent_tools, output_schema)),
            ),
        };
        Self {
            protocol,
            messages: vec![
                ChatMessage::text(MessageRole::System, system),
                ChatMessage::text(MessageRole::User, task),
            ],
            tools,
            response_schema,
            max_tokens: config.max_output_tokens,
            temperature: config.temperature,
            json_calls: 0,
        }
    }

    pub(crate) fn messages(&self) -> &[ChatMessage] {
        &self.messages
    }

    pub(crate) fn request(&self) -> ChatRequest {
        ChatRequest {
            output: String::new(),
            messages: self.messages.clone(),
            tools: self.tools.clone(),
            response_schema: self.response_schema.clone(),
            temperature: self.temperature,
            max_tokens: Some(self.max_tokens),
        }
    }

    /// Reads the answer, keeps it in the exchange, and says what it asks.
    pub(crate) fn take_answer(&mut self, response: &ChatResponse) -> Action {
        match self.protocol {
            ToolProtocol::Tools => {
                self.messages.push(ChatMessage {
                    role: MessageRole::Assistant,
                    content: response.content.clone(),
                    tool_calls: response.tool_calls.clone(),
                    tool_call_id: None,
                });
                native_action(response)
            }
            ToolProtocol::Json => {
                self.messages.push(ChatMessage::text(
                    MessageRole::Assistant,
                    response.content.clone(),
                ));
                match parse_json_protocol(&response.content) {
                    Ok(JsonTurn::Finish(output)) => Action::Finish(output),
                    Ok(JsonTurn::Tool { name, args }) => {
                        self.json_calls += 1;
                        Action::Calls(vec![ToolCall {
                            id: format!("json_{}", self.json_calls),
                            name,
                            arguments: args,
                        }])
                    }
                    Err(expected) => Action::Nudge(expected),
                }
            }
        }
    }

    /// Hands a tool's result back to the model.
    pub(crate) fn push_result(&mut self, call: &ToolCall, result: &Value) {
        let text = result.to_string();
        let message = match self.protocol {
            ToolProtocol::Tools => ChatMessage {
                role: MessageRole::Tool,
                content: text,
                tool_calls: Vec::new(),
                tool_call_id: Some(call.id.clone()),
            },
            ToolProtocol::Json => ChatMessage::text(
                MessageRole::User,
                format!("Result of {}: {text}", call.name),
            ),
        };
        self.messages.push(message);
    }

    /// Tells the model something (a nudge, the output's validation errors).
    pub(crate) fn push_user(&mut self, text: String) {
        self.messages
            .push(ChatMessage::text(MessageRole::User, text));
    }
}

fn native_action(response: &ChatResponse) -> Action {
    if let Some(finish) = response.tool_calls.iter().find(|call| call.name == FINISH) {
        return Action::Finish(finish.arguments.clone());
    }
    if response.tool_calls.is_empty() {
        return Action::Nudge(format!(
            "Call one of your tools, or `{FINISH}` with your output when the task is done."
        ));
    }
    Action::Calls(response.tool_calls.clone())
}

fn native_tools(
    agent_tools: &[String],
    registry: &ToolRegistry,
    output_schema: &Value,
) -> Vec<ToolDefinition> {
    let mut tools: Vec<ToolDefinition> = agent_tools
        .iter()
        .filter_map(|name| registry.spec(name))
        .map(|spec| ToolDefinition {
            name: spec.name.to_owned(),
            description: spec.description.to_owned(),
            parameters: spec.input_schema.clone(),
        })
        .collect();
    tools.push(ToolDefinition {
        name: FINISH.to_owned(),
        description: "End the task with your output.".to_owned(),
        parameters: output_schema.clone(),
    });
    tools
}

/// One JSON object per turn: a call to one of the agent's tools, or the output.
fn json_turn_schema(agent_tools: &[String], output_schema: &Value) -> ResponseSchema {
    let mut output = output_schema.clone();
    if let Some(object) = output.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    let finish = json!({
        "type": "object",
        "properties": {"finish": output},
        "required": ["finish"],
        "additionalProperties": false,
    });
    let schema = if agent_tools.is_empty() {
        finish
    } else {
        json!({"oneOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": agent_tools},
                    "args": {"type": "object"},
                },
                "required": ["tool", "args"],
                "additionalProperties": false,
            },
            finish,
        ]})
    };
    ResponseSchema {
        name: "agent_turn".to_owned(),
        schema,
    }
}
