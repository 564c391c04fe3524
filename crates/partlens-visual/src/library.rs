//! The service's visual index over all companies: each company is searched by the exact scan while it
//! is small and by its approximate graph from [`VisualSettings::ann_from_views`] views on.
//!
//! A company that reaches the threshold keeps the exact scan while its graph is built in the
//! background ([`LibraryMode::Building`]); the graph then catches up with the changes made meanwhile
//! (from the journal) and takes over. A company never goes back to the exact scan while the service
//! runs. Graphs are saved beside the database ([`super::snapshot`]) once enough changes have
//! collected since the last save, and when the service stops.
//!
//! This type only holds the state and chooses; `keeper.rs`'s [`super::VisualKeeper`] does the building,
//! loading and saving with the store.

use std::collections::{HashMap, HashSet};

use super::ann::{AnnIndex, AnnSearch, AnnSettings};
use super::exact::ExactScan;
use super::{FileFilter, FilterForm, Ranked, StoredViews, ViewSearch, store_vectors};
use crate::error::VisualError;
use partlens_engine::{ViewDescriptor, VisualIndex};

/// Views from which a company is searched through its graph unless the service is told otherwise.
/// Below, the exact scan answers within about 10 ms for one query view (2 ms at 10,000 views, 20 ms
/// at 100,000) and is exact by definition; from about 50,000 views on, three query views and broad
/// filters take it past 20 ms while the graph answers in a fraction of that with the same top ten
/// (recall@10 1.000 at 100,000 views, 0.98 or more at 1,000,000: docs/PERFORMANCE.md, "Visual search at scale").
pub const DEFAULT_ANN_FROM_VIEWS: usize = 50_000;

/// How the service's visual index behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VisualSettings {
    /// A company is searched through an approximate graph from this many views on (`usize::MAX`:
    /// never; 0: always).
    pub ann_from_views: usize,
    /// How graphs are built and searched.
    pub ann: AnnSettings,
    /// A graph is saved again once this many of its files changed since the last save (or a
    /// twentieth of its views, whichever is more).
    pub save_after_changes: usize,
    /// Threads a graph is built on.
    pub build_threads: usize,
    /// A company searched through the store's vector index (`store_vectors.rs`) takes a query of
    /// several views there only from this many views on; below, the exact scan answers it (0:
    /// always the index). Each view of such a query and their mean are walks of the index, while
    /// the exact scan costs in the company's views.
    pub several_through_index_from_views: usize,
}

/// Views from which a query of several views goes through the store's vector index: three views
/// through PostgreSQL's index against the exact scan were 36.3 against 29.8 ms p50 at 100,000 views
/// and 41.3 against 60.7 ms at 200,000 (`visual_scale -- postgres`, 7 Dec 2026), so they cross
/// at about 125,000.
pub const DEFAULT_SEVERAL_THROUGH_INDEX_FROM_VIEWS: usize = 125_000;

impl Default for VisualSettings {
    fn default() -> Self {
        Self {
            ann_from_views: DEFAULT_ANN_FROM_VIEWS,
            ann: AnnSettings::default(),
            save_after_changes: 1_000,
            build_threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            several_through_index_from_views: DEFAULT_SEVERAL_THROUGH_INDEX_FROM_VIEWS,
        }
    }
}

/// How a company is searched at the moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LibraryMode {
    /// By the exact scan.
    Exact,
    /// By the exact scan while its graph is built.
    Building,
    /// By its approximate graph.
    Approximate,
}

/// Every company's visual index.
#[derive(Debug)]
pub struct VisualLibrary {
    settings: VisualSettings,
    exact: ExactScan,
    ann: AnnSearch,
    building: HashSet<String>,
    /// Files changed since a graph was last saved, per company with a graph.
    unsaved: HashMap<String, usize>,
    /// The journal position of each company's saved graph.
    saved_at: HashMap<String, i64>,
    /// The store keeps the views' vectors in an index of its own (PostgreSQL with pgvector): a
    /// company past the threshold is searched through it ([`super::store_vectors`]), no graph is
    /// built.
    store_vectors: bool,
}

impl VisualLibrary {
    /// An empty library.
    pub fn new(settings: VisualSettings) -> Self {
        Self {
            settings,
            exact: ExactScan::new(),
            ann: AnnSearch::new(settings.ann),
            building: HashSet::new(),
            unsaved: HashMap::new(),
            saved_at: HashMap::new(),
            store_vectors: false,
        }
    }

    /// Searches companies past the threshold through the store's vector index instead of graphs
    /// (when `on`; see [`super::store_vectors`]).
    pub fn use_store_vectors(&mut self, on: bool) {
        self.store_vectors = on;
    }

    /// True when companies past the threshold are searched through the store's vector index.
    pub fn uses_store_vectors(&self) -> bool {
        self.store_vectors
    }

    /// The company's exact index when it is searched through the store's vector index.
    fn on_store_vectors(&self, company: &str) -> Option<&VisualIndex> {
        if !self.store_vectors || self.on_graph(company) {
            return None;
        }
        self.exact
            .company(company)
            .filter(|index| self.wants_graph(index.view_count()))
    }

    /// The company's best `limit` files and its matches through the store's vector index, when the
    /// company is searched there and the search is one that path takes (`store_vectors.rs`);
    /// `None`: its path answers.
    fn through_store_vectors(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<Option<(Ranked, usize)>, VisualError> {
        match self.on_store_vectors(company) {
            Some(index) => store_vectors::rank_and_count(
                index,
                company,
                query,
                filter,
                limit,
                stored,
                &self.settings,
            ),
            None => Ok(None),
        }
    }

    /// The settings.
    pub fn settings(&self) -> VisualSettings {
        self.settings
    }

    /// True when the company is searched through its graph.
    fn on_graph(&self, company: &str) -> bool {
        self.ann.graphs().company(company).is_some()
    }

    /// The path the company is searched by: its graph, or the exact scan.
    fn path_of(&self, company: &str) -> &dyn ViewSearch {
        if self.on_graph(company) {
            &self.ann
        } else {
            &self.exact
        }
    }

    /// How the company is searched.
    pub fn mode(&self, company: &str) -> LibraryMode {
        if self.on_graph(company) {
            LibraryMode::Approximate
        } else if self.building.contains(company) {
            LibraryMode::Building
        } else {
            LibraryMode::Exact
        }
    }

    /// The exact scan (companies not on a graph).
    pub fn exact(&self) -> &ExactScan {
        &self.exact
    }

    /// The approximate search (companies on a graph).
    pub fn approximate(&self) -> &AnnSearch {
        &self.ann
    }

    /// True when a company of this many views belongs on a graph.
    pub fn wants_graph(&self, views: usize) -> bool {
        views >= self.settings.ann_from_views
    }

    /// Companies on the exact scan that have grown to the threshold and have no graph being built.
    pub fn due_for_graph(&self) -> Vec<String> {
        if self.store_vectors {
            return Vec::new();
        }
        self.exact
            .companies()
            .filter(|company| !self.building.contains(*company))
            .filter(|company| self.wants_graph(self.exact.view_count(company)))
            .map(str::to_owned)
            .collect()
    }

    /// Marks a company's graph as being built (the exact scan answers meanwhile).
    pub fn start_building(&mut self, company: &str) {
        self.building.insert(company.to_owned());
    }

    /// Gives up a build (it failed): the company stays on the exact scan.
    pub fn abandon_building(&mut self, company: &str) {
        self.building.remove(company);
    }

    /// Puts a company's exact index in place.
    pub fn set_exact(&mut self, company: &str, index: VisualIndex) {
        self.exact.set_company(company, index);
    }

    /// Puts a company's graph in place and drops its exact index. `saved_at` is the journal position
    /// of the snapshot it was loaded from (`None` for a graph not saved yet); `unsaved` the files
    /// changed since.
    pub fn install_graph(
        &mut self,
        company: &str,
        index: AnnIndex,
        saved_at: Option<i64>,
        unsaved: usize,
    ) {
        self.exact.take_company(company);
        self.building.remove(company);
        self.ann.set_company(company, index);
        self.unsaved.insert(company.to_owned(), unsaved);
        match saved_at {
            Some(position) => {
                self.saved_at.insert(company.to_owned(), position);
            }
            None => {
                self.saved_at.remove(company);
            }
        }
    }

    /// Companies on a graph whose changes since the last save call for a save.
    pub fn due_for_saving(&self) -> Vec<String> {
        self.ann
            .graphs()
            .companies()
            .filter(|company| {
                let unsaved = self.unsaved.get(*company).copied().unwrap_or(0);
                let never_saved = !self.saved_at.contains_key(*company);
                let threshold = self
                    .settings
                    .save_after_changes
                    .max(self.ann.view_count(company) / 20)
                    .max(1);
                never_saved || unsaved >= threshold
            })
            .map(str::to_owned)
            .collect()
    }

    /// Companies on a graph with any change since the last save (saved when the service stops).
    pub fn with_unsaved_changes(&self) -> Vec<String> {
        self.ann
            .graphs()
            .companies()
            .filter(|company| {
                !self.saved_at.contains_key(*company)
                    || self.unsaved.get(*company).copied().unwrap_or(0) > 0
            })
            .map(str::to_owned)
            .collect()
    }

    /// Records that a company's graph was saved at journal position `position`.
    pub fn mark_saved(&mut self, company: &str, position: i64) {
        self.saved_at.insert(company.to_owned(), position);
        self.unsaved.insert(company.to_owned(), 0);
    }

    /// The journal position up to which no graph needs the journal any more: the oldest saved
    /// graph's, or `up_to` when every graph is saved at or after it (or there is no graph). `None`
    /// while a graph is unsaved or being built (it needs the journal from its start).
    pub fn journal_needed_after(&self, up_to: i64) -> Option<i64> {
        if !self.building.is_empty() {
            return None;
        }
        let mut oldest = up_to;
        for company in self.ann.graphs().companies() {
            oldest = oldest.min(*self.saved_at.get(company)?);
        }
        Some(oldest)
    }

    fn note_change(&mut self, company: &str) {
        if let Some(unsaved) = self.unsaved.get_mut(company) {
            *unsaved += 1;
        }
    }
}

impl ViewSearch for VisualLibrary {
    fn insert(
        &mut self,
        company: &str,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<(), VisualError> {
        if self.on_graph(company) {
            self.note_change(company);
            self.ann.insert(company, uid, views)
        } else {
            self.exact.insert(company, uid, views)
        }
    }

    fn remove(&mut self, company: &str, uid: &str) -> Result<(), VisualError> {
        if self.on_graph(company) {
            self.note_change(company);
            self.ann.remove(company, uid)
        } else {
            self.exact.remove(company, uid)
        }
    }

    fn rank(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<Ranked, VisualError> {
        if let Some((ranked, _)) =
            self.through_store_vectors(company, query, filter, limit, stored)?
        {
            return Ok(ranked);
        }
        self.path_of(company)
            .rank(company, query, filter, limit, stored)
    }

    fn filter_form(&self, company: &str) -> FilterForm {
        self.path_of(company).filter_form(company)
    }

    fn rank_and_count(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<(Ranked, usize), VisualError> {
        if let Some(found) = self.through_store_vectors(company, query, filter, limit, stored)? {
            return Ok(found);
        }
        self.path_of(company)
            .rank_and_count(company, query, filter, limit, stored)
    }

    fn file_count(&self, company: &str) -> usize {
        self.ann.file_count(company) + self.exact.file_count(company)
    }

    fn view_count(&self, company: &str) -> usize {
        self.ann.view_count(company) + self.exact.view_count(company)
    }

    fn heap_bytes(&self) -> usize {
        self.ann.heap_bytes() + self.exact.heap_bytes()
    }
}
