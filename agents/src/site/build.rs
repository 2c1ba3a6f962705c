//! Rendering a template into a numbered bundle.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::templates::{LIVE_JS, PageSpec, environment, template};
use super::{SiteError, SiteFields};

/// The served files' folder inside a build.
const SITE: &str = "site";
/// What was built, beside the served files.
const BUILD_FILE: &str = "build.json";

/// The operation a site is for, as its pages show it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SiteOperation {
    pub id: i64,
    pub name: String,
    pub ticker: String,
    pub chain: String,
    /// The public API the live widgets read (`[public_api].public_url`);
    /// none: the widgets stay empty.
    pub api: Option<String>,
}

/// A built site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bundle {
    pub operation: i64,
    /// Its number among the operation's builds (1, 2…).
    pub build: u32,
    pub template: String,
    pub fields: SiteFields,
    /// The served files, relative to [`Bundle::site_dir`], sorted.
    pub files: Vec<String>,
    /// The build's folder.
    #[serde(skip)]
    pub root: PathBuf,
}

impl Bundle {
    /// The folder of the served files (what is uploaded).
    pub fn site_dir(&self) -> PathBuf {
        self.root.join(SITE)
    }
}

/// The folder of an operation's build `build`.
pub fn bundle_dir(data_dir: &Path, operation: i64, build: u32) -> PathBuf {
    operation_dir(data_dir, operation).join(format!("build-{build}"))
}

pub(super) fn operation_dir(data_dir: &Path, operation: i64) -> PathBuf {
    data_dir
        .join("sites")
        .join(format!("operation-{operation}"))
}

/// Renders `template` with `fields` for `operation` into its next build.
pub fn build(
    data_dir: &Path,
    template_name: &str,
    fields: &SiteFields,
    operation: &SiteOperation,
) -> Result<Bundle, SiteError> {
    let site = template(template_name)?;
    let missing = missing_fields(&site.manifest.required, fields);
    if !missing.is_empty() {
        return Err(SiteError::MissingFields {
            template: template_name.to_owned(),
            missing,
        });
    }
    let env = environment()?;
    let pages: Vec<&PageSpec> = site.manifest.pages.iter().collect();
    let mut rendered = Vec::new();
    for page in &pages {
        let context = json!({
            "site": fields,
            "op": {
                "id": operation.id,
                "name": operation.name,
                "ticker": operation.ticker,
                "chain": operation.chain,
                "api": operation.api.clone().unwrap_or_default(),
            },
            "page": page,
            "pages": pages,
            "layout": site.layout,
            "template": template_name,
        });
        let html = env
            .get_template(&page.source)
            .and_then(|t| t.render(minijinja::value::Serde(&context)))
            .map_err(|e| SiteError::Template {
                template: template_name.to_owned(),
                message: format!("{}: {e:#}", page.source),
            })?;
        rendered.push((page.path.clone(), html));
    }
    rendered.push(("style.css".to_owned(), site.style.to_owned()));
    rendered.push(("live.js".to_owned(), LIVE_JS.to_owned()));
    let (root, build) = claim_next(&operation_dir(data_dir, operation.id))?;
    let site_dir = root.join(SITE);
    std::fs::create_dir_all(&site_dir).map_err(SiteError::io("cannot create", &site_dir))?;
    let mut files = Vec::new();
    for (path, text) in rendered {
        let target = site_dir.join(&path);
        std::fs::write(&target, text).map_err(SiteError::io("cannot write", &target))?;
        files.push(path);
    }
    // The pages the operation's utilities released, under their names.
    for (inside, from) in super::pages::released(data_dir, operation.id)? {
        let target = site_dir.join(&inside);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(SiteError::io("cannot create", parent))?;
        }
        std::fs::copy(&from, &target).map_err(SiteError::io("cannot copy", &from))?;
        files.push(inside);
    }
    files.sort();
    let bundle = Bundle {
        operation: operation.id,
        build,
        template: template_name.to_owned(),
        fields: fields.clone(),
        files,
        root,
    };
    write_json(&bundle.root.join(BUILD_FILE), &bundle)?;
    Ok(bundle)
}

/// The operation's next build, made from its latest one's template and
/// fields (so with the pages released since); none before a first build.
pub fn rebuild(data_dir: &Path, operation: &SiteOperation) -> Result<Option<Bundle>, SiteError> {
    let latest = match open(data_dir, operation.id, None) {
        Ok(latest) => latest,
        Err(SiteError::NoBuilds { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    build(data_dir, &latest.template, &latest.fields, operation).map(Some)
}

/// The required fields left empty.
fn missing_fields(required: &[String], fields: &SiteFields) -> Vec<String> {
    let value = serde_json::to_value(fields).unwrap_or(Value::Null);
    required
        .iter()
        .filter(|name| match value.get(name.as_str()) {
            None | Some(Value::Null) => true,
            Some(Value::String(s)) => s.trim().is_empty(),
            Some(Value::Array(a)) => a.is_empty(),
            Some(Value::Object(o)) => {
                o.is_empty() || (name.as_str() == "hero" && fields.hero.title.trim().is_empty())
            }
            Some(_) => false,
        })
        .cloned()
        .collect()
}

/// Creates the next `build-<n>` folder (the creation is the claim: two
/// builds at once get two numbers).
fn claim_next(dir: &Path) -> Result<(PathBuf, u32), SiteError> {
    std::fs::create_dir_all(dir).map_err(SiteError::io("cannot create", dir))?;
    let mut next = builds(dir)?.into_iter().max().unwrap_or(0) + 1;
    loop {
        let root = dir.join(format!("build-{next}"));
        match std::fs::create_dir(&root) {
            Ok(()) => return Ok((root, next)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => next += 1,
            Err(e) => return Err(SiteError::io("cannot create", &root)(e)),
        }
    }
}

/// The build numbers under an operation's folder.
fn builds(dir: &Path) -> Result<Vec<u32>, SiteError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SiteError::io("cannot list", dir)(e)),
    };
    Ok(entries
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("build-")?.parse().ok())
        .collect())
}

/// An operation's build `build`, or its latest when `None`.
pub fn open(data_dir: &Path, operation: i64, build: Option<u32>) -> Result<Bundle, SiteError> {
    let build = match build {
        Some(build) => build,
        None => builds(&operation_dir(data_dir, operation))?
            .into_iter()
            .max()
            .ok_or(SiteError::NoBuilds { operation })?,
    };
    let root = bundle_dir(data_dir, operation, build);
    let path = root.join(BUILD_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SiteError::NoBuild { operation, build });
        }
        Err(e) => return Err(SiteError::io("cannot read", &path)(e)),
    };
    let mut bundle: Bundle = serde_json::from_str(&text).map_err(|e| SiteError::Corrupt {
        path: path.clone(),
        message: e.to_string(),
    })?;
    if bundle.operation != operation || bundle.build != build {
        return Err(SiteError::Corrupt {
            path,
            message: "it names another build".into(),
        });
    }
    bundle.root = root;
    Ok(bundle)
}

pub(super) fn write_json(path: &Path, value: &impl Serialize) -> Result<(), SiteError> {
    let text = serde_json::to_string_pretty(value).map_err(|e| SiteError::Corrupt {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    std::fs::write(path, text).map_err(SiteError::io("cannot write", path))
}
