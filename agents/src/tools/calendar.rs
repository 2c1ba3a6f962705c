//! `calendar`: the CEO's next events, for the Anticipator, from the
//! iCalendar (.ics) address or file of `[ceo] calendar_url`. Without one,
//! the tool says it is not configured. The download is bounded in time and
//! size; summaries and places come back wrapped as untrusted.

use std::time::Duration;

use async_trait::async_trait;
use chrono::TimeDelta;
use schemars::JsonSchema;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::ics;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// The largest calendar read.
const MAX_BYTES: usize = 2 * 1024 * 1024;
/// How long the download may take.
const FETCH_TIME: Duration = Duration::from_secs(10);
/// The most events returned.
const MAX_EVENTS: usize = 100;

/// Reads the CEO's calendar.
pub struct Calendar(pub Option<SecretString>);

/// Arguments of `calendar`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarArgs {
    /// The next this many days, 1–31 (default 7).
    #[serde(default = "default_days")]
    pub days: u32,
}

fn default_days() -> u32 {
    7
}

/// The events that overlap the window, by start.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Agenda {
    pub events: Vec<AgendaEvent>,
    /// Events in the file whose dates could not be read.
    pub unreadable: usize,
}

/// One event.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AgendaEvent {
    /// Untrusted.
    pub summary: String,
    /// Untrusted.
    pub location: Option<String>,
    /// RFC 3339 UTC.
    pub start: String,
    pub end: String,
    pub all_day: bool,
    /// A recurring event, shown at its first date only.
    pub recurring: bool,
}

#[async_trait]
impl TypedTool for Calendar {
    const NAME: &'static str = "calendar";
    const DESCRIPTION: &'static str = "Read the CEO's calendar: the events of the next days.";
    const EFFECT: Effect = Effect::Read;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["anticipator"]);
    type Args = CalendarArgs;
    type Output = Agenda;

    async fn call(&self, ctx: &ToolContext, args: CalendarArgs) -> Result<Agenda, ToolError> {
        let Some(source) = &self.0 else {
            return Err(ToolError::Failed(
                "the CEO's calendar is not configured (`[ceo] calendar_url` in the settings): \
                 work without it"
                    .into(),
            ));
        };
        let text = read(source.expose_secret()).await?;
        let (events, unreadable) = ics::parse(&text);
        let from = ctx.clock.now();
        let to = from + TimeDelta::days(i64::from(args.days.clamp(1, 31)));
        let mut events: Vec<ics::Event> = events
            .into_iter()
            .filter(|e| e.start < to && (e.end > from || e.start >= from))
            .collect();
        events.sort_by_key(|e| e.start);
        events.truncate(MAX_EVENTS);
        Ok(Agenda {
            events: events
                .into_iter()
                .map(|e| AgendaEvent {
                    summary: wrap_untrusted("calendar", &e.summary),
                    location: e.location.map(|l| wrap_untrusted("calendar", &l)),
                    start: e.start.to_rfc3339(),
                    end: e.end.to_rfc3339(),
                    all_day: e.all_day,
                    recurring: e.recurring,
                })
                .collect(),
            unreadable,
        })
    }
}

/// The calendar's text, from an http(s) address or a file.
async fn read(source: &str) -> Result<String, ToolError> {
    let bytes = if source.starts_with("http://") || source.starts_with("https://") {
        fetch(source).await?
    } else {
        let path = match reqwest::Url::parse(source) {
            Ok(url) if url.scheme() == "file" => url
                .to_file_path()
                .map_err(|()| ToolError::Failed("the calendar's file address is invalid".into()))?,
            _ => std::path::PathBuf::from(source),
        };
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot read the calendar file: {e}")))?;
        if bytes.len() > MAX_BYTES {
            return Err(too_large());
        }
        bytes
    };
    String::from_utf8(bytes).map_err(|_| ToolError::Failed("the calendar is not UTF-8 text".into()))
}

/// Downloads at most [`MAX_BYTES`]; the address itself is never shown
/// (private calendar addresses carry a key).
async fn fetch(address: &str) -> Result<Vec<u8>, ToolError> {
    let failed = |what: &str| ToolError::Failed(format!("the calendar could not be read: {what}"));
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(FETCH_TIME)
        .build()
        .map_err(|_| failed("no HTTP client"))?;
    let mut response = client.get(address).send().await.map_err(|e| {
        failed(if e.is_timeout() {
            "timed out"
        } else {
            "unreachable"
        })
    })?;
    if !response.status().is_success() {
        return Err(failed(&format!("HTTP {}", response.status().as_u16())));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|_| failed("the download broke off"))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_BYTES {
            return Err(too_large());
        }
    }
    Ok(body)
}

fn too_large() -> ToolError {
    ToolError::Failed(format!(
        "the calendar is larger than {} MiB",
        MAX_BYTES / 1024 / 1024
    ))
}
