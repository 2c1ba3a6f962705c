//! A client that answers from a recorded script: `ulias replay` and
//! simulations run agents against answers a real model gave before.

use std::sync::Mutex;
use std::sync::PoisonError;

use async_trait::async_trait;

use super::{ChatRequest, ChatResponse, ModelClient, ModelError};

/// Answers each chat call with the next recorded response; errors when
/// the recording runs out. Embeddings are not recorded: it refuses them.
#[derive(Debug)]
pub struct ReplayClient {
    answers: Mutex<(usize, Vec<ChatResponse>)>,
}

impl ReplayClient {
    /// A client that will give `answers`, in order.
    pub fn new(answers: Vec<ChatResponse>) -> Self {
        Self {
            answers: Mutex::new((0, answers)),
        }
    }

    /// How many answers were given.
    pub fn used(&self) -> usize {
        self.answers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }
}

#[async_trait]
impl ModelClient for ReplayClient {
    async fn chat(&self, _request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let mut guard = self.answers.lock().unwrap_or_else(PoisonError::into_inner);
        let (next, answers) = &mut *guard;
        let answer = answers
            .get(*next)
            .cloned()
            .ok_or(ModelError::Exhausted(*next))?;
        *next += 1;
        Ok(answer)
    }

    async fn embed(&self, _texts: &[String]) -> Result<Vec<Vec<f32>>, ModelError> {
        Err(ModelError::Malformed(
            "a replay has no recorded embeddings".to_owned(),
        ))
    }
}
