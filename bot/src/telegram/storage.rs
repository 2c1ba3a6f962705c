//! teloxide's dialogue [`Storage`] on our own store (the `dialogues` table),
//! so a dialogue survives a restart and needs no second database driver.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use teloxide::dispatching::dialogue::Storage;
use teloxide::types::ChatId;
use ulias_core::clock::SharedClock;
use ulias_core::store::{Store, StoreError};

/// Why a dialogue could not be kept.
#[derive(Debug, thiserror::Error)]
pub enum DialogueError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a stored dialogue state is unreadable: {0}")]
    Corrupt(#[from] serde_json::Error),
    #[error("no dialogue for chat {0}")]
    Missing(i64),
}

/// Dialogues in the store, as JSON.
pub struct StoreStorage<D> {
    store: Store,
    clock: SharedClock,
    state: PhantomData<fn() -> D>,
}

impl<D> StoreStorage<D> {
    pub fn new(store: Store, clock: SharedClock) -> Arc<Self> {
        Arc::new(Self {
            store,
            clock,
            state: PhantomData,
        })
    }
}

type Boxed<T> = Pin<Box<dyn Future<Output = Result<T, DialogueError>> + Send>>;

impl<D> Storage<D> for StoreStorage<D>
where
    D: Serialize + DeserializeOwned + Send + 'static,
{
    type Error = DialogueError;

    fn remove_dialogue(self: Arc<Self>, chat_id: ChatId) -> Boxed<()>
    where
        D: Send + 'static,
    {
        Box::pin(async move {
            match self.store.remove_dialogue(chat_id.0).await? {
                true => Ok(()),
                false => Err(DialogueError::Missing(chat_id.0)),
            }
        })
    }

    fn update_dialogue(self: Arc<Self>, chat_id: ChatId, dialogue: D) -> Boxed<()>
    where
        D: Send + 'static,
    {
        Box::pin(async move {
            let state = serde_json::to_value(&dialogue)?;
            self.store
                .set_dialogue(chat_id.0, &state, self.clock.now())
                .await?;
            Ok(())
        })
    }

    fn get_dialogue(self: Arc<Self>, chat_id: ChatId) -> Boxed<Option<D>> {
        Box::pin(async move {
            match self.store.dialogue(chat_id.0).await? {
                Some(state) => Ok(Some(serde_json::from_value(state)?)),
                None => Ok(None),
            }
        })
    }
}
