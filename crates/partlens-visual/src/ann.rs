//! The approximate search: per company an HNSW graph (`usearch`) over the half-precision features of
//! every view, which finds candidate files; the candidates are then scored exactly, so scores are
//! the exact scan's: from the graph's own vectors, which are the features exactly, where it holds
//! the file (`ann/held.rs`), else from their stored descriptors (`score_exactly`).
//!
//! How candidates are found for a query of n views: the graph is asked for the
//! [`AnnSettings::views_per_query_view`] nearest views of the query view when n = 1, and for the
//! [`AnnSettings::views_per_view_of_several`] nearest of each query view and of the views' mean
//! (the files best for the views together) when n > 1 (more when more results are wanted), the
//! searches on parallel threads; their files, together, are the candidates. Metadata filters:
//!
//! - a selective filter (the files are listed, [`FileFilter::Only`]): when the listed files have few
//!   views they are all compared with the query on their quantised vectors (no graph; from
//!   [`PARALLEL_FROM_VIEWS`] listed views on, split over up to [`MOST_LISTING_THREADS`] threads;
//!   many models kept beside the graph are ranked on a few of their views first, `ann/coarse.rs`);
//!   otherwise the graph search only admits views of listed files;
//! - a broad filter ([`FileFilter::Among`]): the graph's candidates that are not of its files are
//!   dropped before anything is estimated (a binary search each), and the searches ask for four
//!   times as many views while too few are left. (Asking for 1.25 or 1.5 times the views for a
//!   filter of 30 % of the files raised three-view recall@10 at 1M from 0.977-0.988 to 0.998-1.000
//!   but p95 from 13 to 21-24 ms: not done.)
//!
//! Then the shortlist: each candidate's score is estimated on the graph's own vectors (the engine's
//! pairing rules, `engine::views_score`, on half-precision similarities: within about 1e-4 of the
//! exact score), best bound first, in batches (the first a quarter larger than the results wanted,
//! then of [`ESTIMATE_BATCH`]) split over the cores, and only
//! the candidates within [`ESTIMATE_MARGIN`] of the `limit`th estimate are scored exactly (from
//! memory, or read from the store where the graph does not hold them); a model (a mesh) only on the views that decide its score, which its estimate
//! names (`Candidate`: each query view's best within the rounding). Reading descriptors
//! from SQLite was most of a search's time through the store (a three-view query has up to 1,200
//! candidate files; a model 163–211 views). A mesh query is not shortlisted: its D2 part is not in
//! the graph.
//!
//! Limits: keys are file GUIDs (anything else is refused); at most 65,535 views a file (more are
//! left out); at most [`SEARCH_THREADS`] searches at a time per company (more wait for a turn).
//! Memory a view: the `f16` vector (two bytes a feature, see `quantise.rs` for why not one) plus
//! the graph's links (about `8 × connectivity` bytes) plus the file table (about 40 bytes a file).

use std::collections::{HashMap, HashSet};
use std::sync::{Condvar, Mutex};

use half::slice::HalfFloatSliceExt;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use super::graph_views::GraphViews;
use super::per_company::PerCompany;
use super::quantise::Quantiser;
use super::{
    Candidate, FileFilter, FilterForm, GuidSet, Ranked, StoredViews, ViewSearch, best_first,
    score_exactly,
};
use crate::error::VisualError;
use partlens_engine::{Generation, ViewDescriptor, views_score};

mod coarse;
mod held;

/// Searches one graph runs at a time (each needs a reserved scratch context in `usearch`).
pub const SEARCH_THREADS: usize = 16;

/// Listed files from which a search finds their slots on several threads (10,000 listed files took
/// 4 ms on one thread at 1M views; estimating them, 16 ms, is split by [`PARALLEL_FROM_VIEWS`]).
pub(crate) const PARALLEL_FROM_FILES: usize = 2_048;

/// Views from which a search estimates files on several threads (reading a view's vector is about
/// 0.8 µs at 1M views; starting a thread, tens of µs).
const PARALLEL_FROM_VIEWS: usize = 1_024;

/// Candidates estimated at a time in the shortlist after its first batch (see
/// [`AnnIndex::shortlist`]): between batches the candidates that could no longer enter it are left
/// out. The first batch holds a quarter more than the results wanted, so that the floor is known
/// after it: with batches of 256, a one-view search at 10,000 models estimated every one of its
/// 130-250 candidates (163 views each, 7-23 ms, most of the search) where its bounds, tight for
/// one view, leave out half of them.
const ESTIMATE_BATCH: usize = 64;

/// Most threads one search splits its listed files over.
const MOST_LISTING_THREADS: usize = 4;

/// `work` done on `items` in consecutive chunks, one a thread (as many threads as the machine has
/// cores, at most [`MOST_LISTING_THREADS`]) when `parallel`, else on this thread; the chunks'
/// results in order.
pub(crate) fn in_chunks<T: Sync, R: Send>(
    items: &[T],
    parallel: bool,
    work: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let threads = if parallel && items.len() > 1 {
        std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(MOST_LISTING_THREADS)
    } else {
        1
    };
    if threads <= 1 {
        return vec![work(items)];
    }
    let work = &work;
    std::thread::scope(|scope| {
        let running: Vec<_> = items
            .chunks(items.len().div_ceil(threads))
            .map(|chunk| scope.spawn(move || work(chunk)))
            .collect();
        running
            .into_iter()
            .map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
/// Bits of a graph key that number a view within its file.
const VIEW_BITS: u32 = 16;
/// Most views of one file in the graph.
const MAX_VIEWS_PER_FILE: usize = (1 << VIEW_BITS) - 1;
/// Capacity reserved at least when a graph grows.
const MIN_CAPACITY: usize = 1024;
/// How far below the `limit`th best estimated score a candidate may lie and still be scored
/// exactly. An estimate differs from the exact score only by the rounding of the graph's `f16`
/// vectors: at most 1.0e-4 on the test library of pictures and meshes
/// (`estimated_scores_follow_the_exact_ones_within_the_margin` holds it under half of this
/// margin). When every estimate is within e of its exact score, the exact best `limit` all have
/// estimates within 2e of the `limit`th best estimate (the `limit` best estimated files all score
/// at least that estimate − e, so the `limit`th exact score does too, and a file scoring that
/// much is estimated at least e lower), so half of the margin is the rounding it allows for. (The
/// shortlist used to keep 20 more than `limit` besides: with the margin that only added reads; at
/// 1M views a three-view search read 162 files from the store for 50 results.)
const ESTIMATE_MARGIN: f32 = 0.0005;

/// At most this many times `limit`, plus [`SHORTLIST_CAP_EXTRA`], candidates are scored exactly for
/// being within the margin (the best estimates first). In a dense library hundreds of files lie within 0.001 of the 70th best
/// (at 1M synthetic views, three-view queries: 150 to 1,440 files, a file's descriptors read from
/// the store at about 20 µs); the ones left out differ from those kept by less than the estimates'
/// rounding.
const SHORTLIST_CAP_FACTOR: usize = 4;

/// Added to the cap on the shortlist: among near ties few results asked for need more room than
/// four times their number (on the test library, 10 results among files within 1e-5 of each other
/// needed more than 40; the cap was four times 30 when the shortlist kept 20 more besides).
const SHORTLIST_CAP_EXTRA: usize = 80;

/// How the graph is built and searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnnSettings {
    /// Links per node (HNSW `M`).
    pub connectivity: usize,
    /// Candidate list while inserting (HNSW `efConstruction`).
    pub expansion_add: usize,
    /// Candidate list while searching (HNSW `ef`); raised to the number of views asked for.
    pub expansion_search: usize,
    /// Nearest views asked for a query of one view, at least.
    pub views_per_query_view: usize,
    /// Nearest views asked for each view of a query of several views (and for their mean), at least.
    pub views_per_view_of_several: usize,
    /// Listed files with at most this many views together are compared with the query directly
    /// instead of through the graph (views kept beside the graph counted at a share of their
    /// cost: `ann/coarse.rs`).
    pub direct_views: usize,
    /// Of a database model's views from the engine's [`VIEW_DIRECTIONS`], those from this many
    /// (spread evenly) are in the graph with its picture's, and all of them kept beside it for the
    /// estimates (see `graph_views.rs`); [`VIEW_DIRECTIONS`] or more: every view in the graph.
    /// How the graph is built: a saved graph built with another value is built again at the start.
    ///
    /// [`VIEW_DIRECTIONS`]: partlens_engine::mesh::VIEW_DIRECTIONS
    pub graph_directions: usize,
}

impl Default for AnnSettings {
    fn default() -> Self {
        Self {
            connectivity: 16,
            expansion_add: 128,
            expansion_search: 400,
            // 100 held the exact top ten of one query view but not always of three (each query
            // view's own nearest views must also hold the files that are best together): recall@10
            // at 100k views 0.895 with 100, 0.998 with 300 (`benches/visual_scale.rs`).
            views_per_query_view: 300,
            // A file best for several views together need not be near any one of them (a model
            // whose views each match one query view fairly): at 1M synthetic views, recall@10 of
            // three-view queries 0.865 with 300, 0.963 with 500, 0.980 with 600, 0.997 with 800
            // (`benches/visual_scale.rs`, in memory).
            views_per_view_of_several: 800,
            // Comparing the listed files' vectors directly costs well under 1 µs a view (100k views,
            // 1 file in 50 listed: about 1 ms with the re-scoring), while a graph search that admits
            // few of its nodes wanders: at 1M views with 20,000 files (~40,000 views) listed it
            // took 106 ms p95 (the exact scan 60 ms) when this limit was 20,000.
            direct_views: 60_000,
            graph_directions: partlens_engine::mesh::VIEW_DIRECTIONS,
        }
    }
}

/// One file of a graph: its GUID, how many views it has there (0: the slot is free) and whether
/// they are a mesh's (they carry its D2 distribution, which changes how they are scored).
#[derive(Clone, Copy, Debug)]
struct Slot {
    uid: u128,
    views: u16,
    mesh: bool,
}

/// A free slot.
const FREE_SLOT: Slot = Slot {
    uid: 0,
    views: 0,
    mesh: false,
};

/// One file of a saved graph's table: GUID, slot, view count, whether it is a mesh.
pub(crate) type SavedFile = (u128, u32, u16, bool);

/// A counting gate: at most [`SEARCH_THREADS`] searches inside the graph at once.
#[derive(Debug, Default)]
struct SearchGate {
    running: Mutex<usize>,
    turn: Condvar,
}

impl SearchGate {
    fn enter(&self) -> SearchTurn<'_> {
        let mut running = self
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while *running >= SEARCH_THREADS {
            running = self
                .turn
                .wait(running)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *running += 1;
        SearchTurn { gate: self }
    }
}

struct SearchTurn<'a> {
    gate: &'a SearchGate,
}

impl Drop for SearchTurn<'_> {
    fn drop(&mut self) {
        let mut running = self
            .gate
            .running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *running -= 1;
        self.gate.turn.notify_one();
    }
}

/// One company's graph and file table.
pub struct AnnIndex {
    graph: Index,
    settings: AnnSettings,
    quantiser: Quantiser,
    slots: Vec<Slot>,
    free_slots: Vec<u32>,
    by_uid: HashMap<u128, u32>,
    /// Views of the indexed files, in the graph or beside it.
    views: usize,
    /// Which views of a file are in the graph ([`AnnSettings::graph_directions`]).
    placement: GraphViews,
    /// Views in the graph.
    graph_views: usize,
    /// Per slot, the vectors of the file's views kept beside the graph, one after another in the
    /// order of their positions: every view of a model whose views are split (see
    /// `graph_views.rs`), none of another file.
    beside: Vec<Box<[half::f16]>>,
    /// Per slot, the file's first view when the graph holds the file whole, so that its candidates
    /// are scored exactly from memory (see `ann/held.rs`); `None` for another file.
    held: Vec<Option<Box<ViewDescriptor>>>,
    gate: SearchGate,
}

impl std::fmt::Debug for AnnIndex {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AnnIndex")
            .field("files", &self.by_uid.len())
            .field("views", &self.views)
            .field("quantiser", &self.quantiser)
            .finish_non_exhaustive()
    }
}

/// A file GUID as the graph keys it.
fn uid_number(uid: &str) -> Result<u128, VisualError> {
    uuid::Uuid::try_parse(uid)
        .map(|uid| uid.as_u128())
        .map_err(|_| {
            VisualError::Internal(format!("the visual index keys files by GUID, not {uid}"))
        })
}

/// The canonical text of a file GUID.
fn uid_text(uid: u128) -> String {
    uuid::Uuid::from_u128(uid).hyphenated().to_string()
}

/// A view's vector read back from the graph, with the buffers that reading needs (kept across reads).
///
/// Read as the graph's raw half-precision values and widened here, eight at a time with the CPU's
/// conversion instructions where it has them (`half`): asking `usearch` for `f32` widens one value
/// at a time, which took half of a three-view search's time (profiled at 200k views).
struct StoredVector {
    bits: Vec<i16>,
    halves: Vec<half::f16>,
    widened: Vec<f32>,
}

impl StoredVector {
    fn new(dimensions: usize) -> Self {
        Self {
            bits: vec![0; dimensions],
            halves: vec![half::f16::ZERO; dimensions],
            widened: vec![0.0; dimensions],
        }
    }

    /// The half-precision vector stored under `key`, or `None` when the graph has none.
    fn read_halves(
        &mut self,
        graph: &Index,
        key: u64,
    ) -> Result<Option<&[half::f16]>, VisualError> {
        let found = graph
            .get::<usearch::f16>(key, usearch::f16::from_mut_i16s(&mut self.bits))
            .map_err(graph_error)?;
        if found == 0 {
            return Ok(None);
        }
        for (half, &bits) in self.halves.iter_mut().zip(&self.bits) {
            *half = half::f16::from_bits(bits as u16);
        }
        Ok(Some(&self.halves))
    }
}

impl AnnIndex {
    /// The half-precision vector of view `position` of the file in `slot`: from the block beside
    /// the graph when the file has one (every view is there, see `graph_views.rs`), else read from
    /// the graph into `vector`; `None` when there is none.
    fn view_halves<'a>(
        &'a self,
        slot: u32,
        position: usize,
        vector: &'a mut StoredVector,
    ) -> Result<Option<&'a [half::f16]>, VisualError> {
        let beside = self.beside_of(slot);
        if beside.is_empty() {
            return vector.read_halves(&self.graph, view_key(slot, position));
        }
        let dimensions = self.quantiser.dimensions();
        let views = self.slots.get(slot as usize).map_or(0, |file| file.views);
        let at = self.placement.beside_index(usize::from(views), position);
        Ok(beside.get(at * dimensions..(at + 1) * dimensions))
    }

    /// [`Self::view_halves`] widened to `f32` (eight at a time), in `vector`.
    fn view_vector<'a>(
        &self,
        slot: u32,
        position: usize,
        vector: &'a mut StoredVector,
    ) -> Result<Option<&'a [f32]>, VisualError> {
        let mut widened = std::mem::take(&mut vector.widened);
        let found = match self.view_halves(slot, position, vector)? {
            Some(halves) => {
                halves.convert_to_f32_slice(&mut widened);
                true
            }
            None => false,
        };
        vector.widened = widened;
        Ok(found.then_some(vector.widened.as_slice()))
    }
}

/// The mean of equally long vectors.
pub(super) fn mean_vector(vectors: &[Vec<f32>]) -> Vec<f32> {
    let mut mean = vec![0.0_f32; vectors.first().map_or(0, Vec::len)];
    for vector in vectors {
        for (sum, value) in mean.iter_mut().zip(vector) {
            *sum += value;
        }
    }
    let count = vectors.len().max(1) as f32;
    mean.iter_mut().for_each(|value| *value /= count);
    mean
}

/// The graph key of view `view` of the file in `slot`.
pub(crate) fn view_key(slot: u32, view: usize) -> u64 {
    (u64::from(slot) << VIEW_BITS) | view as u64
}

fn slot_of(key: u64) -> u32 {
    (key >> VIEW_BITS) as u32
}

fn graph_error(error: impl std::fmt::Display) -> VisualError {
    VisualError::Internal(format!("visual index: {error}"))
}

fn new_graph(
    dimensions: usize,
    settings: &AnnSettings,
    capacity: usize,
) -> Result<Index, VisualError> {
    let graph = Index::new(&IndexOptions {
        dimensions,
        metric: MetricKind::IP,
        quantization: ScalarKind::F16,
        connectivity: settings.connectivity,
        expansion_add: settings.expansion_add,
        expansion_search: settings.expansion_search,
        multi: false,
    })
    .map_err(graph_error)?;
    graph
        .reserve_capacity_and_threads(capacity.max(MIN_CAPACITY), SEARCH_THREADS)
        .map_err(graph_error)?;
    Ok(graph)
}

/// One graph search's views, their distances, and whether it returned every view it could.
type SearchResult = (Vec<u64>, Vec<f32>, bool);

/// What graph searches found: the files, without repeats, in the order found, and for each an upper
/// bound of its estimated score: the mean over query views of the best similarity that view's
/// search found among the file's views or, when it found none of them, the similarity of the last
/// view it returned (a view it did not return is no nearer, were the search exact; 0 when it
/// returned every view). A file's estimate takes for each query view at most its best view (one to
/// one pairing can only take less), so it is at most the bound.
///
/// `mean_bounds` (for a query of several views, whose mean was searched too): for each file, the
/// similarity of its best view to the views' mean that the mean's search found, else that search's
/// last similarity. A file of one view scores the mean of its similarities to the query views, which
/// is its similarity to their mean while each of them is above 0 (each pair's similarity is clamped
/// at 0, and the dot product is linear); a file with a similarity of 0 or less to one of n query
/// views scores at most (n − 1)/n. So while the shortlist's floor is above that, a file of one view
/// scores at most its mean bound: usually far tighter than `bounds`, since a file one query view
/// found near is rarely near the others.
struct Found {
    slots: Vec<u32>,
    bounds: Vec<f32>,
    mean_bounds: Vec<f32>,
}

/// Buffers for estimating scores, kept across the candidates of one search.
struct EstimateScratch {
    vector: StoredVector,
    similarities: Vec<f32>,
    /// The similarities before they were clamped to 0..1 (see [`deciding_views`]).
    agreements: Vec<f32>,
}

impl EstimateScratch {
    fn new(dimensions: usize) -> Self {
        Self {
            vector: StoredVector::new(dimensions),
            similarities: Vec::new(),
            agreements: Vec::new(),
        }
    }
}

/// A file's estimated score (see [`AnnIndex::estimate`]) and the most its exact score can be.
///
/// The two differ for a file of several views that are not a mesh's, against a query of several
/// views: its views are paired with the query's one to one, greedily, best pair first, and which
/// pairs come first can change with the least rounding, so the estimate may land on other pairs
/// than the exact score does. Each query view taking its best view of the file bounds every pairing
/// from above, so `upper` is that. Otherwise the estimate is the exact score up to rounding and
/// `upper` is the estimate.
///
/// `deciding`: when asked for and the file is a mesh, the positions of the views whose estimated
/// similarity to some query view is within [`ESTIMATE_MARGIN`] of that query view's best (the
/// views that can decide its exact score, see [`Candidate`]); else empty.
#[derive(Clone, Debug)]
struct Estimate {
    score: f32,
    upper: f32,
    slot: u32,
    deciding: Vec<u32>,
}

/// The positions (ascending) of the views whose estimated agreement (similarity before it is
/// clamped to 0..1) in each query-major row of `agreements` (`views` a row) is within
/// [`ESTIMATE_MARGIN`] of the row's best: with every estimate within half the margin of the exact
/// one, a view each query view matches best exactly is among them. (Compared clamped, every view
/// of a model a query view does not resemble at all would tie at 0 and be read.)
fn deciding_views(agreements: &[f32], views: usize) -> Vec<u32> {
    let mut deciding = Vec::new();
    for row in agreements.chunks_exact(views.max(1)) {
        let best = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        deciding.extend(
            (0..row.len())
                .filter(|&position| row[position] >= best - ESTIMATE_MARGIN)
                .filter_map(|position| u32::try_from(position).ok()),
        );
    }
    deciding.sort_unstable();
    deciding.dedup();
    deciding
}

/// Most query views whose best one-to-one pairing is computed exactly (by sets of paired views:
/// `candidate views × 2^queries × queries` steps).
const MAX_BEST_PAIRING_QUERIES: usize = 6;

/// The mean similarity of the best pairing of each query view with a different candidate view, on a
/// query-major `queries × candidates` matrix: the most any one-to-one pairing (the greedy one of
/// `match_views` among them) can reach. `None` when the query has more views than the candidate or
/// than [`MAX_BEST_PAIRING_QUERIES`].
fn best_pairing_mean(similarities: &[f32], queries: usize, candidates: usize) -> Option<f32> {
    if queries == 0 || queries > candidates || queries > MAX_BEST_PAIRING_QUERIES {
        return None;
    }
    // best[set]: the best total pairing the query views of `set` with candidate views seen so far.
    let full = (1_usize << queries) - 1;
    let mut best = vec![f32::NEG_INFINITY; full + 1];
    best[0] = 0.0;
    for candidate in 0..candidates {
        for set in (0..full).rev() {
            if best[set] == f32::NEG_INFINITY {
                continue;
            }
            for query in 0..queries {
                if set & (1 << query) == 0 {
                    let with = set | (1 << query);
                    let total = best[set] + similarities[query * candidates + candidate];
                    if total > best[with] {
                        best[with] = total;
                    }
                }
            }
        }
    }
    Some(best[full] / queries as f32)
}

/// The files whose estimates are within [`ESTIMATE_MARGIN`] of the `keep`th best estimate (the
/// best [`SHORTLIST_CAP_FACTOR`] × `keep` + [`SHORTLIST_CAP_EXTRA`] of them), and those below
/// whose exact score could be
/// (their `upper`); all of them when there are no more than `keep`.
fn select_best(mut estimates: Vec<Estimate>, keep: usize) -> Vec<Estimate> {
    estimates.sort_unstable_by(|a, b| b.score.total_cmp(&a.score));
    let floor = match keep.checked_sub(1).and_then(|last| estimates.get(last)) {
        Some(last_kept) => last_kept.score - ESTIMATE_MARGIN,
        None => f32::NEG_INFINITY,
    };
    let cap = keep
        .saturating_mul(SHORTLIST_CAP_FACTOR)
        .saturating_add(SHORTLIST_CAP_EXTRA);
    let within = estimates
        .iter()
        .take_while(|estimate| estimate.score >= floor)
        .count();
    let kept = within.min(cap);
    let mut at = 0;
    estimates.retain(|estimate| {
        at += 1;
        at <= kept || (at > within && estimate.upper >= floor)
    });
    estimates
}

/// The `keep` files with the best estimates.
fn take_best(mut estimates: Vec<Estimate>, keep: usize) -> Vec<Estimate> {
    if estimates.len() > keep && keep > 0 {
        estimates.select_nth_unstable_by(keep - 1, |a, b| b.score.total_cmp(&a.score));
        estimates.truncate(keep);
    }
    estimates
}

/// The best `keep` scores seen so far, best first: the floor a candidate's bound must reach.
struct BestScores {
    keep: usize,
    scores: Vec<f32>,
}

impl BestScores {
    fn new(keep: usize) -> Self {
        Self {
            keep,
            scores: Vec::with_capacity(keep + 1),
        }
    }

    fn add(&mut self, score: f32) {
        let at = self.scores.partition_point(|&better| better >= score);
        if at < self.keep {
            self.scores.insert(at, score);
            self.scores.truncate(self.keep);
        }
    }

    /// True when a file whose score is at most `upper` cannot come within the margin of the best
    /// `keep` (there are `keep` of them and it is lower by more than the margin).
    fn excludes(&self, upper: f32) -> bool {
        self.scores.len() == self.keep
            && self
                .scores
                .last()
                .is_some_and(|&last| upper < last - ESTIMATE_MARGIN)
    }
}

impl AnnIndex {
    /// An empty graph for views quantised by `quantiser`, with room for `capacity` views.
    pub fn new(
        quantiser: Quantiser,
        settings: AnnSettings,
        capacity: usize,
    ) -> Result<Self, VisualError> {
        Ok(Self {
            graph: new_graph(quantiser.dimensions(), &settings, capacity)?,
            settings,
            quantiser,
            slots: Vec::new(),
            free_slots: Vec::new(),
            by_uid: HashMap::new(),
            views: 0,
            placement: GraphViews::new(settings.graph_directions),
            graph_views: 0,
            beside: Vec::new(),
            held: Vec::new(),
            gate: SearchGate::default(),
        })
    }

    /// Builds a graph of many files at once on `threads` threads (the quantiser is fitted to them).
    /// `None` when no file has a view.
    pub fn build(
        files: &[(String, Vec<ViewDescriptor>)],
        settings: AnnSettings,
        threads: usize,
    ) -> Result<Option<Self>, VisualError> {
        let Some(quantiser) = Quantiser::fitted(files.iter().flat_map(|(_, views)| views)) else {
            return Ok(None);
        };
        let placement = GraphViews::new(settings.graph_directions);
        let total: usize = files
            .iter()
            .map(|(_, views)| placement.in_graph(views.len()))
            .sum();
        let mut index = Self::new(quantiser, settings, total + total / 4)?;
        index.insert_many(files, threads)?;
        Ok(Some(index))
    }

    /// Adds or replaces many files at once, their views inserted on `threads` threads.
    pub fn insert_many(
        &mut self,
        files: &[(String, Vec<ViewDescriptor>)],
        threads: usize,
    ) -> Result<(), VisualError> {
        let mut work: Vec<(u64, &ViewDescriptor)> = Vec::new();
        for (uid, views) in files {
            self.remove(uid)?;
            let Some(slot) = self.claim_slot(uid, views)? else {
                continue;
            };
            let count = views.len().min(MAX_VIEWS_PER_FILE);
            for position in self.placement.graph_positions(count) {
                work.push((view_key(slot, position), &views[position]));
            }
        }
        self.reserve_for(work.len())?;
        let threads = threads.clamp(1, SEARCH_THREADS);
        let failed = Mutex::new(None);
        std::thread::scope(|scope| {
            for worker in 0..threads {
                let (index, work, failed) = (&*self, &work, &failed);
                scope.spawn(move || {
                    for (key, view) in work.iter().skip(worker).step_by(threads) {
                        if let Err(error) = index.add_vector(*key, view) {
                            *failed
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(error);
                            return;
                        }
                    }
                });
            }
        });
        match failed
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
        {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Makes room for `more` views.
    fn reserve_for(&self, more: usize) -> Result<(), VisualError> {
        let wanted = self.graph.size() + more;
        if wanted > self.graph.capacity() {
            self.graph
                .reserve_capacity_and_threads((wanted * 3 / 2).max(MIN_CAPACITY), SEARCH_THREADS)
                .map_err(graph_error)?;
        }
        Ok(())
    }

    /// The quantiser the graph's vectors were made with.
    pub fn quantiser(&self) -> Quantiser {
        self.quantiser
    }

    /// How the graph is built and searched.
    pub fn settings(&self) -> AnnSettings {
        self.settings
    }

    /// How many files are indexed.
    pub fn file_count(&self) -> usize {
        self.by_uid.len()
    }

    /// How many views are indexed.
    pub fn view_count(&self) -> usize {
        self.views
    }

    /// How many of the indexed views are in the graph (the others are kept beside it:
    /// [`AnnSettings::graph_directions`]).
    pub fn graph_view_count(&self) -> usize {
        self.graph_views
    }

    /// True when the file is indexed.
    pub fn contains(&self, uid: &str) -> bool {
        uid_number(uid).is_ok_and(|number| self.by_uid.contains_key(&number))
    }

    /// Heap bytes: the graph with its vectors, the vectors beside it, and the file table.
    pub fn heap_bytes(&self) -> usize {
        self.graph.memory_usage()
            + self
                .beside
                .iter()
                .map(|beside| beside.len() * size_of::<half::f16>())
                .sum::<usize>()
            + self.beside.capacity() * size_of::<Box<[half::f16]>>()
            + self.held_bytes()
            + self.slots.capacity() * size_of::<Slot>()
            + self.free_slots.capacity() * size_of::<u32>()
            + self.by_uid.capacity() * (size_of::<u128>() + size_of::<u32>() + 1)
    }

    /// Adds or replaces a file's views; a file without (usable) views is removed.
    pub fn insert(&mut self, uid: &str, views: &[ViewDescriptor]) -> Result<(), VisualError> {
        self.remove(uid)?;
        let Some(slot) = self.claim_slot(uid, views)? else {
            return Ok(());
        };
        let positions = self
            .placement
            .graph_positions(views.len().min(MAX_VIEWS_PER_FILE));
        self.reserve_for(positions.len())?;
        for position in positions {
            self.add_vector(view_key(slot, position), &views[position])?;
        }
        Ok(())
    }

    /// Removes a file (nothing happens when it is not indexed).
    pub fn remove(&mut self, uid: &str) -> Result<(), VisualError> {
        let Ok(number) = uid_number(uid) else {
            return Ok(());
        };
        let Some(slot) = self.by_uid.remove(&number) else {
            return Ok(());
        };
        let views = usize::from(self.slots[slot as usize].views);
        let positions = self.placement.graph_positions(views);
        for &position in &positions {
            self.graph
                .remove(view_key(slot, position))
                .map_err(graph_error)?;
        }
        self.views -= views;
        self.graph_views -= positions.len();
        self.slots[slot as usize] = FREE_SLOT;
        self.beside[slot as usize] = Box::default();
        self.held[slot as usize] = None;
        self.free_slots.push(slot);
        Ok(())
    }

    /// Takes a slot for a file with `views` (none when it has no usable view).
    fn claim_slot(
        &mut self,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<Option<u32>, VisualError> {
        let dimensions = self.quantiser.dimensions();
        let count = views
            .iter()
            .take(MAX_VIEWS_PER_FILE)
            .filter(|view| view.features().len() == dimensions)
            .count();
        if count == 0 || count != views.len().min(MAX_VIEWS_PER_FILE) {
            // Views of another length cannot be compared: such a file is not indexed (as in the
            // exact scan, where they score 0).
            return Ok(None);
        }
        let number = uid_number(uid)?;
        let slot = Slot {
            uid: number,
            views: count as u16,
            mesh: views.iter().any(|view| view.shape().is_some()),
        };
        let beside = self.beside_vectors(&views[..count]);
        let held = self.view_to_hold(&views[..count]);
        let at = match self.free_slots.pop() {
            Some(at) => {
                self.slots[at as usize] = slot;
                self.beside[at as usize] = beside;
                self.held[at as usize] = held;
                at
            }
            None => {
                self.slots.push(slot);
                self.beside.push(beside);
                self.held.push(held);
                (self.slots.len() - 1) as u32
            }
        };
        self.by_uid.insert(number, at);
        self.views += count;
        self.graph_views += self.placement.in_graph(count);
        Ok(Some(at))
    }

    /// The vectors of `views` kept beside the graph, in half precision, one after another: all of
    /// them for a file whose views are split, none for another (see [`Self::beside`]).
    fn beside_vectors(&self, views: &[ViewDescriptor]) -> Box<[half::f16]> {
        let dimensions = self.quantiser.dimensions();
        let Some(order) = self.placement.beside_order(views.len()) else {
            return Box::default();
        };
        let mut halves = Vec::with_capacity(order.len() * dimensions);
        for view in order.iter().filter_map(|&position| views.get(position)) {
            let vector = self.quantiser.vector(view).unwrap_or_default();
            let start = halves.len();
            halves.resize(start + dimensions, half::f16::ZERO);
            halves[start..start + vector.len().min(dimensions)]
                .convert_from_f32_slice(&vector[..vector.len().min(dimensions)]);
        }
        halves.into_boxed_slice()
    }

    fn add_vector(&self, key: u64, view: &ViewDescriptor) -> Result<(), VisualError> {
        let vector = self
            .quantiser
            .vector(view)
            .ok_or_else(|| graph_error("a view of another length"))?;
        self.graph.add::<f32>(key, &vector).map_err(graph_error)
    }

    /// The files of the nearest views of each searched vector (as many as it asks for, times
    /// `factor`; optionally only views `admit` lets through), without repeats, in the order of the
    /// searches, each with a bound of its estimated score for the query whose views are the first
    /// `query_views` searched vectors (see [`Found`]). Several vectors are searched on parallel
    /// threads (a query's latency, not the service's throughput: each search takes its own turn at
    /// the gate).
    fn graph_candidates(
        &self,
        searches: &[(&[f32], usize)],
        query_views: usize,
        factor: usize,
        admit: Option<&(dyn Fn(u32) -> bool + Sync)>,
    ) -> Result<Found, VisualError> {
        // Each search's views with their distances, and whether it returned every view it could.
        let search = |&(vector, wanted): &(&[f32], usize)| {
            let wanted = wanted.saturating_mul(factor).min(self.graph_views).max(1);
            let _turn = self.gate.enter();
            if wanted == self.graph_views {
                // Every view is wanted: a scan of them all is exact and costs what the graph would,
                // and it finds what a graph search can miss (among many near-identical views some
                // nodes are not reached from the entry point).
                return self
                    .graph
                    .exact_search::<f32>(vector, wanted)
                    .map(|found| {
                        let (keys, distances) = found
                            .keys
                            .into_iter()
                            .zip(found.distances)
                            .filter(|&(key, _)| admit.is_none_or(|admit| admit(slot_of(key))))
                            .unzip();
                        (keys, distances, true)
                    })
                    .map_err(graph_error);
            }
            // The graph searches with max(expansion_search, wanted) candidates.
            match admit {
                None => self.graph.search::<f32>(vector, wanted),
                Some(admit) => self
                    .graph
                    .filtered_search::<f32, _>(vector, wanted, |key| admit(slot_of(key))),
            }
            .map(|found| {
                let complete = found.keys.len() < wanted;
                (found.keys, found.distances, complete)
            })
            .map_err(graph_error)
        };
        let results: Vec<Result<SearchResult, VisualError>> = match searches {
            [one] => vec![search(one)],
            _ => std::thread::scope(|scope| {
                let threads: Vec<_> = searches
                    .iter()
                    .map(|one| scope.spawn(move || search(one)))
                    .collect();
                threads
                    .into_iter()
                    .map(|thread| {
                        thread
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            }),
        };
        let similarity = |distance: f32| self.quantiser.similarity_of_dot(1.0 - distance);
        // Per search: its last similarity (0 when it returned every view it could); per file and
        // search: the best similarity of its views that the search returned. The searches after
        // the query views' own (the mean's) are kept apart.
        let mut floors = Vec::with_capacity(results.len());
        let mut at: HashMap<u32, usize> = HashMap::new();
        let mut slots = Vec::new();
        let mut best: Vec<Vec<f32>> = Vec::new();
        for (number, result) in results.into_iter().enumerate() {
            let (keys, distances, complete) = result?;
            floors.push(match distances.last() {
                Some(&last) if !complete => similarity(last),
                _ => 0.0,
            });
            for (key, distance) in keys.into_iter().zip(distances) {
                let slot = slot_of(key);
                let index = *at.entry(slot).or_insert_with(|| {
                    slots.push(slot);
                    best.push(vec![f32::NEG_INFINITY; searches.len()]);
                    slots.len() - 1
                });
                let seen = &mut best[index][number];
                *seen = seen.max(similarity(distance));
            }
        }
        let seen_or_floor = |seen: f32, floor: f32| if seen.is_finite() { seen } else { floor };
        let bounds = best
            .iter()
            .map(|seen| {
                let total: f32 = seen[..query_views]
                    .iter()
                    .zip(&floors)
                    .map(|(&seen, &floor)| seen_or_floor(seen, floor))
                    .sum();
                total / query_views.max(1) as f32
            })
            .collect();
        let mean_bounds = match floors.get(query_views) {
            Some(&floor) if query_views > 1 => best
                .iter()
                .map(|seen| seen_or_floor(seen[query_views], floor))
                .collect(),
            _ => Vec::new(),
        };
        Ok(Found {
            slots,
            bounds,
            mean_bounds,
        })
    }

    /// The estimated score of the file in `slot` for the query `vectors` (`query_is_mesh`: the
    /// query carries a mesh's D2 distribution): the engine's scoring of view similarities
    /// (`engine::views_score`, the same pairing rules) on the graph's half-precision vectors. For a
    /// query that is not a mesh this is the exact score up to the vectors' rounding (see
    /// [`ESTIMATE_MARGIN`]); for a mesh query the D2 part is left out. `None` for a free slot.
    /// `deciding`: the query is [`Self::estimable`], so a model's deciding views are found too
    /// (none when one of its views has no vector here: then it is read whole).
    fn estimate(
        &self,
        scratch: &mut EstimateScratch,
        vectors: &[Vec<f32>],
        (query_is_mesh, deciding): (bool, bool),
        slot: u32,
    ) -> Result<Option<Estimate>, VisualError> {
        let Some(file) = self.slots.get(slot as usize).filter(|file| file.views > 0) else {
            return Ok(None);
        };
        let views = usize::from(file.views);
        let deciding = deciding && !query_is_mesh && file.mesh;
        let similarities = &mut scratch.similarities;
        similarities.clear();
        similarities.resize(vectors.len() * views, 0.0);
        let agreements = &mut scratch.agreements;
        agreements.clear();
        if deciding {
            agreements.resize(vectors.len() * views, f32::NEG_INFINITY);
        }
        let mut every_view_read = true;
        for position in 0..views {
            let Some(stored) = self.view_vector(slot, position, &mut scratch.vector)? else {
                every_view_read = false;
                continue;
            };
            for (query_view, query_vector) in vectors.iter().enumerate() {
                let at = query_view * views + position;
                if deciding {
                    agreements[at] = self.quantiser.agreement(query_vector, stored);
                    similarities[at] = agreements[at].clamp(0.0, 1.0);
                } else {
                    similarities[at] = self.quantiser.similarity(query_vector, stored);
                }
            }
        }
        let score = views_score(similarities, vectors.len(), views, query_is_mesh, file.mesh);
        let paired_greedily = !query_is_mesh && !file.mesh && vectors.len() > 1 && views > 1;
        let upper = if paired_greedily {
            best_pairing_mean(similarities, vectors.len(), views)
                .unwrap_or_else(|| views_score(similarities, vectors.len(), views, false, true))
        } else {
            score
        };
        let deciding = if deciding && every_view_read {
            deciding_views(agreements, views)
        } else {
            Vec::new()
        };
        Ok(Some(Estimate {
            score,
            upper,
            slot,
            deciding,
        }))
    }

    /// Estimated scores of the files in `slots` (see [`Self::estimate`]).
    fn estimates(
        &self,
        vectors: &[Vec<f32>],
        query: (bool, bool),
        slots: &[u32],
    ) -> Result<Vec<Estimate>, VisualError> {
        let views: usize = slots
            .iter()
            .filter_map(|&slot| self.slots.get(slot as usize))
            .map(|file| usize::from(file.views))
            .sum();
        let chunks = in_chunks(slots, views >= PARALLEL_FROM_VIEWS, |chunk| {
            let mut scratch = EstimateScratch::new(self.quantiser.dimensions());
            let mut estimates = Vec::with_capacity(chunk.len());
            for &slot in chunk {
                if let Some(estimate) = self.estimate(&mut scratch, vectors, query, slot)? {
                    estimates.push(estimate);
                }
            }
            Ok::<_, VisualError>(estimates)
        });
        let mut estimates = Vec::with_capacity(slots.len());
        for chunk in chunks {
            estimates.extend(chunk?);
        }
        Ok(estimates)
    }

    /// The slots of the files of `allowed` that the graph holds (GUIDs it does not hold, or that
    /// are not GUIDs, are left out).
    fn listed_slots(&self, allowed: &HashSet<String>) -> Vec<u32> {
        let allowed: Vec<&str> = allowed.iter().map(String::as_str).collect();
        in_chunks(&allowed, allowed.len() >= PARALLEL_FROM_FILES, |chunk| {
            chunk
                .iter()
                .filter_map(|uid| uid_number(uid).ok())
                .filter_map(|number| self.by_uid.get(&number).copied())
                .collect::<Vec<u32>>()
        })
        .concat()
    }

    /// How many files of `allowed` the graph holds.
    pub fn count_listed(&self, allowed: &HashSet<String>) -> usize {
        self.listed_slots(allowed).len()
    }

    /// True when an estimate is the exact score up to rounding: every query view has a vector and
    /// is of today's descriptor, and the query is not a mesh (the graph does not hold D2
    /// distributions).
    fn estimable(query: &[ViewDescriptor], vectors: &[Vec<f32>]) -> bool {
        vectors.len() == query.len()
            && query
                .iter()
                .all(|view| view.generation() == Generation::Current && view.shape().is_none())
    }

    /// The candidates worth reading from the store and scoring exactly: those whose estimated score
    /// is within [`ESTIMATE_MARGIN`] of the `limit`th best estimate. Every candidate when the
    /// estimate is not the exact score up to rounding (see [`Self::estimable`]).
    ///
    /// Candidates are estimated in the order of their bounds, best first, in batches (the first of
    /// `limit` and a quarter, then of [`ESTIMATE_BATCH`]) split over the cores, and the rest are
    /// left out once a bound is below
    /// the shortlist's last estimate by more than the margin: such a file could not enter it (when
    /// the graph found each query view's nearest views exactly). Reading a view's vector from the
    /// graph is most of an estimate, and a three-view query has hundreds of candidates (most of
    /// them models of several views) that one query view found and the others did not.
    fn shortlist(
        &self,
        query: &[ViewDescriptor],
        vectors: &[Vec<f32>],
        found: Found,
        limit: usize,
    ) -> Result<Vec<Candidate>, VisualError> {
        let keep = limit;
        if !Self::estimable(query, vectors) {
            return Ok(self.read_whole(&found.slots));
        }
        // (views beside the graph, the tightest bound, the bound that holds whatever the floor, slot)
        let one_view = |slot: u32| {
            self.slots
                .get(slot as usize)
                .is_some_and(|file| file.views == 1)
        };
        // A file with views beside the graph may be nearer by one of those than by any the
        // graph found: its bound does not hold. For one query view it is estimated whatever its
        // bound (first, best bound first, so that the shortlist fills early): at 100,000 parts
        // over 92 directions recall@10 0.832 → 0.902 for 5.2 → 7.3 ms p50. For several the
        // candidates are many more and the bound still leaves such files out: estimating them all
        // took three views from 16 / 23 ms p50 / p95 to 41 / 56 ms (recall 0.980 → 1.000).
        let partly_held = |slot: u32| {
            vectors.len() == 1
                && self
                    .slots
                    .get(slot as usize)
                    .is_some_and(|file| self.placement.beside(usize::from(file.views)) > 0)
        };
        let mut order: Vec<(bool, f32, f32, u32)> = found
            .slots
            .iter()
            .zip(&found.bounds)
            .enumerate()
            .map(|(at, (&slot, &bound))| match found.mean_bounds.get(at) {
                Some(&mean_bound) if one_view(slot) => (false, bound.min(mean_bound), bound, slot),
                _ => (partly_held(slot), bound, bound, slot),
            })
            .collect();
        order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)));
        // A file with a view at or below 0 for one of n query views scores at most (n − 1)/n.
        let n = vectors.len() as f32;
        let one_view_ceiling = (n - 1.0) / n;
        let mut estimated = Vec::new();
        let mut best = BestScores::new(keep);
        let mut rest = order.into_iter();
        let mut batch_size = keep.saturating_add(keep / 4).max(ESTIMATE_BATCH);
        let mut batch = Vec::with_capacity(batch_size);
        let mut last_batch = false;
        while !last_batch {
            batch.clear();
            for (partly, tightest, bound, slot) in rest.by_ref() {
                if !partly && best.excludes(tightest) {
                    if tightest == bound || best.excludes(one_view_ceiling) {
                        // Every file after this one is bounded lower still.
                        last_batch = true;
                        break;
                    }
                    if best.excludes(bound) {
                        continue;
                    }
                }
                batch.push(slot);
                if batch.len() == batch_size {
                    break;
                }
            }
            if batch.len() < batch_size {
                last_batch = true;
            }
            let estimates = self.estimates(vectors, (false, true), &batch)?;
            for estimate in &estimates {
                best.add(estimate.score);
            }
            estimated.extend(estimates);
            batch_size = ESTIMATE_BATCH;
        }
        Ok(self.to_score(select_best(estimated, keep)))
    }

    /// `found` without the files that are not of `matching` (a broad filter).
    fn among(&self, found: Found, matching: &GuidSet) -> Found {
        let admitted: Vec<bool> = found
            .slots
            .iter()
            .map(|&slot| {
                self.slots
                    .get(slot as usize)
                    .is_some_and(|file| file.views > 0 && matching.contains_number(file.uid))
            })
            .collect();
        let kept = |values: Vec<f32>| -> Vec<f32> {
            values
                .into_iter()
                .zip(&admitted)
                .filter_map(|(value, &admit)| admit.then_some(value))
                .collect()
        };
        Found {
            slots: found
                .slots
                .into_iter()
                .zip(&admitted)
                .filter_map(|(slot, &admit)| admit.then_some(slot))
                .collect(),
            bounds: kept(found.bounds),
            mean_bounds: kept(found.mean_bounds),
        }
    }

    /// The files in `slots`, each to be read and scored on every view.
    fn read_whole(&self, slots: &[u32]) -> Vec<Candidate> {
        slots
            .iter()
            .filter_map(|&slot| self.candidate(slot, Vec::new()))
            .collect()
    }

    /// The file in `slot` (while it has views) to score exactly on `deciding` (empty: every view).
    fn candidate(&self, slot: u32, deciding: Vec<u32>) -> Option<Candidate> {
        let file = self.slots.get(slot as usize)?;
        (file.views > 0).then(|| Candidate {
            uid: uid_text(file.uid),
            slot,
            deciding,
        })
    }

    /// The estimated files to score exactly, each on its deciding views when it has them.
    fn to_score(&self, estimates: Vec<Estimate>) -> Vec<Candidate> {
        estimates
            .into_iter()
            .filter_map(|estimate| self.candidate(estimate.slot, estimate.deciding))
            .collect()
    }

    /// Ranks the company's files for `query` (see the module doc for how candidates are found);
    /// every returned score is `match_views` on the stored descriptors (scored from the graph's
    /// own vectors where it holds a file whole, `ann/held.rs`).
    pub fn rank(
        &self,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<Ranked, VisualError> {
        Ok(self.rank_counted(query, filter, limit, stored)?.0)
    }

    /// [`Self::rank`], and for a filter that lists files ([`FileFilter::Only`]) how many of them
    /// the graph holds ([`Self::count_listed`]), found on the way.
    pub fn rank_counted(
        &self,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<(Ranked, Option<usize>), VisualError> {
        let vectors: Vec<Vec<f32>> = query
            .iter()
            .filter_map(|view| self.quantiser.vector(view))
            .collect();
        if vectors.is_empty() || limit == 0 || self.views == 0 {
            let listed = match filter {
                FileFilter::Only(allowed) => Some(self.count_listed(allowed)),
                _ => None,
            };
            return Ok((Vec::new(), listed));
        }
        let query_is_mesh = query.iter().any(|view| view.shape().is_some());
        // Enough nearest views per query view that `limit` files are among them, with room for
        // files that several query views find.
        let wanted = if vectors.len() > 1 {
            self.settings.views_per_view_of_several
        } else {
            self.settings.views_per_query_view
        }
        .max(limit.saturating_mul(2));
        // A one-view file's score for several query views is the mean of its similarities to them:
        // its similarity to their mean vector (the dot product is linear). So the files best for
        // the views together are the mean's nearest, which need not be among any one view's
        // nearest (at 1M views: recall@10 of three-view queries 0.80 without the mean). Each query
        // view is still searched on its own for the models (whose views are matched one to one);
        // asking each for a share of `wanted` instead lost recall (0.955 against 0.990 at 100k).
        let mean = (vectors.len() > 1).then(|| mean_vector(&vectors));
        let searches: Vec<(&[f32], usize)> = vectors
            .iter()
            .chain(&mean)
            .map(|vector| (vector.as_slice(), wanted))
            .collect();
        let exactly = |candidates: Vec<Candidate>| -> Result<Ranked, VisualError> {
            let (mut scored, to_read) = self.score_held(query, candidates)?;
            scored.extend(score_exactly(query, to_read, stored)?);
            Ok(best_first(scored, limit))
        };
        let mut listed_count = None;
        let ranked = match filter {
            FileFilter::Everything => {
                let found = self.graph_candidates(&searches, vectors.len(), 1, None)?;
                exactly(self.shortlist(query, &vectors, found, limit)?)
            }
            FileFilter::Only(allowed) => {
                let listed = self.listed_slots(allowed);
                listed_count = Some(listed.len());
                let keep = wanted.max(limit);
                let estimable = Self::estimable(query, &vectors);
                if listed.len() <= keep && !estimable {
                    exactly(self.read_whole(&listed))
                } else if listed.len() <= keep
                    || self.direct_cost(&listed) <= self.settings.direct_views
                {
                    // Estimated first even when few files are listed: scoring a file exactly reads
                    // its views from the store (about 400 µs for a model of 163 views, most of a
                    // search), so a supplier's 196 models took 82 ms at 10,000 parts, 21 ms now.
                    // Every listed file estimated (the models beside the graph: the best of them
                    // by their coarse views, `ann/coarse.rs`): the best of them are the candidates.
                    let estimates = self.coarse_then_estimates(
                        &vectors,
                        (query_is_mesh, estimable),
                        &listed,
                        (keep, limit),
                    )?;
                    if estimable {
                        exactly(self.to_score(select_best(estimates, limit)))
                    } else {
                        exactly(self.to_score(take_best(estimates, keep)))
                    }
                } else {
                    let listed: HashSet<u32> = listed.into_iter().collect();
                    let found = self.graph_candidates(
                        &searches,
                        vectors.len(),
                        1,
                        Some(&|slot| listed.contains(&slot)),
                    )?;
                    exactly(self.shortlist(query, &vectors, found, limit)?)
                }
            }
            FileFilter::Among(matching) => {
                let mut factor = 1;
                loop {
                    let found = self.graph_candidates(&searches, vectors.len(), factor, None)?;
                    let found = self.among(found, matching);
                    if found.slots.len() >= limit
                        || wanted.saturating_mul(factor) >= self.graph_views
                    {
                        break exactly(self.shortlist(query, &vectors, found, limit)?);
                    }
                    factor = factor.saturating_mul(4);
                }
            }
        }?;
        Ok((ranked, listed_count))
    }

    /// Changes how the graph is searched (not how it was built): the candidate list, the nearest
    /// views asked for each query view, and up to how many listed views are compared directly,
    /// all taken from `settings`.
    pub fn set_search_settings(&mut self, settings: &AnnSettings) {
        self.settings.expansion_search = settings.expansion_search;
        self.settings.views_per_query_view = settings.views_per_query_view;
        self.settings.views_per_view_of_several = settings.views_per_view_of_several;
        self.settings.direct_views = settings.direct_views;
        self.graph
            .change_expansion_search(settings.expansion_search);
    }

    /// Every indexed file with its slot, view count and kind (saving).
    pub(crate) fn files(&self) -> impl Iterator<Item = SavedFile> + '_ {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.views > 0)
            .map(|(at, slot)| (slot.uid, at as u32, slot.views, slot.mesh))
    }

    /// The graph (saving).
    pub(crate) fn graph(&self) -> &Index {
        &self.graph
    }

    /// Which views of each layout the graph holds, and how its blocks beside it are ordered.
    pub(crate) fn placement(&self) -> &GraphViews {
        &self.placement
    }

    /// The vectors of the file in `slot` kept beside the graph (saving; empty when none are).
    pub(crate) fn beside_of(&self, slot: u32) -> &[half::f16] {
        self.beside.get(slot as usize).map_or(&[], |beside| beside)
    }

    /// Puts a saved graph, its file table, the vectors kept beside it and the views it holds (one
    /// entry a file, in the table's order; `held_of_files` empty when the snapshot saved none)
    /// back together (loading). The table's slots must be the ones the graph's keys use.
    pub(crate) fn from_parts(
        graph: Index,
        quantiser: Quantiser,
        settings: AnnSettings,
        files: &[SavedFile],
        beside_of_files: Vec<Box<[half::f16]>>,
        held_of_files: Vec<Option<ViewDescriptor>>,
    ) -> Result<Self, VisualError> {
        let placement = GraphViews::new(settings.graph_directions);
        let slot_count = files
            .iter()
            .map(|&(_, slot, _, _)| slot as usize + 1)
            .max()
            .unwrap_or(0);
        let mut slots = vec![FREE_SLOT; slot_count];
        let mut beside = vec![Box::<[half::f16]>::default(); slot_count];
        let mut by_uid = HashMap::with_capacity(files.len());
        let mut views = 0;
        let mut graph_views = 0;
        if beside_of_files.len() != files.len() {
            return Err(graph_error(
                "the saved vectors beside the graph are not the table's",
            ));
        }
        let mut held = vec![None; slot_count];
        if !held_of_files.is_empty() {
            if held_of_files.len() != files.len() {
                return Err(graph_error("the saved views held are not the table's"));
            }
            for (&(_, slot, _, _), view) in files.iter().zip(held_of_files) {
                held[slot as usize] = view.filter(|_| quantiser.keeps_features()).map(Box::new);
            }
        }
        for (&(uid, slot, count, mesh), kept) in files.iter().zip(beside_of_files) {
            if count == 0 || slots[slot as usize].views != 0 || by_uid.insert(uid, slot).is_some() {
                return Err(graph_error("the saved file table repeats a file or a slot"));
            }
            let count_of = usize::from(count);
            if kept.len() != placement.beside(count_of) * quantiser.dimensions() {
                return Err(graph_error(
                    "a file's saved vectors beside the graph are too few",
                ));
            }
            slots[slot as usize] = Slot {
                uid,
                views: count,
                mesh,
            };
            beside[slot as usize] = kept;
            views += count_of;
            graph_views += placement.in_graph(count_of);
        }
        if graph_views != graph.size() {
            return Err(graph_error(format!(
                "the saved file table has {graph_views} views in the graph, the graph {}",
                graph.size()
            )));
        }
        let free_slots = (0..slot_count as u32)
            .filter(|&slot| slots[slot as usize].views == 0)
            .collect();
        graph
            .reserve_capacity_and_threads(
                (graph_views + graph_views / 4).max(MIN_CAPACITY),
                SEARCH_THREADS,
            )
            .map_err(graph_error)?;
        graph.change_expansion_search(settings.expansion_search);
        Ok(Self {
            graph,
            settings,
            quantiser,
            slots,
            free_slots,
            by_uid,
            views,
            placement,
            graph_views,
            beside,
            held,
            gate: SearchGate::default(),
        })
    }
}

/// The approximate search over every company (one graph each).
#[derive(Debug, Default)]
pub struct AnnSearch {
    graphs: PerCompany<AnnIndex>,
    settings: AnnSettings,
}

impl AnnSearch {
    /// No graph yet; graphs made later use `settings`.
    pub fn new(settings: AnnSettings) -> Self {
        Self {
            graphs: PerCompany::new(),
            settings,
        }
    }

    /// Every company's graph.
    pub fn graphs(&self) -> &PerCompany<AnnIndex> {
        &self.graphs
    }

    /// Puts a company's graph in place (built or loaded).
    pub fn set_company(&mut self, company: &str, index: AnnIndex) {
        self.graphs.set_company(company, index);
    }

    /// Changes how every graph, and those made later, are searched (see
    /// [`AnnIndex::set_search_settings`]).
    pub fn set_search_settings(&mut self, settings: &AnnSettings) {
        self.settings.expansion_search = settings.expansion_search;
        self.settings.views_per_query_view = settings.views_per_query_view;
        self.settings.views_per_view_of_several = settings.views_per_view_of_several;
        self.settings.direct_views = settings.direct_views;
        for index in self.graphs.values_mut() {
            index.set_search_settings(settings);
        }
    }
}

impl ViewSearch for AnnSearch {
    fn insert(
        &mut self,
        company: &str,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<(), VisualError> {
        if let Some(index) = self.graphs.company_mut(company) {
            return index.insert(uid, views);
        }
        // The first file fits the quantiser (a graph built from a whole library fits it better).
        let Some(quantiser) = Quantiser::fitted(views) else {
            return Ok(());
        };
        let mut index = AnnIndex::new(quantiser, self.settings, MIN_CAPACITY)?;
        index.insert(uid, views)?;
        self.graphs.set_company(company, index);
        Ok(())
    }

    fn remove(&mut self, company: &str, uid: &str) -> Result<(), VisualError> {
        match self.graphs.company_mut(company) {
            Some(index) => index.remove(uid),
            None => Ok(()),
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
        match self.graphs.company(company) {
            Some(index) => index.rank(query, filter, limit, stored),
            None => Ok(Vec::new()),
        }
    }

    fn filter_form(&self, _company: &str) -> FilterForm {
        FilterForm::ListedWhenSelective
    }

    fn rank_and_count(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<(Ranked, usize), VisualError> {
        // The graph counts a listed filter's files as it finds them.
        let (ranked, listed) = match self.graphs.company(company) {
            Some(index) => index.rank_counted(query, filter, limit, stored)?,
            None => (Vec::new(), None),
        };
        let matches = match filter {
            FileFilter::Everything => self.file_count(company),
            FileFilter::Only(_) => listed.unwrap_or(0),
            FileFilter::Among(matching_with_views) => matching_with_views.len(),
        };
        Ok((ranked, matches))
    }

    fn file_count(&self, company: &str) -> usize {
        self.graphs.measure_of(company, AnnIndex::file_count)
    }

    fn view_count(&self, company: &str) -> usize {
        self.graphs.measure_of(company, AnnIndex::view_count)
    }

    fn heap_bytes(&self) -> usize {
        self.graphs.measure_all(AnnIndex::heap_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};
    use partlens_engine::{ShapeDistribution, match_views};

    /// The slots of shortlisted files.
    fn slots_of(index: &AnnIndex, kept: Vec<Candidate>) -> Vec<u32> {
        kept.iter()
            .map(|candidate| index.by_uid[&uid_number(&candidate.uid).unwrap()])
            .collect()
    }

    /// A D2 distribution with all its weight in the first bin (any valid one will do).
    fn shape() -> ShapeDistribution {
        let mut bytes = vec![0_u8; ShapeDistribution::STORED_LEN];
        bytes[..2].copy_from_slice(&u16::MAX.to_le_bytes());
        ShapeDistribution::from_bytes(&bytes).unwrap()
    }

    fn uid(number: usize) -> String {
        format!("00000000-0000-4000-8000-{number:012x}")
    }

    fn pool() -> SyntheticViews {
        let pictures = partlens_engine::samples::parts::PART_NAMES.len();
        SyntheticViews::analysed(pictures, 2).unwrap()
    }

    /// What a test file is made as.
    enum Made {
        /// A picture of this many views.
        Picture(usize),
        /// Seven views paired one to one with a query's (no D2 distribution).
        Paired,
        /// A mesh's seven views (with a D2 distribution).
        Mesh,
    }

    /// `count` files from the pool, each made as `made` says for its number.
    fn mixed_files(
        pool: &SyntheticViews,
        count: usize,
        random: &mut rand::rngs::StdRng,
        made: impl Fn(usize) -> Made,
    ) -> Vec<(String, Vec<ViewDescriptor>)> {
        (0..count)
            .map(|number| {
                let views = match made(number) {
                    Made::Picture(views) => pool.file_views(number, views, random),
                    Made::Paired => pool.file_views(number, 7, random),
                    Made::Mesh => pool
                        .file_views(number, 7, random)
                        .into_iter()
                        .map(|view| view.with_shape(Some(shape())))
                        .collect(),
                };
                (uid(number), views)
            })
            .collect()
    }

    #[test]
    fn work_in_chunks_covers_every_item_once_and_in_order() {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        for items in [0, 1, 2, 255, 5_001] {
            let numbers: Vec<usize> = (0..items).collect();
            let alone = in_chunks(&numbers, false, <[usize]>::to_vec);
            assert_eq!(alone.len(), 1, "{items} items on one thread");
            assert_eq!(alone.concat(), numbers, "{items} items on one thread");
            let split = in_chunks(&numbers, true, <[usize]>::to_vec);
            if items > 1 && cores > 1 {
                assert!(split.len() > 1, "{items} items on {cores} cores");
            }
            assert!(split.len() <= MOST_LISTING_THREADS, "{items} items");
            assert_eq!(split.concat(), numbers, "{items} items split");
        }
    }

    #[test]
    fn estimated_scores_follow_the_exact_ones_within_the_margin() {
        let pool = pool();
        let mut random = seeded(21);
        // Pictures of one to three views, a sixth of the files seven views paired one to one
        // (no D2 distribution), and a third meshes of seven views (their views carry a D2
        // distribution, so a picture query takes each its best view of them).
        let files = mixed_files(&pool, 300, &mut random, |number| {
            if number % 6 == 1 {
                Made::Paired
            } else if number % 3 == 0 {
                Made::Mesh
            } else {
                Made::Picture(1 + number % 3)
            }
        });
        let index = AnnIndex::build(&files, AnnSettings::default(), 2)
            .unwrap()
            .unwrap();
        let slots: Vec<u32> = files
            .iter()
            .map(|(uid, _)| index.by_uid[&uid_number(uid).unwrap()])
            .collect();
        let mut largest_error = 0.0_f32;
        for query_views in 1..=4 {
            for query in 0..10 {
                let query = pool.file_views(query * 11 + query_views, query_views, &mut random);
                let vectors: Vec<Vec<f32>> = query
                    .iter()
                    .map(|view| index.quantiser.vector(view).unwrap())
                    .collect();
                let estimates = index.estimates(&vectors, (false, true), &slots).unwrap();
                assert_eq!(estimates.len(), files.len());
                for (estimate, (_, views)) in estimates.iter().zip(&files) {
                    let file = index.slots[estimate.slot as usize];
                    assert_eq!(file.mesh, views[0].shape().is_some());
                    let exact = match_views(&query, views);
                    // Never above the most it can be, whatever pairs the rounding led to.
                    assert!(
                        exact <= estimate.upper + 1e-4,
                        "exact {exact} over the upper estimate {}",
                        estimate.upper
                    );
                    let paired_greedily = !file.mesh && query.len() > 1 && views.len() > 1;
                    if !paired_greedily {
                        largest_error = largest_error.max((estimate.score - exact).abs());
                    }
                }
            }
        }
        assert!(
            largest_error < ESTIMATE_MARGIN / 2.0,
            "an estimate is {largest_error} off its exact score"
        );
        assert!(largest_error > 0.0, "the estimates are not computed apart");
    }

    #[test]
    fn a_model_is_estimated_on_every_view_wherever_they_are_kept() {
        use partlens_engine::mesh::{VIEWS_PER_FLAT_MODEL, VIEWS_PER_MODEL};
        let pool = pool();
        let mut random = seeded(23);
        let files = mixed_files(&pool, 12, &mut random, |number| match number % 3 {
            0 => Made::Picture(1),
            1 => Made::Picture(VIEWS_PER_MODEL),
            _ => Made::Picture(VIEWS_PER_FLAT_MODEL),
        });
        let spread = AnnSettings {
            graph_directions: 62,
            ..AnnSettings::default()
        };
        let split = AnnIndex::build(&files, spread, 2).unwrap().unwrap();
        let whole = AnnIndex::build(&files, AnnSettings::default(), 2)
            .unwrap()
            .unwrap();
        assert_eq!(split.graph_views, 4 + 8 * 63);
        let slots = |index: &AnnIndex| -> Vec<u32> {
            files
                .iter()
                .map(|(uid, _)| index.by_uid[&uid_number(uid).unwrap()])
                .collect()
        };
        for query_views in 1..=3 {
            let query = pool.file_views(5 + query_views, query_views, &mut random);
            let vectors: Vec<Vec<f32>> = query
                .iter()
                .map(|view| whole.quantiser.vector(view).unwrap())
                .collect();
            let from_split = split
                .estimates(&vectors, (false, true), &slots(&split))
                .unwrap();
            let from_whole = whole
                .estimates(&vectors, (false, true), &slots(&whole))
                .unwrap();
            assert_eq!(from_split.len(), files.len());
            for (a, b) in from_split.iter().zip(&from_whole) {
                assert!((a.score - b.score).abs() < 1e-6, "{a:?} against {b:?}");
                assert!((a.upper - b.upper).abs() < 1e-6, "{a:?} against {b:?}");
            }
        }
    }

    #[test]
    fn the_shortlist_keeps_the_exact_best_and_drops_the_clearly_worse() {
        let pool = pool();
        let mut random = seeded(22);
        let files: Vec<(String, Vec<ViewDescriptor>)> = (0..400)
            .map(|number| (uid(number), pool.file_views(number, 1, &mut random)))
            .collect();
        let index = AnnIndex::build(&files, AnnSettings::default(), 2)
            .unwrap()
            .unwrap();
        let all: Vec<u32> = (0..files.len() as u32).collect();
        let query = pool.file_views(5, 2, &mut random);
        let vectors: Vec<Vec<f32>> = query
            .iter()
            .map(|view| index.quantiser.vector(view).unwrap())
            .collect();
        let limit = 10;
        let unbounded = |slots: &[u32]| Found {
            slots: slots.to_vec(),
            bounds: vec![f32::INFINITY; slots.len()],
            mean_bounds: Vec::new(),
        };
        let kept = index
            .shortlist(&query, &vectors, unbounded(&all), limit)
            .unwrap();
        assert!(kept.len() >= limit);
        assert!(kept.len() < files.len(), "nothing was left out");
        let kept: Vec<&str> = kept
            .iter()
            .map(|candidate| candidate.uid.as_str())
            .collect();
        let mut exact: Vec<(f32, &str)> = files
            .iter()
            .map(|(uid, views)| (match_views(&query, views), uid.as_str()))
            .collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, uid) in &exact[..limit] {
            assert!(kept.contains(uid), "an exact top-{limit} file was left out");
        }
        // A mesh query's estimate leaves out its D2 part: nothing is left out for it.
        let mesh_query: Vec<ViewDescriptor> = query
            .iter()
            .map(|view| view.clone().with_shape(Some(shape())))
            .collect();
        assert_eq!(
            index
                .shortlist(&mesh_query, &vectors, unbounded(&all), limit)
                .unwrap()
                .len(),
            files.len()
        );
    }

    #[test]
    fn a_found_file_scores_no_more_than_its_bound_and_the_shortlist_stops_early() {
        let pool = pool();
        let mut random = seeded(23);
        let files = mixed_files(&pool, 600, &mut random, |number| {
            if number % 4 == 0 {
                Made::Mesh
            } else {
                Made::Picture(1 + number % 2)
            }
        });
        let index = AnnIndex::build(&files, AnnSettings::default(), 2)
            .unwrap()
            .unwrap();
        let all_views = index.view_count();
        for query_views in [1, 3] {
            let query = pool.file_views(17 + query_views, query_views, &mut random);
            let vectors: Vec<Vec<f32>> = query
                .iter()
                .map(|view| index.quantiser.vector(view).unwrap())
                .collect();
            let mean = (query_views > 1).then(|| mean_vector(&vectors));
            // Searches of every view (exact), and of a few (the graph's nearest 40 each).
            for wanted in [all_views, 40] {
                let searches: Vec<(&[f32], usize)> = vectors
                    .iter()
                    .chain(&mean)
                    .map(|vector| (vector.as_slice(), wanted))
                    .collect();
                let found = index
                    .graph_candidates(&searches, vectors.len(), 1, None)
                    .unwrap();
                assert_eq!(found.slots.len(), found.bounds.len());
                let estimates = index
                    .estimates(&vectors, (false, true), &found.slots)
                    .unwrap();
                for (at, (estimate, bound)) in estimates.iter().zip(&found.bounds).enumerate() {
                    assert!(
                        estimate.upper <= bound + 1e-4,
                        "{query_views} views, {wanted} wanted: file {} estimated at most {} over its bound {bound}",
                        estimate.slot,
                        estimate.upper
                    );
                    // A one-view file scoring over (n − 1)/n is within its mean bound.
                    let one_view = index.slots[estimate.slot as usize].views == 1;
                    let ceiling = (query_views as f32 - 1.0) / query_views as f32;
                    if let Some(mean_bound) = found.mean_bounds.get(at)
                        && one_view
                        && estimate.score > ceiling
                    {
                        assert!(
                            estimate.score <= mean_bound + 1e-4,
                            "file {} estimated {} over its mean bound {mean_bound}",
                            estimate.slot,
                            estimate.score
                        );
                    }
                }
                assert_eq!(
                    found.mean_bounds.len(),
                    if query_views > 1 {
                        found.slots.len()
                    } else {
                        0
                    }
                );
                if wanted == all_views {
                    // Every file found, every bound exact for one query view.
                    assert_eq!(found.slots.len(), files.len());
                }
            }
        }
        // With exact bounds the shortlist estimates few files beyond the ones it keeps, and keeps
        // the best.
        let query = pool.file_views(40, 3, &mut random);
        let vectors: Vec<Vec<f32>> = query
            .iter()
            .map(|view| index.quantiser.vector(view).unwrap())
            .collect();
        let searches: Vec<(&[f32], usize)> = vectors
            .iter()
            .map(|vector| (vector.as_slice(), all_views))
            .collect();
        let found = index
            .graph_candidates(&searches, vectors.len(), 1, None)
            .unwrap();
        let kept = slots_of(&index, index.shortlist(&query, &vectors, found, 5).unwrap());
        let mut exact: Vec<(f32, u32)> = index
            .estimates(
                &vectors,
                (false, true),
                &(0..files.len() as u32).collect::<Vec<_>>(),
            )
            .unwrap()
            .into_iter()
            .map(|estimate| (estimate.score, estimate.slot))
            .collect();
        exact.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, slot) in &exact[..5] {
            assert!(kept.contains(slot));
        }
        assert!(kept.len() < files.len() / 2, "kept {}", kept.len());
    }

    #[test]
    fn a_broad_filter_leaves_only_its_files_among_the_candidates_and_the_best_of_them_are_kept() {
        let pool = pool();
        let mut random = seeded(29);
        let files = mixed_files(&pool, 900, &mut random, |number| {
            if number % 5 == 0 {
                Made::Paired
            } else {
                Made::Picture(1)
            }
        });
        let index = AnnIndex::build(&files, AnnSettings::default(), 2)
            .unwrap()
            .unwrap();
        let all_views = index.view_count();
        let passes = |uid: &str| uid.ends_with(['1', '4', '7']);
        let matching = GuidSet::new(files.iter().map(|(uid, _)| uid).filter(|uid| passes(uid)));
        let uid_of = |slot: u32| uid_text(index.slots[slot as usize].uid);
        for query_views in [1, 3] {
            let query = pool.file_views(50 + query_views, query_views, &mut random);
            let vectors: Vec<Vec<f32>> = query
                .iter()
                .map(|view| index.quantiser.vector(view).unwrap())
                .collect();
            // Every view found: more candidates than one batch of estimates, every bound exact.
            let mean = (query_views > 1).then(|| mean_vector(&vectors));
            let searches: Vec<(&[f32], usize)> = vectors
                .iter()
                .chain(&mean)
                .map(|vector| (vector.as_slice(), all_views))
                .collect();
            let found = index
                .graph_candidates(&searches, vectors.len(), 1, None)
                .unwrap();
            assert!(found.slots.len() > ESTIMATE_BATCH);
            let among = index.among(found, &matching);
            assert_eq!(among.slots.len(), matching.len(), "{query_views} views");
            assert_eq!(among.bounds.len(), among.slots.len());
            assert_eq!(
                among.mean_bounds.len(),
                if query_views > 1 {
                    among.slots.len()
                } else {
                    0
                }
            );
            assert!(among.slots.iter().all(|&slot| passes(&uid_of(slot))));
            let kept = slots_of(
                &index,
                index.shortlist(&query, &vectors, among, 10).unwrap(),
            );
            assert!(kept.len() < matching.len() / 2, "kept {}", kept.len());
            // The best files of the filter, by estimate, are all kept.
            let mut best: Vec<Estimate> = index
                .estimates(
                    &vectors,
                    (false, true),
                    &(0..files.len() as u32).collect::<Vec<_>>(),
                )
                .unwrap()
                .into_iter()
                .filter(|estimate| passes(&uid_of(estimate.slot)))
                .collect();
            best.sort_by(|a, b| b.score.total_cmp(&a.score));
            for estimate in &best[..10] {
                assert!(kept.contains(&estimate.slot), "{query_views} views");
            }
        }
    }

    #[test]
    fn the_best_pairing_bounds_the_greedy_one_and_is_the_best_of_all_pairings() {
        use rand::RngExt;
        // Every pairing of distinct candidate views, by brute force: the best total.
        fn brute_force(
            similarities: &[f32],
            queries: usize,
            candidates: usize,
            query: usize,
            used: &mut Vec<bool>,
        ) -> f32 {
            if query == queries {
                return 0.0;
            }
            let mut top = f32::NEG_INFINITY;
            for candidate in 0..candidates {
                if !used[candidate] {
                    used[candidate] = true;
                    let rest = brute_force(similarities, queries, candidates, query + 1, used);
                    top = top.max(similarities[query * candidates + candidate] + rest);
                    used[candidate] = false;
                }
            }
            top
        }
        let mut random = seeded(24);
        for _ in 0..200 {
            let queries = random.random_range(1..=4_usize);
            let candidates = random.random_range(queries..=7_usize);
            let similarities: Vec<f32> = (0..queries * candidates)
                .map(|_| random.random_range(0.0..1.0_f32))
                .collect();
            let best = best_pairing_mean(&similarities, queries, candidates).unwrap();
            let mut used = vec![false; candidates];
            let brute =
                brute_force(&similarities, queries, candidates, 0, &mut used) / queries as f32;
            assert!((best - brute).abs() < 1e-5, "{best} against {brute}");
            let greedy = views_score(&similarities, queries, candidates, false, false);
            let each_best = views_score(&similarities, queries, candidates, false, true);
            assert!(greedy <= best + 1e-6 && best <= each_best + 1e-6);
        }
        assert_eq!(
            best_pairing_mean(&[0.5; 6], 3, 2),
            None,
            "more query views than views"
        );
        assert_eq!(
            best_pairing_mean(&[0.5; 70], MAX_BEST_PAIRING_QUERIES + 1, 10),
            None
        );
    }

    #[test]
    fn the_shortlist_is_capped_among_near_ties_but_keeps_what_could_pair_higher() {
        let estimate = |score: f32, upper: f32, slot: u32| Estimate {
            score,
            upper,
            slot,
            deciding: Vec::new(),
        };
        let slots = |kept: Vec<Estimate>| -> Vec<u32> { kept.iter().map(|e| e.slot).collect() };
        // A thousand near ties, one file well below that could pair higher, one that could not.
        let mut estimates: Vec<Estimate> = (0..1_000)
            .map(|slot| estimate(0.9 - slot as f32 * 1e-7, 0.9, slot))
            .collect();
        estimates.push(estimate(0.5, 0.95, 5_000));
        estimates.push(estimate(0.5, 0.6, 6_000));
        let kept = slots(select_best(estimates, 10));
        assert_eq!(
            kept.len(),
            10 * SHORTLIST_CAP_FACTOR + SHORTLIST_CAP_EXTRA + 1
        );
        assert_eq!(&kept[..3], &[0, 1, 2], "the best estimates first");
        assert!(kept.contains(&5_000) && !kept.contains(&6_000));
        // Fewer than asked: all of them.
        assert_eq!(slots(select_best(vec![estimate(0.1, 0.1, 7)], 10)), vec![7]);
    }
}
