//! Lessons the organisation keeps, with their embeddings (little-endian
//! f32s; similarity is computed by the caller).

use chrono::{DateTime, Utc};
use sqlx::types::Json;

use super::time::{from_ms, parse_text, stored, to_ms};
use super::{Store, StoreError, with_pool};
use crate::domain::{Lesson, NewLesson, ObjectiveId, TaskId};

#[derive(sqlx::FromRow)]
struct LessonRow {
    id: i64,
    objective_id: Option<i64>,
    task_id: Option<i64>,
    agent: Option<String>,
    team: Option<String>,
    category: String,
    lesson: String,
    services: Json<Vec<String>>,
    embedding: Option<Vec<u8>>,
    importance: f64,
    created_at: i64,
}

impl Store {
    /// Keeps a lesson.
    pub async fn insert_lesson(
        &self,
        lesson: &NewLesson,
        now: DateTime<Utc>,
    ) -> Result<i64, StoreError> {
        let embedding = lesson.embedding.as_deref().map(encode_embedding);
        let dims = lesson.embedding.as_ref().map(|e| stored(e.len()));
        let id = with_pool!(self, |pool| {
            sqlx::query_scalar(
                "INSERT INTO lessons (objective_id, task_id, agent, team, category, lesson, \
                 services, embedding, embedding_dims, importance, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
            )
            .bind(lesson.objective_id.map(ObjectiveId::get))
            .bind(lesson.task_id.map(TaskId::get))
            .bind(lesson.agent.as_deref())
            .bind(lesson.team.as_deref())
            .bind(lesson.category.as_str())
            .bind(lesson.lesson.as_str())
            .bind(Json(&lesson.services))
            .bind(embedding.as_deref())
            .bind(dims)
            .bind(lesson.importance)
            .bind(to_ms(now))
            .fetch_one(pool)
            .await
        })?;
        Ok(id)
    }

    /// Every lesson, oldest first (the organisation keeps at most ~100k).
    pub async fn lessons(&self) -> Result<Vec<Lesson>, StoreError> {
        let rows: Vec<LessonRow> = with_pool!(self, |pool| {
            sqlx::query_as(
                "SELECT id, objective_id, task_id, agent, team, category, lesson, services, \
                 embedding, importance, created_at FROM lessons ORDER BY id",
            )
            .fetch_all(pool)
            .await
        })?;
        rows.into_iter()
            .map(|row| {
                Ok(Lesson {
                    id: row.id,
                    lesson: NewLesson {
                        objective_id: row.objective_id.map(ObjectiveId::new),
                        task_id: row.task_id.map(TaskId::new),
                        agent: row.agent,
                        team: row.team,
                        category: parse_text("lesson category", &row.category)?,
                        lesson: row.lesson,
                        services: row.services.0,
                        embedding: row.embedding.as_deref().map(decode_embedding).transpose()?,
                        importance: row.importance,
                    },
                    created_at: from_ms(row.created_at)?,
                })
            })
            .collect()
    }
}

fn encode_embedding(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn decode_embedding(bytes: &[u8]) -> Result<Vec<f32>, StoreError> {
    if !bytes.len().is_multiple_of(4) {
        return Err(StoreError::corrupt(
            "lesson embedding",
            "length is not a multiple of 4",
        ));
    }
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}
