//! The four site templates, compiled in from `prompts/sites/`: their
//! manifests and the minijinja environment that renders them.

use minijinja::Environment;
use serde::Deserialize;

use super::SiteError;

/// Where the frame of every page comes from, per template.
const LAYOUT: &str = "layout.html";

/// Every template file, by the name pages use to reach it.
const FILES: &[(&str, &str)] = &[
    (
        "_shared/macros.html",
        include_str!("../../../prompts/sites/_shared/macros.html"),
    ),
    (
        "_shared/how-to-buy.html",
        include_str!("../../../prompts/sites/_shared/how-to-buy.html"),
    ),
    (
        "_shared/story.html",
        include_str!("../../../prompts/sites/_shared/story.html"),
    ),
    (
        "signal/layout.html",
        include_str!("../../../prompts/sites/signal/layout.html"),
    ),
    (
        "signal/index.html",
        include_str!("../../../prompts/sites/signal/index.html"),
    ),
    (
        "classic/layout.html",
        include_str!("../../../prompts/sites/classic/layout.html"),
    ),
    (
        "classic/index.html",
        include_str!("../../../prompts/sites/classic/index.html"),
    ),
    (
        "terminal/layout.html",
        include_str!("../../../prompts/sites/terminal/layout.html"),
    ),
    (
        "terminal/index.html",
        include_str!("../../../prompts/sites/terminal/index.html"),
    ),
    (
        "playful/layout.html",
        include_str!("../../../prompts/sites/playful/layout.html"),
    ),
    (
        "playful/index.html",
        include_str!("../../../prompts/sites/playful/index.html"),
    ),
];

/// The script of the live widgets, the same for every template.
pub(super) const LIVE_JS: &str = include_str!("../../../prompts/sites/_shared/live.js");

/// One template: its name, manifest text and stylesheet.
struct Source {
    name: &'static str,
    manifest: &'static str,
    style: &'static str,
}

const TEMPLATES: &[Source] = &[
    Source {
        name: "signal",
        manifest: include_str!("../../../prompts/sites/signal/manifest.toml"),
        style: include_str!("../../../prompts/sites/signal/style.css"),
    },
    Source {
        name: "classic",
        manifest: include_str!("../../../prompts/sites/classic/manifest.toml"),
        style: include_str!("../../../prompts/sites/classic/style.css"),
    },
    Source {
        name: "terminal",
        manifest: include_str!("../../../prompts/sites/terminal/manifest.toml"),
        style: include_str!("../../../prompts/sites/terminal/style.css"),
    },
    Source {
        name: "playful",
        manifest: include_str!("../../../prompts/sites/playful/manifest.toml"),
        style: include_str!("../../../prompts/sites/playful/style.css"),
    },
];

/// The template names, in the order the Webdev's prompt lists them.
pub const TEMPLATE_NAMES: [&str; 4] = ["signal", "classic", "terminal", "playful"];

/// What a template's `manifest.toml` says.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub description: String,
    /// Every field a site of this template shows.
    pub fields: Vec<String>,
    /// The fields that must be filled.
    pub required: Vec<String>,
    /// The live widgets its pages carry.
    pub widgets: Vec<String>,
    pub pages: Vec<PageSpec>,
}

/// One page of a template.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct PageSpec {
    /// Its path in the bundle (`index.html`).
    pub path: String,
    /// The template file it renders (`signal/index.html`).
    pub source: String,
    pub title: String,
}

/// A template, ready to render.
pub struct SiteTemplate {
    pub manifest: Manifest,
    pub style: &'static str,
    /// Its layout's name in [`environment`].
    pub layout: String,
}

/// The template called `name`, its manifest read.
pub fn template(name: &str) -> Result<SiteTemplate, SiteError> {
    let source =
        TEMPLATES
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| SiteError::UnknownTemplate {
                name: name.to_owned(),
                known: TEMPLATE_NAMES.join(", "),
            })?;
    let manifest: Manifest = toml::from_str(source.manifest).map_err(|e| SiteError::Template {
        template: name.to_owned(),
        message: format!("manifest.toml: {e}"),
    })?;
    Ok(SiteTemplate {
        manifest,
        style: source.style,
        layout: format!("{}/{LAYOUT}", source.name),
    })
}

/// Every template file, loaded into one environment (pages reach the
/// shared partials and their layout by name).
pub fn environment() -> Result<Environment<'static>, SiteError> {
    let mut env = Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Chainable);
    env.set_formatter(html_formatter);
    for (name, source) in FILES {
        env.add_template(name, source)
            .map_err(|e| SiteError::Template {
                template: (*name).to_owned(),
                message: e.to_string(),
            })?;
    }
    Ok(env)
}

/// minijinja's formatter, except that HTML text escapes only `& < > " '`
/// (its default also escapes `/`, which makes every URL unreadable).
fn html_formatter(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    use std::fmt::Write;
    let html = matches!(state.auto_escape(), minijinja::AutoEscape::Html);
    match value.as_str() {
        Some(text) if html && !value.is_safe() => {
            for c in text.chars() {
                let written = match c {
                    '&' => out.write_str("&amp;"),
                    '<' => out.write_str("&lt;"),
                    '>' => out.write_str("&gt;"),
                    '"' => out.write_str("&quot;"),
                    '\'' => out.write_str("&#39;"),
                    c => out.write_char(c),
                };
                written.map_err(|_| {
                    minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "cannot write")
                })?;
            }
            Ok(())
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}
