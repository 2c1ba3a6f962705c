//! The utility templates, compiled in from `prompts/utilities/<name>/`:
//! each has a manifest (what it is, where it is published, how it is built
//! and tested), a JSON Schema for its config, and plain Python 3 scripts
//! that build a `dist/` and test it.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

/// A template's files: `(name, content)`.
type Files = &'static [(&'static str, &'static str)];

macro_rules! template {
    ($name:literal) => {
        (
            $name,
            &[
                (
                    "manifest.toml",
                    include_str!(concat!(
                        "../../../../prompts/utilities/",
                        $name,
                        "/manifest.toml"
                    )),
                ),
                (
                    "schema.json",
                    include_str!(concat!(
                        "../../../../prompts/utilities/",
                        $name,
                        "/schema.json"
                    )),
                ),
                (
                    "build.py",
                    include_str!(concat!(
                        "../../../../prompts/utilities/",
                        $name,
                        "/build.py"
                    )),
                ),
                (
                    "test.py",
                    include_str!(concat!("../../../../prompts/utilities/", $name, "/test.py")),
                ),
            ],
        )
    };
}

/// Every template, in the order a failing one is followed by the next of
/// the same publish kind.
const SOURCES: &[(&str, Files)] = &[
    template!("tg-quiz-bot"),
    template!("tg-price-alerts"),
    template!("web-minigame"),
    template!("holders-leaderboard"),
];

/// Where a released utility goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PublishKind {
    /// A page under the operation's site (`utilities/<template>/`).
    Site,
    /// A bot command in the operation's group (`/quiz`).
    Command,
}

/// A template's `manifest.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub description: String,
    pub publish: PublishKind,
    /// The command, without its slash (command templates).
    #[serde(default)]
    pub command: Option<String>,
    /// The page of `dist/` to open (site templates).
    #[serde(default)]
    pub page: Option<String>,
    /// The build command, run in the run's folder.
    pub build: String,
    /// The tests, run after a successful build.
    pub test: String,
}

/// One template, read.
#[derive(Debug, Clone)]
pub struct UtilityTemplate {
    pub manifest: Manifest,
    pub schema: Value,
    pub files: Files,
}

impl UtilityTemplate {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.manifest.name
    }

    /// Where it is published, in words: `/quiz` or `site page`.
    pub fn target(&self) -> String {
        match (&self.manifest.publish, &self.manifest.command) {
            (PublishKind::Command, Some(command)) => format!("/{command}"),
            _ => "site page".to_owned(),
        }
    }

    /// The problems of `config` against its schema (empty when it fits).
    pub fn check(&self, config: &Value) -> Vec<String> {
        match jsonschema::validator_for(&self.schema) {
            Ok(validator) => validator
                .iter_errors(config)
                .map(|e| format!("{}: {e}", e.instance_path()))
                .collect(),
            Err(error) => vec![format!("the template's schema does not compile: {error}")],
        }
    }
}

/// Every template (read once; a template that does not read is a build
/// mistake, caught by the tests, and left out here).
pub fn all() -> &'static [UtilityTemplate] {
    static ALL: OnceLock<Vec<UtilityTemplate>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .filter_map(|(name, files)| match read(files) {
                Ok(template) => Some(template),
                Err(error) => {
                    tracing::error!(template = name, %error, "a utility template does not read");
                    None
                }
            })
            .collect()
    })
}

fn read(files: Files) -> Result<UtilityTemplate, String> {
    let file = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, text)| *text)
            .ok_or_else(|| format!("no {name}"))
    };
    let manifest: Manifest = toml::from_str(file("manifest.toml")?).map_err(|e| e.to_string())?;
    let schema: Value = serde_json::from_str(file("schema.json")?).map_err(|e| e.to_string())?;
    Ok(UtilityTemplate {
        manifest,
        schema,
        files,
    })
}

/// The template called `name`.
pub fn get(name: &str) -> Option<&'static UtilityTemplate> {
    all().iter().find(|t| t.name() == name)
}

/// Every template's name.
pub fn names() -> Vec<&'static str> {
    all().iter().map(UtilityTemplate::name).collect()
}

/// The template that follows `name` among those of its publish kind (in
/// order, wrapping round), leaving out those in `failed`.
pub fn next_of_kind(name: &str, failed: &[String]) -> Option<&'static UtilityTemplate> {
    let kind = get(name)?.manifest.publish;
    let all = all();
    let at = all.iter().position(|t| t.name() == name)?;
    all.iter().cycle().skip(at + 1).take(all.len()).find(|t| {
        t.manifest.publish == kind && t.name() != name && !failed.iter().any(|n| n == t.name())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_reads_and_its_schema_compiles() {
        assert_eq!(all().len(), SOURCES.len());
        for template in all() {
            assert!(
                jsonschema::validator_for(&template.schema).is_ok(),
                "{}",
                template.name()
            );
            let command = template.manifest.command.is_some();
            assert_eq!(command, template.manifest.publish == PublishKind::Command);
        }
    }

    #[test]
    fn a_failing_template_is_followed_by_the_next_of_its_kind() {
        let next = |name: &str| next_of_kind(name, &[]).map(UtilityTemplate::name);
        assert_eq!(next("tg-quiz-bot"), Some("tg-price-alerts"));
        assert_eq!(next("tg-price-alerts"), Some("tg-quiz-bot"));
        assert_eq!(next("web-minigame"), Some("holders-leaderboard"));
        assert_eq!(
            next_of_kind("web-minigame", &["holders-leaderboard".into()])
                .map(UtilityTemplate::name),
            None
        );
    }
}
