//! Two of the research tools: `web_search` through SearXNG's JSON API and
//! `connector_fetch`, a GET on the connectors API. What they return comes from outside: it is
//! cut to the size limit and wrapped as untrusted.

use async_trait::async_trait;
use reqwest::Method;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::infra::Research;
use super::workspace::cap;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The longest snippet `web_search` shows per result, in bytes.
const MAX_SNIPPET: usize = 400;

/// Searches the web.
pub struct WebSearch(pub Research);

/// How recent results must be.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeRange {
    Day,
    Week,
    Month,
    Year,
}

/// Arguments of `web_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to search for.
    pub query: String,
    /// How many results (1–10, default 5).
    #[serde(default)]
    pub count: Option<u32>,
    /// Only results from the last day, week, month or year.
    #[serde(default)]
    pub time_range: Option<TimeRange>,
}

/// The results found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResults {
    /// How many results are shown.
    pub count: u32,
    /// Numbered results, each `title`, `url` and `snippet` on its own
    /// line, wrapped as untrusted text.
    pub results: String,
}

#[derive(Debug, Deserialize)]
struct SearxAnswer {
    #[serde(default)]
    results: Vec<SearxResult>,
}

#[derive(Debug, Deserialize)]
struct SearxResult {
    #[serde(default)]
    title: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    content: String,
}

#[async_trait]
impl TypedTool for WebSearch {
    const NAME: &'static str = "web_search";
    const DESCRIPTION: &'static str =
        "Search the web: the top results' titles, addresses and snippets.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["patcher"]);
    type Args = SearchArgs;
    type Output = SearchResults;

    async fn call(&self, _ctx: &ToolContext, args: SearchArgs) -> Result<SearchResults, ToolError> {
        let searxng = self.0.searxng()?;
        if args.query.trim().is_empty() {
            return Err(ToolError::InvalidArgs {
                tool: Self::NAME,
                message: "the query is empty".into(),
            });
        }
        let mut query = vec![("q", args.query.clone()), ("format", "json".to_owned())];
        if let Some(range) = args.time_range {
            let range = match range {
                TimeRange::Day => "day",
                TimeRange::Week => "week",
                TimeRange::Month => "month",
                TimeRange::Year => "year",
            };
            query.push(("time_range", range.to_owned()));
        }
        let url = searxng.url("search", &query)?;
        let answer: SearxAnswer = searxng.json(searxng.request(Method::GET, url)).await?;
        let count = args.count.unwrap_or(5).clamp(1, 10) as usize;
        let mut text = String::new();
        let mut shown = 0u32;
        for (i, result) in answer.results.iter().take(count).enumerate() {
            let snippet = cap(result.content.trim(), MAX_SNIPPET).0;
            let entry = format!(
                "{}. {}\n   {}\n   {snippet}\n",
                i + 1,
                result.title.trim(),
                result.url
            );
            if text.len() + entry.len() > self.0.max_output() {
                break;
            }
            text.push_str(&entry);
            shown += 1;
        }
        Ok(SearchResults {
            count: shown,
            results: wrap_untrusted("web_search", &text),
        })
    }
}

/// Reads from the connectors API.
pub struct ConnectorFetch(pub Research);

/// Arguments of `connector_fetch`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FetchArgs {
    /// A path under the connectors API, with its query if any:
    /// `calendar/events?day=today`. Not an address, no leading `/`, no `..`.
    pub path: String,
}

/// What the connectors API answered.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Fetched {
    pub status: u16,
    pub content_type: String,
    /// The body (JSON or text), wrapped as untrusted text.
    pub body: String,
    /// Whether the body was cut to the size limit.
    pub truncated: bool,
}

#[async_trait]
impl TypedTool for ConnectorFetch {
    const NAME: &'static str = "connector_fetch";
    const DESCRIPTION: &'static str =
        "Read from a connected service through the connectors API (GET on a relative path).";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["organizer", "transcriber", "vision"]);
    type Args = FetchArgs;
    type Output = Fetched;

    async fn call(&self, _ctx: &ToolContext, args: FetchArgs) -> Result<Fetched, ToolError> {
        let connectors = self.0.connectors()?;
        let path = checked_relative(&args.path)?;
        let url = connectors.url(path, &[])?;
        if !connectors.contains(&url) {
            return Err(outside(&args.path));
        }
        let answer = connectors
            .send_ok(connectors.request(Method::GET, url))
            .await?;
        let (body, truncated) = answer.text(self.0.max_output());
        Ok(Fetched {
            status: answer.status,
            content_type: answer.content_type,
            body: wrap_untrusted("connector", &body),
            truncated,
        })
    }
}

/// `path` when it is a relative path: no scheme, host, leading `/`, `\`
/// or `..` (plain or percent-encoded).
pub fn checked_relative(path: &str) -> Result<&str, ToolError> {
    let route = path.split(['?', '#']).next().unwrap_or_default();
    let lowered = route.to_ascii_lowercase();
    let refused = path.trim().is_empty()
        || path.starts_with('/')
        || path.contains('\\')
        || route.contains(':')
        || lowered.contains("%2e")
        || lowered.contains("%2f")
        || route
            .split('/')
            .any(|segment| segment == ".." || segment == ".");
    if refused {
        Err(outside(path))
    } else {
        Ok(path)
    }
}

fn outside(path: &str) -> ToolError {
    ToolError::Forbidden(format!(
        "{path:?} is refused: give a path relative to the configured API \
         (`calendar/events?day=today`), without a host, a leading `/` or `..`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_relative_paths_are_accepted() {
        for good in [
            "calendar/events?day=today",
            "mail/inbox",
            "a/b?next=http://x",
        ] {
            assert!(checked_relative(good).is_ok(), "{good}");
        }
        for bad in [
            "https://evil.example/x",
            "//evil.example/x",
            "/etc/passwd",
            "../admin",
            "a/../../b",
            "a/%2e%2e/b",
            "mailto:x",
            "a\\b",
            "",
        ] {
            assert!(checked_relative(bad).is_err(), "{bad}");
        }
    }
}
