//! The team's answers to validations, and the CEO's to decisions, applied
//! to the tasks waiting on them. The store makes each answer count once
//! (a second approval is refused), so these run at most once per answer.

use serde_json::Value;
use ulias_core::domain::{
    LessonCategory, NewLesson, PublicationId, Task, TaskStatus, ValidationId, ValidationStatus,
};
use ulias_core::store::StoreError;

use super::Engine;

impl Engine {
    /// Approves a validation: its publication is queued (once, however
    /// often this is called), and its step completes when nothing else of
    /// it waits for the team.
    pub async fn approve(&self, id: ValidationId, by: &str) -> Result<PublicationId, StoreError> {
        let store = &self.runner.store;
        let publication = store
            .approve_validation(id, by, self.runner.clock.now())
            .await?;
        let validation = store.validation(id).await?;
        if let Some(task_id) = validation.task_id {
            let task = store.task(task_id).await?;
            let waiting = store
                .validations_of_task(task_id)
                .await?
                .iter()
                .any(|v| v.status == ValidationStatus::Pending);
            if task.status == TaskStatus::Blocked && !waiting {
                let task = store
                    .unblock_task(
                        task_id,
                        TaskStatus::Completed,
                        None,
                        self.runner.clock.now(),
                    )
                    .await?;
                self.after_finish(&task).await?;
            }
        }
        Ok(publication)
    }

    /// Rejects a validation with the team's reason: a gate's rejection
    /// stops its operation; any other step runs again with the reason in
    /// its input (`rejection_reason`), and the reason becomes a lesson for
    /// its agent.
    pub async fn reject(&self, id: ValidationId, by: &str, reason: &str) -> Result<(), StoreError> {
        let store = &self.runner.store;
        let now = self.runner.clock.now();
        let validation = store.reject_validation(id, by, reason, now).await?;
        let Some(task_id) = validation.task_id else {
            return Ok(());
        };
        let task = store.task(task_id).await?;
        if task.status != TaskStatus::Blocked {
            return Ok(());
        }
        if task.gate {
            let task = store
                .unblock_task(task_id, TaskStatus::Completed, None, now)
                .await?;
            return self
                .stop_for_no_go(&task, &format!("rejected by {by}: {reason}"))
                .await;
        }
        let mut input = task.input.clone();
        if let Value::Object(fields) = &mut input {
            fields.insert(
                "rejection_reason".to_owned(),
                Value::String(reason.to_owned()),
            );
        }
        store
            .unblock_task(task_id, TaskStatus::Queued, Some(&input), now)
            .await?;
        self.learn_from_rejection(&task, reason).await
    }

    async fn learn_from_rejection(&self, task: &Task, reason: &str) -> Result<(), StoreError> {
        let lesson = NewLesson {
            objective_id: task.objective_id,
            task_id: Some(task.id),
            agent: Some(task.agent.to_string()),
            team: Some(task.team.to_string()),
            category: LessonCategory::Pitfall,
            lesson: format!("The team rejected \"{}\": {reason}", task.title),
            services: Vec::new(),
            embedding: None,
            importance: 0.7,
        };
        self.runner
            .store
            .insert_lesson(&lesson, self.runner.clock.now())
            .await?;
        Ok(())
    }
}
