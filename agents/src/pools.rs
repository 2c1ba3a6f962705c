//! Model pools are the GPUs. A pool serves a few requests at once (its
//! slots); callers wait in a queue ordered by priority, then arrival. A run
//! holds a slot only for the duration of one model call.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::oneshot;
use ulias_core::domain::RoutingRule;
use ulias_core::settings::{ModelSettings, PoolSettings, Tier};

use crate::model::{ModelError, OpenAiClient, SharedModelClient};

/// A pool's slots, granted by priority then arrival.
#[derive(Debug)]
pub struct Slots {
    state: Mutex<SlotState>,
}

#[derive(Debug)]
struct SlotState {
    free: usize,
    next_arrival: u64,
    waiting: BinaryHeap<Waiter>,
}

#[derive(Debug)]
struct Waiter {
    priority: i64,
    arrival: u64,
    grant: oneshot::Sender<()>,
}

impl Ord for Waiter {
    /// The greatest waiter is served first: higher priority, then earlier arrival.
    fn cmp(&self, other: &Self) -> Ordering {
        self.priority
            .cmp(&other.priority)
            .then_with(|| other.arrival.cmp(&self.arrival))
    }
}

impl PartialOrd for Waiter {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Waiter {
    fn eq(&self, other: &Self) -> bool {
        self.arrival == other.arrival
    }
}

impl Eq for Waiter {}

/// A held slot; dropping it hands the slot to the next waiter.
#[derive(Debug)]
pub struct SlotGuard {
    slots: Arc<Slots>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.slots.release();
    }
}

impl Slots {
    /// A pool with `count` slots (at least one).
    pub fn new(count: usize) -> Arc<Self> {
        Arc::new(Self {
            state: Mutex::new(SlotState {
                free: count.max(1),
                next_arrival: 0,
                waiting: BinaryHeap::new(),
            }),
        })
    }

    /// Waits for a slot. Higher `priority` is served first; equal
    /// priorities in order of arrival. Cancelling the wait gives up the
    /// place (or the slot, if it was just granted).
    pub async fn acquire(self: &Arc<Self>, priority: i64) -> SlotGuard {
        let (grant, granted) = oneshot::channel();
        let arrival = {
            let mut state = self.lock();
            if state.free > 0 && state.waiting.is_empty() {
                state.free -= 1;
                return SlotGuard {
                    slots: Arc::clone(self),
                };
            }
            let arrival = state.next_arrival;
            state.next_arrival += 1;
            state.waiting.push(Waiter {
                priority,
                arrival,
                grant,
            });
            arrival
        };
        let mut pending = PendingWait {
            slots: Arc::clone(self),
            arrival,
            granted: Some(granted),
        };
        if let Some(receiver) = pending.granted.as_mut() {
            // The sender lives in the queue until it grants us the slot.
            let _ = receiver.await;
        }
        pending.granted = None;
        SlotGuard {
            slots: Arc::clone(self),
        }
    }

    /// How many callers are waiting.
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    fn release(&self) {
        let mut state = self.lock();
        Self::hand_over(&mut state);
    }

    /// Gives a freed slot to the best waiter still listening, else frees it.
    fn hand_over(state: &mut SlotState) {
        while let Some(waiter) = state.waiting.pop() {
            if waiter.grant.send(()).is_ok() {
                return;
            }
        }
        state.free += 1;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A wait that may be cancelled: on drop, it leaves the queue, or returns
/// a slot granted to it that it never took.
struct PendingWait {
    slots: Arc<Slots>,
    arrival: u64,
    granted: Option<oneshot::Receiver<()>>,
}

impl Drop for PendingWait {
    fn drop(&mut self) {
        let Some(mut granted) = self.granted.take() else {
            return;
        };
        let mut state = self.slots.lock();
        if granted.try_recv().is_ok() {
            Slots::hand_over(&mut state);
        } else {
            let arrival = self.arrival;
            state.waiting.retain(|w| w.arrival != arrival);
        }
    }
}

/// One model server: its settings, its client, its slots.
#[derive(Clone)]
pub struct ModelPool {
    pub settings: PoolSettings,
    pub client: SharedModelClient,
    pub slots: Arc<Slots>,
}

impl std::fmt::Debug for ModelPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelPool")
            .field("name", &self.settings.name)
            .field("model", &self.settings.model)
            .finish()
    }
}

impl ModelPool {
    /// A pool served by `client`.
    pub fn new(settings: PoolSettings, client: SharedModelClient) -> Self {
        let slots = Slots::new(settings.slots as usize);
        Self {
            settings,
            client,
            slots,
        }
    }

    /// Whether this is the paid cloud pool.
    pub fn is_cloud(&self) -> bool {
        self.settings.tier == Tier::Cloud
    }
}

/// Every pool, and how work is routed to them.
#[derive(Debug, Clone)]
pub struct Pools {
    pools: Vec<ModelPool>,
}

impl Pools {
    /// Pools from settings, each with a real client.
    pub fn from_settings(models: &ModelSettings, timeout: Duration) -> Result<Self, ModelError> {
        let mut pools = Vec::new();
        for settings in &models.pools {
            let client = OpenAiClient::new(
                settings.base_url.as_str(),
                settings.api_key.as_ref(),
                &settings.model,
                timeout,
            )?;
            pools.push(ModelPool::new(settings.clone(), Arc::new(client)));
        }
        Ok(Self { pools })
    }

    /// Pools built by the caller (tests, simulations).
    pub fn new(pools: Vec<ModelPool>) -> Self {
        Self { pools }
    }

    /// The pool for an agent's call: a routing rule for `(agent, kind)`
    /// first (`*` matches every kind), else the first pool of the agent's
    /// tier, else the first local pool.
    pub fn route(
        &self,
        tier: Tier,
        agent: &str,
        kind: Option<&str>,
        rules: &[RoutingRule],
    ) -> Option<&ModelPool> {
        let ruled = rules
            .iter()
            .filter(|rule| rule.agent == agent)
            .find(|rule| rule.task_pattern == "*" || Some(rule.task_pattern.as_str()) == kind)
            .and_then(|rule| self.by_name(&rule.pool));
        ruled
            .or_else(|| self.pools.iter().find(|pool| pool.settings.tier == tier))
            .or_else(|| self.pools.iter().find(|pool| !pool.is_cloud()))
    }

    /// The pool called `name`.
    pub fn by_name(&self, name: &str) -> Option<&ModelPool> {
        self.pools.iter().find(|pool| pool.settings.name == name)
    }

    /// The cloud fallback, if configured.
    pub fn cloud(&self) -> Option<&ModelPool> {
        self.pools.iter().find(|pool| pool.is_cloud())
    }

    /// Every pool.
    pub fn all(&self) -> &[ModelPool] {
        &self.pools
    }
}
