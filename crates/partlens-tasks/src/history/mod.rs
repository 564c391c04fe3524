//! The search history and saved searches: every finished search is kept (its views with their input
//! UIDs and a copy of each, its text and filters), a search can be saved under a name, and the list
//! survives a restart. The data is in [`entry`], the file and its limits in [`store`]; `commands.rs` holds
//! the backend's history commands. Every change answers `Event::HistoryChanged` with the whole list
//! (it is small: see the limits in [`store`]).
//!
//! The store works on the disk, so each command runs on a blocking thread, one at a time (the
//! store's lock); the front end never waits for it.

mod commands;
pub mod entry;
pub mod store;

use std::sync::Mutex;

pub use self::entry::{DraftView, HistoryEntry, HistoryView, SearchDraft, SearchHistory};
pub use self::store::{HistoryError, HistoryLimits, HistoryStore, NameRefused, check_name};

/// The store, shared by the backend's tasks.
pub(crate) type SharedHistory = std::sync::Arc<Mutex<HistoryStore>>;
