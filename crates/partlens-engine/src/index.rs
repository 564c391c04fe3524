//! The in-memory visual index: every indexed view's descriptor in one contiguous matrix (one row of
//! 16-bit features per view, hashes beside it), scanned with tight loops, optionally split over
//! several cores when the index is large. Multi-view scoring follows
//! [`match_views`] exactly; [`rank_by_matching_every_file`] is the plain baseline the index is tested
//! and benchmarked against.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::LazyLock;

use super::ViewDescriptor;
use super::descriptor::{FileFacts, Generation, HASH_WORDS, view_similarity};

/// Share of the score the D2 shape distributions take when the query and the candidate are both
/// meshes (the views take the rest); pictures are scored on their views alone.
pub const SHAPE_WEIGHT: f32 = 0.25;

/// A model searched by is elongated when its longest posed extent is at least this many times its
/// middle one (`mesh::PartDescriptors::elongation`): a screw, a pin, a robot arm's link. Chosen
/// on the real-world corpus's tuning half (docs/PERFORMANCE.md, "The parts of a part").
pub const ELONGATED_FROM: f32 = 1.5;

/// What a unit of difference between the ends of an elongated model searched by and a candidate
/// model's (one less their similarity) costs the candidate's score. The ends of one kind of screw
/// differ by 0.02–0.03, a socket head from a hex head by 0.08: 0.8 turns the ISO 4762 screws'
/// searches, which whole views rank behind ISO 4017 hex-head screws. Chosen on the tuning half.
pub const ENDS_WEIGHT: f32 = 0.8;

/// What a drawing loses against a model searched by, unless the two state a part number in common:
/// a model candidate of another size loses 0.1 and more to the service's size ranking, and a
/// drawing, of no size, ranked above the models of the searched part's kind (on the corpus's
/// held-out half 16 of 20 misses of a search by a model had a drawing first, a DXF of a door or
/// a PDF of a panel that merely had a similar outline). The smallest penalty after which no
/// search of the tuning half has a drawing first.
pub const DRAWING_PENALTY: f32 = 0.2;

/// The facts of the files a set of views shows: the first mesh view's (a search by a model and a
/// picture is a search by a model), else the first view's.
pub fn facts_of(views: &[ViewDescriptor]) -> &FileFacts {
    static NONE: std::sync::LazyLock<FileFacts> = std::sync::LazyLock::new(FileFacts::default);
    views
        .iter()
        .find(|view| view.shape().is_some())
        .or_else(|| views.first())
        .map_or(&*NONE, ViewDescriptor::facts)
}

/// A file's score from the query-major `queries × candidates` matrix of view similarities and the
/// two sides' facts. The views of pictures must all be matched, each by a view of its own;
/// the views of a mesh are alternatives (renderings from viewpoints a picture may or may not
/// show, and two pictures may show the same one). So pictures against a mesh take each its best
/// view of the mesh; a mesh against pictures is scored the other way round, each of the
/// candidate's pictures taking its best view of the query mesh; pictures against pictures are
/// matched as in [`match_views`]. When both sides are meshes (the same viewpoints), views are
/// paired one to one and their D2 distributions take [`SHAPE_WEIGHT`] of the score, and when the
/// mesh searched by is elongated its ends are compared with the candidate's ([`ENDS_WEIGHT`]). A
/// drawing against a mesh searched by loses [`DRAWING_PENALTY`] unless they state a part number in
/// common. Scores stay in 0..1.
fn file_score(
    similarities: &[f32],
    queries: usize,
    candidates: usize,
    query: &FileFacts,
    candidate: &FileFacts,
) -> f32 {
    let views = views_score(
        similarities,
        queries,
        candidates,
        query.shape().is_some(),
        candidate.shape().is_some(),
    );
    if queries == 0 || candidates == 0 {
        return views;
    }
    match (query.shape(), candidate.shape()) {
        (Some(query_shape), Some(candidate_shape)) => {
            let whole = (1.0 - SHAPE_WEIGHT) * views
                + SHAPE_WEIGHT * query_shape.similarity(candidate_shape);
            let ends = match (query.parts(), candidate.parts()) {
                (Some(query_parts), Some(candidate_parts))
                    if query_parts.elongation() >= ELONGATED_FROM =>
                {
                    ENDS_WEIGHT * (1.0 - query_parts.ends_similarity(candidate_parts))
                }
                _ => 0.0,
            };
            (whole - ends).max(0.0)
        }
        (Some(_), None) if candidate.is_drawing() && !query.share_a_part_number(candidate) => {
            (views - DRAWING_PENALTY).max(0.0)
        }
        _ => views,
    }
}

/// The part of [`file_score`] that comes from the view similarities: the whole score unless both
/// sides are meshes (then their D2 distributions add [`SHAPE_WEIGHT`] and their ends may cost) or
/// a drawing is ranked for a mesh (then it may lose [`DRAWING_PENALTY`]); never below the score. The approximate index
/// estimates scores with it from its own vectors before it reads the stored descriptors of the
/// best candidates.
pub fn views_score(
    similarities: &[f32],
    queries: usize,
    candidates: usize,
    query_is_mesh: bool,
    candidate_is_mesh: bool,
) -> f32 {
    if queries == 0 || candidates == 0 {
        return 0.0;
    }
    match (query_is_mesh, candidate_is_mesh) {
        (true, false) => {
            let best_of = |c: usize| {
                (0..queries)
                    .map(|q| similarities[q * candidates + c])
                    .fold(f32::NEG_INFINITY, f32::max)
            };
            (0..candidates).map(best_of).sum::<f32>() / candidates as f32
        }
        (false, true) => {
            let best_of = |q: usize| {
                similarities[q * candidates..(q + 1) * candidates]
                    .iter()
                    .copied()
                    .fold(f32::NEG_INFINITY, f32::max)
            };
            (0..queries).map(best_of).sum::<f32>() / queries as f32
        }
        (true, true) | (false, false) => greedy_mean(similarities, queries, candidates),
    }
}

/// Scores a multi-view query against one candidate: each query view is matched to a different
/// candidate view (greedy, best pairs first) while the candidate has views left; a query view left
/// over when the candidate has fewer views than the query takes its best candidate view. The score is
/// the mean over query views, so an unrelated query view lowers every candidate alike: it is an
/// additional view every candidate must match, not an alternative. (Scoring a left-over view 0
/// instead would cap a one-view file at 1/n for an n-view query however well it matches.)
/// A mesh's views are alternatives rather than requirements, and meshes compare their D2 shapes
/// too: see `file_score`.
pub fn match_views(query: &[ViewDescriptor], candidate: &[ViewDescriptor]) -> f32 {
    if query.is_empty() || candidate.is_empty() {
        return 0.0;
    }
    let mut similarities = Vec::with_capacity(query.len() * candidate.len());
    for query_view in query {
        for candidate_view in candidate {
            similarities.push(query_view.similarity(candidate_view));
        }
    }
    file_score(
        &similarities,
        query.len(),
        candidate.len(),
        facts_of(query),
        facts_of(candidate),
    )
}

/// [`match_views`] of a query that carries no mesh (pictures, photographs) against a mesh file,
/// from `deciding`: some of the file's views that hold, for each query view, a view it matches best.
/// Each such query view takes its best view of a mesh, so the file's other views cannot change the
/// score, and this is bit-identical to [`match_views`] on all of them (the same similarities, the
/// same sum in the same order). The visual index reads only these views from the store; it must
/// not be asked for a query of a mesh (its D2 distribution and ends take part in that score).
pub fn match_views_on_deciding_views(query: &[ViewDescriptor], deciding: &[ViewDescriptor]) -> f32 {
    let mut similarities = Vec::with_capacity(query.len() * deciding.len());
    for query_view in query {
        for candidate_view in deciding {
            similarities.push(query_view.similarity(candidate_view));
        }
    }
    views_score(&similarities, query.len(), deciding.len(), false, true)
}

/// The assignment behind [`match_views`], on a query-major `queries × candidates` matrix of view
/// similarities. Shared by the index so both give bit-identical scores.
///
/// The pairs are taken best first (ties by query view, then candidate view), each pair whose two
/// views are both still free assigned; the score is the mean of the pairs' similarities, added in
/// the order they were taken. The pair taken next is always the best of the pairs whose two views
/// are free (a pair passed over had a view taken, which stays taken), so it is found without
/// ordering the pairs at all: each free query view keeps its best free candidate view (its row's
/// best), the best of those rows' bests is taken, and a row whose best was just taken looks again.
/// Ordering the pairs (3,069 for a search input's 33 views against a database model's 93) was
/// most of a search by a model.
fn greedy_mean(similarities: &[f32], queries: usize, candidates: usize) -> f32 {
    if queries == 0 || candidates == 0 {
        return 0.0;
    }
    let row = |q: usize| &similarities[q * candidates..(q + 1) * candidates];
    let best_of = |q: usize| row(q).iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if queries == 1 || candidates == 1 {
        // Distinct pairs leave nothing to choose: each query view takes its best candidate view.
        return (0..queries).map(best_of).sum::<f32>() / queries as f32;
    }
    let mut candidate_used = vec![false; candidates];
    // The best free candidate view of each free query view (`None` once the query view is taken):
    // the first of its row in [`pair_order`], the best score and then the lowest candidate view.
    let best_free = |q: usize, candidate_used: &[bool]| -> Option<usize> {
        let mut best: Option<(f32, usize)> = None;
        for (c, &score) in row(q).iter().enumerate() {
            if candidate_used[c] {
                continue;
            }
            if best.is_none_or(|(best_score, _)| score.total_cmp(&best_score).is_gt()) {
                best = Some((score, c));
            }
        }
        best.map(|(_, c)| c)
    };
    let mut heads: Vec<Option<usize>> = (0..queries)
        .map(|q| best_free(q, &candidate_used))
        .collect();
    let mut query_used = vec![false; queries];
    let mut total = 0.0;
    for _ in 0..queries.min(candidates) {
        let mut next: Option<(f32, usize, usize)> = None;
        for (q, head) in heads.iter().enumerate() {
            let Some(c) = *head else { continue };
            let pair = (row(q)[c], q, c);
            if next.is_none_or(|best| pair_order(&pair, &best).is_lt()) {
                next = Some(pair);
            }
        }
        let Some((score, q, c)) = next else { break };
        query_used[q] = true;
        candidate_used[c] = true;
        heads[q] = None;
        total += score;
        for (other, head) in heads.iter_mut().enumerate() {
            if *head == Some(c) {
                *head = best_free(other, &candidate_used);
            }
        }
    }
    // More query views than candidate views: the ones left over take their best candidate view.
    for (q, used) in query_used.iter().enumerate() {
        if !used {
            total += best_of(q);
        }
    }
    total / queries as f32
}

/// The order [`greedy_mean`] takes pairs `(score, query view, candidate view)` in: best score
/// first, then query view, then candidate view (a total order: no two pairs tie).
fn pair_order(a: &(f32, usize, usize), b: &(f32, usize, usize)) -> Ordering {
    b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2))
}

/// Best score first, then key: the deterministic result order.
fn result_order(a: &(&str, f32), b: &(&str, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0))
}

/// Keeps the best `limit` results in [`result_order`] (keys are copied only for those).
fn best_results(mut scored: Vec<(&str, f32)>, limit: usize) -> Vec<(String, f32)> {
    if limit == 0 {
        return Vec::new();
    }
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, result_order);
        scored.truncate(limit);
    }
    scored.sort_by(result_order);
    scored
        .into_iter()
        .map(|(key, score)| (key.to_owned(), score))
        .collect()
}

/// The baseline ranking: [`match_views`] against every file, one after the other. Same contract and
/// same results as [`VisualIndex::rank`]; kept for the benchmark and as the index's test oracle.
pub fn rank_by_matching_every_file(
    files: &[(String, Vec<ViewDescriptor>)],
    query: &[ViewDescriptor],
    allow: impl Fn(&str) -> bool,
    limit: usize,
) -> Vec<(String, f32)> {
    let scored = files
        .iter()
        .filter(|(key, _)| allow(key))
        .map(|(key, views)| (key.as_str(), match_views(query, views)))
        .collect();
    best_results(scored, limit)
}

/// Row comparisons (indexed views × query views) from which a search is split over threads: below
/// it, starting threads costs more than it saves.
const PARALLEL_WORK: usize = 4096;

/// Threads a search may use.
static AVAILABLE_THREADS: LazyLock<usize> =
    LazyLock::new(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get));

/// Where one file's views sit in the matrix.
#[derive(Clone, Debug)]
struct FileRows {
    key: String,
    first_row: usize,
    rows: usize,
    /// What the file's views carry of it (a mesh's D2 distribution and parts, …).
    facts: FileFacts,
    /// False once the file was removed or replaced; its rows wait for compaction.
    live: bool,
}

/// The in-memory index of every visually indexed file, keyed by canonical UID.
#[derive(Clone, Debug, Default)]
pub struct VisualIndex {
    /// Which descriptors the index holds (the first inserted view's); views of another generation
    /// or length are not indexed.
    generation: Option<Generation>,
    /// Features a row.
    row_len: usize,
    /// Row-major `rows × row_len` scaled features.
    features: Vec<i16>,
    /// One perceptual hash per row.
    hashes: Vec<[u64; HASH_WORDS]>,
    /// Files in insertion order, dead ones included until compaction.
    files: Vec<FileRows>,
    /// Key → position in `files` of the live entry.
    positions: HashMap<String, usize>,
    /// Rows held by dead files.
    dead_rows: usize,
    /// Most threads one search may use (0 is taken as 1).
    search_threads: usize,
}

impl VisualIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces a file's views.
    pub fn insert(&mut self, key: String, views: Vec<ViewDescriptor>) {
        self.remove(&key);
        if self.generation.is_none()
            && let Some(first) = views.first()
        {
            self.generation = Some(first.generation());
            self.row_len = first.features().len();
        }
        let views: Vec<ViewDescriptor> = views
            .into_iter()
            .filter(|view| {
                Some(view.generation()) == self.generation && view.features().len() == self.row_len
            })
            .collect();
        if views.is_empty() {
            return;
        }
        let first_row = self.hashes.len();
        let facts = facts_of(&views).clone();
        for view in &views {
            self.features.extend_from_slice(view.features());
            self.hashes.push(*view.hash());
        }
        self.positions.insert(key.clone(), self.files.len());
        self.files.push(FileRows {
            key,
            first_row,
            rows: views.len(),
            facts,
            live: true,
        });
    }

    /// Removes a file.
    pub fn remove(&mut self, key: &str) {
        if let Some(position) = self.positions.remove(key) {
            let file = &mut self.files[position];
            file.live = false;
            self.dead_rows += file.rows;
            if self.dead_rows > 1024 && self.dead_rows * 2 > self.hashes.len() {
                self.compact();
            }
        }
    }

    /// How many files are indexed.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when nothing is indexed.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// How many views are indexed (all files together).
    pub fn view_count(&self) -> usize {
        self.hashes.len() - self.dead_rows
    }

    /// Lets one large search use up to `threads` threads (capped at the available cores). The default
    /// is 1: a 10,000-view scan takes about a millisecond on one core, and on a busy machine (or a
    /// service answering several searches at once) extra threads only wait for a core. Worth raising
    /// for a single user's very large index on an idle multi-core machine.
    pub fn set_search_threads(&mut self, threads: usize) {
        self.search_threads = threads.max(1);
    }

    /// Releases memory reserved for growth (after loading a whole database at start-up, say).
    pub fn shrink_to_fit(&mut self) {
        if self.dead_rows > 0 {
            self.compact();
        }
        self.features.shrink_to_fit();
        self.hashes.shrink_to_fit();
        self.files.shrink_to_fit();
        self.positions.shrink_to_fit();
    }

    /// Heap bytes the index holds (matrix, hashes, file table, key map), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        let keys: usize = self.files.iter().map(|file| file.key.capacity()).sum();
        self.features.capacity() * size_of::<i16>()
            + self.hashes.capacity() * size_of::<[u64; HASH_WORDS]>()
            + self.files.capacity() * size_of::<FileRows>()
            + keys * 2
            + self.positions.capacity() * (size_of::<String>() + size_of::<usize>() + 8)
    }

    /// Ranks the files `allow` admits against the query views: best score first, ties broken by key so
    /// the order is deterministic; at most `limit` results, scores in 0..1.
    pub fn rank(
        &self,
        query: &[ViewDescriptor],
        allow: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Vec<(String, f32)> {
        // `allow` runs here, on the caller's thread, so it need not be `Sync`.
        let candidates: Vec<&FileRows> = self
            .files
            .iter()
            .filter(|file| file.live && allow(&file.key))
            .collect();
        self.rank_candidates(candidates, query, limit)
    }

    /// [`Self::rank`] of the listed files alone (`keys`; a key not indexed is left out, a key
    /// listed twice counts once): the same scores in the same order, at a cost in the files listed
    /// rather than in every file indexed. A filter's few thousand files, or the few hundred a vector
    /// index proposes, among 500,000 need not visit the others: asking `rank` whether each of
    /// 500,000 keys is allowed reads every key from memory (about 100 ms at 500,000 files).
    pub fn rank_listed<'k>(
        &self,
        query: &[ViewDescriptor],
        keys: impl IntoIterator<Item = &'k str>,
        limit: usize,
    ) -> Vec<(String, f32)> {
        let mut listed: Vec<usize> = keys
            .into_iter()
            .filter_map(|key| self.positions.get(key).copied())
            .collect();
        // In the index's order, as `rank` visits them.
        listed.sort_unstable();
        listed.dedup();
        let candidates = listed.into_iter().map(|at| &self.files[at]).collect();
        self.rank_candidates(candidates, query, limit)
    }

    /// Scores `candidates` (live files of this index) against the query, on as many threads as the
    /// work is worth, and keeps the `limit` best.
    fn rank_candidates(
        &self,
        candidates: Vec<&FileRows>,
        query: &[ViewDescriptor],
        limit: usize,
    ) -> Vec<(String, f32)> {
        let work: usize = candidates.iter().map(|file| file.rows).sum::<usize>() * query.len();
        let threads = self
            .search_threads
            .min(*AVAILABLE_THREADS)
            .min(work / PARALLEL_WORK)
            .max(1);
        let scored = if threads == 1 {
            self.score(&candidates, query)
        } else {
            // Each file's score is computed exactly as on one thread; only the split differs.
            let share = candidates.len().div_ceil(threads);
            std::thread::scope(|scope| {
                let workers: Vec<_> = candidates
                    .chunks(share)
                    .map(|part| scope.spawn(move || self.score(part, query)))
                    .collect();
                let mut scored = Vec::with_capacity(candidates.len());
                for worker in workers {
                    match worker.join() {
                        Ok(part) => scored.extend(part),
                        Err(panic) => std::panic::resume_unwind(panic),
                    }
                }
                scored
            })
        };
        best_results(scored, limit)
    }

    /// Scores each file against the query: every query view against every row of the file, then the
    /// greedy assignment of [`match_views`].
    fn score<'a>(
        &'a self,
        files: &[&'a FileRows],
        query: &[ViewDescriptor],
    ) -> Vec<(&'a str, f32)> {
        let mut similarities = Vec::new();
        let mut scored = Vec::with_capacity(files.len());
        let query_facts = facts_of(query);
        let (Some(generation), row_len) = (self.generation, self.row_len) else {
            return files.iter().map(|file| (file.key.as_str(), 0.0)).collect();
        };
        for file in files {
            similarities.clear();
            for view in query {
                let comparable = view.generation() == generation;
                for row in file.first_row..file.first_row + file.rows {
                    if !comparable {
                        similarities.push(0.0);
                        continue;
                    }
                    let features = &self.features[row * row_len..(row + 1) * row_len];
                    similarities.push(view_similarity(
                        generation,
                        view.features(),
                        view.hash(),
                        features,
                        &self.hashes[row],
                    ));
                }
            }
            scored.push((
                file.key.as_str(),
                file_score(
                    &similarities,
                    query.len(),
                    file.rows,
                    query_facts,
                    &file.facts,
                ),
            ));
        }
        scored
    }

    /// Drops the rows of removed files and renumbers the rest.
    fn compact(&mut self) {
        let row_len = self.row_len;
        let mut features = Vec::with_capacity(self.view_count() * row_len);
        let mut hashes = Vec::with_capacity(self.view_count());
        let mut files = Vec::with_capacity(self.positions.len());
        for file in self.files.drain(..).filter(|file| file.live) {
            let rows = file.first_row..file.first_row + file.rows;
            features.extend_from_slice(&self.features[rows.start * row_len..rows.end * row_len]);
            let first_row = hashes.len();
            hashes.extend_from_slice(&self.hashes[rows]);
            files.push(FileRows { first_row, ..file });
        }
        self.positions = files
            .iter()
            .enumerate()
            .map(|(position, file)| (file.key.clone(), position))
            .collect();
        self.features = features;
        self.hashes = hashes;
        self.files = files;
        self.dead_rows = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The assignment as it was first written: every pair sorted, then taken best first.
    fn greedy_mean_of_every_pair_sorted(
        similarities: &[f32],
        queries: usize,
        candidates: usize,
    ) -> f32 {
        let mut pairs: Vec<(f32, usize, usize)> = similarities
            .iter()
            .enumerate()
            .map(|(at, &score)| (score, at / candidates, at % candidates))
            .collect();
        pairs.sort_by(pair_order);
        let mut query_used = vec![false; queries];
        let mut candidate_used = vec![false; candidates];
        let mut total = 0.0;
        for (score, q, c) in pairs {
            if !query_used[q] && !candidate_used[c] {
                query_used[q] = true;
                candidate_used[c] = true;
                total += score;
            }
        }
        for (q, used) in query_used.iter().enumerate() {
            if !used {
                total += similarities[q * candidates..(q + 1) * candidates]
                    .iter()
                    .copied()
                    .fold(f32::NEG_INFINITY, f32::max);
            }
        }
        total / queries as f32
    }

    #[test]
    fn views_are_paired_as_when_every_pair_was_sorted_first() {
        // A small linear congruential generator: the same matrices every run.
        let mut seed = 0x2545_f491_u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 40) as f32 / (1u64 << 24) as f32
        };
        // A search input's 33 views against a database model's 163 (and the other way round) are
        // the shapes a search by a model scores.
        let shapes = [
            (2, 2),
            (3, 7),
            (7, 3),
            (93, 93),
            (92, 93),
            (40, 93),
            (33, 93),
            (93, 33),
            (33, 163),
            (163, 33),
        ];
        for (queries, candidates) in shapes {
            for round in 0..30 {
                // Some rounds coarse, so that many pairs tie on their score.
                let steps = if round % 2 == 0 { 4.0 } else { 1e6 };
                // Every third round most of a pair's score is its candidate view's, so that many
                // query views have the same best candidate view and look again when it is taken.
                let favoured: Vec<f32> = (0..candidates).map(|_| next()).collect();
                let similarities: Vec<f32> = (0..queries * candidates)
                    .map(|at| {
                        let score = if round % 3 == 0 {
                            0.8 * favoured[at % candidates] + 0.2 * next()
                        } else {
                            next()
                        };
                        (score * steps).round() / steps
                    })
                    .collect();
                let fast = greedy_mean(&similarities, queries, candidates);
                let plain = greedy_mean_of_every_pair_sorted(&similarities, queries, candidates);
                assert_eq!(fast.to_bits(), plain.to_bits(), "{queries}×{candidates}");
            }
        }
    }
}
