//! `memory_store` and `memory_search`: lessons in the store, embedded by the
//! model client, retrieved by cosine similarity (top k).

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ulias_core::domain::{LessonCategory, NewLesson};

use super::{Effect, ToolContext, ToolError, TypedTool};

/// Keeps a lesson.
pub struct MemoryStore;

/// Arguments of `memory_store`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreArgs {
    /// The lesson, one or two sentences.
    pub lesson: String,
    /// bug, pattern, convention, pitfall or optimization.
    pub category: String,
    /// Services concerned.
    #[serde(default)]
    pub services: Vec<String>,
}

/// The stored lesson's id.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Stored {
    pub lesson_id: i64,
}

#[async_trait]
impl TypedTool for MemoryStore {
    const NAME: &'static str = "memory_store";
    const DESCRIPTION: &'static str = "Keep a lesson for the whole organisation.";
    const EFFECT: Effect = Effect::Write;
    type Args = StoreArgs;
    type Output = Stored;

    async fn call(&self, ctx: &ToolContext, args: StoreArgs) -> Result<Stored, ToolError> {
        let category: LessonCategory =
            args.category
                .parse()
                .map_err(
                    |e: ulias_core::domain::UnknownVariant| ToolError::InvalidArgs {
                        tool: Self::NAME,
                        message: e.to_string(),
                    },
                )?;
        let embedding = embed_one(ctx, &args.lesson).await?;
        let lesson = NewLesson {
            objective_id: ctx.task.objective_id,
            task_id: Some(ctx.task.id),
            agent: Some(ctx.agent.clone()),
            team: Some(ctx.task.team.to_string()),
            category,
            lesson: args.lesson,
            services: args.services,
            embedding: Some(embedding),
            importance: 0.5,
        };
        let lesson_id = ctx.store.insert_lesson(&lesson, ctx.clock.now()).await?;
        Ok(Stored { lesson_id })
    }
}

/// Finds the lessons closest to a query.
pub struct MemorySearch;

/// Arguments of `memory_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    pub query: String,
    /// How many lessons, 1–10 (default 3).
    #[serde(default = "default_k")]
    pub k: usize,
}

fn default_k() -> usize {
    3
}

/// The closest lessons, best first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Found {
    pub results: Vec<FoundLesson>,
}

/// One lesson found.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FoundLesson {
    pub lesson: String,
    pub category: String,
    pub score: f32,
}

#[async_trait]
impl TypedTool for MemorySearch {
    const NAME: &'static str = "memory_search";
    const DESCRIPTION: &'static str = "Find the organisation's lessons closest to a query.";
    const EFFECT: Effect = Effect::Read;
    type Args = SearchArgs;
    type Output = Found;

    async fn call(&self, ctx: &ToolContext, args: SearchArgs) -> Result<Found, ToolError> {
        let k = args.k.clamp(1, 10);
        let query = embed_one(ctx, &args.query).await?;
        let mut scored: Vec<FoundLesson> = ctx
            .store
            .lessons()
            .await?
            .into_iter()
            .filter_map(|stored| {
                let embedding = stored.lesson.embedding.as_deref()?;
                let score = cosine_similarity(&query, embedding)?;
                Some(FoundLesson {
                    lesson: stored.lesson.lesson,
                    category: stored.lesson.category.to_string(),
                    score,
                })
            })
            .collect();
        scored.sort_by(|a, b| b.score.total_cmp(&a.score));
        scored.truncate(k);
        Ok(Found { results: scored })
    }
}

async fn embed_one(ctx: &ToolContext, text: &str) -> Result<Vec<f32>, ToolError> {
    let mut vectors = ctx
        .embedder
        .embed(&[text.to_owned()])
        .await
        .map_err(|e| ToolError::Failed(format!("embedding failed: {e}")))?;
    vectors
        .pop()
        .ok_or_else(|| ToolError::Failed("the embedding server returned no vector".into()))
}

/// Cosine similarity of two vectors of the same length; `None` when the
/// lengths differ (embeddings of another model) or a vector is zero.
pub fn cosine_similarity(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let norm = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
    let denominator = norm(a) * norm(b);
    (denominator > 0.0).then(|| dot / denominator)
}

#[cfg(test)]
mod tests {
    use super::cosine_similarity;

    #[test]
    fn cosine_ranks_the_same_direction_first_and_refuses_other_models() {
        assert_eq!(cosine_similarity(&[1.0, 0.0], &[2.0, 0.0]), Some(1.0));
        assert_eq!(cosine_similarity(&[1.0, 0.0], &[0.0, 1.0]), Some(0.0));
        assert_eq!(cosine_similarity(&[1.0], &[1.0, 0.0]), None);
        assert_eq!(cosine_similarity(&[0.0, 0.0], &[1.0, 0.0]), None);
    }
}
