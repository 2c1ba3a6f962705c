//! What a run writes: every message (for replay) and a log row per model
//! call and per tool call (a one-line summary, tokens, cost).

use serde_json::json;
use ulias_core::clock::SharedClock;
use ulias_core::domain::{LogKind, LogScope, MessageRole, NewLogEntry, StoredMessage, Task};
use ulias_core::store::{Store, StoreError};

use super::conversation::Action;
use super::dispatch::Dispatched;
use crate::ledger::CallCost;
use crate::model::{ChatMessage, ChatResponse, ToolCall};
use crate::pools::ModelPool;
use crate::tools::ToolRegistry;

pub(crate) struct Recorder<'a> {
    store: &'a Store,
    clock: &'a SharedClock,
    task: &'a Task,
    /// The catalogue: log summaries name its tools only, never a name the
    /// model made up (an operation's log is public).
    tools: &'a ToolRegistry,
    enabled: bool,
}

impl<'a> Recorder<'a> {
    pub(crate) fn new(
        store: &'a Store,
        clock: &'a SharedClock,
        task: &'a Task,
        tools: &'a ToolRegistry,
        enabled: bool,
    ) -> Self {
        Self {
            store,
            clock,
            task,
            tools,
            enabled,
        }
    }

    /// Keeps messages the runner sent.
    pub(crate) async fn messages(
        &self,
        messages: &[ChatMessage],
        turn: u32,
    ) -> Result<(), StoreError> {
        for message in messages {
            self.message(StoredMessage {
                content: Some(message.content.clone()),
                tool_call_id: message.tool_call_id.clone(),
                ..self.blank(turn, message.role)
            })
            .await?;
        }
        Ok(())
    }

    /// Keeps the model's answer and logs the call.
    pub(crate) async fn model_call(
        &self,
        turn: u32,
        response: &ChatResponse,
        action: &Action,
        pool: &ModelPool,
        cost: CallCost,
    ) -> Result<(), StoreError> {
        let tool_calls = (!response.tool_calls.is_empty()).then(|| json!(response.tool_calls));
        self.message(StoredMessage {
            content: Some(response.content.clone()),
            tool_calls,
            model: Some(response.model.clone()),
            tokens_in: response.usage.input,
            tokens_out: response.usage.output,
            usage_estimated: response.usage.estimated,
            ..self.blank(turn, MessageRole::Assistant)
        })
        .await?;
        let what = match action {
            Action::Finish(_) => "finished".to_owned(),
            Action::Calls(calls) => {
                let names: Vec<&str> = calls
                    .iter()
                    .map(|c| catalogue_name(self.tools, &c.name))
                    .collect();
                format!("called {}", names.join(", "))
            }
            Action::Nudge(_) => "answered without an action".to_owned(),
        };
        let summary = format!(
            "{} turn {turn} on {} ({}): {what}",
            self.task.agent, pool.settings.name, pool.settings.model
        );
        self.log(NewLogEntry {
            model: Some(pool.settings.model.clone()),
            pool: Some(pool.settings.name.clone()),
            cloud: pool.is_cloud(),
            tokens_in: response.usage.input,
            tokens_out: response.usage.output,
            usage_estimated: response.usage.estimated,
            cost: cost.real,
            cloud_equivalent_cost: cost.cloud_equivalent,
            ..self.event(LogKind::ModelCall, summary)
        })
        .await
    }

    /// Keeps a tool's result and logs the call.
    pub(crate) async fn tool_call(
        &self,
        turn: u32,
        call: &ToolCall,
        done: &Dispatched,
    ) -> Result<(), StoreError> {
        self.message(StoredMessage {
            content: Some(done.result.to_string()),
            tool_call_id: Some(call.id.clone()),
            ..self.blank(turn, MessageRole::Tool)
        })
        .await?;
        let kind = if done.refused {
            LogKind::ToolRefused
        } else {
            LogKind::ToolCall
        };
        self.log(self.event(kind, done.summary.clone())).await
    }

    fn blank(&self, turn: u32, role: MessageRole) -> StoredMessage {
        StoredMessage {
            task_id: self.task.id,
            turn,
            role,
            content: None,
            tool_calls: None,
            tool_call_id: None,
            model: None,
            tokens_in: 0,
            tokens_out: 0,
            usage_estimated: false,
        }
    }

    fn event(&self, kind: LogKind, summary: String) -> NewLogEntry {
        let scope = LogScope {
            operation_id: self.task.operation_id,
            objective_id: self.task.objective_id,
            task_id: Some(self.task.id),
            agent: Some(self.task.agent.to_string()),
        };
        NewLogEntry {
            // An operation's calls are shown in the public log channel.
            public: self.task.operation_id.is_some(),
            ..NewLogEntry::event(scope, kind, summary)
        }
    }

    async fn message(&self, message: StoredMessage) -> Result<(), StoreError> {
        if self.enabled {
            self.store
                .append_message(&message, self.clock.now())
                .await?;
        }
        Ok(())
    }

    async fn log(&self, entry: NewLogEntry) -> Result<(), StoreError> {
        if self.enabled {
            self.store.append_log(&entry, self.clock.now()).await?;
        }
        Ok(())
    }
}

/// The tool's name as the catalogue spells it, or `an unknown tool` for a
/// name the model made up (it never reaches a log line).
pub(crate) fn catalogue_name<'a>(tools: &'a ToolRegistry, called: &str) -> &'a str {
    if called == crate::tools::FINISH {
        return crate::tools::FINISH;
    }
    tools
        .spec(called)
        .map_or("an unknown tool", |spec| spec.name)
}
