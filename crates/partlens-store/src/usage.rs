//! How a store is used, for `GET /metrics` and for tests that count: its transactions, counted by
//! cheap counters bumped as each starts (so that a caller can tell how many transactions a piece of
//! work ran: a search should be one read), and its connections, looked at when asked.

use std::sync::atomic::{AtomicU64, Ordering};

/// How many transactions a store ran since it was opened, by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TransactionCounts {
    /// Read transactions (one snapshot each).
    pub reads: u64,
    /// Write transactions (after every other writer).
    pub writes: u64,
    /// The indexing queue's claims and returns (writes that lock only the rows they take when nodes
    /// share the store; writes on SQLite).
    pub queue: u64,
}

impl TransactionCounts {
    /// The transactions of each kind between `earlier` and these (both of one store).
    pub fn since(&self, earlier: &TransactionCounts) -> TransactionCounts {
        TransactionCounts {
            reads: self.reads.saturating_sub(earlier.reads),
            writes: self.writes.saturating_sub(earlier.writes),
            queue: self.queue.saturating_sub(earlier.queue),
        }
    }
}

/// The counters of one store, shared by its clones.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    reads: AtomicU64,
    writes: AtomicU64,
    queue: AtomicU64,
}

/// A kind of transaction.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    Read,
    Write,
    Queue,
}

impl Counters {
    /// Counts a transaction of `kind`.
    pub(crate) fn count(&self, kind: Kind) {
        let counter = match kind {
            Kind::Read => &self.reads,
            Kind::Write => &self.writes,
            Kind::Queue => &self.queue,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The counts now.
    pub(crate) fn now(&self) -> TransactionCounts {
        TransactionCounts {
            reads: self.reads.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            queue: self.queue.load(Ordering::Relaxed),
        }
    }
}

/// How a store's database connections are used right now, for `GET /metrics`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolUse {
    /// `sqlite` or `postgresql`.
    pub engine: &'static str,
    /// Connections open and waiting for work.
    pub idle: usize,
    /// Connections running a transaction (on SQLite the writer counts when a write holds it).
    pub in_use: usize,
    /// The most connections the pool opens (PostgreSQL); `None` on SQLite, whose read connections
    /// are opened as needed and a few kept.
    pub max: Option<usize>,
}
