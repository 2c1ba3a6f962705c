//! `site_check`: every internal link resolves to a file of the bundle,
//! every page reads as HTML, and every contract address shown is the
//! operation's official one (a mismatch is a hard failure). The latest
//! check of each build is kept beside it; [`ready_to_publish`] is the
//! rule publishing goes through.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::build::write_json;
use super::{Bundle, SiteError, html, same_address};

/// The latest check, beside the build.
const CHECK_FILE: &str = "check.json";

/// An EVM address anywhere in a page's text.
static EVM_ADDRESS: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b0x[0-9a-fA-F]{40}\b").ok());

/// What a check found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CheckReport {
    pub build: u32,
    /// No problem found: the bundle may be proposed for publication.
    pub passed: bool,
    pub problems: Vec<CheckedProblem>,
    pub pages: usize,
    /// Internal links followed.
    pub links: usize,
    /// Contract addresses shown (`data-contract`).
    pub addresses_shown: usize,
    /// The address the bundle was checked against.
    pub official_address: String,
    /// A digest of the files checked.
    pub digest: String,
}

/// One problem, with where it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum CheckedProblem {
    /// A link to a file the bundle does not have.
    BrokenLink { page: String, link: String },
    /// A page that does not read as HTML.
    NotHtml {
        page: String,
        line: usize,
        message: String,
    },
    /// An address shown that is not the operation's official one.
    WrongAddress { page: String, shown: String },
    /// No page shows the contract address.
    NoAddress,
}

impl std::fmt::Display for CheckedProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::BrokenLink { page, link } => {
                write!(f, "{page} links to {link}, which is not in the bundle")
            }
            Self::NotHtml {
                page,
                line,
                message,
            } => write!(f, "{page} line {line}: {message}"),
            Self::WrongAddress { page, shown } => {
                write!(f, "{page} shows {shown}, which is not the official address")
            }
            Self::NoAddress => write!(f, "no page shows the contract address"),
        }
    }
}

/// Checks `bundle` against `official_address` and keeps the result as
/// the build's latest check.
pub fn check(bundle: &Bundle, official_address: &str) -> Result<CheckReport, SiteError> {
    let report = inspect(bundle, official_address)?;
    write_json(&bundle.root.join(CHECK_FILE), &report)?;
    Ok(report)
}

/// The build's latest check, if one ran.
pub fn latest_check(bundle: &Bundle) -> Result<Option<CheckReport>, SiteError> {
    let path = bundle.root.join(CHECK_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| SiteError::Corrupt {
                path,
                message: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(SiteError::Io {
            action: "cannot read",
            path,
            source: e,
        }),
    }
}

/// Whether `bundle` may be published for `official_address`: its latest
/// check ran and passed, the files are the ones it checked, and they
/// still pass against the address the operation has now.
pub fn ready_to_publish(bundle: &Bundle, official_address: &str) -> Result<CheckReport, SiteError> {
    let build = bundle.build;
    let latest = latest_check(bundle)?.ok_or(SiteError::NotChecked { build })?;
    if !latest.passed {
        return Err(SiteError::CheckFailed {
            build,
            problems: summary(&latest.problems),
        });
    }
    let now = inspect(bundle, official_address)?;
    if now.digest != latest.digest {
        return Err(SiteError::ChangedSinceCheck { build });
    }
    if !now.passed {
        return Err(SiteError::CheckFailed {
            build,
            problems: summary(&now.problems),
        });
    }
    Ok(now)
}

fn summary(problems: &[CheckedProblem]) -> String {
    let shown: Vec<String> = problems.iter().take(3).map(ToString::to_string).collect();
    match problems.len() {
        0..=3 => shown.join("; "),
        more => format!("{}; and {} more", shown.join("; "), more - 3),
    }
}

fn inspect(bundle: &Bundle, official: &str) -> Result<CheckReport, SiteError> {
    let site = bundle.site_dir();
    let files = list(&site)?;
    let present: BTreeSet<&str> = files.iter().map(|(path, _)| path.as_str()).collect();
    let mut report = CheckReport {
        build: bundle.build,
        passed: false,
        problems: Vec::new(),
        pages: 0,
        links: 0,
        addresses_shown: 0,
        official_address: official.to_owned(),
        digest: digest(&files),
    };
    for (path, bytes) in &files {
        if !path.ends_with(".html") {
            continue;
        }
        report.pages += 1;
        let text = String::from_utf8_lossy(bytes);
        let page = match html::parse(&text) {
            Ok(page) => page,
            Err(error) => {
                report.problems.push(CheckedProblem::NotHtml {
                    page: path.clone(),
                    line: error.line,
                    message: error.message,
                });
                continue;
            }
        };
        for link in page.links.iter().filter_map(|l| internal(l)) {
            report.links += 1;
            if !resolve(path, link).is_some_and(|target| present.contains(target.as_str())) {
                report.problems.push(CheckedProblem::BrokenLink {
                    page: path.clone(),
                    link: link.to_owned(),
                });
            }
        }
        report.addresses_shown += page.contracts.len();
        let stray: Vec<String> = EVM_ADDRESS
            .as_ref()
            .map(|re| {
                re.find_iter(&page.text)
                    .map(|m| m.as_str().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        let mut wrong: Vec<String> = page
            .contracts
            .iter()
            .chain(&stray)
            .filter(|shown| !same_address(shown, official))
            .cloned()
            .collect();
        wrong.dedup();
        for shown in wrong {
            report.problems.push(CheckedProblem::WrongAddress {
                page: path.clone(),
                shown,
            });
        }
    }
    if report.addresses_shown == 0 {
        report.problems.push(CheckedProblem::NoAddress);
    }
    report.passed = report.problems.is_empty();
    Ok(report)
}

/// The path part of a link into the bundle; `None` for other sites,
/// other schemes and anchors on the same page.
fn internal(link: &str) -> Option<&str> {
    let link = link.trim();
    let path = link.split(['#', '?']).next().unwrap_or_default();
    let scheme = path
        .find(':')
        .is_some_and(|colon| !path[..colon].contains('/'));
    (!path.is_empty() && !scheme && !link.starts_with("//")).then_some(path)
}

/// The bundle file `link` on `page` reaches (`/` and folders reach their
/// `index.html`); `None` when it leaves the bundle.
fn resolve(page: &str, link: &str) -> Option<String> {
    let base = match link.starts_with('/') {
        true => PathBuf::new(),
        false => Path::new(page)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let mut parts: Vec<String> = base
        .components()
        .filter_map(|c| c.as_os_str().to_str().map(str::to_owned))
        .collect();
    for component in Path::new(link.trim_start_matches('/')).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?.to_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => {}
        }
    }
    if link.ends_with('/') || parts.is_empty() {
        parts.push("index.html".to_owned());
    }
    Some(parts.join("/"))
}

/// Every file under `root`, by path relative to it (`/`-separated), sorted.
fn list(root: &Path) -> Result<Vec<(String, Vec<u8>)>, SiteError> {
    let mut files = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).map_err(SiteError::io("cannot list", &folder))?;
        for entry in entries {
            let path = entry.map_err(SiteError::io("cannot list", &folder))?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let bytes = std::fs::read(&path).map_err(SiteError::io("cannot read", &path))?;
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .components()
                .filter_map(|c| c.as_os_str().to_str())
                .collect::<Vec<_>>()
                .join("/");
            files.push((relative, bytes));
        }
    }
    files.sort();
    Ok(files)
}

fn digest(files: &[(String, Vec<u8>)]) -> String {
    let mut hasher = Sha256::new();
    for (path, bytes) in files {
        hasher.update(path.as_bytes());
        hasher.update([0]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_resolve_inside_the_bundle_only() {
        assert_eq!(internal("https://x.com/a"), None);
        assert_eq!(internal("mailto:a@b.c"), None);
        assert_eq!(internal("#top"), None);
        assert_eq!(internal("//cdn.example/x.js"), None);
        assert_eq!(internal("story.html#lore"), Some("story.html"));
        assert_eq!(
            resolve("index.html", "story.html").as_deref(),
            Some("story.html")
        );
        assert_eq!(
            resolve("a/b.html", "../style.css").as_deref(),
            Some("style.css")
        );
        assert_eq!(resolve("a/b.html", "/").as_deref(), Some("index.html"));
        assert_eq!(resolve("index.html", "../../etc/passwd"), None);
    }
}
