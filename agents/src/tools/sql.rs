//! `sql_query`: one read-only `SELECT` on the organisation's store, for the
//! Analyst and the Strategist. The store refuses anything else and never
//! returns a secret ([`ulias_core::store::check_select`]); rows are capped
//! in number and size, and text cells come back wrapped as untrusted.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ulias_core::store::StoreError;

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The most rows a query returns.
pub const MAX_ROWS: u32 = 200;
/// How long a query may run.
pub const QUERY_TIME: Duration = Duration::from_secs(5);
/// The most bytes of rows returned (as JSON); rows past it are left out.
const MAX_BYTES: usize = 64 * 1024;

/// Runs a read-only query.
pub struct SqlQuery;

/// Arguments of `sql_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SqlArgs {
    /// One SELECT (or WITH … SELECT) statement on the store's tables
    /// (tasks, objectives, task_metrics, lessons, decisions, log_entries…).
    /// Times are Unix milliseconds; money is micro-dollars.
    pub query: String,
    /// The most rows to return, 1–200 (default 50).
    #[serde(default = "default_rows")]
    pub max_rows: u32,
}

fn default_rows() -> u32 {
    50
}

/// What the query returned.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SqlRows {
    /// Column names (empty when no row came back).
    pub columns: Vec<String>,
    /// One array per row, one value per column; text cells are untrusted.
    pub rows: Vec<Vec<Value>>,
    /// More rows matched than were returned (cap or size).
    pub truncated: bool,
}

#[async_trait]
impl TypedTool for SqlQuery {
    const NAME: &'static str = "sql_query";
    const DESCRIPTION: &'static str =
        "Run one read-only SELECT on the organisation's store (at most 200 rows, 5 seconds).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["analyst", "strategist"]);
    type Args = SqlArgs;
    type Output = SqlRows;

    async fn call(&self, ctx: &ToolContext, args: SqlArgs) -> Result<SqlRows, ToolError> {
        let cap = usize::try_from(args.max_rows.clamp(1, MAX_ROWS)).unwrap_or(50);
        let query = ctx.store.read_only_query(&args.query, cap, QUERY_TIME);
        // A margin over the database's own limit, should it not fire.
        let result = tokio::time::timeout(QUERY_TIME + Duration::from_secs(1), query)
            .await
            .map_err(|_| ToolError::Failed("the query ran past its time limit".into()))?
            .map_err(|e| match e {
                StoreError::Invalid(reason) => ToolError::Forbidden(reason),
                other => ToolError::Store(other),
            })?;
        let mut truncated = result.truncated;
        let mut rows = Vec::with_capacity(result.rows.len());
        let mut bytes = 0;
        for row in result.rows {
            let row: Vec<Value> = row.into_iter().map(wrap_text).collect();
            bytes += Value::from(row.clone()).to_string().len();
            if bytes > MAX_BYTES {
                truncated = true;
                break;
            }
            rows.push(row);
        }
        Ok(SqlRows {
            columns: result.columns,
            rows,
            truncated,
        })
    }
}

fn wrap_text(value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(wrap_untrusted("store", &text)),
        Value::Array(_) | Value::Object(_) => {
            Value::String(wrap_untrusted("store", &value.to_string()))
        }
        other => other,
    }
}
