//! Search at scale: the approximate visual index (HNSW graph + exact re-ranking) next to the exact
//! scan in the same run, on synthetic company libraries of 10,000, 100,000 and (with `-- 1m`)
//! 1,000,000 views written into a real store (`partlens_service::large_library`: pictures and 7-view
//! models whose views are seeded blends of really analysed part drawings, see
//! `samples::synthetic_views`, as many text-only records as visual files, attributes and text).
//! Prints markdown tables:
//!
//! - search p50 / p95 for 1 and 3 query views, without a filter, with a selective attribute
//!   filter (one supplier of 50), with a broad one (the most common material, 30 %), and with a
//!   free-text word, each through `service::search::rank_visually` exactly as the service runs it
//!   (metadata resolved in SQLite, candidates re-ranked from the stored descriptors), exact scan and
//!   graph on the same store, with recall@10 of the graph against the exact scan (strict: the
//!   exact top ten's files found; with ties: a found file also counts when its exact score is
//!   within 0.001 of the exact tenth, as ann-benchmarks counts recall) and how far apart the exact
//!   top ten lie (first minus tenth score: near 0 means the ten are a tie among many);
//! - memory a view, graph build time, restart to the first answered search (snapshot loaded);
//! - free-text search without views (the metadata-only search) through the trigram index against
//!   the substring scan it replaced.
//!
//! ```text
//! cargo bench -p partlens-service --bench visual_scale              # 10k and 100k views (a few minutes)
//! cargo bench -p partlens-service --bench visual_scale -- 1m        # also 1M views (about half an hour, ~6 GB RAM)
//! cargo bench -p partlens-service --bench visual_scale -- only-1m   # just 1M
//! cargo bench -p partlens-service --bench visual_scale -- in-memory # graph and exact scan alone at 100k and 1M views
//! cargo bench -p partlens-service --bench visual_scale -- in-memory views=100000   # chosen sizes (any mode)
//! cargo bench -p partlens-service --bench visual_scale -- postgres  # through PostgreSQL + pgvector at 100k views
//!                                                 # (support/visual_postgres.rs; needs its server)
//! cargo bench -p partlens-service --bench visual_scale -- postgres views=1000000 baseline=100000
//!                                                 # loaded in bulk at 1M, the row-by-row load of 100k
//!                                                 # beside it (`baseline=0`: none)
//! PARTLENS_PG_SHARED_BUFFERS=2GB cargo bench … -- postgres views=1000000 baseline=0 with-sqlite
//!                                                 # the server's buffers sized for the index; the
//!                                                 # same sizes through SQLite after it, one run
//! cargo bench -p partlens-service --bench visual_scale -- only-1m keep=/tmp/visual  # write the 1M library there once,
//!                                                 # search it again on later runs
//! cargo bench -p partlens-service --bench visual_scale -- only-1m keep=/tmp/visual reuse-graph graph-only cases=supplier
//!                                                 # profiling: the saved graph searched again (not
//!                                                 # rebuilt), no exact scan (no recall), some cases
//!                                                 # (`reuse-graph` needs `graph-only`: the exact
//!                                                 # scan's keeper discards a saved graph it does
//!                                                 # not use, as the service does)
//! cargo bench -p partlens-service --bench visual_scale -- real-models parts=10000,30000
//!                                                 # libraries of real-structure models (163 or
//!                                                 # 211 views a part) instead: support/real_models.rs
//! cargo bench -p partlens-service --bench visual_scale -- real-models parts=100000 exact=streamed
//!                                                 # the exact side of recall from one pass over the
//!                                                 # stored views before the graph is loaded, no view
//!                                                 # held (support/streamed_exact.rs; any store run;
//!                                                 # its time columns: the pass over its answers)
//! cargo bench -p partlens-service --bench visual_scale -- real-models parts=300 pool=8 exact=both
//!                                                 # both exact sides, asserted to agree (files,
//!                                                 # scores to the bit, matches); `exact=memory`:
//!                                                 # the exact scan alone (the default)
//! PARTLENS_BENCH_ANN=16,128,400,300,800,60000 cargo bench …  # graph settings: M, ef_add, ef_search,
//!                                                 # views a query view (one, several), [direct views]
//! PARTLENS_BENCH_GRAPH_DIRECTIONS=92 cargo bench … -- real-models parts=10000 keep=/tmp/models
//!                                                 # the graph over a model's views from 92 directions
//! PARTLENS_BENCH_SWEEP=800:600,1600:1000 cargo bench … -- in-memory  # more search settings, one graph
//! RUST_LOG=info cargo bench …                       # the service's log on stderr: where a saved
//!                                                 # graph's load spends its time
//! ```
//!
//! `in-memory` measures the search path without the store (no disk for a million views' database):
//! the views of synthetic files held in memory, the exact scan and the graph built from them, the
//! same queries with no filter, a selective listed filter (1 file in 50) and a broad checked one
//! (30 %), candidates re-scored from the in-memory descriptors. It leaves out what the store adds
//! (metadata resolved in SQLite, the candidates' descriptors read from it), which the store runs at
//! 10k and 100k views measure.

#[path = "support/indexed_rows.rs"]
mod indexed_rows;
#[path = "support/postgres_store.rs"]
mod postgres_store;
#[path = "support/real_models.rs"]
mod real_models;
#[path = "support/streamed_exact.rs"]
mod streamed_exact;
mod support;
#[path = "support/visual_postgres.rs"]
mod visual_postgres;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use indexed_rows::indexed_against_scanned;
use partlens_api::FilterTerm;
use partlens_engine::samples::parts::PART_NAMES;
use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};
use partlens_engine::{ViewDescriptor, VisualIndex};
use partlens_service::error::ServiceError;
use partlens_service::filter_scopes::FilterScopes;
use partlens_service::large_library::{
    BATCH_FILES, LibrarySpec, MATERIALS, generate, supplier, vocabulary_word,
};
use partlens_service::search::rank_visually;
use partlens_store::model::Listing;
use partlens_store::{DATABASE_FILE, Store};
use partlens_visual::{
    AnnIndex, AnnSearch, AnnSettings, ExactScan, FileFilter, GuidSet, LibraryMode, Ranked,
    ViewSearch, VisualKeeper, VisualSettings,
};
use streamed_exact::{ExactMode, StreamedAnswers};
use support::{millis, percentile};

/// Queries timed per case.
const QUERIES: usize = 60;
/// Results asked for per search.
const LIMIT: usize = 50;
/// Results compared for recall.
const RECALL_AT: usize = 10;

/// Scores within this much of the exact 10th score count as ties (ann-benchmarks' recall counts
/// a returned item whose distance is within 1e-3 of the k-th true distance the same way).
const TIE: f32 = 0.001;

/// How much of the exact top [`RECALL_AT`] an approximate ranking holds.
#[derive(Clone, Copy, Debug, Default)]
struct Recall {
    /// Files of the exact top ten the approximate top ten holds.
    found: usize,
    /// Files of the approximate top ten that are in the exact top ten or tie with its tenth score
    /// (the approximate path scores exactly, so its scores are the exact scores).
    found_with_ties: usize,
    /// Files in the exact top ten.
    wanted: usize,
    /// Sum over queries of the exact first score minus the exact tenth (how far apart the top ten
    /// are: near 0 means the top ten is a tie among many).
    top_spread: f64,
    /// Queries counted.
    queries: usize,
}

impl Recall {
    fn add(&mut self, exact: &[(String, f32)], approximate: &[(String, f32)]) {
        let truth: HashSet<&String> = exact.iter().take(RECALL_AT).map(|(uid, _)| uid).collect();
        let tenth = exact[..exact.len().min(RECALL_AT)]
            .last()
            .map_or(f32::NEG_INFINITY, |(_, score)| *score);
        self.wanted += truth.len();
        for (uid, score) in approximate.iter().take(RECALL_AT) {
            let exact_hit = truth.contains(uid);
            self.found += usize::from(exact_hit);
            self.found_with_ties += usize::from(exact_hit || *score >= tenth - TIE);
        }
        if let (Some((_, first)), true) = (exact.first(), tenth.is_finite()) {
            self.top_spread += f64::from(first - tenth);
            self.queries += 1;
        }
    }

    fn strict(&self) -> f64 {
        self.found as f64 / self.wanted.max(1) as f64
    }

    fn with_ties(&self) -> f64 {
        (self.found_with_ties.min(self.wanted)) as f64 / self.wanted.max(1) as f64
    }

    fn spread(&self) -> f64 {
        self.top_spread / self.queries.max(1) as f64
    }
}

/// One row of the search table: `first` (the row's leading cells), then times, speed-up and recall.
fn search_row(
    first: &str,
    exact_times: &mut [Duration],
    graph_times: &mut [Duration],
    recall: &Recall,
) -> String {
    let graph_p50 = percentile(graph_times, 0.5);
    let graph_p95 = percentile(graph_times, 0.95);
    if exact_times.is_empty() {
        // `graph-only`: no exact scan, so no recall either.
        return format!(
            "| {first} | – | – | {} ms | {} ms | – | – | – | – |",
            millis(graph_p50),
            millis(graph_p95),
        );
    }
    let exact_p50 = percentile(exact_times, 0.5);
    format!(
        "| {first} | {} ms | {} ms | {} ms | {} ms | {:.1}× | {:.3} | {:.3} | {:.4} |",
        millis(exact_p50),
        millis(percentile(exact_times, 0.95)),
        millis(graph_p50),
        millis(graph_p95),
        exact_p50.as_secs_f64() / graph_p50.as_secs_f64().max(1e-9),
        recall.strict(),
        recall.with_ties(),
        recall.spread(),
    )
}

/// Resident memory of this process in bytes (Linux), for memory figures.
fn resident_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let kilobytes: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kilobytes * 1024)
}

/// One filter case.
struct Case {
    label: &'static str,
    terms: Vec<FilterTerm>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            label: "none",
            terms: Vec::new(),
        },
        Case {
            label: "supplier (1 of 50)",
            terms: vec![FilterTerm::parse(&format!("supplier=[{}]", supplier(7)))],
        },
        Case {
            label: "material (30 %)",
            terms: vec![FilterTerm::parse(&format!("material=[{}]", MATERIALS[0].0))],
        },
        Case {
            label: "free-text word",
            terms: vec![FilterTerm::Text(vocabulary_word(1234))],
        },
    ]
}

/// Queries of `views` views each: perturbed pool pictures of one part in several poses.
fn queries(pool: &SyntheticViews, views: usize, seed: u64) -> Vec<Vec<ViewDescriptor>> {
    let mut random = seeded(seed);
    (0..QUERIES)
        .map(|query| {
            let first = query * 37;
            (0..views)
                .map(|view| pool.perturbed(first + view * PART_NAMES.len(), &mut random))
                .collect()
        })
        .collect()
}

/// The graph's settings, the one place the store runs (pictures and `real-models`, through
/// [`keeper`]) and the in-memory runs take them from (`postgres` sets pgvector's own): the
/// defaults, or `PARTLENS_BENCH_ANN=connectivity,expansion_add,
/// expansion_search,views_per_query_view,views_per_view_of_several[,direct_views]` to try others,
/// and `PARTLENS_BENCH_GRAPH_DIRECTIONS=N` for a graph over a model's views from N directions
/// (`serve --graph-directions`; the other views kept beside the graph).
fn ann_settings() -> AnnSettings {
    let mut settings = AnnSettings::default();
    if let Ok(text) = std::env::var("PARTLENS_BENCH_GRAPH_DIRECTIONS") {
        settings.graph_directions = match text.trim().parse() {
            Ok(directions) => directions,
            Err(error) => panic!("PARTLENS_BENCH_GRAPH_DIRECTIONS: {text:?}: {error}"),
        };
    }
    if let Ok(text) = std::env::var("PARTLENS_BENCH_ANN") {
        let values: Vec<usize> = text
            .split(',')
            .map(|value| match value.trim().parse() {
                Ok(value) => value,
                Err(error) => panic!("PARTLENS_BENCH_ANN: {value:?}: {error}"),
            })
            .collect();
        if let [
            connectivity,
            expansion_add,
            expansion_search,
            views_per_query_view,
            views_per_view_of_several,
            ref direct @ ..,
        ] = values[..]
            && direct.len() <= 1
        {
            settings.connectivity = connectivity;
            settings.expansion_add = expansion_add;
            settings.expansion_search = expansion_search;
            settings.views_per_query_view = views_per_query_view;
            settings.views_per_view_of_several = views_per_view_of_several;
            if let Some(&direct_views) = direct.first() {
                settings.direct_views = direct_views;
            }
        } else {
            panic!("PARTLENS_BENCH_ANN wants five or six numbers");
        }
    }
    eprintln!("graph settings: {settings:?}");
    settings
}

fn keeper(store: &Store, dir: &std::path::Path, ann_from_views: usize) -> VisualKeeper {
    let settings = VisualSettings {
        ann_from_views,
        ann: ann_settings(),
        ..VisualSettings::default()
    };
    VisualKeeper::new(store.clone(), dir, settings)
}

/// The search settings the in-memory mode tries on one graph: the default first, then
/// `PARTLENS_BENCH_SWEEP=ef:views,…` when set (candidate list `ef`, nearest views asked for each
/// query view, whether the query has one view or several).
fn search_sweep() -> Vec<AnnSettings> {
    let defaults = ann_settings();
    let mut sweep = vec![defaults];
    if let Ok(text) = std::env::var("PARTLENS_BENCH_SWEEP") {
        for pair in text.split(',') {
            let parsed = pair.split_once(':').and_then(|(ef, views)| {
                Some((ef.trim().parse().ok()?, views.trim().parse().ok()?))
            });
            match parsed {
                Some((expansion_search, views)) => sweep.push(AnnSettings {
                    expansion_search,
                    views_per_query_view: views,
                    views_per_view_of_several: views,
                    ..defaults
                }),
                None => panic!("PARTLENS_BENCH_SWEEP: {pair:?} is not ef:views"),
            }
        }
    }
    sweep
}

/// Synthetic files held in memory for [`in_memory`]: (GUID, views), a sixth of them 7-view models.
fn memory_files(
    pool: &SyntheticViews,
    views: usize,
    seed: u64,
) -> Vec<(String, Vec<ViewDescriptor>)> {
    use rand::RngExt;
    let mut random = seeded(seed);
    let mut files = Vec::new();
    let mut planned = 0;
    while planned < views {
        let count = if random.random_bool(1.0 / 6.0) { 7 } else { 1 }.min(views - planned);
        let uid = uuid::Builder::from_random_bytes(random.random::<[u8; 16]>())
            .into_uuid()
            .hyphenated()
            .to_string();
        files.push((uid, pool.file_views(files.len(), count, &mut random)));
        planned += count;
    }
    files
}

/// The search path alone at `views` views (see the module doc): table rows for the search table,
/// and one row for the scale table.
fn in_memory(
    pool: &SyntheticViews,
    views: usize,
    single: &[Vec<ViewDescriptor>],
    triple: &[Vec<ViewDescriptor>],
) -> (Vec<String>, String) {
    const COMPANY: &str = "Bench";
    let started = Instant::now();
    let files = memory_files(pool, views, 77);
    eprintln!(
        "{views} views in memory: {} files made in {:.1} s",
        files.len(),
        started.elapsed().as_secs_f64()
    );
    let before_exact = resident_bytes();
    let mut index = VisualIndex::new();
    for (uid, file_views) in &files {
        index.insert(uid.clone(), file_views.clone());
    }
    index.shrink_to_fit();
    let exact_resident = resident_bytes()
        .zip(before_exact)
        .map(|(after, before)| after.saturating_sub(before));
    let mut exact = ExactScan::new();
    exact.set_company(COMPANY, index);
    let before_graph = resident_bytes();
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let graph = match AnnIndex::build(&files, ann_settings(), threads) {
        Ok(Some(graph)) => graph,
        Ok(None) => panic!("no view to build a graph of"),
        Err(error) => panic!("the graph does not build: {error}"),
    };
    let build = started.elapsed();
    let graph_resident = resident_bytes()
        .zip(before_graph)
        .map(|(after, before)| after.saturating_sub(before));
    eprintln!(
        "{views} views in memory: graph built in {:.1} s",
        build.as_secs_f64()
    );
    let mut approximate = AnnSearch::new(ann_settings());
    approximate.set_company(COMPANY, graph);
    let per_view = |bytes: usize| bytes / views.max(1);
    let scale_line = format!(
        "| {views} (in memory) | – | {} | {} B | {} | {} B | {} | – | – | {:.1} s | – |",
        files.len(),
        per_view(exact.heap_bytes()),
        exact_resident.map_or("–".into(), |bytes| format!("{} B", per_view(bytes))),
        per_view(approximate.heap_bytes()),
        graph_resident.map_or("–".into(), |bytes| format!("{} B", per_view(bytes))),
        build.as_secs_f64(),
    );
    let stored: HashMap<String, Vec<ViewDescriptor>> = files.into_iter().collect();
    let mut uids: Vec<&String> = stored.keys().collect();
    uids.sort();
    let selective: HashSet<String> = uids.iter().step_by(50).map(|uid| (*uid).clone()).collect();
    let broad: HashSet<String> = uids
        .iter()
        .enumerate()
        .filter(|(number, _)| number % 10 < 3)
        .map(|(_, uid)| (*uid).clone())
        .collect();
    let broad = GuidSet::new(&broad);
    let filters: [(&str, FileFilter<'_>); 3] = [
        ("none", FileFilter::Everything),
        ("listed (1 file in 50)", FileFilter::Only(&selective)),
        ("among (30 %)", FileFilter::Among(&broad)),
    ];
    // The exact answers and times once; the graph's for each search setting of the sweep (one
    // graph, searched with several candidate lists: the recall / time trade-off).
    let mut exact_answers = Vec::new();
    for (_, query_set) in [("1", single), ("3", triple)] {
        for (_, filter) in &filters {
            let mut answers = Vec::new();
            let mut times = Vec::new();
            for query in query_set {
                let started = Instant::now();
                match exact.rank(COMPANY, query, *filter, LIMIT, &stored) {
                    Ok(ranked) => answers.push(ranked),
                    Err(error) => panic!("a search fails: {error}"),
                }
                times.push(started.elapsed());
            }
            exact_answers.push((answers, times));
        }
    }
    let mut lines = Vec::new();
    for settings in search_sweep() {
        approximate.set_search_settings(&settings);
        let views_asked = |query_views: &str| {
            if query_views == "1" {
                settings.views_per_query_view
            } else {
                settings.views_per_view_of_several
            }
        };
        let mut case = 0;
        for (query_label, query_set) in [("1", single), ("3", triple)] {
            for (label, filter) in &filters {
                let (answers, exact_times) = &mut exact_answers[case];
                case += 1;
                let mut graph_times = Vec::new();
                let mut recall = Recall::default();
                for (query, exact_ranked) in query_set.iter().zip(answers.iter()) {
                    let started = Instant::now();
                    let graph_ranked =
                        match approximate.rank(COMPANY, query, *filter, LIMIT, &stored) {
                            Ok(ranked) => ranked,
                            Err(error) => panic!("a search fails: {error}"),
                        };
                    graph_times.push(started.elapsed());
                    recall.add(exact_ranked, &graph_ranked);
                }
                lines.push(search_row(
                    &format!(
                        "{views} (in memory) | {query_label} | {label} | ef {}, {} a view",
                        settings.expansion_search,
                        views_asked(query_label)
                    ),
                    exact_times,
                    &mut graph_times,
                    &recall,
                ));
                eprintln!("{}", lines.last().map_or("", String::as_str));
            }
        }
    }
    (lines, scale_line)
}

/// A library of `views` views in `dir` (as many text-only records as half the views: about one
/// record a view, since a sixth of the visual files are 7-view models): written there, or the one a
/// run with `keep=` wrote before.
struct Library {
    company_id: String,
    records: usize,
    visual_files: usize,
    views: usize,
    /// How long writing took (`None`: it was there already).
    writing: Option<Duration>,
}

fn library(dir: &std::path::Path, views: usize) -> Result<Library, ServiceError> {
    let mut spec = LibrarySpec::new("Bench", views);
    spec.text_only_records = views / 2;
    library_of(dir, &spec, views)
}

/// The library of `spec` (`views` views) in `dir`: written there, or the one a run with `keep=`
/// wrote before.
fn library_of(
    dir: &std::path::Path,
    spec: &LibrarySpec,
    views: usize,
) -> Result<Library, ServiceError> {
    if dir.join(DATABASE_FILE).exists() {
        let store = Store::open_blocking(dir)?;
        return store.write_tx_blocking(|tx| {
            let company_id = tx.ensure_company(&spec.company)?;
            let stored_views = tx
                .visual_view_counts(usize::MAX)?
                .into_iter()
                .find(|(company, _)| *company == company_id)
                .map_or(0, |(_, views)| views);
            if stored_views != views {
                return Err(ServiceError::Internal(format!(
                    "{} holds {stored_views} views, not {views}: remove it or keep elsewhere",
                    dir.display()
                )));
            }
            let listing = Listing {
                limit: 0,
                ..Listing::default()
            };
            Ok(Library {
                records: tx.list_library_page(&company_id, &listing)?.total,
                visual_files: tx.matching_uids_with_views(&company_id, &[])?.len(),
                company_id,
                views,
                writing: None,
            })
        });
    }
    std::fs::create_dir_all(dir)?;
    let started = Instant::now();
    let generated = generate(&Store::open_blocking(dir)?, spec, |written, total| {
        if written % 100_000 < BATCH_FILES {
            eprintln!("{written} / {total} records written");
        }
    })?;
    Ok(Library {
        company_id: generated.company_id,
        records: generated.records,
        visual_files: generated.visual_files,
        views: generated.views,
        writing: Some(started.elapsed()),
    })
}

/// The `graph-only`, `reuse-graph`, `cases=` and `exact=` options of the store runs.
struct StoreOptions {
    /// Profiling: the exact scan left out.
    graph_only: bool,
    /// Profiling: a saved graph searched again instead of rebuilt.
    reuse_graph: bool,
    /// Only the cases whose label starts with one of these.
    chosen_cases: Option<Vec<String>>,
    /// Where the exact side of recall comes from (support/streamed_exact.rs).
    exact: ExactMode,
}

impl StoreOptions {
    /// The filter cases the store runs measure: [`cases`], or those `cases=` chose.
    fn cases(&self) -> Vec<Case> {
        cases()
            .into_iter()
            .filter(|case| {
                self.chosen_cases.as_ref().is_none_or(|chosen| {
                    chosen
                        .iter()
                        .any(|prefix| case.label.starts_with(prefix.as_str()))
                })
            })
            .collect()
    }
}

/// The lines of the printed tables.
#[derive(Default)]
struct Tables {
    search: Vec<String>,
    first: Vec<String>,
    scale: Vec<String>,
    text: Vec<String>,
    /// Notes printed under the search table (what a streamed exact side's times are).
    notes: Vec<String>,
}

/// The exact scan of a store run holding every view in memory (when the run holds one), with
/// what loading it took.
struct HeldExact {
    keeper: Option<VisualKeeper>,
    load: Duration,
    /// Its heap bytes.
    bytes: Option<usize>,
    /// The process's resident bytes it added.
    resident: Option<usize>,
}

impl HeldExact {
    /// The exact scan of the store in `dir` loaded, when `held`.
    fn load(store: &Store, dir: &std::path::Path, held: bool) -> Self {
        let before = resident_bytes();
        let keeper = held.then(|| keeper(store, dir, usize::MAX));
        let started = Instant::now();
        if let Some(exact) = &keeper
            && let Err(error) = exact.recover_blocking()
        {
            panic!("the exact index does not load: {error}");
        }
        let load = started.elapsed();
        let bytes = keeper
            .as_ref()
            .and_then(|exact| exact.read().ok().map(|library| library.heap_bytes()));
        let resident = resident_bytes()
            .zip(before)
            .map(|(after, before)| after.saturating_sub(before))
            .filter(|_| held);
        Self {
            keeper,
            load,
            bytes,
            resident,
        }
    }
}

/// The company's graph built from the store in `dir` (as the service does when none is saved) and
/// saved, or the saved one kept (`reuse_graph`); how long the build took.
fn build_graph(
    store: &Store,
    dir: &std::path::Path,
    company: &str,
    reuse_graph: bool,
    holds_exact: bool,
) -> Duration {
    let approximate = keeper(store, dir, 0);
    // Loading the library first finds a saved graph (`reuse-graph`), and otherwise loads every
    // view into an exact index the build replaces, as the service searches while it builds: a
    // run that holds no exact index itself (`exact=streamed`, `graph-only`) builds at once
    // instead, so that the views are never all in memory beside the graph (100,000 parts).
    if (reuse_graph || holds_exact)
        && let Err(error) = approximate.recover_blocking()
    {
        panic!("the library does not load: {error}");
    }
    let started = Instant::now();
    let saved = reuse_graph
        && approximate
            .read()
            .is_ok_and(|library| library.mode(company) == LibraryMode::Approximate);
    if !saved && let Err(error) = approximate.build_blocking(company) {
        panic!("the graph does not build: {error}");
    }
    started.elapsed()
}

/// A restart: a new keeper that loads the saved graph, and the time to its first answered search.
struct Restart {
    keeper: VisualKeeper,
    time: Duration,
    /// The graph's heap bytes.
    bytes: usize,
    /// The process's resident bytes the restart added.
    resident: Option<usize>,
}

impl Restart {
    fn measure(
        store: &Store,
        dir: &std::path::Path,
        company: &str,
        query: &[ViewDescriptor],
    ) -> Self {
        let before = resident_bytes();
        let started = Instant::now();
        let restarted = keeper(store, dir, 0);
        if let Err(error) = restarted.recover_blocking() {
            panic!("the saved graph does not load: {error}");
        }
        let first = store.read_tx_blocking(|tx| {
            rank_visually(
                tx,
                &*restarted.read()?,
                &FilterScopes::new(),
                company,
                &[],
                query,
                LIMIT,
            )
        });
        if let Err(error) = first {
            panic!("the first search fails: {error}");
        }
        let time = started.elapsed();
        let resident = resident_bytes()
            .zip(before)
            .map(|(after, before)| after.saturating_sub(before));
        let (bytes, mode) = match restarted.read() {
            Ok(library) => (library.heap_bytes(), library.mode(company)),
            Err(error) => panic!("{error}"),
        };
        assert_eq!(mode, LibraryMode::Approximate, "the graph was not loaded");
        Self {
            keeper: restarted,
            time,
            bytes,
            resident,
        }
    }
}

/// The store run on the library `generated` in `dir` (its rows labelled `label`): the exact side
/// (the exact scan, the streamed pass or both: `exact=`) and the graph on the same store, `queries`
/// (one view, three views) in every filter case, memory, graph build and restart, free text; rows
/// added to `tables`.
fn measure_store(
    dir: &std::path::Path,
    label: &str,
    generated: &Library,
    (single, triple): (&[Vec<ViewDescriptor>], &[Vec<ViewDescriptor>]),
    options: &StoreOptions,
    tables: &mut Tables,
) {
    let generation = generated.writing;
    let store = match Store::open_blocking(dir) {
        Ok(store) => store,
        Err(error) => panic!("the store does not open: {error}"),
    };
    let company = generated.company_id.clone();

    // The exact side: the store streamed once (no view held) before anything is loaded, and/or
    // the exact scan with every view in memory.
    let streamed = (!options.graph_only && options.exact.streams())
        .then(|| streamed_exact::stream(&store, &company, &[single, triple], &options.cases()));
    let held = HeldExact::load(
        &store,
        dir,
        !options.graph_only && options.exact.holds_views(),
    );
    let exact = held.keeper;
    let build = build_graph(&store, dir, &company, options.reuse_graph, exact.is_some());
    let restart = Restart::measure(&store, dir, &company, &single[0]);
    let restarted = restart.keeper;
    let per_view = |bytes: usize| bytes / generated.views.max(1);
    tables.scale.push(format!(
        "| {label} | {} | {} | {} | {} | {} B | {} | {} | {} | {:.1} s | {:.2} s |",
        generated.records,
        generated.visual_files,
        held.bytes
            .map_or("–".into(), |bytes| format!("{} B", per_view(bytes))),
        held.resident
            .map_or("–".into(), |bytes| format!("{} B", per_view(bytes))),
        per_view(restart.bytes),
        restart
            .resident
            .map_or("–".into(), |bytes| format!("{} B", per_view(bytes))),
        generation.map_or("(kept)".into(), |writing| format!(
            "{:.1} s",
            writing.as_secs_f64()
        )),
        match (&exact, &streamed) {
            (None, Some(streamed)) => streamed.pass_cell(),
            _ => format!("{:.1} s", held.load.as_secs_f64()),
        },
        build.as_secs_f64(),
        restart.time.as_secs_f64(),
    ));
    eprintln!(
        "{label}: graph built in {:.1} s, restart to first search {:.2} s",
        build.as_secs_f64(),
        restart.time.as_secs_f64()
    );

    let exact_side = ExactSide {
        held: exact.as_ref(),
        streamed: streamed.as_ref(),
    };
    let row_label = match exact_side {
        ExactSide {
            held: None,
            streamed: Some(streamed),
        } => {
            tables.notes.push(streamed.note(label));
            format!("{label} [exact streamed]")
        }
        _ => label.to_owned(),
    };
    store_searches(
        &store,
        &company,
        &row_label,
        (exact_side, &restarted),
        (single, triple),
        options,
        tables,
    );
    if let (Some(_), Some(streamed)) = (&exact, &streamed) {
        // `exact=both`: `store_searches` asserted every answer.
        tables.notes.push(streamed.agreement_note(label));
        eprintln!("{}", streamed.agreement_note(label));
    }
    free_text(&store, &company, generated.records, tables);
    drop(exact);
    drop(restarted);
}

/// The exact side of a store run: the exact scan holding every view, the answers of a streamed
/// pass, both (asserted to agree; the times are the exact scan's) or neither (`graph-only`).
#[derive(Clone, Copy)]
struct ExactSide<'a> {
    held: Option<&'a VisualKeeper>,
    streamed: Option<&'a StreamedAnswers>,
}

/// A search of a store run through the service's ranking on a keeper: its answer and time.
type StoreSearch<'a> = dyn Fn(&VisualKeeper, &[ViewDescriptor]) -> ((Ranked, usize), Duration) + 'a;

/// The exact answers and times of `query_set` (query set `set`: 0 one view, 1 three views) in
/// the case labelled `case`: searched on the exact scan (`search`), taken from the streamed pass
/// (its time over its answers), or both, asserted to agree.
fn exact_runs(
    search: &StoreSearch<'_>,
    exact: ExactSide<'_>,
    (set, case): (usize, &str),
    query_set: &[Vec<ViewDescriptor>],
) -> Vec<((Ranked, usize), Duration)> {
    match (exact.held, exact.streamed) {
        (Some(held), streamed) => {
            let runs: Vec<_> = query_set.iter().map(|query| search(held, query)).collect();
            if let Some(streamed) = streamed {
                for (query, (answer, _)) in runs.iter().enumerate() {
                    streamed_exact::assert_agrees(streamed, (set, case, query), answer);
                }
            }
            runs
        }
        (None, Some(streamed)) => (0..query_set.len())
            .map(|query| {
                let answer = streamed.answer(set, case, query).clone();
                (answer, streamed.time_an_answer())
            })
            .collect(),
        (None, None) => Vec::new(),
    }
}

/// The searches of a store run: every case with one and three query views through the service's
/// ranking, on the exact side (when there is one) and on the graph of the same store; rows added
/// to `tables`.
fn store_searches(
    store: &Store,
    company: &str,
    label: &str,
    (exact, restarted): (ExactSide<'_>, &VisualKeeper),
    (single, triple): (&[Vec<ViewDescriptor>], &[Vec<ViewDescriptor>]),
    options: &StoreOptions,
    tables: &mut Tables,
) {
    // Searches: both paths through the service's ranking, on the same store.
    for (set, (query_label, query_set)) in [("1", single), ("3", triple)].into_iter().enumerate() {
        for case in options.cases() {
            let mut exact_times = Vec::with_capacity(QUERIES);
            let mut graph_times = Vec::with_capacity(QUERIES);
            let mut recall = Recall::default();
            let mut matches = 0;
            // Filter resolutions kept for this case's searches, as the service keeps them:
            // the first search of the case resolves its filter (reported on its own below).
            let kept_scopes = FilterScopes::new();
            let scopes = &kept_scopes;
            let run = |keeper: &VisualKeeper, query: &[ViewDescriptor]| {
                let started = Instant::now();
                let ranked = store.read_tx_blocking(|tx| {
                    rank_visually(
                        tx,
                        &*keeper.read()?,
                        scopes,
                        company,
                        &case.terms,
                        query,
                        LIMIT,
                    )
                });
                match ranked {
                    Ok(ranked) => (ranked, started.elapsed()),
                    Err(error) => panic!("a search fails: {error}"),
                }
            };
            // The two paths in separate passes: the exact scan reads every view in memory,
            // which leaves no cache warm for a graph search run right after it.
            let exact_runs = exact_runs(&run, exact, (set, case.label), query_set);
            for (at, query) in query_set.iter().enumerate() {
                let ((graph_ranked, graph_total), graph_time) = run(restarted, query);
                graph_times.push(graph_time);
                matches = graph_total;
                if let Some(((exact_ranked, exact_total), exact_time)) = exact_runs.get(at) {
                    exact_times.push(*exact_time);
                    assert_eq!(
                        *exact_total, graph_total,
                        "both paths count the same matches"
                    );
                    recall.add(exact_ranked, &graph_ranked);
                }
            }
            if !case.terms.is_empty() {
                tables.first.push(format!(
                    "| {label} | {query_label} | {} | {} ms | {} ms |",
                    case.label,
                    millis(graph_times[0]),
                    millis(percentile(&mut graph_times[1..].to_vec(), 0.5)),
                ));
            }
            tables.search.push(search_row(
                &format!("{label} | {query_label} | {} | {matches}", case.label),
                &mut exact_times,
                &mut graph_times,
                &recall,
            ));
            eprintln!("{}", tables.search.last().map_or("", String::as_str));
        }
    }
}

/// Free text without views on a store run's library of `records` records: the trigram index
/// against the substring scan it replaced; a row added to `tables`.
fn free_text(store: &Store, company: &str, records: usize, tables: &mut Tables) {
    // Free text without views: the trigram index against the substring scan it replaced.
    let words: Vec<FilterTerm> = (0..QUERIES)
        .map(|number| FilterTerm::Text(vocabulary_word(number * 61 % 4000)))
        .collect();
    let mut indexed_times = Vec::new();
    let mut scanned_times = Vec::new();
    let mut same = true;
    let mut found = 0;
    for word in &words {
        let terms = std::slice::from_ref(word);
        let timed = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
            let started = Instant::now();
            let indexed = tx.matching_database_files(company, terms)?;
            let indexed_time = started.elapsed();
            let started = Instant::now();
            let scanned = tx.matching_database_files_by_scanning(company, terms)?;
            Ok((indexed, indexed_time, scanned, started.elapsed()))
        });
        let (indexed, indexed_time, scanned, scanned_time) = match timed {
            Ok(timed) => timed,
            Err(error) => panic!("a text search fails: {error}"),
        };
        same &= indexed == scanned;
        found += indexed.len();
        indexed_times.push(indexed_time);
        scanned_times.push(scanned_time);
    }
    tables.text.push(format!(
        "| {} | {} | {} |",
        records,
        found / words.len().max(1),
        indexed_against_scanned(&mut indexed_times, &mut scanned_times, same)
    ));
}

fn main() {
    // `RUST_LOG=info`: the service's own log on stderr (where a saved graph's load spends its time).
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .try_init();
    }
    let arguments: Vec<String> = std::env::args().collect();
    let with_million = arguments.iter().any(|arg| arg == "1m");
    let only_million = arguments.iter().any(|arg| arg == "only-1m");
    // Profiling: the exact scan left out, a saved graph searched again instead of rebuilt, and
    // only the cases whose label starts with one of `cases=a,b`.
    let options = StoreOptions {
        exact: ExactMode::from_arguments(&arguments),
        graph_only: arguments.iter().any(|arg| arg == "graph-only"),
        reuse_graph: arguments.iter().any(|arg| arg == "reuse-graph"),
        chosen_cases: arguments
            .iter()
            .find_map(|arg| arg.strip_prefix("cases="))
            .map(|list| list.split(',').map(str::to_owned).collect()),
    };
    let mut sizes = vec![10_000, 100_000];
    if with_million {
        sizes.push(1_000_000);
    }
    if only_million {
        sizes = vec![1_000_000];
    }
    let mut in_memory_sizes: Vec<usize> = if arguments.iter().any(|arg| arg == "in-memory") {
        sizes.clear();
        vec![100_000, 1_000_000]
    } else {
        Vec::new()
    };
    let mut postgres_sizes: Vec<usize> = if arguments.iter().any(|arg| arg == "postgres") {
        sizes.clear();
        vec![100_000]
    } else {
        Vec::new()
    };
    // `views=N,M`: these library sizes instead (for the chosen mode).
    if let Some(list) = arguments.iter().find_map(|arg| arg.strip_prefix("views=")) {
        let chosen: Vec<usize> = list
            .split(',')
            .map(|value| match value.parse() {
                Ok(value) => value,
                Err(error) => panic!("views={list}: {error}"),
            })
            .collect();
        if !postgres_sizes.is_empty() {
            postgres_sizes = chosen;
        } else if in_memory_sizes.is_empty() {
            sizes = chosen;
        } else {
            in_memory_sizes = chosen;
        }
    }
    // `real-models parts=N,M`: libraries of real-structure models only (support/real_models.rs).
    if arguments.iter().any(|arg| arg == "real-models") {
        sizes.clear();
    }
    // `with-sqlite`: with `postgres`, the same sizes through the SQLite store too, in the same run
    // (after PostgreSQL's), so the two stores' rows stand side by side.
    if !postgres_sizes.is_empty() && arguments.iter().any(|arg| arg == "with-sqlite") {
        sizes.clone_from(&postgres_sizes);
    }
    // The pictures' pool and queries (not needed by `real-models` alone).
    let pictures_measured =
        !(sizes.is_empty() && in_memory_sizes.is_empty() && postgres_sizes.is_empty());
    let pool = match SyntheticViews::analysed(if pictures_measured { 600 } else { 0 }, 2) {
        Ok(pool) => pool,
        Err(error) => panic!("the query pool does not analyse: {error}"),
    };
    let (single, triple) = if pictures_measured {
        (queries(&pool, 1, 501), queries(&pool, 3, 502))
    } else {
        (Vec::new(), Vec::new())
    };
    let mut tables = Tables::default();
    for &views in &in_memory_sizes {
        let (lines, scale_line) = in_memory(&pool, views, &single, &triple);
        tables.search.extend(lines);
        tables.scale.push(scale_line);
    }
    let mut postgres_lines = Vec::new();
    // `baseline=N`: the service's row-by-row load of N views first (100,000 by default; 0: none).
    let baseline = if postgres_sizes.is_empty() {
        0
    } else {
        arguments
            .iter()
            .find_map(|arg| arg.strip_prefix("baseline="))
            .map_or(100_000, |value| match value.parse() {
                Ok(value) => value,
                Err(error) => panic!("baseline={value}: {error}"),
            })
    };
    let mut row_by_row = None;
    if baseline > 0
        && let Some((line, per_view)) = visual_postgres::row_by_row(&pool, baseline)
    {
        eprintln!("{line}");
        postgres_lines.push(line);
        row_by_row = Some(per_view);
    }
    let mut load_ratios = Vec::new();
    for &views in &postgres_sizes {
        if let Some((lines, scale_line, per_view)) =
            visual_postgres::measure(&pool, views, &single, &triple)
        {
            tables.search.extend(lines);
            postgres_lines.push(scale_line);
            if let Some(baseline_per_view) = row_by_row {
                load_ratios.push(format!(
                    "Loading {views} views in bulk took {:.3} ms a view against {:.3} ms a view row by row ({baseline} views): {:.1}× faster a view.",
                    per_view.as_secs_f64() * 1000.0,
                    baseline_per_view.as_secs_f64() * 1000.0,
                    baseline_per_view.as_secs_f64() / per_view.as_secs_f64().max(1e-12),
                ));
            }
        }
    }
    // `keep=DIR`: each size's library in DIR/<views> (written when not there yet), kept.
    let kept = support::kept_folder(&arguments);
    for views in sizes {
        let temporary = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(error) => panic!("no temporary directory: {error}"),
        };
        let dir = support::library_folder(kept.as_ref(), views, &temporary);
        let generated = match library(&dir, views) {
            Ok(generated) => generated,
            Err(error) => panic!("the library does not generate: {error}"),
        };
        eprintln!(
            "{views} views: library written in {}",
            generated.writing.map_or("(kept)".into(), |writing| format!(
                "{:.1} s",
                writing.as_secs_f64()
            ))
        );
        measure_store(
            &dir,
            &views.to_string(),
            &generated,
            (&single, &triple),
            &options,
            &mut tables,
        );
    }
    real_models::run(&arguments, kept.as_ref(), &options, &mut tables);
    println!("## Visual search at scale\n");
    println!(
        "{QUERIES} queries a case, {LIMIT} results asked, recall@{RECALL_AT} of the graph against the \
         exact scan.\n"
    );
    println!(
        "| views | query views | filter | matches | exact p50 | exact p95 | graph p50 | graph p95 | speed-up (p50) | recall@{RECALL_AT} | with ties ±{TIE} | exact 1st − 10th score |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for line in &tables.search {
        println!("{line}");
    }
    println!();
    for note in &tables.notes {
        println!("{note}\n");
    }
    println!(
        "Graph searches with a filter: the first search of a case (its filter resolved) and the \
         later ones (the resolution kept).\n"
    );
    println!("| views | query views | filter | first search | later p50 |");
    println!("|---|---|---|---|---|");
    for line in &tables.first {
        println!("{line}");
    }
    println!();
    println!(
        "| views | records | visual files | exact index a view | exact resident a view | graph a view | graph resident a view | library written in | exact index loaded in | graph built in | restart to first search (graph) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for line in &tables.scale {
        println!("{line}");
    }
    println!();
    if !postgres_lines.is_empty() {
        println!(
            "| views | load | files | records and views written | vectors filled in (COPY) | index built | analysed | total | a view | exact node loaded |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for line in &postgres_lines {
            println!("{line}");
        }
        println!();
        for line in &load_ratios {
            println!("{line}\n");
        }
    }
    println!(
        "| records | matches a word | trigram index p50 | p95 | substring scan p50 | p95 | speed-up (p50) | same files |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for line in &tables.text {
        println!("{line}");
    }
}
