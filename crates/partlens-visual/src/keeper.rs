//! Keeps the service's [`VisualLibrary`] in step with the store: loads it at start (exact indexes from
//! the stored views, graphs from their snapshots brought up to date from the journal), builds graphs
//! in the background for companies that grew past the threshold, saves graphs after enough changes
//! and at shutdown, and gives searches the stored descriptors they re-rank with.
//!
//! Every change to the library happens under the store's writer (inside a write transaction), so a
//! save made while holding the writer sees a library that matches one journal position exactly.
//!
//! On PostgreSQL several nodes write into one database, so a node's library is a cache of what the
//! database holds: it is loaded from the database at start ([`VisualKeeper::recover_shared_blocking`])
//! and, before a search ranks with it, caught up on the database's visual journal
//! ([`VisualKeeper::current`]: one query when nothing changed), and by the maintenance round every
//! 30 s. No graph is saved there (a node keeps no state another needs): a company past the
//! threshold gets its graph built in the background after each start.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::ann::{AnnIndex, in_chunks};
use super::graph_views::GraphViews;
use super::library::{LibraryMode, VisualLibrary, VisualSettings};
use super::quantise::Quantiser;
use super::snapshot::{self, SNAPSHOT_FOLDER};
use super::{StoredViews, ViewSearch};
use crate::error::VisualError;
use partlens_engine::{ViewDescriptor, VisualIndex};
use partlens_store::model::visual::EachSearchedFile;
use partlens_store::{Store, StoreTx};

/// Files a background build reads and inserts at a time (bounds its memory).
const BUILD_BATCH_FILES: usize = 20_000;
/// Views a quantiser is fitted to when a graph is built.
const FIT_SAMPLE_VIEWS: usize = 50_000;
/// How long the PostgreSQL visual journal keeps a change (seconds): far longer than a maintenance
/// round, so a running node never misses one; a node further behind loads its index again.
const SHARED_JOURNAL_KEPT_SECS: i64 = 3600;

/// Stored views read at once from which they are decoded on several threads.
const PARALLEL_DECODE_FROM_VIEWS: usize = 2_048;

/// Decodes stored descriptors; a damaged one leaves the whole file out (logged), as the exact index
/// always did.
fn decode(uid: &str, stored: &[Vec<u8>]) -> Option<Vec<ViewDescriptor>> {
    match read_views(stored) {
        Ok(views) => Some(views),
        Err(error) => {
            tracing::warn!(uid, %error, "stored views skipped");
            None
        }
    }
}

/// Decodes stored descriptors, or says what is wrong with the first damaged one.
fn read_views(stored: &[Vec<u8>]) -> Result<Vec<ViewDescriptor>, String> {
    stored
        .iter()
        .map(|bytes| ViewDescriptor::from_bytes(bytes))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| error.to_string())
}

/// Files whose stored views could not be read back: (UID, what was wrong).
pub type DamagedFiles = Vec<(String, String)>;

/// A company's exact index from its files' stored views as the store hands them over; a file
/// whose views cannot be read goes to `damaged` instead.
fn exact_index(
    tx: &mut dyn StoreTx,
    company: &str,
    damaged: &mut DamagedFiles,
) -> Result<VisualIndex, VisualError> {
    let mut index = VisualIndex::new();
    let each: &mut EachSearchedFile<'_> = &mut |uid, stored| {
        match read_views(&stored) {
            Ok(views) => index.insert(uid, views),
            Err(error) => damaged.push((uid, error)),
        }
        ControlFlow::Continue(())
    };
    tx.for_each_searched_file(company, each)?;
    index.shrink_to_fit();
    Ok(index)
}

/// The stored descriptors of files, read through one store transaction of either engine (for
/// re-ranking).
pub struct StoreViews<'a, 'b> {
    /// The transaction to read with (behind a cell: the views are asked for through `&self`).
    pub tx: std::cell::RefCell<&'a mut (dyn StoreTx + 'b)>,
}

impl StoreViews<'_, '_> {
    /// The stored views `read` gives for each file of `uids` that has some, decoded (on the cores
    /// when there are many: a model's 163 views take about as long to decode as to read).
    fn read_decoded(
        &self,
        uids: &[&String],
        mut read: impl FnMut(&mut dyn StoreTx, usize) -> Result<Vec<Vec<u8>>, VisualError>,
    ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
        let mut tx = self
            .tx
            .try_borrow_mut()
            .map_err(|_| VisualError::Internal("the stored views are already being read".into()))?;
        let mut read_views = Vec::with_capacity(uids.len());
        let mut views = 0;
        for (at, uid) in uids.iter().enumerate() {
            let stored = read(&mut **tx, at)?;
            if !stored.is_empty() {
                views += stored.len();
                read_views.push((*uid, stored));
            }
        }
        let decoded = in_chunks(&read_views, views >= PARALLEL_DECODE_FROM_VIEWS, |chunk| {
            chunk
                .iter()
                .filter_map(|(uid, stored)| {
                    decode(uid, stored).map(|views| ((*uid).clone(), views))
                })
                .collect::<Vec<_>>()
        });
        Ok(decoded.concat())
    }
}

impl StoredViews for StoreViews<'_, '_> {
    fn views_of(&self, uids: &[String]) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
        let asked: Vec<&String> = uids.iter().collect();
        self.read_decoded(&asked, |tx, at| Ok(tx.views_of(&uids[at])?))
    }

    fn views_at(
        &self,
        wanted: &[(String, Vec<u32>)],
    ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
        let asked: Vec<&String> = wanted.iter().map(|(uid, _)| uid).collect();
        self.read_decoded(&asked, |tx, at| {
            let (uid, positions) = &wanted[at];
            Ok(tx.views_at(uid, positions)?)
        })
    }

    fn nearest_files(
        &self,
        company: &str,
        vectors: &[Vec<f32>],
        views_each: usize,
    ) -> Result<Option<Vec<String>>, VisualError> {
        let mut tx = self
            .tx
            .try_borrow_mut()
            .map_err(|_| VisualError::Internal("the stored views are already being read".into()))?;
        Ok(tx.nearest_view_files(company, vectors, views_each)?)
    }
}

/// The service's visual index with what keeps it in step with the store. Cheap to clone.
#[derive(Clone)]
pub struct VisualKeeper {
    library: Arc<RwLock<VisualLibrary>>,
    store: Store,
    folder: PathBuf,
    /// Companies with a build or save under way.
    busy: Arc<Mutex<HashSet<String>>>,
    /// On PostgreSQL, the journal position the library is caught up to; held while catching up.
    seen: Arc<Mutex<i64>>,
}

impl VisualKeeper {
    /// A keeper of an empty library over the store of `data_dir`.
    pub fn new(store: Store, data_dir: &std::path::Path, settings: VisualSettings) -> Self {
        Self {
            library: Arc::new(RwLock::new(VisualLibrary::new(settings))),
            store,
            folder: data_dir.join(SNAPSHOT_FOLDER),
            busy: Arc::new(Mutex::new(HashSet::new())),
            seen: Arc::new(Mutex::new(0)),
        }
    }

    /// The library for reading (searches).
    pub fn read(&self) -> Result<RwLockReadGuard<'_, VisualLibrary>, VisualError> {
        self.library
            .read()
            .map_err(|_| VisualError::Internal("the visual index is poisoned".into()))
    }

    /// The library for changing; call it only inside a store write transaction.
    pub fn write(&self) -> Result<RwLockWriteGuard<'_, VisualLibrary>, VisualError> {
        self.library
            .write()
            .map_err(|_| VisualError::Internal("the visual index is poisoned".into()))
    }

    /// The library for a search in transaction `tx`: on PostgreSQL first brought up to date with
    /// what every node changed ([`VisualKeeper::catch_up`]); on SQLite [`VisualKeeper::read`].
    pub fn current(
        &self,
        tx: &mut dyn StoreTx,
    ) -> Result<RwLockReadGuard<'_, VisualLibrary>, VisualError> {
        self.catch_up(tx)?;
        self.read()
    }

    /// On PostgreSQL, applies the visual journal's changes after the position the library holds
    /// (views indexed, files deleted or indexed again, through any node), as `tx` sees them: one
    /// query when nothing changed. A library behind what the journal still keeps is loaded again.
    /// Nothing on SQLite, whose one process changes its library as it writes.
    pub fn catch_up(&self, tx: &mut dyn StoreTx) -> Result<(), VisualError> {
        if !self.store.shared_by_nodes() {
            return Ok(());
        }
        let mut seen = self
            .seen
            .lock()
            .map_err(|_| VisualError::Internal("the visual journal position is poisoned".into()))?;
        let latest = tx.visual_position()?;
        // A snapshot older than the library's (a search that began earlier) has nothing new.
        if latest <= *seen {
            return Ok(());
        }
        if *seen < tx.visual_trimmed_through()? {
            tracing::info!(
                seen = *seen,
                latest,
                "the visual index is behind the journal kept; loading it again"
            );
            let (_, damaged) = self.load_shared(tx, &mut seen)?;
            for (uid, error) in &damaged {
                tracing::warn!(uid, error, "stored views skipped");
            }
            return Ok(());
        }
        // Read first, then change the library in one short hold of its lock.
        let mut changes = Vec::new();
        for (uid, company) in tx.visual_changes_since(*seen)? {
            let now = tx.searched_views(&uid)?;
            changes.push((uid, company, now));
        }
        let mut library = self.write()?;
        for (uid, company, now) in &changes {
            match now {
                Some((owner, stored)) => {
                    if let Some(company) = company
                        && company != owner
                    {
                        library.remove(company, uid)?;
                    }
                    match read_views(stored) {
                        Ok(views) => library.insert(owner, uid, &views)?,
                        Err(error) => {
                            tracing::warn!(uid, error, "stored views skipped");
                            library.remove(owner, uid)?;
                        }
                    }
                }
                None => {
                    if let Some(company) = company {
                        library.remove(company, uid)?;
                    }
                }
            }
        }
        drop(library);
        tracing::debug!(
            from = *seen,
            to = latest,
            files = changes.len(),
            "visual index caught up"
        );
        *seen = latest;
        Ok(())
    }

    /// On PostgreSQL at start: loads every company's exact index from the database in the snapshot
    /// of `tx`, which the library is then caught up to (companies past the threshold get their
    /// graph built in the background). Returns how many files are indexed and the files whose
    /// stored views are damaged (left out; the caller has them indexed again).
    pub fn recover_shared_blocking(
        &self,
        tx: &mut dyn StoreTx,
    ) -> Result<(usize, DamagedFiles), VisualError> {
        let mut seen = self
            .seen
            .lock()
            .map_err(|_| VisualError::Internal("the visual journal position is poisoned".into()))?;
        self.load_shared(tx, &mut seen)
    }

    /// Loads the whole library from `tx` (exact indexes only) and sets `seen` to the journal
    /// position it matches.
    fn load_shared(
        &self,
        tx: &mut dyn StoreTx,
        seen: &mut i64,
    ) -> Result<(usize, DamagedFiles), VisualError> {
        let position = tx.visual_position()?;
        let settings = self.read()?.settings();
        let mut library = VisualLibrary::new(settings);
        // The database's vector index answers for large companies: no graph is built here.
        library.use_store_vectors(tx.has_view_vector_index()?);
        let mut files = 0;
        let mut damaged = Vec::new();
        for (company, _) in tx.visual_view_counts(1)? {
            let index = exact_index(tx, &company, &mut damaged)?;
            files += index.len();
            library.set_exact(&company, index);
        }
        *self.write()? = library;
        *seen = position;
        Ok((files, damaged))
    }

    /// On PostgreSQL, catches the library up in a read transaction of its own and forgets the
    /// journal's old changes (the maintenance round). Errors are logged.
    fn keep_up_shared_blocking(&self) {
        if let Err(error) = self.store.read_tx_blocking(|tx| self.catch_up(tx)) {
            tracing::error!(%error, "catching the visual index up failed");
        }
        let forgotten = self
            .store
            .write_tx_blocking(|tx| tx.forget_visual_changes_older_than(SHARED_JOURNAL_KEPT_SECS));
        if let Err(error) = forgotten {
            tracing::error!(%error, "forgetting old visual journal changes failed");
        }
    }

    /// Where graphs are saved.
    pub fn snapshot_folder(&self) -> &std::path::Path {
        &self.folder
    }

    /// Loads the whole library from the store at start, in the transaction the store's sharing
    /// calls for: when nodes share it, from a read snapshot (every company's exact index, see
    /// [`VisualKeeper::recover_shared_blocking`]; not under the writer lock every node's writes wait
    /// for); otherwise under the writer ([`VisualKeeper::recover_saved`]), since the journal no
    /// saved graph needs is forgotten then. Returns how many files are indexed, and the files read
    /// from the store whose views are damaged (left out; the caller has them indexed again).
    pub fn recover_blocking(&self) -> Result<(usize, DamagedFiles), VisualError> {
        if self.store.shared_by_nodes() {
            self.store
                .read_tx_blocking(|tx| self.recover_shared_blocking(tx))
        } else {
            self.store.write_tx_blocking(|tx| self.recover_saved(tx))
        }
    }

    /// Loads the whole library from `tx` (a write transaction of the process that owns the
    /// store): companies below the threshold get their exact index; the others their saved graph
    /// brought up to date, or, when there is no usable graph, their exact index and a background
    /// build (see [`VisualKeeper::maintain_blocking`]).
    fn recover_saved(&self, tx: &mut dyn StoreTx) -> Result<(usize, DamagedFiles), VisualError> {
        let settings = self.read()?.settings();
        let mut library = VisualLibrary::new(settings);
        let mut files = 0;
        let mut damaged = Vec::new();
        // Counted only up to the graph's threshold: whether a company has reached it is all
        // that is needed here.
        for (company, views) in tx.visual_view_counts(settings.ann_from_views)? {
            if library.wants_graph(views) {
                match snapshot::load(&self.folder, &company) {
                    Ok(Some(saved))
                        if saved.index.settings().graph_directions
                            != settings.ann.graph_directions =>
                    {
                        // Built over another share of a model's views (`--graph-directions`
                        // changed): built again as the service is set up now.
                        tracing::info!(
                            company,
                            saved = saved.index.settings().graph_directions,
                            wanted = settings.ann.graph_directions,
                            "saved visual graph built over other directions; building it again"
                        );
                        snapshot::discard(&self.folder, &company)?;
                    }
                    Ok(Some(mut saved)) => {
                        // Searched as this service is set up, whatever the settings it was saved
                        // with (how it was built stays the saved graph's).
                        saved.index.set_search_settings(&settings.ann);
                        let changed = replay(
                            tx,
                            &company,
                            &mut saved.index,
                            saved.journal_position,
                            &mut damaged,
                        )?;
                        files += saved.index.file_count();
                        tracing::info!(
                            company,
                            views = saved.index.view_count(),
                            changed,
                            "visual graph loaded"
                        );
                        library.install_graph(
                            &company,
                            saved.index,
                            Some(saved.journal_position),
                            changed,
                        );
                        continue;
                    }
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(company, %error, "saved visual graph not used; building it again");
                        snapshot::discard(&self.folder, &company)?;
                    }
                }
            }
            // A graph saved while the company had more views (or under another threshold) would miss
            // the changes the exact scan sees from now on: it goes.
            if !library.wants_graph(views) {
                snapshot::discard(&self.folder, &company)?;
            }
            let index = exact_index(tx, &company, &mut damaged)?;
            files += index.len();
            library.set_exact(&company, index);
        }
        let on_graphs: Vec<&str> = library.approximate().graphs().companies().collect();
        snapshot::discard_all_but(&self.folder, &on_graphs)?;
        // Nothing after the oldest saved graph is needed; with no graph nothing at all.
        if let Some(needed_after) = library.journal_needed_after(tx.visual_position()?) {
            tx.forget_visual_changes_through(needed_after)?;
        }
        *self.write()? = library;
        Ok((files, damaged))
    }

    /// Builds the graphs that are due and saves those with enough unsaved changes, one after the
    /// other on this thread. Errors are logged; the company stays as it was.
    pub fn maintain_blocking(&self) {
        let shared = self.store.shared_by_nodes();
        if shared {
            self.keep_up_shared_blocking();
        }
        let (builds, saves) = match self.read() {
            Ok(library) => (library.due_for_graph(), library.due_for_saving()),
            Err(_) => return,
        };
        for company in builds {
            if let Err(error) = self.build_blocking(&company) {
                tracing::error!(company, %error, "building the visual graph failed");
            }
        }
        if shared {
            return;
        }
        for company in saves {
            if let Err(error) = self.save_blocking(&company) {
                tracing::error!(company, %error, "saving the visual graph failed");
            }
        }
    }

    /// Saves every graph with unsaved changes (at shutdown).
    pub fn save_all_blocking(&self) {
        if self.store.shared_by_nodes() {
            return;
        }
        let companies = match self.read() {
            Ok(library) => library.with_unsaved_changes(),
            Err(_) => return,
        };
        for company in companies {
            if let Err(error) = self.save_blocking(&company) {
                tracing::error!(company, %error, "saving the visual graph failed");
            }
        }
    }

    /// Runs [`VisualKeeper::maintain_blocking`] at once and then every `interval` until `stop`.
    pub fn spawn_maintenance(
        &self,
        interval: Duration,
        stop: CancellationToken,
    ) -> tokio::task::JoinHandle<()> {
        let keeper = self.clone();
        tokio::spawn(async move {
            loop {
                let worker = keeper.clone();
                if let Err(error) =
                    tokio::task::spawn_blocking(move || worker.maintain_blocking()).await
                {
                    tracing::error!(%error, "visual index maintenance stopped unexpectedly");
                }
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(interval) => {}
                }
            }
        })
    }

    /// Starts a build or save in the background when a change made one due (called after changes,
    /// so a company that crossed the threshold does not wait for the next maintenance round).
    pub fn spawn_due_work(&self) {
        let due = match self.read() {
            Ok(library) => {
                !library.due_for_graph().is_empty()
                    || (!self.store.shared_by_nodes() && !library.due_for_saving().is_empty())
            }
            Err(_) => false,
        };
        let idle = self
            .busy
            .lock()
            .map(|busy| busy.is_empty())
            .unwrap_or(false);
        if due && idle {
            let keeper = self.clone();
            tokio::task::spawn_blocking(move || keeper.maintain_blocking());
        }
    }

    /// Claims a company for a build or save; false when one is already under way.
    fn claim(&self, company: &str) -> bool {
        self.busy
            .lock()
            .map(|mut busy| busy.insert(company.to_owned()))
            .unwrap_or(false)
    }

    fn release(&self, company: &str) {
        if let Ok(mut busy) = self.busy.lock() {
            busy.remove(company);
        }
    }

    /// Builds a company's graph from the store while the exact scan answers, brings it up to date
    /// with the changes made meanwhile, puts it in place and saves it.
    pub fn build_blocking(&self, company: &str) -> Result<(), VisualError> {
        if !self.claim(company) {
            return Ok(());
        }
        self.write()?.start_building(company);
        let built = self.build_graph(company);
        let installed = built.and_then(|(mut index, position)| {
            self.store.write_tx_blocking(|tx| {
                let mut damaged = Vec::new();
                let changed = replay(tx, company, &mut index, position, &mut damaged)?;
                for (uid, error) in &damaged {
                    tracing::warn!(uid, error, "stored views skipped");
                }
                let views = index.view_count();
                self.write()?.install_graph(company, index, None, changed);
                tracing::info!(company, views, changed, "visual graph built");
                Ok(())
            })
        });
        if installed.is_err()
            && let Ok(mut library) = self.write()
            && library.mode(company) == LibraryMode::Building
        {
            library.abandon_building(company);
        }
        self.release(company);
        installed?;
        self.save_blocking(company)
    }

    /// Reads the company's views in one read transaction and builds a graph of them; returns it
    /// with the journal position it matches.
    fn build_graph(&self, company: &str) -> Result<(AnnIndex, i64), VisualError> {
        let settings = self.read()?.settings();
        // One snapshot for the whole read (a read transaction of either engine).
        self.store.read_tx_blocking(|tx| {
            let position = tx.visual_position()?;
            // First pass: fit the quantiser to a sample of the views.
            let mut sample: Vec<ViewDescriptor> = Vec::new();
            let placement = GraphViews::new(settings.ann.graph_directions);
            let mut graph_views = 0;
            tx.for_each_searched_file(company, &mut |uid, stored| {
                graph_views += placement.in_graph(stored.len());
                if sample.len() < FIT_SAMPLE_VIEWS
                    && let Some(views) = decode(&uid, &stored)
                {
                    sample.extend(views);
                }
                ControlFlow::Continue(())
            })?;
            let quantiser = Quantiser::fitted(&sample)
                .ok_or_else(|| VisualError::Internal("no view to build a graph of".into()))?;
            drop(sample);
            let mut index = AnnIndex::new(quantiser, settings.ann, graph_views + graph_views / 4)?;
            // Second pass: insert a batch of files at a time on the build threads (stopping at the
            // first insert that fails).
            let mut batch: Vec<(String, Vec<ViewDescriptor>)> = Vec::new();
            let mut failed = None;
            tx.for_each_searched_file(company, &mut |uid, stored| {
                if let Some(views) = decode(&uid, &stored) {
                    batch.push((uid, views));
                }
                if batch.len() >= BUILD_BATCH_FILES {
                    if let Err(error) = index.insert_many(&batch, settings.build_threads) {
                        failed = Some(error);
                        return ControlFlow::Break(());
                    }
                    batch.clear();
                }
                ControlFlow::Continue(())
            })?;
            if let Some(error) = failed {
                return Err(error);
            }
            index.insert_many(&batch, settings.build_threads)?;
            Ok((index, position))
        })
    }

    /// Saves a company's graph while holding the store's writer, so that it matches the journal
    /// position it records; then forgets the journal no graph needs any more. Nothing is saved
    /// when nodes share the store (a node keeps no state another needs).
    pub fn save_blocking(&self, company: &str) -> Result<(), VisualError> {
        if self.store.shared_by_nodes() || !self.claim(company) {
            return Ok(());
        }
        let saved = self
            .store
            .write_tx_blocking(|tx| -> Result<(), VisualError> {
                let position = tx.visual_position()?;
                {
                    let library = self.read()?;
                    let Some(index) = library.approximate().graphs().company(company) else {
                        return Ok(());
                    };
                    snapshot::save(&self.folder, company, index, position)?;
                }
                let mut library = self.write()?;
                library.mark_saved(company, position);
                if let Some(needed_after) = library.journal_needed_after(position) {
                    tx.forget_visual_changes_through(needed_after)?;
                }
                Ok(())
            });
        self.release(company);
        saved
    }
}

/// Brings a company's graph up to date with the journal after `after`: every file changed since is
/// read again from the store and inserted or removed (a file with damaged views is removed and
/// noted in `damaged`). Returns how many files were looked at.
fn replay(
    tx: &mut dyn StoreTx,
    company: &str,
    index: &mut AnnIndex,
    after: i64,
    damaged: &mut DamagedFiles,
) -> Result<usize, VisualError> {
    let changed = tx.visual_changes_since(after)?;
    for (uid, _) in &changed {
        match tx.searched_views(uid)? {
            Some((owner, stored)) if owner == company => match read_views(&stored) {
                Ok(views) => index.insert(uid, &views)?,
                Err(error) => {
                    index.remove(uid)?;
                    damaged.push((uid.clone(), error));
                }
            },
            _ => index.remove(uid)?,
        }
    }
    Ok(changed.len())
}
