//! The service's visual index: which of a company's indexed files look most like the query views.
//! It reads and follows the store through `partlens_store`'s traits only ([`VisualKeeper`]), so it
//! names no store engine (the store crate keeps them private), and it knows no HTTP.
//!
//! [`ViewSearch`] is the interface the rest of the service uses. Two implementations live here, and
//! on PostgreSQL with pgvector a third path (`store_vectors.rs`) asks the database's HNSW index for
//! candidates of a large company instead of a graph:
//!
//! - [`ExactScan`]: every view of every allowed file scored against every query view (the engine's
//!   contiguous [`VisualIndex`](partlens_engine::VisualIndex) per company). The reference: its
//!   scores and order define the answer.
//! - [`AnnSearch`]: an approximate nearest-neighbour graph (HNSW, `usearch`) per company over
//!   half-precision view features finds candidate files; the candidates are then scored exactly like
//!   the exact scan does, from their full stored descriptors, so every score a user sees is the
//!   exact score and the order is the exact order wherever the candidates hold the exact answer.
//!
//! [`VisualLibrary`] is what the service runs: a company uses the exact scan while it is small and
//! the graph once it has [`VisualSettings::ann_from_views`] views ([`DEFAULT_ANN_FROM_VIEWS`] unless
//! set; built in the background while the exact scan goes on answering), and the graphs are saved
//! beside the database so that a restart loads them instead of building them again (see
//! `library.rs` and `snapshot.rs`). Which of the two a company is on stays inside [`VisualLibrary`]:
//! a search asks it how to hand over its metadata filter ([`ViewSearch::filter_form`]) and ranks
//! and counts through [`ViewSearch::rank_and_count`], never through a graph directly.
//!
//! Multi-view semantics are the engine's (`engine::match_views`): a candidate's score is always
//! computed by it, whichever implementation found the candidate.

#[cfg(test)]
mod agreement_tests;
mod ann;
mod error;
mod exact;
mod graph_views;
mod guid_set;
mod keeper;
mod library;
mod per_company;
mod quantise;
mod snapshot;
mod store_vectors;

use std::collections::HashSet;

pub use ann::{AnnIndex, AnnSearch, AnnSettings};
pub use error::VisualError;
pub use exact::ExactScan;
pub use guid_set::GuidSet;
pub use keeper::{StoreViews, VisualKeeper};
pub use library::{
    DEFAULT_ANN_FROM_VIEWS, DEFAULT_SEVERAL_THROUGH_INDEX_FROM_VIEWS, LibraryMode, VisualLibrary,
    VisualSettings,
};
pub use per_company::PerCompany;
pub use quantise::Quantiser;
pub use snapshot::SNAPSHOT_FOLDER;

use partlens_engine::ViewDescriptor;

/// Ranked files: canonical UID and score in 0..1, best first, ties by UID.
pub type Ranked = Vec<(String, f32)>;

/// Which of the company's indexed files a search may return.
#[derive(Clone, Copy)]
pub enum FileFilter<'a> {
    /// Every indexed file of the company (no metadata condition).
    Everything,
    /// Exactly these files: a metadata filter resolved beforehand (a selective one).
    Only(&'a HashSet<String>),
    /// Files of this set: a broad metadata filter, too many files to restrict the search to, which
    /// the visual ranking's candidates are checked against.
    Among(&'a GuidSet),
}

/// Where the full stored descriptors of files come from, for the exact scoring of candidates.
pub trait StoredViews {
    /// The stored views of each of `uids` that still has views (others are left out), in the order
    /// asked.
    fn views_of(&self, uids: &[String]) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError>;

    /// The stored views at the given positions (0 is a file's first view) of each file of
    /// `wanted` that still has views, in the order asked: the views that decide a model's score
    /// (see [`Candidate`]). Unless the store says otherwise, read from [`StoredViews::views_of`].
    fn views_at(
        &self,
        wanted: &[(String, Vec<u32>)],
    ) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
        let uids: Vec<String> = wanted.iter().map(|(uid, _)| uid.clone()).collect();
        let positions: std::collections::HashMap<&str, &[u32]> = wanted
            .iter()
            .map(|(uid, positions)| (uid.as_str(), positions.as_slice()))
            .collect();
        Ok(self
            .views_of(&uids)?
            .into_iter()
            .map(|(uid, views)| {
                let chosen = positions
                    .get(uid.as_str())
                    .map_or(&[][..], |positions| positions)
                    .iter()
                    .filter_map(|&position| views.get(position as usize).cloned())
                    .collect();
                (uid, chosen)
            })
            .collect())
    }

    /// The files of `company` owning the `views_each` views nearest each of `vectors`, from the
    /// store's own vector index (`store_vectors.rs`); `None` when the store has none (the
    /// default).
    fn nearest_files(
        &self,
        _company: &str,
        _vectors: &[Vec<f32>],
        _views_each: usize,
    ) -> Result<Option<Vec<String>>, VisualError> {
        Ok(None)
    }
}

/// Stored views held in memory (tests and benchmarks).
impl StoredViews for std::collections::HashMap<String, Vec<ViewDescriptor>> {
    fn views_of(&self, uids: &[String]) -> Result<Vec<(String, Vec<ViewDescriptor>)>, VisualError> {
        Ok(uids
            .iter()
            .filter_map(|uid| Some((uid.clone(), self.get(uid)?.clone())))
            .collect())
    }
}

/// How a search path takes a search's metadata filter for a company ([`ViewSearch::filter_form`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FilterForm {
    /// Every file the filter matches, listed ([`FileFilter::Only`]): the path checks each of its
    /// files against the list and ranks them all (the exact scan).
    EveryMatchListed,
    /// The matching files with views listed when they are few ([`FileFilter::Only`]), else held
    /// by GUID ([`FileFilter::Among`]): the path restricts its search to a short list and checks
    /// its candidates against a long one (a graph).
    ListedWhenSelective,
}

/// The search path: keeps each company's files' views and ranks them against query views.
pub trait ViewSearch: Send + Sync {
    /// Adds or replaces a file's views (a file without views is removed).
    fn insert(
        &mut self,
        company: &str,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<(), VisualError>;

    /// Removes a file (nothing happens when it is not there).
    fn remove(&mut self, company: &str, uid: &str) -> Result<(), VisualError>;

    /// The company's files that `filter` allows, ranked by [`partlens_engine::match_views`]
    /// against `query`: at most `limit`, best first, ties broken by UID. `stored` gives the full
    /// descriptors of candidates where the implementation needs them.
    fn rank(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<Ranked, VisualError>;

    /// How this path wants a metadata filter on the company's files handed to
    /// [`ViewSearch::rank_and_count`]. Unless a path says otherwise, every match listed (which any
    /// path can take; the exact scan's form).
    fn filter_form(&self, _company: &str) -> FilterForm {
        FilterForm::EveryMatchListed
    }

    /// [`ViewSearch::rank`] (at most `limit` files, best first) with the number of files the search
    /// matches, which it reports as its total: the company's indexed files that `filter` allows;
    /// on a graph, for [`FileFilter::Among`], the set's files (the files with views that match).
    /// Unless a path counts as it ranks, every match is ranked to count them (the exact scan).
    fn rank_and_count(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        stored: &dyn StoredViews,
    ) -> Result<(Ranked, usize), VisualError> {
        let mut ranked = self.rank(company, query, filter, usize::MAX, stored)?;
        let matches = ranked.len();
        ranked.truncate(limit);
        Ok((ranked, matches))
    }

    /// How many files of the company are indexed.
    fn file_count(&self, company: &str) -> usize;

    /// How many views of the company are indexed.
    fn view_count(&self, company: &str) -> usize;

    /// Heap bytes held for all companies (memory reports).
    fn heap_bytes(&self) -> usize;
}

/// Keeps the `limit` best of `scored` in the result order (score, then UID).
pub(crate) fn best_first(mut scored: Ranked, limit: usize) -> Ranked {
    let order =
        |a: &(String, f32), b: &(String, f32)| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0));
    if limit == 0 {
        return Vec::new();
    }
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, order);
        scored.truncate(limit);
    }
    scored.sort_by(order);
    scored
}

/// A file to score exactly, and the positions of the views that decide its score: for a query that
/// is not a mesh against a model (a mesh), each query view takes its best view of the model, so
/// only the views whose estimated similarity is within the estimates' rounding of a query view's
/// best estimate can decide it (at 10,000 parts reading and decoding a model's 163 stored views was
/// about 400 µs, most of a search). Empty: every view decides (the file is read whole).
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    /// The file's canonical UID.
    pub uid: String,
    /// The file's slot in the graph that found it.
    pub slot: u32,
    /// The positions of the views to read, ascending; empty for every view.
    pub deciding: Vec<u32>,
}

/// Scores files exactly (`match_views`) from their stored views: the re-ranking step. A candidate
/// with deciding views is read and scored on those alone
/// ([`partlens_engine::match_views_on_deciding_views`], bit-identical to `match_views` on every
/// view when they hold each query view's best).
pub(crate) fn score_exactly(
    query: &[ViewDescriptor],
    candidates: Vec<Candidate>,
    stored: &dyn StoredViews,
) -> Result<Ranked, VisualError> {
    let (whole, chosen): (Vec<Candidate>, Vec<Candidate>) = candidates
        .into_iter()
        .partition(|candidate| candidate.deciding.is_empty());
    let whole: Vec<String> = whole.into_iter().map(|candidate| candidate.uid).collect();
    let chosen: Vec<(String, Vec<u32>)> = chosen
        .into_iter()
        .map(|candidate| (candidate.uid, candidate.deciding))
        .collect();
    let score = |read: Vec<(String, Vec<ViewDescriptor>)>,
                 on: fn(&[ViewDescriptor], &[ViewDescriptor]) -> f32| {
        read.into_iter()
            .filter(|(_, views)| !views.is_empty())
            .map(|(uid, views)| {
                let score = on(query, &views);
                (uid, score)
            })
            .collect::<Ranked>()
    };
    let mut scored = score(stored.views_of(&whole)?, partlens_engine::match_views);
    if !chosen.is_empty() {
        scored.extend(score(
            stored.views_at(&chosen)?,
            partlens_engine::match_views_on_deciding_views,
        ));
    }
    Ok(scored)
}
