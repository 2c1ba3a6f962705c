//! Output schemas by name: the JSON Schema of each Rust type (schemars), and
//! a validator for it (jsonschema) whose errors name the failing path, so
//! the runner can feed them back to the model.

mod scanner;
mod types;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

pub use scanner::{DailyMetrics, Day7Verdict, GoNoGo, GoNoGoVerdict};
pub use types::*;

/// One named schema, compiled.
pub struct OutputSchema {
    name: &'static str,
    schema: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema")
            .field("name", &self.name)
            .finish()
    }
}

impl OutputSchema {
    /// The schema's name, as agent files refer to it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The JSON Schema (subschemas inlined: small models' grammars need no `$ref`).
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Checks `output`; the errors, one per problem, name the path (`/tasks/0/agent: …`).
    pub fn validate(&self, output: &Value) -> Result<(), Vec<String>> {
        let errors: Vec<String> = self
            .validator
            .iter_errors(output)
            .map(|error| {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {error}")
            })
            .collect();
        let errors = match errors.is_empty() {
            true => limits(self.name, output),
            false => errors,
        };
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

/// What a schema cannot say: a post draft goes to X, so each part must fit
/// X's weighted length (a URL counts 23, emoji and CJK count 2).
fn limits(schema: &str, output: &Value) -> Vec<String> {
    if schema != "post_draft" {
        return Vec::new();
    }
    let parts = output.get("parts").and_then(Value::as_array);
    parts
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, part)| {
            let weight = crate::x_text::weighted_length(part.as_str()?);
            (weight > crate::x_text::MAX_WEIGHT).then(|| {
                format!(
                    "/parts/{i}: weighs {weight} on X, at most {} (a URL counts 23, emoji and CJK count 2): shorten it",
                    crate::x_text::MAX_WEIGHT
                )
            })
        })
        .collect()
}

/// Every output schema an agent file may name.
#[derive(Debug)]
pub struct OutputSchemas {
    by_name: BTreeMap<&'static str, OutputSchema>,
}

/// A schema that does not compile (a bug in a Rust type's annotations).
#[derive(Debug, thiserror::Error)]
#[error("output schema `{name}` does not compile: {message}")]
pub struct SchemaBuildError {
    name: &'static str,
    message: String,
}

impl OutputSchemas {
    /// Builds every schema.
    pub fn build() -> Result<Self, SchemaBuildError> {
        let mut by_name = BTreeMap::new();
        for (name, schema) in all_schemas() {
            let validator = jsonschema::validator_for(&schema).map_err(|e| SchemaBuildError {
                name,
                message: e.to_string(),
            })?;
            by_name.insert(
                name,
                OutputSchema {
                    name,
                    schema,
                    validator,
                },
            );
        }
        Ok(Self { by_name })
    }

    /// The schema called `name`.
    pub fn get(&self, name: &str) -> Option<&OutputSchema> {
        self.by_name.get(name)
    }

    /// The names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.by_name.keys().copied()
    }
}

/// The JSON Schema of `T`, subschemas inlined.
pub fn schema_value<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    generator.into_root_schema_for::<T>().to_value()
}

fn all_schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("plan", schema_value::<Plan>()),
        ("interpretation", schema_value::<Interpretation>()),
        ("report", schema_value::<Report>()),
        ("code_change", schema_value::<CodeChange>()),
        ("review", schema_value::<Review>()),
        ("test_report", schema_value::<TestReport>()),
        ("health_report", schema_value::<HealthReport>()),
        ("incident_report", schema_value::<IncidentReport>()),
        ("lesson_set", schema_value::<LessonSet>()),
        ("objective_proposals", schema_value::<ObjectiveProposals>()),
        ("ceo_summary", schema_value::<CeoSummary>()),
        ("profile_update", schema_value::<ProfileUpdate>()),
        ("scan_report", schema_value::<ScanReport>()),
        ("go_nogo", schema_value::<GoNoGo>()),
        ("daily_metrics", schema_value::<DailyMetrics>()),
        ("day7_verdict", schema_value::<Day7Verdict>()),
        ("brand_directions", schema_value::<BrandDirections>()),
        ("brand_kit", schema_value::<BrandKit>()),
        ("site_draft", schema_value::<SiteDraft>()),
        ("post_draft", schema_value::<PostDraft>()),
        ("faq_answer", schema_value::<FaqAnswer>()),
        ("utility_plan", schema_value::<UtilityPlan>()),
        ("judgement", schema_value::<Judgement>()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_compiles_and_requires_a_confidence() {
        let schemas = OutputSchemas::build().unwrap();
        assert_eq!(schemas.names().count(), 23);
        for name in schemas.names() {
            let schema = schemas.get(name).unwrap().schema();
            let required = schema["required"].as_array().unwrap();
            assert!(required.contains(&json!("confidence")), "{name}");
        }
    }

    #[test]
    fn validation_errors_name_the_path() {
        let schemas = OutputSchemas::build().unwrap();
        let report = schemas.get("report").unwrap();
        assert!(
            report
                .validate(&json!({"summary": "ok", "findings": [], "confidence": 0.9}))
                .is_ok()
        );
        let errors = report
            .validate(&json!({"summary": 3, "findings": [], "confidence": 1.5}))
            .unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert!(
            errors.iter().any(|e| e.starts_with("/summary:")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.starts_with("/confidence:")),
            "{errors:?}"
        );
    }

    #[test]
    fn a_post_draft_too_heavy_for_x_is_sent_back_naming_the_part() {
        let schemas = OutputSchemas::build().unwrap();
        let draft = schemas.get("post_draft").unwrap();
        let fits = "a".repeat(250) + " https://example.org/a/long/path/under/the/limit";
        assert!(
            draft
                .validate(&json!({"kind": "thread", "parts": [fits, "ok"], "confidence": 0.9}))
                .is_ok(),
            "a long URL counts 23"
        );
        let heavy = "🚀".repeat(141);
        let errors = draft
            .validate(&json!({"kind": "thread", "parts": ["ok", heavy], "confidence": 0.9}))
            .unwrap_err();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("/parts/1: weighs 282"), "{errors:?}");
    }
}
