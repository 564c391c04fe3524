//! The pool of reader slots: how many files are read in worker processes at once (one a core by
//! default), and who gets the next slot, fairly.
//!
//! - A person waiting (a synchronous upload, a search input) goes before the background workers;
//!   among those waiting, the company holding the fewest slots goes first, then the earliest.
//! - No company holds more than half the slots while another company waits: when a company that
//!   holds none asks (a synchronous upload, or a job of its company queued for the workers) and
//!   every slot is taken, the newest read of a company over its share is **preempted**: its worker is
//!   killed and the read starts again later (a background job goes back to the queue, in its place).
//!   A search input waiting preempts the newest read that is not one (a database load) in the same
//!   way.
//!
//! A slot is held by a [`ReaderSlot`] and given back when it is dropped.

use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// Who asks for a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asker {
    /// A request a person waits for: its company, and whether it is a search input.
    Person {
        /// The company.
        company: String,
        /// A search input (goes before everything else).
        search_input: bool,
    },
    /// A background worker; its company is known once it has claimed a job.
    Worker,
}

/// The shared pool.
#[derive(Clone)]
pub struct ReaderPool {
    inner: Arc<Inner>,
}

struct Inner {
    capacity: usize,
    state: Mutex<PoolState>,
}

#[derive(Default)]
struct PoolState {
    next_id: u64,
    holders: Vec<Holder>,
    waiting: Vec<Waiter>,
}

struct Holder {
    id: u64,
    company: Option<String>,
    search_input: bool,
    preempt: CancellationToken,
}

struct Waiter {
    id: u64,
    asker: Asker,
    grant: oneshot::Sender<()>,
}

/// A slot held: reads go on until it is dropped, or until [`ReaderSlot::preempted`] fires.
pub struct ReaderSlot {
    pool: ReaderPool,
    id: u64,
    preempt: CancellationToken,
}

impl ReaderPool {
    /// A pool of `capacity` slots (at least one).
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Arc::new(Inner {
                capacity: capacity.max(1),
                state: Mutex::new(PoolState::default()),
            }),
        }
    }

    /// How many slots there are.
    pub fn capacity(&self) -> usize {
        self.inner.capacity
    }

    /// How many slots are held now.
    pub fn busy(&self) -> usize {
        self.lock().holders.len()
    }

    /// How many search inputs are being read or wait for a slot now: work that can wait (the
    /// pairing of indexed files with their duplicates) waits while there are any.
    pub fn search_inputs_reading(&self) -> usize {
        let state = self.lock();
        let reading = state
            .holders
            .iter()
            .filter(|holder| holder.search_input)
            .count();
        let waiting = state
            .waiting
            .iter()
            .filter(|waiter| {
                matches!(
                    waiter.asker,
                    Asker::Person {
                        search_input: true,
                        ..
                    }
                )
            })
            .count();
        reading + waiting
    }

    fn lock(&self) -> MutexGuard<'_, PoolState> {
        // A panic while the lock was held leaves consistent data (every change is one push or
        // remove), so a poisoned lock is used as it is.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Waits for a slot.
    pub async fn acquire(&self, asker: Asker) -> ReaderSlot {
        loop {
            let (sender, receiver) = oneshot::channel();
            let id = {
                let mut state = self.lock();
                state.next_id += 1;
                let id = state.next_id;
                state.waiting.push(Waiter {
                    id,
                    asker: asker.clone(),
                    grant: sender,
                });
                self.dispatch(&mut state);
                self.preempt_for_waiters(&mut state);
                id
            };
            // Dropping this future while it waits (a request given up) gives back a slot granted
            // meanwhile and takes the waiter off the list.
            let mut pending = Pending {
                pool: self.clone(),
                id,
                armed: true,
            };
            if receiver.await.is_ok() {
                let preempt = {
                    let state = self.lock();
                    state
                        .holders
                        .iter()
                        .find(|holder| holder.id == id)
                        .map(|holder| holder.preempt.clone())
                };
                if let Some(preempt) = preempt {
                    pending.armed = false;
                    return ReaderSlot {
                        pool: self.clone(),
                        id,
                        preempt,
                    };
                }
            }
        }
    }

    /// A job of `company` was queued for the background workers: if that company holds no slot
    /// and every slot is taken, the newest read of a company over its share is preempted (and a
    /// search input preempts the newest read that is not a search input), so that a worker comes
    /// free for it.
    pub fn job_queued(&self, company: &str, search_input: bool) {
        let mut state = self.lock();
        if state.holders.len() < self.inner.capacity {
            return;
        }
        if search_input && preempt_newest(&mut state, |holder| !holder.search_input) {
            return;
        }
        if held_by(&state, company) == 0 {
            self.preempt_over_share(&mut state);
        }
    }

    /// Gives free slots to the best waiters.
    fn dispatch(&self, state: &mut PoolState) {
        state.waiting.retain(|waiter| !waiter.grant.is_closed());
        while state.holders.len() < self.inner.capacity {
            let Some(best) = best_waiter(state) else {
                return;
            };
            let waiter = state.waiting.remove(best);
            let (company, search_input) = match &waiter.asker {
                Asker::Person {
                    company,
                    search_input,
                } => (Some(company.clone()), *search_input),
                Asker::Worker => (None, false),
            };
            if waiter.grant.send(()).is_ok() {
                state.holders.push(Holder {
                    id: waiter.id,
                    company,
                    search_input,
                    preempt: CancellationToken::new(),
                });
            }
        }
    }

    /// When people wait with every slot taken: a search input preempts the newest read that is not
    /// a search input; a company holding no slot preempts the newest read of a company over its
    /// share.
    fn preempt_for_waiters(&self, state: &mut PoolState) {
        if state.holders.len() < self.inner.capacity {
            return;
        }
        let waiting: Vec<(String, bool)> = state
            .waiting
            .iter()
            .filter_map(|waiter| match &waiter.asker {
                Asker::Person {
                    company,
                    search_input,
                } => Some((company.clone(), *search_input)),
                Asker::Worker => None,
            })
            .collect();
        for (company, search_input) in waiting {
            if search_input && preempt_newest(state, |holder| !holder.search_input) {
                return;
            }
            if held_by(state, &company) == 0 && self.preempt_over_share(state) {
                return;
            }
        }
    }

    /// Preempts the newest read of the company holding the most slots, if it holds more than its
    /// share (half the slots, at least one). True when one was preempted.
    fn preempt_over_share(&self, state: &mut PoolState) -> bool {
        let share = (self.inner.capacity / 2).max(1);
        let mut busiest: Option<(String, usize)> = None;
        for holder in &state.holders {
            let Some(company) = &holder.company else {
                continue;
            };
            let count = held_by(state, company);
            if busiest.as_ref().is_none_or(|(_, most)| count > *most) {
                busiest = Some((company.clone(), count));
            }
        }
        match busiest {
            Some((company, count)) if count > share => preempt_newest(state, |holder| {
                holder.company.as_deref() == Some(company.as_str())
            }),
            _ => false,
        }
    }

    fn release(&self, id: u64) {
        let mut state = self.lock();
        state.holders.retain(|holder| holder.id != id);
        state.waiting.retain(|waiter| waiter.id != id);
        self.dispatch(&mut state);
    }
}

/// A request for a slot in flight; gives back what it was granted if dropped before it returns.
struct Pending {
    pool: ReaderPool,
    id: u64,
    armed: bool,
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.armed {
            self.pool.release(self.id);
        }
    }
}

impl ReaderSlot {
    /// Says which company the slot reads for (a worker learns it when it claims a job), and
    /// whether the file is a search input.
    pub fn reading_for(&self, company: &str, search_input: bool) {
        let mut state = self.pool.lock();
        if let Some(holder) = state.holders.iter_mut().find(|holder| holder.id == self.id) {
            holder.company = Some(company.to_owned());
            holder.search_input = search_input;
        }
    }

    /// Fires when the slot is wanted for another company or a search input: stop the read, give the
    /// slot back, and read again later.
    pub fn preempted(&self) -> &CancellationToken {
        &self.preempt
    }
}

impl Drop for ReaderSlot {
    fn drop(&mut self) {
        self.pool.release(self.id);
    }
}

/// Slots held for `company`.
fn held_by(state: &PoolState, company: &str) -> usize {
    state
        .holders
        .iter()
        .filter(|holder| holder.company.as_deref() == Some(company))
        .count()
}

/// Preempts the newest holder that `which` accepts and is not already preempted.
fn preempt_newest(state: &mut PoolState, which: impl Fn(&Holder) -> bool) -> bool {
    let newest = state
        .holders
        .iter()
        .filter(|holder| which(holder) && !holder.preempt.is_cancelled())
        .max_by_key(|holder| holder.id);
    match newest {
        Some(holder) => {
            tracing::info!(
                company = holder.company.as_deref().unwrap_or("-"),
                "a read is preempted for another company or a search input; it runs again later"
            );
            holder.preempt.cancel();
            true
        }
        None => false,
    }
}

/// The waiter to serve next: search inputs, then people, then workers; among equals the company
/// holding fewest slots, then the earliest.
fn best_waiter(state: &PoolState) -> Option<usize> {
    state
        .waiting
        .iter()
        .enumerate()
        .min_by_key(|(_, waiter)| {
            let (rank, held) = match &waiter.asker {
                Asker::Person {
                    company,
                    search_input,
                } => (u8::from(!*search_input), held_by(state, company)),
                Asker::Worker => (2, 0),
            };
            (rank, held, waiter.id)
        })
        .map(|(index, _)| index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(company: &str) -> Asker {
        Asker::Person {
            company: company.into(),
            search_input: false,
        }
    }

    #[tokio::test]
    async fn a_company_over_half_the_slots_gives_one_up_to_a_company_that_waits() {
        let pool = ReaderPool::new(2);
        let first = pool.acquire(person("A")).await;
        let second = pool.acquire(person("A")).await;
        assert_eq!(pool.busy(), 2);
        let waiting = tokio::spawn({
            let pool = pool.clone();
            async move { pool.acquire(person("B")).await }
        });
        tokio::time::timeout(
            std::time::Duration::from_secs(5),
            second.preempted().cancelled(),
        )
        .await
        .unwrap();
        assert!(
            !first.preempted().is_cancelled(),
            "only the newest read gives way"
        );
        drop(second);
        let granted = tokio::time::timeout(std::time::Duration::from_secs(5), waiting)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(pool.busy(), 2);
        assert!(!granted.preempted().is_cancelled());
    }

    #[tokio::test]
    async fn a_company_alone_may_use_every_slot_and_people_go_before_workers() {
        let pool = ReaderPool::new(2);
        let a = pool.acquire(person("A")).await;
        let worker = pool.acquire(Asker::Worker).await;
        worker.reading_for("A", false);
        // A background job of A queued: A is the only company, nobody is preempted.
        pool.job_queued("A", false);
        assert!(!a.preempted().is_cancelled() && !worker.preempted().is_cancelled());
        let queued_worker = tokio::spawn({
            let pool = pool.clone();
            async move { pool.acquire(Asker::Worker).await }
        });
        tokio::task::yield_now().await;
        let queued_person = tokio::spawn({
            let pool = pool.clone();
            async move { pool.acquire(person("A")).await }
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        drop(a);
        let person_slot = tokio::time::timeout(std::time::Duration::from_secs(5), queued_person)
            .await
            .unwrap()
            .unwrap();
        assert!(!queued_worker.is_finished(), "the person went first");
        drop(person_slot);
        tokio::time::timeout(std::time::Duration::from_secs(5), queued_worker)
            .await
            .unwrap()
            .unwrap();
    }

    #[tokio::test]
    async fn a_search_input_preempts_a_background_read() {
        let pool = ReaderPool::new(1);
        let bulk = pool.acquire(Asker::Worker).await;
        bulk.reading_for("A", false);
        pool.job_queued("A", true);
        assert!(bulk.preempted().is_cancelled());
    }

    #[tokio::test]
    async fn search_inputs_are_counted_while_read_and_while_they_wait() {
        let pool = ReaderPool::new(1);
        let search_input = Asker::Person {
            company: "A".into(),
            search_input: true,
        };
        let load = pool.acquire(person("A")).await;
        assert_eq!(
            pool.search_inputs_reading(),
            0,
            "a database load is not one"
        );
        let waiting = tokio::spawn({
            let pool = pool.clone();
            let search_input = search_input.clone();
            async move { pool.acquire(search_input).await }
        });
        tokio::time::timeout(std::time::Duration::from_secs(5), async {
            while pool.search_inputs_reading() == 0 {
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap();
        drop(load);
        let reading = waiting.await.unwrap();
        assert_eq!(pool.search_inputs_reading(), 1, "now read");
        drop(reading);
        assert_eq!(pool.search_inputs_reading(), 0);
    }
}
