//! What the CEO-intelligence team reads: the profile entries relevant to a
//! message (for the Interpreter), the objective a message continues (its
//! title, result and tasks), and the Profiler's runs, queued every few
//! messages with the recent history and the profile as it stands.

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use ulias_core::domain::{NewTask, ObjectiveId, Priority, ProfileKind};
use ulias_core::store::{Store, StoreError};

use crate::answer::Answer;
use crate::spec::Catalogue;

/// The agent that keeps the CEO's profile.
pub const PROFILER: &str = "profiler";
/// The most profile entries the Interpreter receives.
const MAX_ENTRIES: usize = 20;
/// Entries other than vocabulary reach the Interpreter from this confidence.
const GENERAL_ENTRY_FLOOR: f64 = 0.5;
/// How many recent messages the Profiler reads.
const PROFILER_HISTORY: i64 = 30;

/// The profile entries that matter for `message`: every word of theirs the
/// message uses, and their general preferences and style held with some
/// confidence; most confident first.
pub async fn profile_context(store: &Store, message: &str) -> Result<Value, StoreError> {
    let lower = message.to_lowercase();
    let mut entries: Vec<_> = store
        .profile_entries()
        .await?
        .into_iter()
        .filter(|e| match e.kind {
            ProfileKind::Vocabulary => lower.contains(&e.key),
            _ => e.confidence >= GENERAL_ENTRY_FLOOR,
        })
        .collect();
    entries.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    Ok(entries
        .iter()
        .take(MAX_ENTRIES)
        .map(|e| {
            json!({"kind": e.kind, "key": e.key, "value": e.value,
                   "confidence": (e.confidence * 100.0).round() / 100.0})
        })
        .collect())
}

/// An objective as a message that continues it needs it: title, status,
/// result (its answer's lines), error, and its tasks with their results.
pub async fn continuation_context(store: &Store, id: ObjectiveId) -> Result<Value, StoreError> {
    let objective = store.objective(id).await?;
    let answer = Answer::from_result(objective.result.as_ref()).unwrap_or_default();
    let tasks: Vec<_> = store
        .tasks_of_objective(id)
        .await?
        .into_iter()
        .map(
            |t| json!({"agent": t.agent, "title": t.title, "status": t.status, "result": t.result}),
        )
        .collect();
    Ok(
        json!({"objective": id, "title": objective.title, "description": objective.description,
              "status": objective.status, "result": answer.lines, "follow_up": answer.follow_up,
              "error": objective.error, "tasks": tasks}),
    )
}

/// Queues a Profiler run on the recent messages (their corrections
/// included) and the profile as it stands. Returns whether one was queued
/// (none when the Profiler has no file).
pub async fn queue_profiler(
    store: &Store,
    catalogue: &Catalogue,
    now: DateTime<Utc>,
) -> Result<bool, StoreError> {
    let Some(spec) = catalogue.get(PROFILER) else {
        return Ok(false);
    };
    let history: Vec<_> = store
        .recent_interactions(PROFILER_HISTORY)
        .await?
        .into_iter()
        .map(|i| {
            json!({"message": i.raw_message, "understood_as": i.interpreted_as,
                   "corrected": i.corrected, "feedback": i.feedback, "at": i.created_at})
        })
        .collect();
    let profile: Vec<_> = store
        .profile_entries()
        .await?
        .into_iter()
        .map(|e| json!({"profile_type": e.kind, "key": e.key, "value": e.value, "confidence": e.confidence}))
        .collect();
    let mut task = NewTask::new(
        spec.name.clone(),
        spec.team,
        "Update the CEO profile from the recent messages",
        now,
    );
    task.kind = Some("profile".to_owned());
    task.priority = Priority::new(4).unwrap_or_default();
    task.max_attempts = 2;
    task.input = json!({"interactions": history, "profile": profile});
    store.create_task(&task, now).await?;
    Ok(true)
}
