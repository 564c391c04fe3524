//! What one transaction of the store offers, whichever engine holds it: the traits alone, each a
//! concern, and [`StoreTx`] that is all of them. Work runs in the closures of
//! [`crate::Store::read_tx`], [`crate::Store::write_tx`] and [`crate::Store::queue_tx`] as a
//! `&mut dyn StoreTx`. Each engine (`sqlite/`, `postgres/`, private to this crate) implements every
//! trait directly; the doc comments here are the behaviour both keep. What both keep the same way
//! beyond SQL (a revision checked before an outcome is saved, a file's attributes checked and made
//! one a name before they are written, a hint asked of one condition only) is written once, in
//! provided methods here, over the steps each engine implements in the sealed `*Steps` traits,
//! which a user of the crate can neither name nor call.

use std::collections::{HashMap, HashSet};

use crate::error::StoreError;
use crate::model::attributes::{merged, one_per_name};
use crate::model::callbacks::{
    AttemptRecord, CallbackSettings, Delivery, DeliveryAttempt, DeliveryCounts, NewDelivery,
};
use crate::model::categories;
use crate::model::visual::EachSearchedFile;
use crate::model::{
    AttributeCaps, AttributeName, Caller, Candidate, Category, ClaimedJob, CompanyViews, Feedback,
    FilePair, FileRecord, IndexState, IndexedContent, IndexingFailure, ListedPage, Listing,
    LoadedFile, NewContent, NewRelation, QueueDepth, Relation, RelationCount, VisualChange,
};
use partlens_api::{Attribute, FilterTerm};

pub(crate) use sealed::{
    AttributeNamesSteps, AttributesSteps, CategoriesSteps, FilesSteps, SearchSteps,
};

/// The steps each engine implements below the traits' provided methods, one trait a concern (the
/// sealed-trait pattern: public so the traits may require them, in a private module so nothing
/// outside the crate names or calls them).
mod sealed {
    use crate::error::StoreError;
    use crate::model::{IndexedContent, IndexingFailure};
    use partlens_api::{Attribute, FilterTerm};

    /// A file record's writes once the model's rules have been checked.
    pub trait FilesSteps {
        /// The current revision of file `uid`, if it exists.
        fn revision_of(&mut self, uid: &str) -> Result<Option<i64>, StoreError>;
        /// Writes what indexing learned of file `uid` (its revision checked): completed, its views
        /// stored, its search text refreshed, out of the queue.
        fn write_indexed(
            &mut self,
            uid: &str,
            content: &IndexedContent,
            now: &str,
        ) -> Result<(), StoreError>;
        /// Writes that indexing file `uid` failed (its revision checked): failed with the reason,
        /// views and pictures cleared, text and extracted attributes kept, out of the queue.
        fn write_failed_indexing(
            &mut self,
            uid: &str,
            failure: &IndexingFailure,
        ) -> Result<(), StoreError>;
    }

    /// The company's attribute names as indexing meets them (each engine's `attributes.rs`).
    pub trait AttributeNamesSteps {
        /// Registers the names of the attributes indexing extracted from database file `uid`
        /// (`name(unit)=value` texts; those that do not parse are skipped) among its company's
        /// attribute names: a new one as not custom, each stamped `now`. Nothing for a search
        /// input.
        fn write_extracted_names(
            &mut self,
            uid: &str,
            extracted: &[String],
            now: &str,
        ) -> Result<(), StoreError>;
    }

    /// A category's write once the model's rules have been checked.
    pub trait CategoriesSteps {
        /// Inserts `category` into the company's categories.
        fn insert_category(
            &mut self,
            company_id: &str,
            category: &crate::model::Category,
            now: &str,
        ) -> Result<(), StoreError>;
    }

    /// Saved attributes' writes once the model's rules have been checked.
    pub trait AttributesSteps {
        /// Replaces the saved attributes of file `uid` of the company with `list` (the file
        /// checked, one attribute a name and unit) and refreshes its search text.
        fn write_attributes(
            &mut self,
            company_id: &str,
            uid: &str,
            list: &[Attribute],
        ) -> Result<(), StoreError>;
    }

    /// What an engine's search does once the model's rules have been checked.
    pub trait SearchSteps {
        /// Which of `uids` (some) still satisfy every term and are still indexed database files
        /// of the company, checked on those files alone.
        fn still_matching_among(
            &mut self,
            company_id: &str,
            terms: &[FilterTerm],
            uids: &[String],
        ) -> Result<std::collections::HashSet<String>, StoreError>;
        /// True when at least `enough` index entries hold the one condition `term` (files of any
        /// role or state), reading no more than that; false for a kind of term no index counts
        /// (a regular or range attribute term, several words, a word too short for the index).
        fn one_condition_held_by_at_least(
            &mut self,
            company_id: &str,
            term: &FilterTerm,
            enough: i64,
        ) -> Result<bool, StoreError>;
    }
}

/// Companies, users, client ids, tokens and the service's own secrets.
pub trait AccountsTx {
    /// The company and credential stamp of user `user_id`, if the user exists.
    fn credential_of_user(&mut self, user_id: i64) -> Result<Option<(String, String)>, StoreError>;
    /// The id of the company called `name` (case-insensitively), created when it does not exist.
    fn ensure_company(&mut self, name: &str) -> Result<String, StoreError>;
    /// Creates the user in the company, or resets the password and admin flag of an existing user
    /// of that company (ending its tokens). A user name is unique across companies (the token
    /// request names no company): a name held by another company is refused.
    fn upsert_user(
        &mut self,
        company_id: &str,
        name: &str,
        password_hash: &str,
        admin: bool,
    ) -> Result<(), StoreError>;
    /// Registers a client id (no error when it exists).
    fn add_client(&mut self, client_id: &str) -> Result<(), StoreError>;
    /// True when the client id is registered.
    fn client_exists(&mut self, client_id: &str) -> Result<bool, StoreError>;
    /// The id and password hash of the user called `name` (case-insensitively).
    fn login_of(&mut self, name: &str) -> Result<Option<(i64, String)>, StoreError>;
    /// Stores a new token (by its hash) and drops tokens that have expired.
    fn insert_token(
        &mut self,
        token_hash: &str,
        user_id: i64,
        client_id: &str,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError>;
    /// The caller a token hash belongs to, if the token exists and has not expired.
    fn caller_of_token(&mut self, token_hash: &str, now: i64)
    -> Result<Option<Caller>, StoreError>;
    /// The secret named `name`, created from `fresh` the first time it is asked for.
    fn secret(
        &mut self,
        name: &str,
        fresh: &mut dyn FnMut() -> Vec<u8>,
    ) -> Result<Vec<u8>, StoreError>;
}

/// File records: the record of an upload, its indexing state and outcome, its stored view
/// descriptors, its deletion. Every write keeps the record's search text (and its term index) in
/// step, in the same transaction.
pub trait FilesTx: FilesSteps + AttributeNamesSteps {
    /// The file `uid` of the company, if it exists there.
    fn find_file(&mut self, company_id: &str, uid: &str) -> Result<Option<FileRecord>, StoreError>;
    /// The file `uid` in any company (image links and UID reuse checks).
    fn find_any_file(&mut self, uid: &str) -> Result<Option<FileRecord>, StoreError>;
    /// The company-database file stored at `stored_path` (compared case-insensitively), if any.
    fn find_file_by_path(
        &mut self,
        company_id: &str,
        stored_path: &str,
    ) -> Result<Option<FileRecord>, StoreError>;
    /// The records of several files of a company, in the order asked (missing ones skipped; a UID
    /// asked twice is answered twice).
    fn find_files(
        &mut self,
        company_id: &str,
        uids: &[String],
    ) -> Result<Vec<FileRecord>, StoreError>;
    /// Inserts a record or replaces the content of an existing one (revision bumped, what
    /// indexing learned and the views cleared, the uploader kept). Returns the new revision.
    fn upsert_file(&mut self, content: &NewContent, now: &str) -> Result<i64, StoreError>;
    /// Deletes a record with its attributes, views, job and values. True when it existed.
    fn delete_file(&mut self, uid: &str) -> Result<bool, StoreError>;
    /// Sets the indexing state.
    fn set_file_state(&mut self, uid: &str, state: IndexState) -> Result<(), StoreError>;
    /// Saves the outcome of indexing `revision` (completed with its content; `None`: failed
    /// without an outcome) and takes the file out of the queue; false (nothing saved) when the
    /// file is gone or was overwritten meanwhile.
    fn save_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        outcome: Option<&IndexedContent>,
        now: &str,
    ) -> Result<bool, StoreError> {
        let Some(content) = outcome else {
            return self.save_failed_indexing(uid, revision, &IndexingFailure::without_outcome());
        };
        if self.revision_of(uid)? != Some(revision) {
            return Ok(false);
        }
        self.write_indexed(uid, content, now)?;
        self.write_extracted_names(uid, &content.extracted_attributes, now)?;
        Ok(true)
    }
    /// Saves that indexing `revision` failed, why and what was read (views and pictures cleared,
    /// text and extracted attributes kept searchable) and takes the file out of the queue; false
    /// (nothing saved) when the file is gone or was overwritten meanwhile.
    fn save_failed_indexing(
        &mut self,
        uid: &str,
        revision: i64,
        failure: &IndexingFailure,
    ) -> Result<bool, StoreError> {
        if self.revision_of(uid)? != Some(revision) {
            return Ok(false);
        }
        self.write_failed_indexing(uid, failure)?;
        self.write_extracted_names(uid, &failure.extracted_attributes, &crate::clock::iso_now())?;
        Ok(true)
    }
    /// The stored view descriptors of a file, in order.
    fn views_of(&mut self, uid: &str) -> Result<Vec<Vec<u8>>, StoreError>;
    /// The stored view descriptors of a file at `positions` (0 is its first view), in the order of
    /// the positions, those it has (a position past its last view is left out): the visual
    /// index reads the few views that decide a model's score instead of all of them.
    fn views_at(&mut self, uid: &str, positions: &[u32]) -> Result<Vec<Vec<u8>>, StoreError>;
    /// The first stored view descriptor of a file (`None` without views): what every view of a
    /// model carries of the model (its handedness, say) is read from one row.
    fn first_view_of(&mut self, uid: &str) -> Result<Option<Vec<u8>>, StoreError>;
    /// Up to `limit` search inputs uploaded before `cutoff` (ISO 8601 UTC), oldest first.
    fn expired_search_inputs(
        &mut self,
        cutoff: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;
}

/// The indexing queue: claimed fairly (search inputs, then companies in turn, then the oldest), a
/// row a file until its outcome is saved.
pub trait JobsTx {
    /// Puts a file in the queue (again), behind everything already there.
    fn enqueue_job(&mut self, uid: &str, now: &str) -> Result<(), StoreError>;
    /// Queues a file to be indexed again from its stored bytes (state queued, views dropped: they
    /// could not be read back).
    fn requeue_for_indexing(&mut self, uid: &str, now: &str) -> Result<(), StoreError>;
    /// Takes the next job, fairly, and marks its file in progress.
    fn claim_next_job(&mut self) -> Result<Option<ClaimedJob>, StoreError>;
    /// Puts a claimed job back in the queue in its place (its read was preempted, or the service
    /// is stopping), if its file is still in progress at that revision.
    fn return_job_to_queue(&mut self, job: &ClaimedJob) -> Result<(), StoreError>;
    /// At start: work this service left in progress goes back to the queue (when nodes share the
    /// store, a node's jobs are taken again only once it stops beating) and every unfinished file
    /// has a queue row. Returns how many files wait.
    fn requeue_unfinished_jobs(&mut self, now: &str) -> Result<usize, StoreError>;
    /// The nodes the database knows (every process that beat within a day, when nodes share the
    /// store); none when one process owns it.
    fn known_nodes(&mut self) -> Result<Vec<String>, StoreError>;
    /// How many files of each company are queued and being indexed (every company, idle ones at
    /// 0); when nodes share the store, the queue they share. For `GET /metrics`.
    fn queue_depths(&mut self) -> Result<Vec<QueueDepth>, StoreError>;
}

/// Saved attributes, the company's attribute names and their values, and feedback on extracted
/// attributes.
pub trait AttributesTx: FilesTx + AttributesSteps {
    /// The saved attributes of a file in their wire form (`name(unit)=v1|v2`), in order.
    fn attribute_texts_of(&mut self, uid: &str) -> Result<Vec<String>, StoreError>;
    /// The saved attributes of each of `uids` in their wire form, in order, in one read: a file
    /// without saved attributes (or not found) maps to none. For a page of search results.
    fn attribute_texts_of_files(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, Vec<String>>, StoreError>;
    /// Replaces all saved attributes of a file of the company (`deleteExisting=true`; a name
    /// given twice keeps the last values). A file that is not (or no longer) the company's is not
    /// found: the caller may have found it before a delete that committed first.
    fn replace_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        attributes: &[Attribute],
    ) -> Result<(), StoreError> {
        if self.find_file(company_id, uid)?.is_none() {
            return Err(StoreError::file_not_found(uid));
        }
        self.write_attributes(company_id, uid, &one_per_name(attributes.iter().cloned()))
    }
    /// Adds attributes to a file, replacing those of the same name and unit
    /// (`deleteExisting=false`); a result over `caps` is refused, nothing written.
    fn merge_attributes(
        &mut self,
        company_id: &str,
        uid: &str,
        attributes: &[Attribute],
        caps: &AttributeCaps,
    ) -> Result<(), StoreError> {
        let list = merged(&self.attribute_texts_of(uid)?, attributes);
        caps.check(&list)?;
        self.replace_attributes(company_id, uid, &list)
    }
    /// The attribute names used by the company: those saved on its files (custom), and those
    /// indexing extracted from them (not custom, kept once seen), each with its single value and
    /// when it was last set; ordered by name then unit.
    fn company_attribute_names(
        &mut self,
        company_id: &str,
    ) -> Result<Vec<AttributeName>, StoreError>;
    /// The distinct values of an attribute in the company with how many times each is held (a
    /// multi-valued attribute counts each value), most frequent first, then by value. The name is
    /// compared case-insensitively; a unit narrows the match when given.
    fn attribute_value_counts(
        &mut self,
        company_id: &str,
        name: &str,
        unit: Option<&str>,
    ) -> Result<Vec<(String, i64)>, StoreError>;
    /// Stores a feedback (one of the same company and ID is replaced); false, nothing stored, when
    /// the ID is another company's.
    fn save_feedback(&mut self, feedback: &Feedback, now: &str) -> Result<bool, StoreError>;
}

/// A company's file categories (see [`crate::model::categories`]).
pub trait CategoriesTx: CategoriesSteps {
    /// The id of the company called `name` (case-insensitively), if it exists.
    fn company_named(&mut self, name: &str) -> Result<Option<String>, StoreError>;
    /// The company's categories, by id.
    fn categories_of(&mut self, company_id: &str) -> Result<Vec<Category>, StoreError>;
    /// Adds a category to the company (`id` `None`: one more than the largest), checked by
    /// [`crate::model::categories::check_new`] (refused, nothing written, when it fails).
    fn add_category(
        &mut self,
        company_id: &str,
        id: Option<i64>,
        name: &str,
        required_attributes: &[String],
        now: &str,
    ) -> Result<Category, StoreError> {
        let existing = self.categories_of(company_id)?;
        let category = Category {
            id: id.unwrap_or_else(|| categories::next_id(&existing)),
            name: name.trim().to_owned(),
            required_attributes: required_attributes
                .iter()
                .map(|required| required.trim().to_owned())
                .filter(|required| !required.is_empty())
                .collect(),
        };
        categories::check_new(&category, &existing)?;
        self.insert_category(company_id, &category, now)?;
        Ok(category)
    }
    /// Removes category `id` of the company; true when it existed. Files keep their
    /// `category=<name>` attribute.
    fn remove_category(&mut self, company_id: &str, id: i64) -> Result<bool, StoreError>;
}

/// A company's callback settings and the outbox of its deliveries (see
/// [`crate::model::callbacks`]). A delivery is recorded in the transaction of its event; a sender
/// claims one due delivery of a company at a time (a lease until `lease_until`), and records each
/// attempt with the state it leaves the delivery in.
pub trait CallbacksTx {
    /// The company's callback settings, if it has any.
    fn callback_settings(
        &mut self,
        company_id: &str,
    ) -> Result<Option<CallbackSettings>, StoreError>;
    /// Sets the company's callback settings (replacing any).
    fn save_callback_settings(
        &mut self,
        company_id: &str,
        settings: &CallbackSettings,
    ) -> Result<(), StoreError>;
    /// The `callbackParam` file `uid` was uploaded with, if any (and if the file exists).
    fn callback_param_of(&mut self, uid: &str) -> Result<Option<String>, StoreError>;
    /// Records a delivery, pending and due at its creation.
    fn insert_delivery(&mut self, delivery: &NewDelivery) -> Result<(), StoreError>;
    /// Up to `limit` companies with a delivery due at `now` (pending, or sending past its lease).
    fn companies_with_due_deliveries(
        &mut self,
        now: i64,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;
    /// Claims the company's delivery due first at `now`: it is sending until `lease_until`
    /// (another sender may claim it after that, as when its sender was killed). `None` when none
    /// is due.
    fn claim_due_delivery(
        &mut self,
        company_id: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Delivery>, StoreError>;
    /// Records an attempt of delivery `id` (numbered after those recorded) and leaves the
    /// delivery in the state `attempt` says. Nothing when the delivery is gone or already
    /// delivered (a 2xx is never overwritten).
    fn record_delivery_attempt(
        &mut self,
        id: &str,
        attempt: &AttemptRecord,
    ) -> Result<(), StoreError>;
    /// Every delivery a sender holds (sending) is pending and due at `now` again: for a service
    /// that owns its store alone, at start (what it was sending when it stopped is sent again).
    fn release_delivery_leases(&mut self, now: i64) -> Result<u64, StoreError>;
    /// The company's last `limit` deliveries, newest first.
    fn deliveries_of(
        &mut self,
        company_id: &str,
        limit: usize,
    ) -> Result<Vec<Delivery>, StoreError>;
    /// The attempts of delivery `id`, in order.
    fn attempts_of(&mut self, id: &str) -> Result<Vec<DeliveryAttempt>, StoreError>;
    /// How many deliveries are in each state, over every company.
    fn delivery_counts(&mut self) -> Result<DeliveryCounts, StoreError>;
    /// Deletes the deliveries that ended (delivered or failed) and were created before
    /// `created_before` (Unix milliseconds), with their attempts; pending and sending ones are
    /// never deleted. Returns how many deliveries were deleted.
    fn prune_ended_deliveries(&mut self, created_before: i64) -> Result<u64, StoreError>;
}

/// The metadata side of search: which database files satisfy a filter's FT conditions (see
/// [`crate::model::search`] for what each kind of term means).
pub trait SearchTx: SearchSteps {
    /// The company's indexed (completed or failed) database files that satisfy every term, in
    /// [`Candidate::name_order`].
    fn matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError>;
    /// [`SearchTx::matching_database_files`] without the indexes: every file of the company read
    /// and checked, term by term. The same files in the same order: what the indexes are measured
    /// against (the benchmarks) and checked against (the tests).
    fn matching_database_files_by_scanning(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<Candidate>, StoreError>;
    /// The first `limit` of [`SearchTx::matching_database_files`], in its order, and how many
    /// files match in all (a search without inputs shows a page of a filter's files and counts
    /// them). By default the whole list is read and cut.
    fn first_matching_database_files(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        limit: usize,
    ) -> Result<(Vec<Candidate>, usize), StoreError> {
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
    ) -> Result<HashSet<String>, StoreError> {
        if uids.is_empty() {
            return Ok(HashSet::new());
        }
        self.still_matching_among(company_id, terms, uids)
    }
    /// The UIDs of at most `cap` of the company's indexed database files with views that satisfy
    /// every term, in no particular order: enough to tell a selective filter (all of them listed)
    /// from a broad one, for a visual search (a file without views is never among its results).
    fn some_matching_files_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<Vec<String>, StoreError>;
    /// The UIDs of the company's indexed database files with views that satisfy every term (in no
    /// particular order).
    fn matching_uids_with_views(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
    ) -> Result<Vec<String>, StoreError>;
    /// True when the filter is one condition (an exact or prefix attribute term, or one free-text
    /// word the term index can list) that more than `cap` files hold, counted through an index: a
    /// hint that listing the matching files would be long, which a graph search then checks on its
    /// candidates instead. False for anything else.
    fn one_condition_held_by_more_than(
        &mut self,
        company_id: &str,
        terms: &[FilterTerm],
        cap: usize,
    ) -> Result<bool, StoreError> {
        let [term] = terms else {
            return Ok(false);
        };
        let enough = i64::try_from(cap).unwrap_or(i64::MAX).saturating_add(1);
        self.one_condition_held_by_at_least(company_id, term, enough)
    }
    /// The store's metadata generation: it moves with every committed change to what a filter
    /// selects (records, attribute values, views), by any process, so a filter resolved at one
    /// value still holds while the value is unchanged.
    fn metadata_generation(&mut self) -> Result<i64, StoreError>;
}

/// The Library's listing of a company's database files (`GET /api/Files`, see
/// [`crate::model::library`]).
pub trait LibraryTx {
    /// One page of the company's database files under `listing`'s conditions, newest upload
    /// first, then the later record.
    fn list_library_page(
        &mut self,
        company_id: &str,
        listing: &Listing<'_>,
    ) -> Result<ListedPage, StoreError>;
}

/// What the visual index is loaded from and kept in step with: the stored views of every company's
/// visually searched files (indexed database files with views) and the journal of changes to them
/// (see [`crate::model::visual`]).
pub trait VisualTx: FilesTx {
    /// The last journal position (0 when nothing was ever journalled).
    fn visual_position(&mut self) -> Result<i64, StoreError>;
    /// The position up to which the journal was forgotten (by age or past what every saved graph
    /// holds). A reader further behind must load its index again.
    fn visual_trimmed_through(&mut self) -> Result<i64, StoreError>;
    /// The files changed after journal position `after`, each once per company.
    fn visual_changes_since(&mut self, after: i64) -> Result<Vec<VisualChange>, StoreError>;
    /// A file's company when it is searched visually (an indexed database file); `None`
    /// otherwise (deleted, a search input, not indexed).
    fn searched_company(&mut self, uid: &str) -> Result<Option<String>, StoreError>;
    /// A file's company and stored views when it is searched visually; `None` otherwise (deleted,
    /// a search input, not indexed, no views).
    fn searched_views(&mut self, uid: &str) -> Result<Option<CompanyViews>, StoreError> {
        let Some(company) = self.searched_company(uid)? else {
            return Ok(None);
        };
        let views = self.views_of(uid)?;
        Ok((!views.is_empty()).then_some((company, views)))
    }
    /// How many views each company's visually searched files have, counted up to `at_most` (a
    /// company with more says `at_most`; at least 1, so every company with views is listed);
    /// companies with none are left out. A start only needs to know whether a company has reached
    /// the graph's threshold: counting all 18 million views of a 100,000-part library took 26 s
    /// from a cold disk (docs/PERFORMANCE.md).
    fn visual_view_counts(&mut self, at_most: usize) -> Result<Vec<(String, usize)>, StoreError>;
    /// Hands `each` every visually searched file of the company with its stored views, file by
    /// file, ordered by UID, without holding them all in memory, until it breaks.
    fn for_each_searched_file(
        &mut self,
        company: &str,
        each: &mut EachSearchedFile<'_>,
    ) -> Result<(), StoreError>;
    /// Forgets the journal up to and including `position` (what every saved graph holds already).
    /// Returns how many changes went.
    fn forget_visual_changes_through(&mut self, position: i64) -> Result<u64, StoreError>;
    /// Forgets the journal's changes older than `seconds` and records up to where (when nodes
    /// share the store, and catch up on its journal); nothing when one process owns the store,
    /// whose journal is forgotten only past what its saved graphs hold. Returns how many went.
    fn forget_visual_changes_older_than(&mut self, seconds: i64) -> Result<u64, StoreError>;
    /// True when the database keeps the views' vectors in an approximate index of its own
    /// (PostgreSQL with pgvector); nodes then ask it for candidates instead of building graphs.
    /// False unless an engine says so.
    fn has_view_vector_index(&mut self) -> Result<bool, StoreError> {
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
    ) -> Result<Option<Vec<String>>, StoreError> {
        Ok(None)
    }
}

/// Parent/child relations between files (see [`crate::model::relations`]): a `.zip` bundle's
/// entries, an assembly's components. Both files are of one company; a relation goes when either
/// file is deleted.
pub trait RelationsTx {
    /// Replaces the children of `parent_uid` with `children`, in that order (positions from 0).
    fn replace_children(
        &mut self,
        parent_uid: &str,
        children: &[NewRelation],
    ) -> Result<(), StoreError>;
    /// The children of `parent_uid`, in their order.
    fn children_of(&mut self, parent_uid: &str) -> Result<Vec<Relation>, StoreError>;
    /// The relations naming `child_uid` as a child, by parent UID then position.
    fn parents_of(&mut self, child_uid: &str) -> Result<Vec<Relation>, StoreError>;
    /// How many relations each of `uids` has as the parent and as the child (files without any
    /// are left out): a page of search results or Library files says so without listing them.
    fn relation_counts(
        &mut self,
        uids: &[String],
    ) -> Result<HashMap<String, RelationCount>, StoreError>;
}

/// Candidate duplicates (see [`crate::model::pairs`]): each database file's pairs as its ranking
/// found them, and a mark that they are computed, by which version of the pairing. A pair goes when
/// either file is deleted; "indexed" below is a completed company database file.
pub trait PairsTx {
    /// Replaces the pairs `uid` (of `company_id`) found with `pairs` (each with `file_uid` = `uid`)
    /// and marks it paired at `version`. Pairs other files found naming it stay.
    fn save_pairs(
        &mut self,
        uid: &str,
        company_id: &str,
        version: i64,
        pairs: &[FilePair],
    ) -> Result<(), StoreError>;
    /// Forgets every pair naming `uid` (either side) and its mark: its views changed.
    fn forget_pairs(&mut self, uid: &str) -> Result<(), StoreError>;
    /// The pairs of `company_id` scoring at least `min_score` between two indexed files.
    fn pairs_of_company(
        &mut self,
        company_id: &str,
        min_score: f32,
    ) -> Result<Vec<FilePair>, StoreError>;
    /// How many indexed files of `company_id` are paired at `version`.
    fn paired_file_count(&mut self, company_id: &str, version: i64) -> Result<u64, StoreError>;
    /// Up to `limit` indexed files with views and not text-only, of any company, not paired at
    /// `version`, their UIDs after `after` in order: the backfill's next batch.
    fn unpaired_files(
        &mut self,
        version: i64,
        after: &str,
        limit: usize,
    ) -> Result<Vec<String>, StoreError>;
    /// How many files [`PairsTx::unpaired_files`] would go through from the start.
    fn unpaired_file_count(&mut self, version: i64) -> Result<u64, StoreError>;
}

/// One transaction of the store, whichever engine holds it.
pub trait StoreTx:
    AccountsTx
    + FilesTx
    + JobsTx
    + AttributesTx
    + CategoriesTx
    + CallbacksTx
    + SearchTx
    + LibraryTx
    + VisualTx
    + RelationsTx
    + PairsTx
{
    /// The engine's name, for messages (`SQLite`, `PostgreSQL`).
    fn engine(&self) -> &'static str;
    /// The database's schema version and the one this program writes (equal when current).
    fn schema_versions(&mut self) -> Result<(i64, i64), StoreError>;
    /// Writes `files` as the service saves each indexed upload (record, saved attributes, views,
    /// extracted names), stamped `now`, in the order given: a bulk load's batch. By default file
    /// by file through the steps above; PostgreSQL writes the new ones set-based, a few
    /// statements for the whole batch, with the same result (`postgres/bulk_records.rs`), and
    /// refuses more than 10,000 files a call.
    fn write_loaded_files(&mut self, files: &[LoadedFile], now: &str) -> Result<(), StoreError> {
        for file in files {
            write_loaded_file(self, file, now)?;
        }
        Ok(())
    }
}

/// Writes one [`LoadedFile`] as an upload indexed during the call: the record, its saved
/// attributes, then its indexing outcome.
pub(crate) fn write_loaded_file<T: StoreTx + ?Sized>(
    tx: &mut T,
    file: &LoadedFile,
    now: &str,
) -> Result<(), StoreError> {
    let content = &file.content;
    let revision = tx.upsert_file(content, now)?;
    if !file.attributes.is_empty() {
        tx.replace_attributes(&content.company_id, &content.uid, &file.attributes)?;
    }
    tx.save_indexing(&content.uid, revision, Some(&file.indexed), now)?;
    Ok(())
}
