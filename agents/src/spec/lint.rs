//! The rules every agent file must follow (seed 003's micro-agent rules and
//! what the runtime needs to run it).

use super::{AgentSpec, MAX_PROMPT_TOKENS, MAX_TOOLS, SpecProblem};
use crate::schemas::OutputSchemas;
use crate::tokens::estimate_tokens;
use crate::tools::{FINISH, ToolRegistry};

pub(super) fn check(
    spec: &AgentSpec,
    tools: &ToolRegistry,
    schemas: &OutputSchemas,
    problems: &mut Vec<SpecProblem>,
) {
    let mut add = |field: String, message: String| {
        problems.push(SpecProblem {
            file: spec.path.clone(),
            field,
            message,
        });
    };
    if spec.tools.is_empty() || spec.tools.len() > MAX_TOOLS {
        add(
            "tools".into(),
            format!(
                "{} tools; an agent has 1 to {MAX_TOOLS} (split an agent that needs more)",
                spec.tools.len()
            ),
        );
    }
    for (i, tool) in spec.tools.iter().enumerate() {
        let field = format!("tools[{i}]");
        if tool == FINISH {
            add(field, "`finish` is always available; do not list it".into());
            continue;
        }
        match tools.spec(tool) {
            None => add(field, format!("no tool is called `{tool}`")),
            Some(found) if !found.agents.allows(spec.name.as_str()) => {
                add(field, format!("`{tool}` is not allowed for {}", spec.name));
            }
            Some(_) => {}
        }
    }
    let outputs = spec
        .outputs
        .iter()
        .map(|(kind, name)| (format!("outputs.{kind}"), name));
    for (field, name) in std::iter::once(("output".to_owned(), &spec.output)).chain(outputs) {
        if schemas.get(name).is_none() {
            let known: Vec<&str> = schemas.names().collect();
            add(
                field,
                format!(
                    "no output schema is called `{name}` (known: {})",
                    known.join(", ")
                ),
            );
        }
    }
    let tokens = estimate_tokens(&spec.prompt);
    if tokens > MAX_PROMPT_TOKENS {
        add(
            "prompt".into(),
            format!("about {tokens} tokens; at most {MAX_PROMPT_TOKENS} (simplify it)"),
        );
    }
    if spec.prompt.is_empty() {
        add(
            "prompt".into(),
            "the prompt after the front matter is empty".into(),
        );
    }
    if !(1..=50).contains(&spec.max_turns) {
        add("max_turns".into(), "expected 1 to 50 turns".into());
    }
    if spec.description.trim().is_empty() {
        add(
            "description".into(),
            "expected one line saying what the agent does".into(),
        );
    }
}
