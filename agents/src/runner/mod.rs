//! The runner: one agent, one task. System = the filled preamble, the
//! agent's prompt and the context; user = the task and its operation-file
//! excerpt. Then: model → allowed tool calls → results, until `finish`,
//! within the agent's turns, the wall clock and its money. Every model call
//! and tool call is a log row; every message is kept for replay.

mod claimed;
mod conversation;
mod dispatch;
mod record;

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use ulias_core::clock::SharedClock;
use ulias_core::domain::{MessageRole, Task, TaskId, TaskOutcome};
use ulias_core::money::Usd;
use ulias_core::settings::Tier;
use ulias_core::store::{Store, StoreError};

use self::conversation::{Action, Conversation};
use self::dispatch::{Repeats, ToolSource, dispatch};
use self::record::Recorder;
use crate::alerts::SharedAlerter;
use crate::ledger::{BudgetExceeded, Ledger, LedgerError, RunSpend, SpendScope, call_cost};
use crate::model::{ChatRequest, ChatResponse, ModelError, SharedModelClient};
use crate::pools::{ModelPool, Pools};
use crate::schemas::OutputSchemas;
use crate::spec::{AgentSpec, Catalogue, PromptContext, render_system_prompt};
use crate::tokens::estimate_tokens;
use crate::tools::{ToolContext, ToolRegistry};

pub use self::claimed::{LeaseTerms, keeping_lease};
pub use self::dispatch::{CONFIRMED_BY, STUCK_AFTER};

/// Limits and wording that apply to every run.
#[derive(Debug, Clone)]
pub struct RunnerConfig {
    /// A run's wall-clock limit.
    pub wall_clock: Duration,
    /// The most tokens one answer may use (also the cost estimate's output).
    pub max_output_tokens: u32,
    /// The language people are answered in, by name (`French`).
    pub language: String,
    /// Sampling temperature; `None` leaves the server's default.
    pub temperature: Option<f32>,
}

impl Default for RunnerConfig {
    fn default() -> Self {
        Self {
            wall_clock: Duration::from_secs(600),
            max_output_tokens: 1024,
            language: "French".to_owned(),
            temperature: None,
        }
    }
}

/// Why a run stopped without an output.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("no agent is called `{0}`")]
    UnknownAgent(String),
    #[error("agent {agent} names the output schema `{schema}`, which does not exist")]
    UnknownSchema { agent: String, schema: String },
    #[error("no model pool serves the {tier} tier")]
    NoPool { tier: Tier },
    #[error("no output after {turns} turns")]
    MaxTurns { turns: u32 },
    #[error("stuck: `{tool}` called {count} times with the same arguments {arguments}")]
    Stuck {
        tool: String,
        arguments: Value,
        count: u32,
    },
    #[error("the output does not match its schema: {}", errors.join("; "))]
    InvalidOutput { errors: Vec<String> },
    #[error("stopped before the next model call: {0}")]
    Budget(#[from] BudgetExceeded),
    #[error("the wall-clock limit of {0:?} passed")]
    WallClock(Duration),
    #[error("model call failed: {0}")]
    Model(#[from] ModelError),
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    #[error("pipeline: {0}")]
    Pipeline(String),
}

impl From<LedgerError> for RunError {
    fn from(error: LedgerError) -> Self {
        match error {
            LedgerError::Exceeded(exceeded) => Self::Budget(exceeded),
            LedgerError::Store(store) => Self::Store(store),
        }
    }
}

impl RunError {
    /// Whether another attempt might succeed (the model server was down, the
    /// store hiccupped); other failures are final for this task.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Model(error) => error.is_server_failure(),
            Self::Store(_) | Self::WallClock(_) => true,
            _ => false,
        }
    }
}

/// A successful run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub output: Value,
    pub confidence: Option<f64>,
    pub model: String,
    pub turns: u32,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub cost: Usd,
    pub cloud_equivalent_cost: Usd,
    pub duration_ms: u64,
}

impl RunOutcome {
    /// As the store records it on the task.
    pub fn to_task_outcome(&self) -> TaskOutcome {
        TaskOutcome {
            result: self.output.clone(),
            confidence: self.confidence,
            model: Some(self.model.clone()),
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            cost: self.cost,
            cloud_equivalent_cost: self.cloud_equivalent_cost,
            iterations: self.turns,
            duration_ms: self.duration_ms,
        }
    }
}

/// Everything a run needs, shared by every run.
#[derive(Clone)]
pub struct Runner {
    pub store: Store,
    pub clock: SharedClock,
    pub catalogue: Arc<Catalogue>,
    pub tools: Arc<ToolRegistry>,
    pub schemas: Arc<OutputSchemas>,
    pub pools: Pools,
    pub ledger: Ledger,
    pub alerter: SharedAlerter,
    pub embedder: SharedModelClient,
    pub config: RunnerConfig,
}

/// Whether a run's exchange is recorded, and where tool results come from.
pub enum RunMode {
    /// A real run: tools run, everything is recorded.
    Live,
    /// A replay: recorded tool results, nothing written.
    Replay(Vec<Value>),
}

impl Runner {
    /// Runs `task` to its output.
    pub async fn run(&self, task: &Task, mode: RunMode) -> Result<RunOutcome, RunError> {
        let spec = self
            .catalogue
            .get(task.agent.as_str())
            .ok_or_else(|| RunError::UnknownAgent(task.agent.to_string()))?;
        let output = spec.output_for(task.kind.as_deref());
        let schema = self
            .schemas
            .get(output)
            .ok_or_else(|| RunError::UnknownSchema {
                agent: spec.name.to_string(),
                schema: output.to_owned(),
            })?;
        let rules = self.store.routing_rules().await?;
        let pool = self
            .pools
            .route(spec.tier, spec.name.as_str(), task.kind.as_deref(), &rules)
            .ok_or(RunError::NoPool { tier: spec.tier })?;
        let (mut source, record) = match mode {
            RunMode::Live => (ToolSource::Live, true),
            RunMode::Replay(results) => (ToolSource::Recorded(results.into()), false),
        };
        let system = self.system_prompt(spec, schema.schema(), pool).await;
        let user = self.task_message(task).await?;
        let mut conversation = Conversation::new(
            pool.settings.protocol,
            system,
            user,
            &spec.tools,
            &self.tools,
            schema.schema(),
            &self.config,
        );
        let recorder = Recorder::new(&self.store, &self.clock, task, &self.tools, record);
        recorder.messages(conversation.messages(), 0).await?;
        let mut state = RunState::new(spec.budget, self.clock.now());
        let ctx = self.tool_context(task, spec);
        let scope = spend_scope(task);

        for turn in 1..=spec.max_turns {
            self.check_wall_clock(&state)?;
            let mut request = conversation.request();
            output.clone_into(&mut request.output);
            let (response, used) = self
                .call_model(pool, &request, task, &state.spend, scope)
                .await?;
            let cost = call_cost(&used.settings, &response.usage);
            state.count(&response, cost, &used.settings.model);
            let action = conversation.take_answer(&response);
            // The row first: the ledger's monthly sum must include this call.
            recorder
                .model_call(turn, &response, &action, used, cost)
                .await?;
            self.ledger
                .record(
                    &mut state.spend,
                    spec.name.as_str(),
                    cost.real,
                    used.is_cloud(),
                )
                .await?;
            match action {
                Action::Finish(output) => match schema.validate(&output) {
                    Ok(()) => return Ok(state.outcome(output, turn, self.clock.now())),
                    Err(errors) if state.output_retried => {
                        return Err(RunError::InvalidOutput { errors });
                    }
                    Err(errors) => {
                        state.output_retried = true;
                        conversation.push_user(invalid_output_feedback(&errors));
                        recorder
                            .messages(last(conversation.messages()), turn)
                            .await?;
                    }
                },
                Action::Calls(calls) => {
                    for call in &calls {
                        state.repeats.note(call)?;
                        let done = dispatch(call, spec, &self.tools, &ctx, &mut source).await?;
                        recorder.tool_call(turn, call, &done).await?;
                        conversation.push_result(call, &done.result);
                    }
                }
                Action::Nudge(text) => {
                    conversation.push_user(text);
                    recorder
                        .messages(last(conversation.messages()), turn)
                        .await?;
                }
            }
        }
        Err(RunError::MaxTurns {
            turns: spec.max_turns,
        })
    }

    /// Calls the routed pool, holding one of its slots for the call only.
    /// When a local pool fails, the cloud pool takes the call — if the
    /// month's cloud spend leaves room for it.
    async fn call_model<'p>(
        &'p self,
        pool: &'p ModelPool,
        request: &ChatRequest,
        task: &Task,
        spend: &RunSpend,
        scope: SpendScope,
    ) -> Result<(ChatResponse, &'p ModelPool), RunError> {
        self.ledger
            .check(spend, scope, self.estimate(pool, request), pool.is_cloud())
            .await?;
        let first = {
            let _slot = pool.slots.acquire(task.priority.get()).await;
            pool.client.chat(request).await
        };
        let error = match first {
            Ok(response) => return Ok((response, pool)),
            Err(error) => error,
        };
        let cloud = match self.pools.cloud() {
            Some(cloud) if error.is_server_failure() && !pool.is_cloud() => cloud,
            _ => return Err(error.into()),
        };
        tracing::warn!(pool = %pool.settings.name, %error, "local model failed; trying the cloud pool");
        self.ledger
            .check(spend, scope, self.estimate(cloud, request), true)
            .await?;
        let _slot = cloud.slots.acquire(task.priority.get()).await;
        let response = cloud.client.chat(request).await?;
        Ok((response, cloud))
    }

    /// A pessimistic cost for the next call: the whole request in, a full
    /// answer out.
    fn estimate(&self, pool: &ModelPool, request: &ChatRequest) -> Usd {
        let input: String = request
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        let usage = crate::model::Usage {
            input: estimate_tokens(&input),
            output: u64::from(self.config.max_output_tokens),
            estimated: true,
        };
        call_cost(&pool.settings, &usage).real
    }

    async fn system_prompt(&self, spec: &AgentSpec, schema: &Value, pool: &ModelPool) -> String {
        let date = self.clock.now().format("%Y-%m-%d").to_string();
        let schema_text = schema.to_string();
        let mut layers = Vec::new();
        if pool.settings.protocol == ulias_core::settings::ToolProtocol::Json {
            layers.push(self.catalogue.json_protocol.clone());
        }
        let context = PromptContext {
            date: &date,
            language: &self.config.language,
            output_schema: &schema_text,
            layers: &layers,
        };
        render_system_prompt(&self.catalogue.preamble, spec, &self.tools, &context)
    }

    /// The user message: the task, its input, and the operation-file
    /// sections the input names (`"sections": ["scan"]`), as JSON.
    async fn task_message(&self, task: &Task) -> Result<String, RunError> {
        let mut excerpt = serde_json::Map::new();
        let sections = task.input.get("sections").and_then(Value::as_array);
        for section in sections.into_iter().flatten().filter_map(Value::as_str) {
            if let Some(file) = self
                .store
                .latest_section(task.operation_id, section)
                .await?
            {
                excerpt.insert(section.to_owned(), file.content);
            }
        }
        let message = json!({
            "task": task.title,
            "input": task.input,
            "operation_file": excerpt,
        });
        Ok(message.to_string())
    }

    pub(crate) fn tool_context(&self, task: &Task, spec: &AgentSpec) -> ToolContext {
        ToolContext {
            store: self.store.clone(),
            clock: self.clock.clone(),
            task: task.clone(),
            agent: spec.name.to_string(),
            embedder: self.embedder.clone(),
            alerter: self.alerter.clone(),
            reads: crate::tools::ReadLog::default(),
            catalogue: self.catalogue.clone(),
        }
    }

    fn check_wall_clock(&self, state: &RunState) -> Result<(), RunError> {
        let elapsed = (self.clock.now() - state.started)
            .to_std()
            .unwrap_or_default();
        if elapsed > self.config.wall_clock {
            return Err(RunError::WallClock(self.config.wall_clock));
        }
        Ok(())
    }
}

/// What a run has used so far.
struct RunState {
    spend: RunSpend,
    repeats: Repeats,
    output_retried: bool,
    started: chrono::DateTime<chrono::Utc>,
    tokens_in: u64,
    tokens_out: u64,
    cloud_equivalent: Usd,
    model: String,
}

impl RunState {
    fn new(budget: Usd, started: chrono::DateTime<chrono::Utc>) -> Self {
        Self {
            spend: RunSpend::new(budget),
            repeats: Repeats::default(),
            output_retried: false,
            started,
            tokens_in: 0,
            tokens_out: 0,
            cloud_equivalent: Usd::ZERO,
            model: String::new(),
        }
    }

    fn count(&mut self, response: &ChatResponse, cost: crate::ledger::CallCost, pool_model: &str) {
        self.tokens_in += response.usage.input;
        self.tokens_out += response.usage.output;
        self.cloud_equivalent += cost.cloud_equivalent;
        self.model = if response.model.is_empty() {
            pool_model.to_owned()
        } else {
            response.model.clone()
        };
    }

    fn outcome(self, output: Value, turns: u32, now: chrono::DateTime<chrono::Utc>) -> RunOutcome {
        let confidence = output.get("confidence").and_then(Value::as_f64);
        RunOutcome {
            confidence,
            output,
            model: self.model,
            turns,
            tokens_in: self.tokens_in,
            tokens_out: self.tokens_out,
            cost: self.spend.spent,
            cloud_equivalent_cost: self.cloud_equivalent,
            duration_ms: u64::try_from((now - self.started).num_milliseconds()).unwrap_or(0),
        }
    }
}

fn spend_scope(task: &Task) -> SpendScope {
    match (task.objective_id, task.operation_id) {
        (_, Some(operation)) => SpendScope::Operation(operation),
        (Some(objective), None) => SpendScope::Objective(objective),
        (None, None) => SpendScope::None,
    }
}

fn invalid_output_feedback(errors: &[String]) -> String {
    format!(
        "Your output does not match the schema. Fix these and finish again:\n- {}",
        errors.join("\n- ")
    )
}

fn last<T>(items: &[T]) -> &[T] {
    &items[items.len().saturating_sub(1)..]
}

/// The model's recorded answers to a task, in order, for a replay.
pub async fn recorded_answers(
    store: &Store,
    task: TaskId,
) -> Result<Vec<ChatResponse>, StoreError> {
    store
        .messages_of_task(task)
        .await?
        .into_iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .map(|m| {
            let tool_calls = match m.tool_calls {
                Some(calls) => serde_json::from_value(calls)
                    .map_err(|e| StoreError::Invalid(format!("recorded tool calls: {e}")))?,
                None => Vec::new(),
            };
            Ok(ChatResponse {
                content: m.content.unwrap_or_default(),
                tool_calls,
                usage: crate::model::Usage {
                    input: m.tokens_in,
                    output: m.tokens_out,
                    estimated: m.usage_estimated,
                },
                model: m.model.unwrap_or_default(),
            })
        })
        .collect()
}

/// The recorded tool results of a task, in order, for a replay.
pub async fn recorded_tool_results(store: &Store, task: TaskId) -> Result<Vec<Value>, StoreError> {
    Ok(store
        .messages_of_task(task)
        .await?
        .into_iter()
        .filter(|m| m.role == MessageRole::Tool)
        .map(|m| {
            m.content
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null)
        })
        .collect())
}
