//! `template`: fills one of the CEO report formats of `prompts/templates/`
//! (built into the binary) for the Simplifier. Every `{{field}}` must be
//! given and no other; an unknown template is refused with the list.

use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};

/// The report formats, by name.
const TEMPLATES: &[(&str, &str)] = &[
    (
        "daily_summary",
        include_str!("../../../prompts/templates/daily_summary.md"),
    ),
    (
        "deploy",
        include_str!("../../../prompts/templates/deploy.md"),
    ),
    (
        "incident",
        include_str!("../../../prompts/templates/incident.md"),
    ),
];

/// The longest value of one field, in characters.
const MAX_FIELD: usize = 1000;

/// Fills a report template.
pub struct Template;

/// Arguments of `template`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateArgs {
    /// incident, deploy or daily_summary.
    pub template: String,
    /// A value for each of the template's fields (an empty string leaves
    /// the line out).
    pub fields: BTreeMap<String, String>,
}

/// The filled report.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Filled {
    pub template: String,
    pub text: String,
}

#[async_trait]
impl TypedTool for Template {
    const NAME: &'static str = "template";
    const DESCRIPTION: &'static str =
        "Fill a CEO report template (incident, deploy, daily_summary) with its fields.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["simplifier"]);
    type Args = TemplateArgs;
    type Output = Filled;

    async fn call(&self, _ctx: &ToolContext, args: TemplateArgs) -> Result<Filled, ToolError> {
        let text = fill(&args.template, &args.fields)?;
        Ok(Filled {
            template: args.template,
            text,
        })
    }
}

/// `name`'s template with `fields` in place.
pub fn fill(name: &str, fields: &BTreeMap<String, String>) -> Result<String, ToolError> {
    let Some((_, template)) = TEMPLATES.iter().find(|(known, _)| *known == name) else {
        let known: Vec<&str> = TEMPLATES.iter().map(|(known, _)| *known).collect();
        return Err(invalid(format!(
            "no template `{name}`; templates: {}",
            known.join(", ")
        )));
    };
    let wanted = placeholders(template);
    let missing: Vec<&str> = wanted
        .iter()
        .map(String::as_str)
        .filter(|field| !fields.contains_key(*field))
        .collect();
    if !missing.is_empty() {
        return Err(invalid(format!(
            "the template `{name}` needs: {}",
            missing.join(", ")
        )));
    }
    if let Some(extra) = fields.keys().find(|field| !wanted.contains(*field)) {
        return Err(invalid(format!(
            "the template `{name}` has no field `{extra}`; fields: {}",
            wanted.iter().cloned().collect::<Vec<_>>().join(", ")
        )));
    }
    if let Some((field, _)) = fields.iter().find(|(_, v)| v.chars().count() > MAX_FIELD) {
        return Err(invalid(format!(
            "the field `{field}` is longer than {MAX_FIELD} characters"
        )));
    }
    let mut lines = Vec::new();
    for line in template.lines() {
        let mut filled = line.to_owned();
        let mut emptied = false;
        for (field, value) in fields {
            let placeholder = format!("{{{{{field}}}}}");
            if filled.contains(&placeholder) {
                // A value may not open a placeholder of its own.
                let value = value.replace("{{", "{ {").replace('\n', " ");
                emptied |= value.trim().is_empty();
                filled = filled.replace(&placeholder, value.trim());
            }
        }
        if !(emptied && filled.trim().is_empty()) {
            lines.push(filled);
        }
    }
    Ok(lines.join("\n"))
}

/// The `{{field}}` names of a template.
fn placeholders(template: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else { break };
        names.insert(after[..end].trim().to_owned());
        rest = &after[end + 2..];
    }
    names
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: "template",
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::{TEMPLATES, placeholders};

    #[test]
    fn every_shipped_template_has_fields() {
        for (name, template) in TEMPLATES {
            assert!(!placeholders(template).is_empty(), "{name}");
        }
    }
}
