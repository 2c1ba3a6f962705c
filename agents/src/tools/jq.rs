//! `jq`: filters a JSON value with a jq program, for the Analyst, with the
//! pure-Rust jaq interpreter. Filters that reach outside the value (`env`,
//! `now`, `input`) are not defined and `halt` stops only the program; the
//! program, the input and the outputs are bounded, and the run has a time
//! limit.

use std::time::Duration;

use async_trait::async_trait;
use jaq_core::load::{Arena, File, Loader};
use jaq_core::{Compiler, Ctx, Vars, data};
use jaq_json::Val;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::org::cut;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// The longest program, in bytes.
const MAX_PROGRAM: usize = 4 * 1024;
/// The largest input, as JSON text.
const MAX_INPUT: usize = 1024 * 1024;
/// The most outputs kept.
const MAX_OUTPUTS: usize = 100;
/// The most bytes of output (as JSON text).
const MAX_OUTPUT_BYTES: usize = 64 * 1024;
/// How long a program may run.
const RUN_TIME: Duration = Duration::from_secs(2);

/// Native filters left out: they read the process's environment or
/// clock. (`halt` stays, for the standard definitions that use it, but a
/// halt ends only the program, never the process: see [`run_jq`].)
const LEFT_OUT: &[&str] = &["env", "now", "input", "inputs", "input_filename"];

/// Filters JSON.
pub struct Jq;

/// Arguments of `jq`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JqArgs {
    /// The jq program, e.g. `[.[] | select(.status == "failed")] | length`.
    pub program: String,
    /// The JSON value to filter (at most 1 MiB as text).
    pub input: Value,
}

/// The program's outputs.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JqOutput {
    /// Every value the program produced, in order (at most 100).
    pub outputs: Vec<Value>,
    /// More outputs, or more bytes, than returned.
    pub truncated: bool,
}

#[async_trait]
impl TypedTool for Jq {
    const NAME: &'static str = "jq";
    const DESCRIPTION: &'static str =
        "Filter or aggregate a JSON value with a jq program (at most 100 outputs).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["analyst"]);
    type Args = JqArgs;
    type Output = JqOutput;

    async fn call(&self, _ctx: &ToolContext, args: JqArgs) -> Result<JqOutput, ToolError> {
        if args.program.len() > MAX_PROGRAM {
            return Err(invalid(format!(
                "the program is longer than {MAX_PROGRAM} bytes"
            )));
        }
        let input = args.input.to_string();
        if input.len() > MAX_INPUT {
            return Err(invalid(format!(
                "the input is larger than {MAX_INPUT} bytes"
            )));
        }
        let program = args.program;
        let run = tokio::task::spawn_blocking(move || run_jq(&program, &input));
        match tokio::time::timeout(RUN_TIME, run).await {
            Ok(Ok(result)) => result,
            Ok(Err(join)) => Err(ToolError::Failed(format!("jq stopped: {join}"))),
            Err(_) => Err(ToolError::Failed(format!(
                "the program ran past {} s",
                RUN_TIME.as_secs()
            ))),
        }
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: "jq",
        message,
    }
}

/// Parses, compiles and runs `program` on `input` (JSON text).
fn run_jq(program: &str, input: &str) -> Result<JqOutput, ToolError> {
    let input = jaq_json::read::parse_single(input.as_bytes())
        .map_err(|e| invalid(format!("the input is not JSON: {e}")))?;
    let defs = jaq_core::defs()
        .chain(jaq_std::defs())
        .chain(jaq_json::defs());
    let funs = jaq_core::funs()
        .chain(jaq_std::funs())
        .chain(jaq_json::funs())
        .filter(|(name, _, _)| !LEFT_OUT.contains(name));
    let loader = Loader::new(defs);
    let arena = Arena::default();
    let file = File {
        code: program,
        path: (),
    };
    let modules = loader.load(&arena, file).map_err(|errors| {
        let first = errors
            .into_iter()
            .next()
            .map(|(_, e)| format!("{e:?}"))
            .unwrap_or_default();
        invalid(format!("the program does not parse: {}", cut(&first, 300)))
    })?;
    let filter = Compiler::default()
        .with_funs(funs)
        .compile(modules)
        .map_err(|errors| {
            let undefined: Vec<String> = errors
                .into_iter()
                .flat_map(|(_, list)| list)
                .map(|(name, what)| format!("{name} ({what:?})"))
                .collect();
            invalid(format!(
                "the program uses undefined names: {}",
                cut(&undefined.join(", "), 300)
            ))
        })?;
    let ctx = Ctx::<data::JustLut<Val>>::new(&filter.lut, Vars::new([]));
    let mut outputs = Vec::new();
    let mut bytes = 0;
    let mut truncated = false;
    for value in filter.id.run((ctx, input)) {
        // Not `jaq_core::unwrap_valr`: it exits the process on `halt`.
        let value = value.map_err(|exn| match exn.get_err() {
            Ok(error) => ToolError::Failed(format!("jq error: {}", cut(&error.to_string(), 300))),
            Err(_) => ToolError::Failed("the program stopped itself (halt)".into()),
        })?;
        if outputs.len() == MAX_OUTPUTS {
            truncated = true;
            break;
        }
        let text = value.to_string();
        bytes += text.len();
        if bytes > MAX_OUTPUT_BYTES {
            truncated = true;
            break;
        }
        let json: Value = serde_json::from_str(&text).map_err(|_| {
            ToolError::Failed(format!(
                "jq produced a value that is not JSON: {}",
                cut(&text, 100)
            ))
        })?;
        outputs.push(json);
    }
    Ok(JqOutput { outputs, truncated })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::run_jq;

    #[test]
    fn a_program_filters_and_aggregates_and_cannot_read_the_environment() {
        let input =
            json!([{"s": "failed", "ms": 10}, {"s": "ok", "ms": 30}, {"s": "failed", "ms": 20}]);
        let out = run_jq(
            "[.[] | select(.s == \"failed\") | .ms] | add / length",
            &input.to_string(),
        )
        .unwrap();
        assert_eq!(out.outputs.len(), 1);
        assert_eq!(out.outputs[0].as_f64(), Some(15.0));
        let many = run_jq("range(1000)", "null").unwrap();
        assert_eq!(many.outputs.len(), 100);
        assert!(many.truncated);
        let env = run_jq("env", "null").unwrap_err().to_string();
        assert!(env.contains("undefined"), "{env}");
        let halted = run_jq("halt", "null").unwrap_err().to_string();
        assert!(halted.contains("halt"), "{halted}");
    }
}
