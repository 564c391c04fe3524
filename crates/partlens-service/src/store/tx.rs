//! The store seam: what a transaction of either engine offers, as one trait object
//! (`&mut dyn StoreTx`) handed to the closures of [`super::Store::read_tx`] and
//! [`super::Store::write_tx`]. [`SqliteTx`] forwards to the SQLite modules beside this file
//! (`accounts.rs`, …) unchanged; `postgres/` implements the same for PostgreSQL.
//!
//! The trait grows one concern at a time as each is ported to PostgreSQL (accounts first); code not
//! yet behind it still calls the SQLite modules through [`super::Store::read`] and
//! [`super::Store::write`], which a PostgreSQL store refuses with a sentence (see
//! `docs/OPERATIONS.md`, *PostgreSQL*).

use rusqlite::Connection;

use super::accounts::{self, Caller};
use super::attributes::{self, AttributeCaps, AttributeName};
use super::feedback::Feedback;
use super::files::{self, FileRecord, IndexState, IndexedContent, IndexingFailure, NewContent};
use super::jobs::{self, ClaimedJob, QueueDepth};
use crate::error::ServiceError;
use partlens_api::{Attribute, FilterTerm};
use std::collections::HashSet;

use super::library::{ListedPage, Listing};
use super::search::{self, Candidate};
use super::visual_journal::{self, CompanyViews};

/// Companies, users, client ids, tokens and the service's own secrets (see `accounts.rs` for the
/// SQLite behaviour each engine keeps).
pub trait AccountsTx {
    /// The company and credential stamp of user `user_id`, if the user exists.
    fn credential_of_user(
        &mut self,
        user_id: i64,
    ) -> Result<Option<(String, String)>, ServiceError>;
    /// The id of the company called `name` (case-insensitively), created when it does not exist.
    fn ensure_company(&mut self, name: &str) -> Result<String, ServiceError>;
    /// Creates the user in the company, or resets the password and admin flag of an existing user
    /// of that company (ending its tokens); a name held by another company is refused (400).
    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), ServiceError>;
    /// Registers a client id (no error when it exists).
    fn add_client(&mut self, client_id: &str) -> Result<(), ServiceError>;
    /// True when the client id is registered.
    fn client_exists(&mut self, client_id: &str) -> Result<bool, ServiceError>;
    /// The id and password hash of the user called `name` (case-insensitively).
    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, ServiceError>;
    /// Stores a new token (by its hash) and drops tokens that have expired.
    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), ServiceError>;
    /// The caller a token hash belongs to, if the token exists and has not expired.
    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, ServiceError>;
    /// The secret named `name`, created from `fresh` the first time it is asked for.
    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, ServiceError>;
}

/// File records: the record of an upload, its indexing state and outcome, its stored view
/// descriptors, its deletion (see `files.rs` for the SQLite behaviour each engine keeps). Every
/// write keeps the record's search text in step, as `files.rs` does.
pub trait FilesTx {
    /// The file `uid` of the company, if it exists there.
    fn find_file(
        &mut self,
        company_id: &str,
        uid: &str,
    ) -> Result<Option<FileRecord>, ServiceError>;
    /// The file `uid` in any company (image links and UID reuse checks).
    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, ServiceError>;
    /// The company-database file stored at `stored_path` (compared case-insensitively), if any.
    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, ServiceError>;
    /// The records of several files of a company, in the order asked (missing ones skipped).
    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, ServiceError>;
    /// Inserts a record or replaces the content of an existing one (revision bumped, what
    /// indexing learned and the views cleared). Returns the new revision.
    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, ServiceError>;
    /// Deletes a record with its attributes, views, job and values. True when it existed.
    fn delete_file(&mut self, uid: &str) -> Result<bool, ServiceError>;
    /// Sets the indexing state.
    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), ServiceError>;
    /// Saves the outcome of indexing `revision` (completed with its content, or failed); false
    /// (nothing saved) when the file is gone or was overwritten meanwhile.
    fn save_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        outcome: Option<&IndexedContent>,
        now: &str,
    ) -> Result<bool, ServiceError>;
    /// Saves that indexing `revision` failed, why and what was read; false (nothing saved) when the
    /// file is gone or was overwritten meanwhile.
    fn save_failed_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        failure: &IndexingFailure,
    ) -> Result<bool, ServiceError>;
    /// The stored view descriptors of a file, in order.
    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, ServiceError>;
    /// Up to `limit` search inputs uploaded before `cutoff` (ISO 8601 UTC), oldest first.
    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, ServiceError>;
}

/// The indexing queue (see `jobs.rs` for the SQLite behaviour; `postgres/jobs.rs` for how claims
/// work across nodes).
pub trait JobsTx {
    /// Puts a file in the queue (again), behind everything already there.
    fn enqueue_job(&mut self, uid: &str, now: &str) -> Result<(), ServiceError>;
    /// Queues a file to be indexed again from its stored bytes (state queued, views dropped).
    fn requeue_for_indexing(&mut self, uid: &str, now: &str) -> Result<(), ServiceError>;
    /// Takes the next job, fairly (search inputs, then companies in turn, then the oldest), and
    /// marks its file in progress.
    fn claim_next_job(&mut self) -> Result<Option<ClaimedJob>, ServiceError>;
    /// Puts a claimed job back in the queue in its place, if its file is still in progress at
    /// that revision.
    fn return_job_to_queue(&mut self, job: &ClaimedJob) -> Result<(), ServiceError>;
    /// At start: work this service left in progress goes back to the queue and every unfinished
    /// file has a queue row. Returns how many files wait.
    fn requeue_unfinished_jobs(&mut self, now: &str) -> Result<usize, ServiceError>;
    /// The nodes the database knows (PostgreSQL: every process that beat within a day, see
    /// `postgres/jobs.rs`); none on SQLite, run by one process.
    fn known_nodes(&mut self) -> Result<Vec<String>, ServiceError>;
    /// How many files of each company are queued and being indexed (every company, idle ones at
    /// 0); on PostgreSQL the queue shared by every node. For `GET /metrics`.
    fn queue_depths(&mut self) -> Result<Vec<QueueDepth>, ServiceError>;
}

/// Saved attributes, the company's attribute names and their values (see `attributes.rs`), and
/// feedback on extracted attributes (`feedback.rs`).
pub trait AttributesTx {
    /// The saved attributes of a file in their wire form, in order.
    fn attribute_texts_of(&mut self, uid: &str) -> Result<Vec<String>, ServiceError>;
    /// Replaces all saved attributes of a file of the company (404 when it is not the company's).
    fn replace_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        attributes: &[Attribute],
    ) -> Result<(), ServiceError>;
    /// Adds attributes to a file, replacing those of the same name and unit; a result over
    /// `caps` is refused (400, nothing written).
    fn merge_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        attributes: &[Attribute],
        caps: &AttributeCaps,
    ) -> Result<(), ServiceError>;
    /// The attribute names used by the company's files, ordered by name then unit.
    fn company_attribute_names(
        &mut self,
        company_id: &str,
    ) -> Result<Vec<AttributeName>, ServiceError>;
    /// The distinct values of an attribute in the company with how many times each is held, most
    /// frequent first, then by value.
    fn attribute_value_counts(
        &mut self,
        company_id: &str,
        name: &str,
        unit: Option<&str>,
    ) -> Result<Vec<(String, i64)>, ServiceError>;
    /// Stores a feedback (one of the same company and ID is replaced); false, nothing stored, when
    /// the ID is another company's.
    fn save_feedback(&mut self, feedback: &Feedback, now: &str) -> Result<bool, ServiceError>;
}

/// The metadata side of search: which database files satisfy a filter's FT conditions (see
/// `search.rs` for what each kind of term means).
pub trait SearchTx {
    /// The company's indexed (completed or failed) database files that satisfy every term, ordered
    /// by display name (ASCII case folded) then UID.
    fn matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, ServiceError>;
    /// The first `limit` of [`SearchTx::matching_database_files`], in its order, and how many
    /// files match in all (a search without inputs shows a page of a filter's files and counts
    /// them). By default the whole list is read and cut.
    fn first_matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        limit: usize,
    ) -> Result<(Vec<Candidate>, usize), ServiceError> {
        let mut found = self.matching_database_files(company_id, terms)?;
        let total = found.len();
        found.truncate(limit);
        Ok((found, total))
    }
    /// Which of `uids` still satisfy every term and are still indexed database files of the
    /// company.
    fn still_matching(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        uids: &[String],
    ) -> Result<HashSet<String>, ServiceError>;
    /// The UIDs of at most `cap` of the company's indexed database files with views that satisfy
    /// every term, in no particular order.
    fn some_matching_files_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<Vec<String>, ServiceError>;
    /// The UIDs of the company's indexed database files with views that satisfy every term (in no
    /// particular order).
    fn matching_uids_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<String>, ServiceError>;
    /// True when the filter is one condition that more than `cap` files hold, counted through an
    /// index: a hint that listing the matching files would be long (false for anything else).
    fn one_condition_held_by_more_than(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<bool, ServiceError>;
    /// The store's metadata generation: it moves with every committed change to what a filter
    /// selects (records, attribute values, views), by any process.
    fn metadata_generation(&mut self) -> Result<i64, ServiceError>;
    /// One page of the company's database files under `listing`'s conditions, newest upload
    /// first, then the later record (`GET /api/Files`, see `library.rs`).
    fn list_library_page(
        &mut self,
        company_id: &str,
        listing: &Listing<'_>,
    ) -> Result<ListedPage, ServiceError>;
}

/// A change the visual journal holds: the file, and the company whose index held or holds it
/// when the engine records it (PostgreSQL does; SQLite's journal, read by one process, does not).
pub type VisualChange = (String, Option<String>);

/// What the visual index is loaded from and kept in step with: the stored views of every company's
/// visually searched files (indexed database files with views) and the journal of changes to them
/// (see `visual_journal.rs` for SQLite, `postgres/visual.rs` for PostgreSQL).
pub trait VisualTx {
    /// The last journal position (0 when nothing was ever journalled).
    fn visual_position(&mut self) -> Result<i64, ServiceError>;
    /// The position up to which the journal was forgotten by age (PostgreSQL; always 0 on SQLite,
    /// whose journal is trimmed only past what every saved graph holds). A reader further behind
    /// must load its index again.
    fn visual_trimmed_through(&mut self) -> Result<i64, ServiceError>;
    /// The files changed after journal position `after`, each once per company.
    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, ServiceError>;
    /// A file's company and stored views when it is searched visually; `None` otherwise.
    fn searched_views(&mut self, uid: &str) -> Result<Option<CompanyViews>, ServiceError>;
    /// How many views each company's visually searched files have.
    fn visual_view_counts(&mut self) -> Result<Vec<(String, usize)>, ServiceError>;
    /// Calls `each` with every visually searched file of the company and its stored views, file by
    /// file, ordered by UID; stops at the first error.
    fn for_each_searched_file(
        &mut self,
        company: &str,
        each: &mut dyn FnMut(String, Vec<Vec<u8>>) -> Result<(), ServiceError>,
    ) -> Result<(), ServiceError>;
    /// Forgets the journal rows older than `seconds` and records up to where (PostgreSQL, where
    /// nodes catch up on the journal); nothing on SQLite. Returns how many rows went.
    fn forget_visual_changes_older_than(&mut self, seconds: i64) -> Result<u64, ServiceError>;
    /// True when the database keeps the views' vectors in an approximate index of its own
    /// (PostgreSQL with pgvector, `postgres/view_vectors.rs`); nodes then ask it for candidates
    /// instead of building graphs. False unless an engine says so.
    fn has_view_vector_index(&mut self) -> Result<bool, ServiceError> {
        Ok(false)
    }
    /// The files of `company` owning the `views_each` views nearest each of `vectors` (a view's
    /// features as `f32`), from the database's own vector index; `None` when it has none (the
    /// default).
    fn nearest_view_files(
        &mut self,
        _company: &str,
        _vectors: &[Vec<f32>],
        _views_each: usize,
    ) -> Result<Option<Vec<String>>, ServiceError> {
        Ok(None)
    }
}

/// One transaction of the store, whichever engine holds it.
pub trait StoreTx: AccountsTx + FilesTx + JobsTx + AttributesTx + SearchTx + VisualTx {
    /// The engine's name, for messages (`SQLite`, `PostgreSQL`).
    fn engine(&self) -> &'static str;
    /// The database's schema version and the one this program writes (equal when current).
    fn schema_versions(&mut self) -> Result<(i64, i64), ServiceError>;
}

/// A transaction (or read connection) of the SQLite store.
pub struct SqliteTx<'a>(pub &'a Connection);

impl StoreTx for SqliteTx<'_> {
    fn engine(&self) -> &'static str {
        "SQLite"
    }

    fn schema_versions(&mut self) -> Result<(i64, i64), ServiceError> {
        Ok((
            super::schema::version(self.0)?,
            super::schema::current_version(),
        ))
    }
}

impl AccountsTx for SqliteTx<'_> {
    fn credential_of_user(
        &mut self,
        user_id: i64,
    ) -> Result<Option<(String, String)>, ServiceError> {
        accounts::credential_of_user(self.0, user_id)
    }

    fn ensure_company(&mut self, name: &str) -> Result<String, ServiceError> {
        accounts::ensure_company(self.0, name)
    }

    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), ServiceError> {
        accounts::upsert_user(self.0, company_id, name, password_hash, admin)
    }

    fn add_client(&mut self, client_id: &str) -> Result<(), ServiceError> {
        accounts::add_client(self.0, client_id)
    }

    fn client_exists(&mut self, client_id: &str) -> Result<bool, ServiceError> {
        accounts::client_exists(self.0, client_id)
    }

    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, ServiceError> {
        accounts::login_of(self.0, name)
    }

    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), ServiceError> {
        accounts::insert_token(self.0, token_hash, user_id, client_id, expires_at, now)
    }

    fn caller_of_token(
        &mut self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<Caller>, ServiceError> {
        accounts::caller_of_token(self.0, token_hash, now)
    }

    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, ServiceError> {
        accounts::secret(self.0, name, fresh)
    }
}

impl FilesTx for SqliteTx<'_> {
    fn find_file(
        &mut self,
        company_id: &str,
        uid: &str,
    ) -> Result<Option<FileRecord>, ServiceError> {
        files::find(self.0, company_id, uid)
    }

    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, ServiceError> {
        files::find_any(self.0, uid)
    }

    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, ServiceError> {
        files::find_by_path(self.0, company_id, stored_path)
    }

    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, ServiceError> {
        files::find_many(self.0, company_id, uids)
    }

    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, ServiceError> {
        files::upsert(self.0, content, now)
    }

    fn delete_file(&mut self, uid: &str) -> Result<bool, ServiceError> {
        files::delete(self.0, uid)
    }

    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), ServiceError> {
        files::set_state(self.0, uid, state)
    }

    fn save_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        outcome: Option<&IndexedContent>,
        now: &str,
    ) -> Result<bool, ServiceError> {
        files::save_indexing(self.0, uid, revision, outcome, now)
    }

    fn save_failed_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        failure: &IndexingFailure,
    ) -> Result<bool, ServiceError> {
        files::save_failed_indexing(self.0, uid, revision, failure)
    }

    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, ServiceError> {
        files::views_of(self.0, uid)
    }

    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, ServiceError> {
        super::expiry::expired_search_inputs(self.0, cutoff, limit)
    }
}

impl JobsTx for SqliteTx<'_> {
    fn enqueue_job(&mut self, uid: &str, now: &str) -> Result<(), ServiceError> {
        jobs::enqueue(self.0, uid, now)
    }

    fn requeue_for_indexing(&mut self, uid: &str, now: &str) -> Result<(), ServiceError> {
        jobs::requeue_for_indexing(self.0, uid, now)
    }

    fn claim_next_job(&mut self) -> Result<Option<ClaimedJob>, ServiceError> {
        jobs::claim_next(self.0)
    }

    fn return_job_to_queue(&mut self, job: &ClaimedJob) -> Result<(), ServiceError> {
        jobs::return_to_queue(self.0, job)
    }

    fn requeue_unfinished_jobs(&mut self, now: &str) -> Result<usize, ServiceError> {
        jobs::requeue_unfinished(self.0, now)
    }

    fn known_nodes(&mut self) -> Result<Vec<String>, ServiceError> {
        Ok(Vec::new())
    }

    fn queue_depths(&mut self) -> Result<Vec<QueueDepth>, ServiceError> {
        jobs::queue_depths(self.0)
    }
}

impl AttributesTx for SqliteTx<'_> {
    fn attribute_texts_of(&mut self, uid: &str) -> Result<Vec<String>, ServiceError> {
        attributes::texts_of(self.0, uid)
    }

    fn replace_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        list: &[Attribute],
    ) -> Result<(), ServiceError> {
        attributes::replace(self.0, company_id, uid, list)
    }

    fn merge_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        list: &[Attribute],
        caps: &AttributeCaps,
    ) -> Result<(), ServiceError> {
        attributes::merge(self.0, company_id, uid, list, caps)
    }

    fn company_attribute_names(
        &mut self,
        company_id: &str,
    ) -> Result<Vec<AttributeName>, ServiceError> {
        attributes::company_names(self.0, company_id)
    }

    fn attribute_value_counts(
        &mut self,
        company_id: &str,
        name: &str,
        unit: Option<&str>,
    ) -> Result<Vec<(String, i64)>, ServiceError> {
        attributes::value_counts(self.0, company_id, name, unit)
    }

    fn save_feedback(&mut self, feedback: &Feedback, now: &str) -> Result<bool, ServiceError> {
        super::feedback::save(self.0, feedback, now)
    }
}

impl SearchTx for SqliteTx<'_> {
    fn matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, ServiceError> {
        search::matching_database_files(self.0, company_id, terms)
    }

    fn still_matching(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        uids: &[String],
    ) -> Result<HashSet<String>, ServiceError> {
        search::still_matching(self.0, company_id, terms, uids)
    }

    fn some_matching_files_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<Vec<String>, ServiceError> {
        search::some_matching_files_with_views(self.0, company_id, terms, cap)
    }

    fn matching_uids_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<String>, ServiceError> {
        search::matching_uids_with_views(self.0, company_id, terms)
    }

    fn one_condition_held_by_more_than(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<bool, ServiceError> {
        search::one_condition_held_by_more_than(self.0, company_id, terms, cap)
    }

    fn metadata_generation(&mut self) -> Result<i64, ServiceError> {
        search::metadata_generation(self.0)
    }

    fn list_library_page(
        &mut self,
        company_id: &str,
        listing: &Listing<'_>,
    ) -> Result<ListedPage, ServiceError> {
        super::library::list_page(self.0, company_id, listing)
    }
}

impl VisualTx for SqliteTx<'_> {
    fn visual_position(&mut self) -> Result<i64, ServiceError> {
        visual_journal::position(self.0)
    }

    fn visual_trimmed_through(&mut self) -> Result<i64, ServiceError> {
        Ok(0)
    }

    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, ServiceError> {
        Ok(visual_journal::changed_since(self.0, after)?
            .into_iter()
            .map(|uid| (uid, None))
            .collect())
    }

    fn searched_views(&mut self, uid: &str) -> Result<Option<CompanyViews>, ServiceError> {
        visual_journal::searched_views(self.0, uid)
    }

    fn visual_view_counts(&mut self) -> Result<Vec<(String, usize)>, ServiceError> {
        visual_journal::view_counts(self.0)
    }

    fn for_each_searched_file(
        &mut self,
        company: &str,
        each: &mut dyn FnMut(String, Vec<Vec<u8>>) -> Result<(), ServiceError>,
    ) -> Result<(), ServiceError> {
        visual_journal::for_each_searched_file(self.0, company, each)
    }

    fn forget_visual_changes_older_than(&mut self, _seconds: i64) -> Result<u64, ServiceError> {
        Ok(0)
    }
}
