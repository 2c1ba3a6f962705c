//! `ai_job`: a Whisper transcription or a YOLO detection on the GPU job
//! server (`[research].ai_jobs_url`), waited for and returned.
//!
//! The job API is ours:
//! - `POST /jobs` with `{"kind": "transcribe" | "detect", "input": {"url":
//!   "https://…"} | {"file": "media/x.mp3"}, "options": {"language": "fr"}}`
//!   answers 200, 201 or 202 with `{"id": "…"}` (a `file` is a path on the
//!   job server, relative to its media folder);
//! - `GET /jobs/{id}` answers `{"id", "status": "queued" | "running" |
//!   "done" | "failed", "result": {…} (done), "error": "…" (failed)}`.
//!
//! A transcription's result is `{"text", "language", "segments"}`; a
//! detection's `{"objects": [{"label", "confidence", "box"}]}`. The job is
//! looked at every `ai_job_poll_seconds` until `ai_job_timeout_seconds`.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::http_api::{Service, checked_name};
use super::infra::Research;
use super::research::checked_relative;
use super::workspace::cap;
use super::{AgentsAllowed, Effect, ToolContext, ToolError, TypedTool};
use crate::untrusted::wrap_untrusted;

/// Submits a GPU job and waits for its result.
pub struct AiJob(pub Research);

/// What the job does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// Speech to text (Whisper), from audio or video.
    Transcribe,
    /// Objects in an image (YOLO).
    Detect,
}

/// Arguments of `ai_job`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct JobArgs {
    /// `transcribe` (audio) or `detect` (image).
    pub kind: JobKind,
    /// The media's `http(s)://` address; give this or `file`.
    #[serde(default)]
    pub url: Option<String>,
    /// A file the job server holds, relative to its media folder
    /// (`inbox/call.mp3`); give this or `url`.
    #[serde(default)]
    pub file: Option<String>,
    /// `transcribe`: the spoken language (`fr`, `en`); default: detected.
    #[serde(default)]
    pub language: Option<String>,
}

/// A finished job.
#[derive(Debug, Serialize, JsonSchema)]
pub struct JobDone {
    pub id: String,
    pub kind: JobKind,
    /// The job server's result as JSON text, wrapped as untrusted.
    pub result: String,
    /// Whether the result was cut to the size limit.
    pub truncated: bool,
}

#[derive(Debug, Deserialize)]
struct Submitted {
    id: String,
}

#[derive(Debug, Deserialize)]
struct JobState {
    status: String,
    #[serde(default)]
    result: Value,
    #[serde(default)]
    error: Option<String>,
}

impl JobArgs {
    /// The body of `POST /jobs`.
    fn body(&self) -> Result<Value, ToolError> {
        let input = match (&self.url, &self.file) {
            (Some(url), None) => {
                let parsed =
                    reqwest::Url::parse(url).map_err(|e| invalid(format!("`url`: {e}")))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(invalid("`url` must be an http(s) address".into()));
                }
                json!({"url": url})
            }
            (None, Some(file)) => json!({"file": checked_relative(file)?}),
            _ => return Err(invalid("give exactly one of `url` and `file`".into())),
        };
        let mut options = json!({});
        if let Some(language) = &self.language {
            options["language"] = json!(checked_name("language", language)?);
        }
        Ok(json!({"kind": self.kind, "input": input, "options": options}))
    }
}

#[async_trait]
impl TypedTool for AiJob {
    const NAME: &'static str = "ai_job";
    const DESCRIPTION: &'static str = "Run a GPU job and wait for its result: transcribe audio \
         (Whisper) or detect objects in an image (YOLO).";
    const EFFECT: Effect = Effect::Write;
    const AGENTS: AgentsAllowed = AgentsAllowed::Only(&["transcriber", "vision"]);
    type Args = JobArgs;
    type Output = JobDone;

    async fn call(&self, _ctx: &ToolContext, args: JobArgs) -> Result<JobDone, ToolError> {
        let jobs = self.0.jobs()?;
        let (poll, job_timeout) = self.0.job_pace();
        let body =
            serde_json::to_vec(&args.body()?).map_err(|e| ToolError::Failed(e.to_string()))?;
        let submit = jobs
            .request(Method::POST, jobs.url("jobs", &[])?)
            .header(CONTENT_TYPE, "application/json")
            .body(body);
        let submitted: Submitted = jobs.json(submit).await?;
        let id = checked_name("job id", &submitted.id)?.to_owned();
        let result = tokio::time::timeout(job_timeout, wait(jobs, &id, poll))
            .await
            .map_err(|_| {
                ToolError::Failed(format!(
                    "job {id} was not done after {} s: report it as not finished",
                    job_timeout.as_secs()
                ))
            })??;
        let text = result.to_string();
        let (shown, truncated) = cap(&text, self.0.max_output());
        Ok(JobDone {
            id,
            kind: args.kind,
            result: wrap_untrusted("ai_job", shown),
            truncated,
        })
    }
}

/// Looks at job `id` until it is done (its result) or failed (an error).
async fn wait(jobs: &Service, id: &str, poll: Duration) -> Result<Value, ToolError> {
    loop {
        let url = jobs.url(&format!("jobs/{id}"), &[])?;
        let state: JobState = jobs.json(jobs.request(Method::GET, url)).await?;
        match state.status.as_str() {
            "done" => return Ok(state.result),
            "failed" => {
                let error = state.error.unwrap_or_default();
                return Err(ToolError::Failed(format!(
                    "job {id} failed: {}",
                    wrap_untrusted("ai_job", cap(&error, 500).0)
                )));
            }
            "queued" | "running" => tokio::time::sleep(poll).await,
            other => {
                return Err(ToolError::Failed(format!(
                    "job {id} has an unknown status {:?}",
                    cap(other, 40).0
                )));
            }
        }
    }
}

fn invalid(message: String) -> ToolError {
    ToolError::InvalidArgs {
        tool: AiJob::NAME,
        message,
    }
}
