//! The system prompt: the preamble with its placeholders filled, the
//! agent's prompt, then the context layers.

use super::AgentSpec;
use crate::tools::ToolRegistry;

/// What the preamble's placeholders are filled with.
#[derive(Debug, Clone)]
pub struct PromptContext<'a> {
    /// Today, as the agent should read it (`2026-12-02`).
    pub date: &'a str,
    /// The language people are answered in (`French`).
    pub language: &'a str,
    /// The output schema, as JSON.
    pub output_schema: &'a str,
    /// Context layers (state, lessons, …), each a block of text.
    pub layers: &'a [String],
}

/// The full system prompt of `agent`.
pub fn render_system_prompt(
    preamble: &str,
    agent: &AgentSpec,
    tools: &ToolRegistry,
    context: &PromptContext<'_>,
) -> String {
    let tool_lines: Vec<String> = agent
        .tools
        .iter()
        .map(|name| {
            let description = tools.spec(name).map_or("", |spec| spec.description);
            format!("{name} ({description})")
        })
        .collect();
    let filled = preamble
        .replace("{{agent}}", agent.name.as_str())
        .replace("{{team}}", agent.team.as_str())
        .replace("{{date}}", context.date)
        .replace("{{locale}}", context.language)
        .replace("{{tools}}", &tool_lines.join("; "))
        .replace("{{output_schema}}", context.output_schema);
    let mut prompt = format!("{}\n\n{}", filled.trim(), agent.prompt.trim());
    for layer in context.layers {
        prompt.push_str("\n\n");
        prompt.push_str(layer.trim());
    }
    prompt
}
