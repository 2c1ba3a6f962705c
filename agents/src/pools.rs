//! Model pools are the GPUs. A pool serves a few requests at once (its
//! slots); callers wait in a queue ordered by priority, then arrival. A run
//! holds a slot only for the duration of one model call.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;
use ulias_core::domain::RoutingRule;
use ulias_core::settings::{ModelSettings, PoolSettings, Tier};

use crate::model::{ModelError, OpenAiClient, SharedModelClient, Timeouts};

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

    /// How many slots are free right now.
    pub fn free(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .free
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
    /// Pools from settings, each with a real client waiting on its server
    /// no longer than `timeouts`.
    pub fn from_settings(models: &ModelSettings, timeouts: Timeouts) -> Result<Self, ModelError> {
        let mut pools = Vec::new();
        for settings in &models.pools {
            let client = OpenAiClient::new(
                settings.base_url.as_str(),
                settings.api_key.as_ref(),
                &settings.model,
                timeouts,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Queues one waiter per priority (in order) behind a held slot, then
    /// returns the order in which they got the slot.
    async fn order_of_service(priorities: &[i64]) -> Vec<(usize, i64)> {
        let slots = Slots::new(1);
        let held = slots.acquire(5).await;
        let served = Arc::new(Mutex::new(Vec::new()));
        let mut waiters = Vec::new();
        for (index, &priority) in priorities.iter().enumerate() {
            let (queue, served) = (Arc::clone(&slots), Arc::clone(&served));
            waiters.push(tokio::spawn(async move {
                let _slot = queue.acquire(priority).await;
                served.lock().unwrap().push((index, priority));
            }));
            // Let it join the queue before the next one arrives.
            while slots.waiting() < index + 1 {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for waiter in waiters {
            waiter.await.unwrap();
        }
        served.lock().unwrap().clone()
    }

    #[tokio::test]
    async fn with_one_slot_a_priority_9_task_queued_after_five_priority_2_tasks_gets_it_next() {
        let order = order_of_service(&[2, 2, 2, 2, 2, 9]).await;
        assert_eq!(order[0], (5, 9));
        // The rest in order of arrival.
        let rest: Vec<usize> = order[1..].iter().map(|(index, _)| *index).collect();
        assert_eq!(rest, [0, 1, 2, 3, 4]);
    }

    #[tokio::test]
    async fn a_cancelled_wait_gives_its_place_and_never_leaks_the_slot() {
        let slots = Slots::new(1);
        let held = slots.acquire(1).await;
        let waiting = {
            let slots = Arc::clone(&slots);
            tokio::spawn(async move { slots.acquire(9).await })
        };
        while slots.waiting() < 1 {
            tokio::task::yield_now().await;
        }
        waiting.abort();
        let _ = waiting.await;
        assert_eq!(slots.waiting(), 0);
        drop(held);
        // The slot is free again: this does not wait.
        let again = tokio::time::timeout(std::time::Duration::from_secs(1), slots.acquire(1)).await;
        assert!(again.is_ok());
    }

    #[test]
    fn routing_rules_override_the_agents_tier() {
        let settings = ulias_core::settings::Settings::default();
        let client: SharedModelClient = Arc::new(crate::model::ReplayClient::new(Vec::new()));
        let pools = Pools::new(
            settings
                .models
                .pools
                .iter()
                .map(|p| ModelPool::new(p.clone(), client.clone()))
                .collect(),
        );
        let rule = RoutingRule {
            agent: "coder".into(),
            task_pattern: "bug_fix_one_file".into(),
            pool: "executor".into(),
        };
        let route = |kind| pools.route(Tier::Thinker, "coder", kind, std::slice::from_ref(&rule));
        assert_eq!(
            route(Some("bug_fix_one_file")).map(|p| p.settings.name.as_str()),
            Some("executor")
        );
        assert_eq!(
            route(Some("refactor")).map(|p| p.settings.name.as_str()),
            Some("thinker")
        );
        assert_eq!(
            route(None).map(|p| p.settings.name.as_str()),
            Some("thinker")
        );
    }
}
