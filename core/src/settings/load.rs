//! Reading settings: a TOML file (or the embedded defaults), then
//! `ULIAS_SECTION__KEY=value` environment overrides, then validation.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::Settings;

/// Environment variables starting with this override settings keys:
/// `ULIAS_DATABASE__URL` sets `database.url`, `ULIAS_MODELS__POOLS__0__SLOTS`
/// sets `models.pools[0].slots`. Values are read as TOML when they parse
/// (numbers, booleans, arrays), else as text.
pub const ENV_PREFIX: &str = "ULIAS_";

/// Variables under this prefix belong to the test suite, not to settings.
const TEST_PREFIX: &str = "ULIAS_TEST_";

/// The default settings file, read when present and no file is named.
pub const DEFAULT_FILE: &str = "ulias.toml";

/// Where the settings came from, for `ulias check` and the logs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingsSource {
    /// A file.
    File(PathBuf),
    /// No file: the built-in defaults.
    Defaults,
}

impl fmt::Display for SettingsSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => write!(f, "{}", path.display()),
            Self::Defaults => f.write_str("built-in defaults"),
        }
    }
}

/// One thing wrong with the settings, tied to its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key, dotted (`models.pools[1].slots`).
    pub key: String,
    /// What is wrong and what is expected.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

/// Settings that could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// The file could not be read.
    #[error("cannot read the settings file {path}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not TOML.
    #[error("the settings file {source_name} is not valid TOML: {message}")]
    Syntax {
        /// The file, or "built-in defaults".
        source_name: String,
        /// The parser's message, with line and column.
        message: String,
    },
    /// Some keys hold values that are not allowed.
    #[error("invalid settings in {source_name}:\n{}", list(.problems))]
    Invalid {
        /// The file, or "built-in defaults".
        source_name: String,
        /// Every problem found, one per key.
        problems: Vec<Problem>,
    },
}

impl SettingsError {
    /// The problems, when the settings parsed but were refused.
    pub fn problems(&self) -> &[Problem] {
        match self {
            Self::Invalid { problems, .. } => problems,
            _ => &[],
        }
    }
}

fn list(problems: &[Problem]) -> String {
    problems
        .iter()
        .map(|p| format!("  - {p}"))
        .collect::<Vec<_>>()
        .join("\n")
}

impl Settings {
    /// Loads `path`, or `ulias.toml` when it exists and no path is given, or
    /// the built-in defaults; then applies `env` overrides and validates.
    pub fn load(
        path: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<(Settings, SettingsSource), SettingsError> {
        let default_file = Path::new(DEFAULT_FILE);
        let file = match path {
            Some(path) => Some(path),
            None if default_file.exists() => Some(default_file),
            None => None,
        };
        let (text, source) = match file {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| SettingsError::Read {
                    path: path.to_owned(),
                    source,
                })?;
                (text, SettingsSource::File(path.to_owned()))
            }
            None => (String::new(), SettingsSource::Defaults),
        };
        let settings = Self::from_toml(&text, &source.to_string(), env)?;
        Ok((settings, source))
    }

    /// Parses TOML `text`, applies `env` overrides and validates.
    /// `source_name` names the text in errors.
    pub fn from_toml(
        text: &str,
        source_name: &str,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Settings, SettingsError> {
        let file: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| SettingsError::Syntax {
                    source_name: source_name.to_owned(),
                    message: e.to_string(),
                })?;
        // The documented defaults first, the file over them: an override
        // such as ULIAS_MODELS__POOLS__0__SLOTS then finds the default pools.
        let mut table: toml::Table =
            DEFAULTS
                .parse()
                .map_err(|e: toml::de::Error| SettingsError::Syntax {
                    source_name: "the built-in defaults".to_owned(),
                    message: e.to_string(),
                })?;
        merge(&mut table, file);
        let invalid = |problems| SettingsError::Invalid {
            source_name: source_name.to_owned(),
            problems,
        };
        let overrides = apply_env(&mut table, env).map_err(|p| invalid(vec![p]))?;
        let settings: Settings = serde_path_to_error::deserialize(toml::Value::Table(table))
            .map_err(|e| invalid(vec![deserialize_problem(&e, &overrides)]))?;
        let problems = settings.problems();
        if problems.is_empty() {
            Ok(settings)
        } else {
            Err(invalid(problems))
        }
    }
}

/// Every key with its default, as documented (a test keeps the two equal).
const DEFAULTS: &str = include_str!("../../../ulias.example.toml");

/// Lays `over` on `base`: sections merge key by key, anything else replaces.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(base_section)), toml::Value::Table(section)) => {
                merge(base_section, section);
            }
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// Applies every `ULIAS_…` variable to `table`. Returns which dotted keys
/// came from which variable, to name the variable in later errors.
fn apply_env(
    table: &mut toml::Table,
    env: impl IntoIterator<Item = (String, String)>,
) -> Result<BTreeMap<String, String>, Problem> {
    let mut origins = BTreeMap::new();
    let mut vars: Vec<(String, String)> = env
        .into_iter()
        .filter(|(name, _)| name.starts_with(ENV_PREFIX) && !name.starts_with(TEST_PREFIX))
        .collect();
    vars.sort();
    for (name, raw) in vars {
        let path: Vec<String> = name[ENV_PREFIX.len()..]
            .split("__")
            .map(str::to_ascii_lowercase)
            .collect();
        let key = dotted(&path);
        set_path(table, &path, env_value(&raw)).map_err(|message| Problem {
            key: key.clone(),
            message: format!("{message} (from environment variable {name})"),
        })?;
        origins.insert(key, name);
    }
    Ok(origins)
}

/// A variable's value: TOML when it parses as a TOML value, text otherwise.
fn env_value(raw: &str) -> toml::Value {
    format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_owned()))
}

fn set_path(table: &mut toml::Table, path: &[String], value: toml::Value) -> Result<(), String> {
    let Some((first, rest)) = path.split_first() else {
        return Err("an empty key".into());
    };
    if first.is_empty() {
        return Err("an empty key segment".into());
    }
    if rest.is_empty() {
        table.insert(first.clone(), value);
        return Ok(());
    }
    let child = table
        .entry(first.clone())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    set_in_value(child, rest, value)
}

fn set_in_value(node: &mut toml::Value, path: &[String], value: toml::Value) -> Result<(), String> {
    match node {
        toml::Value::Table(table) => set_path(table, path, value),
        toml::Value::Array(items) => {
            let (index, rest) = path.split_first().ok_or("an empty key")?;
            let index: usize = index
                .parse()
                .map_err(|_| format!("`{index}` should be a list index (0, 1, …)"))?;
            let len = items.len();
            let item = items
                .get_mut(index)
                .ok_or_else(|| format!("the list has {len} entries; there is no entry {index}"))?;
            if rest.is_empty() {
                *item = value;
                Ok(())
            } else {
                set_in_value(item, rest, value)
            }
        }
        _ => Err("this key holds a value, not a section".into()),
    }
}

fn dotted(path: &[String]) -> String {
    let mut key = String::new();
    for segment in path {
        if segment.parse::<usize>().is_ok() {
            key.push_str(&format!("[{segment}]"));
        } else {
            if !key.is_empty() {
                key.push('.');
            }
            key.push_str(segment);
        }
    }
    key
}

fn deserialize_problem(
    error: &serde_path_to_error::Error<toml::de::Error>,
    origins: &BTreeMap<String, String>,
) -> Problem {
    let key = error.path().to_string();
    let key = if key == "." {
        "(top level)".to_owned()
    } else {
        key
    };
    let mut message = error.inner().message().trim().to_owned();
    if let Some(var) = origins.get(&key) {
        message.push_str(&format!(" (from environment variable {var})"));
    }
    Problem { key, message }
}
