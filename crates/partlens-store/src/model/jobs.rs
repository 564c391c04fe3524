//! The indexing queue as its users see it: a job a worker claimed, and how deep the queue is.
//!
//! The order both engines claim in: search inputs first (someone waits at the search bar), then the
//! company with the fewest files being indexed (companies take turns), then the oldest. A job
//! leaves the queue only when its outcome is saved, so queued and in-progress work survives a
//! restart.

/// A file a worker took from the queue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimedJob {
    /// Canonical UID.
    pub uid: String,
    /// The revision being indexed.
    pub revision: i64,
    /// The file's extension (what the engine decodes it as).
    pub extension: String,
    /// The company the file belongs to (readers are shared fairly between companies).
    pub company_id: String,
    /// A search input (someone waits at the search bar): goes before database files.
    pub is_search_input: bool,
    /// Uploaded with `textOnly=true`: its text and attributes are read, nothing is rendered.
    pub text_only: bool,
}

/// How many files of one company are in the indexing queue, by their state. Every company is
/// counted, those with nothing queued at 0, so a scraper sees a company's queue empty rather than
/// gone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueDepth {
    /// The company's id (a GUID: names are chosen by people and may be anything).
    pub company_id: String,
    /// Files waiting for a reader.
    pub queued: u64,
    /// Files being read now (when nodes share the store, by any node).
    pub in_progress: u64,
}
