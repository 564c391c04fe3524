//! The pairing of indexed files with their candidate duplicates, after their upload has answered
//! and at a lower priority than a person's search (issue 51: the bulk load keeps search inputs
//! within 2× their idle time).
//!
//! Pairing a file is a search by its own views over the whole company ([`crate::pairing`]): in a
//! bulk load it was 40 % of a file's time on the service, it grows with the library until the
//! graph takes over, and it ran inside the upload's request, on the cores a person's search input
//! was read on. Now an indexed database file is put in this queue; one background task pairs the
//! queued files one at a time, earliest first, and before each waits while a search input is
//! being read or waits for a reader slot ([`YIELD_WAIT`] between looks). A pairing that has
//! started runs to its end (one ranking), on a thread at a background read's priority (nice 10,
//! below a search input's read at 5).
//!
//! Nothing is lost and no answer changes: `GET /api/Duplicates` first pairs the caller's company's
//! queued files itself and waits for the one being paired ([`PairingQueue::settle`]), so it reads
//! the same pairs as when pairing ran in the upload. The queue is in memory: a file whose pairing
//! a stop or a crash left undone is unpaired in the store, and the start-up backfill
//! ([`crate::pairing_backfill`]) pairs it. Limits: one entry a file (a file queued again while it
//! waits keeps its place); at most [`MOST_WAITING`] files wait (about 100 bytes each), past which
//! an indexed file is paired in its upload as before, so a stalled queue never holds up memory
//! nor the uploads for long.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// How long the queue waits before it looks again whether a search input is still being read.
pub const YIELD_WAIT: Duration = Duration::from_millis(50);

/// Most files waiting for their pairing; past it a file is paired in its own upload.
pub const MOST_WAITING: usize = 200_000;

/// A file waiting for its pairing: its company's id and its UID.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Queued {
    company: String,
    uid: String,
}

/// The files waiting for their pairing. Cheap to clone (shared).
#[derive(Clone, Default)]
pub struct PairingQueue {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    state: Mutex<QueueState>,
    /// Woken when a file is queued.
    queued: Notify,
    /// Woken when a pairing ends.
    ended: Notify,
}

#[derive(Default)]
struct QueueState {
    waiting: VecDeque<Queued>,
    waiting_uids: HashSet<String>,
    /// Pairings under way, by company.
    pairing: HashMap<String, usize>,
}

impl PairingQueue {
    /// An empty queue.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, QueueState> {
        // Every change under the lock is one push, removal or count: a poisoned lock holds
        // consistent data.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues file `uid` of `company` for its pairing. False when the queue is full (then pair it
    /// now); true when it was queued or was waiting already.
    pub fn enqueue(&self, company: &str, uid: &str) -> bool {
        let mut state = self.lock();
        if state.waiting_uids.contains(uid) {
            return true;
        }
        if state.waiting.len() >= MOST_WAITING {
            return false;
        }
        state.waiting_uids.insert(uid.to_owned());
        state.waiting.push_back(Queued {
            company: company.to_owned(),
            uid: uid.to_owned(),
        });
        drop(state);
        self.inner.queued.notify_one();
        true
    }

    /// Queues file `uid` of `company` for its pairing, or, when the queue is full, pairs it with
    /// `pair` here and now (as before the queue).
    pub async fn enqueue_or_pair<P>(&self, company: &str, uid: &str, pair: P)
    where
        P: Fn(&str) + Clone + Send + 'static,
    {
        if self.enqueue(company, uid) {
            return;
        }
        let uid = uid.to_owned();
        if let Err(error) = tokio::task::spawn_blocking(move || pair(&uid)).await {
            tracing::warn!(%error, "pairing a file stopped unexpectedly");
        }
    }

    /// How many files wait for their pairing.
    pub fn waiting(&self) -> usize {
        self.lock().waiting.len()
    }

    /// Takes the earliest waiting file (of `company` only, when given), marked as being paired.
    fn take(&self, company: Option<&str>) -> Option<Queued> {
        let mut state = self.lock();
        let at = match company {
            None => (!state.waiting.is_empty()).then_some(0),
            Some(company) => state
                .waiting
                .iter()
                .position(|queued| queued.company == company),
        }?;
        let queued = state.waiting.remove(at)?;
        state.waiting_uids.remove(&queued.uid);
        *state.pairing.entry(queued.company.clone()).or_default() += 1;
        Some(queued)
    }

    /// Marks the pairing of a file of `company` ended.
    fn ended(&self, company: &str) {
        let mut state = self.lock();
        if let Some(count) = state.pairing.get_mut(company) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                state.pairing.remove(company);
            }
        }
        drop(state);
        self.inner.ended.notify_waiters();
    }

    /// Pairs `queued` with `pair` on a blocking thread, and marks it ended whatever happens. In
    /// the `background`, on a thread of its own at a background read's priority
    /// ([`partlens_sandbox::lower_thread_priority`]), so that a search input's read, which may
    /// start while it runs, goes first; for a person waiting ([`PairingQueue::settle`]), at the
    /// service's.
    async fn pair_one<P>(&self, pair: &P, queued: Queued, background: bool)
    where
        P: Fn(&str) + Clone + Send + 'static,
    {
        let company = queued.company.clone();
        let pair = pair.clone();
        let work = move || pair(&queued.uid);
        let ended = if background {
            let (done, finished) = tokio::sync::oneshot::channel();
            let started = std::thread::Builder::new()
                .name("pairing".into())
                .spawn(move || {
                    partlens_sandbox::lower_thread_priority();
                    work();
                    // What the pairing holds (the store among it) is let go before its end is
                    // told: a shutdown that waited for this pairing finds the store closed, and
                    // SQLite's last checkpoint is not written into a data folder after it.
                    drop(work);
                    let _ = done.send(());
                });
            match started {
                Ok(_) => finished.await.map_err(|error| error.to_string()),
                Err(error) => Err(error.to_string()),
            }
        } else {
            tokio::task::spawn_blocking(work)
                .await
                .map_err(|error| error.to_string())
        };
        if let Err(error) = ended {
            tracing::warn!(%error, "pairing a file stopped unexpectedly");
        }
        self.ended(&company);
    }

    /// The background task: pairs the queued files with `pair`, one at a time, each once
    /// `busy` (the search inputs being read or waiting) is 0; until `stop`.
    pub async fn run<P, B>(self, pair: P, busy: B, stop: CancellationToken)
    where
        P: Fn(&str) + Clone + Send + 'static,
        B: Fn() -> usize,
    {
        loop {
            let queued = self.inner.queued.notified();
            if self.waiting() == 0 {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = queued => {}
                }
                continue;
            }
            while busy() > 0 {
                tokio::select! {
                    () = stop.cancelled() => return,
                    () = tokio::time::sleep(YIELD_WAIT) => {}
                }
            }
            if stop.is_cancelled() {
                return;
            }
            if let Some(next) = self.take(None) {
                self.pair_one(&pair, next, true).await;
            }
        }
    }

    /// Pairs every file of `company` still waiting, here and now, and waits for the ones of
    /// `company` being paired: afterwards the company's stored pairs are those of all its indexed
    /// files, as when each was paired in its upload.
    pub async fn settle<P>(&self, company: &str, pair: P)
    where
        P: Fn(&str) + Clone + Send + 'static,
    {
        while let Some(next) = self.take(Some(company)) {
            self.pair_one(&pair, next, false).await;
        }
        loop {
            let ended = self.inner.ended.notified();
            if !self.lock().pairing.contains_key(company) {
                return;
            }
            // Woken by each pairing's end; the look above is repeated after it.
            tokio::select! {
                () = ended => {}
                () = tokio::time::sleep(YIELD_WAIT) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A pairing function that records the UIDs it paired, in order.
    fn recorder() -> (
        Arc<Mutex<Vec<String>>>,
        impl Fn(&str) + Clone + Send + 'static,
    ) {
        let paired = Arc::new(Mutex::new(Vec::new()));
        let record = {
            let paired = paired.clone();
            move |uid: &str| paired.lock().unwrap().push(uid.to_owned())
        };
        (paired, record)
    }

    #[tokio::test]
    async fn queued_files_are_paired_earliest_first_once_no_search_input_is_read() {
        let queue = PairingQueue::new();
        let (paired, pair) = recorder();
        let search_inputs = Arc::new(AtomicUsize::new(1));
        let stop = CancellationToken::new();
        let running = tokio::spawn(queue.clone().run(
            pair,
            {
                let search_inputs = search_inputs.clone();
                move || search_inputs.load(Ordering::SeqCst)
            },
            stop.clone(),
        ));
        assert!(queue.enqueue("A", "u1"));
        assert!(queue.enqueue("B", "u2"));
        assert!(queue.enqueue("A", "u1"), "a file waiting keeps its place");
        // While a search input is read, nothing is paired.
        tokio::time::sleep(YIELD_WAIT * 4).await;
        assert!(paired.lock().unwrap().is_empty());
        assert_eq!(queue.waiting(), 2);
        search_inputs.store(0, Ordering::SeqCst);
        tokio::time::timeout(Duration::from_secs(10), async {
            while paired.lock().unwrap().len() < 2 {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .unwrap();
        assert_eq!(*paired.lock().unwrap(), ["u1", "u2"]);
        assert_eq!(queue.waiting(), 0);
        stop.cancel();
        running.await.unwrap();
    }

    #[tokio::test]
    async fn settling_a_company_pairs_its_waiting_files_now_and_leaves_the_others() {
        let queue = PairingQueue::new();
        let (paired, pair) = recorder();
        // No background task: only `settle` pairs.
        queue.enqueue("A", "a1");
        queue.enqueue("B", "b1");
        queue.enqueue("A", "a2");
        queue.settle("A", pair).await;
        assert_eq!(*paired.lock().unwrap(), ["a1", "a2"]);
        assert_eq!(queue.waiting(), 1, "company B's file still waits");
    }

    #[tokio::test]
    async fn settling_waits_for_the_company_s_file_being_paired() {
        let queue = PairingQueue::new();
        let (paired, record) = recorder();
        let slow = move |uid: &str| {
            std::thread::sleep(Duration::from_millis(300));
            record(uid);
        };
        let stop = CancellationToken::new();
        let running = tokio::spawn(queue.clone().run(slow.clone(), || 0, stop.clone()));
        queue.enqueue("A", "a1");
        // The background task has taken it (nothing waits) but not finished it.
        tokio::time::timeout(Duration::from_secs(10), async {
            while queue.waiting() > 0 {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await
        .unwrap();
        queue.settle("A", slow).await;
        assert_eq!(*paired.lock().unwrap(), ["a1"], "settled after its pairing");
        stop.cancel();
        running.await.unwrap();
    }

    /// A guard that counts its copies made and let go, a copy taking a while to let go: what a
    /// pairing function holds (the service's holds its store).
    struct SlowToLetGo {
        made: Arc<AtomicUsize>,
        let_go: Arc<AtomicUsize>,
        copy: bool,
    }

    impl Clone for SlowToLetGo {
        fn clone(&self) -> Self {
            self.made.fetch_add(1, Ordering::SeqCst);
            Self {
                made: self.made.clone(),
                let_go: self.let_go.clone(),
                copy: true,
            }
        }
    }

    impl Drop for SlowToLetGo {
        fn drop(&mut self) {
            if self.copy {
                std::thread::sleep(Duration::from_millis(300));
            }
            self.let_go.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn a_stopped_task_has_let_go_of_what_its_pairings_held() {
        let queue = PairingQueue::new();
        let (paired, record) = recorder();
        let (made, let_go) = (Arc::new(AtomicUsize::new(1)), Arc::new(AtomicUsize::new(0)));
        let held = SlowToLetGo {
            made: made.clone(),
            let_go: let_go.clone(),
            copy: false,
        };
        let pair = move |uid: &str| {
            let _held = &held;
            record(uid);
        };
        let stop = CancellationToken::new();
        let running = tokio::spawn(queue.clone().run(pair, || 0, stop.clone()));
        queue.enqueue("A", "a1");
        tokio::time::timeout(Duration::from_secs(10), async {
            while paired.lock().unwrap().is_empty() {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        })
        .await
        .unwrap();
        stop.cancel();
        running.await.unwrap();
        // Every copy is gone with the task, the pairing thread's too: a SQLite store held past a
        // shutdown writes its last checkpoint into a data folder that someone already reads.
        assert!(made.load(Ordering::SeqCst) >= 2, "the pairing had a copy");
        assert_eq!(let_go.load(Ordering::SeqCst), made.load(Ordering::SeqCst));
    }

    #[test]
    fn a_full_queue_refuses_so_the_file_is_paired_in_its_upload() {
        let queue = PairingQueue::new();
        {
            let mut state = queue.lock();
            for number in 0..MOST_WAITING {
                let uid = format!("u{number}");
                state.waiting_uids.insert(uid.clone());
                state.waiting.push_back(Queued {
                    company: "A".into(),
                    uid,
                });
            }
        }
        assert!(!queue.enqueue("A", "one more"));
        assert!(queue.enqueue("A", "u7"), "already waiting");
    }
}
