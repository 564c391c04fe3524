//! `visual_scale -- postgres`: the visual search through PostgreSQL (issue 26). A company of
//! synthetic files (the in-memory mode's: pictures and 7-view models whose views blend really
//! analysed drawings) is indexed through the PostgreSQL store as the service indexes a file (its
//! record, then its views with their pgvector rows, a transaction a batch of files), then searched
//! through `rank_visually` in a read transaction exactly as a node searches: once by a node that
//! scans every view exactly (the reference) and once by a node that asks the database's HNSW index
//! for candidates and scores them exactly (`visual/store_vectors.rs`), in the same run, with
//! recall@10 of the second against the first.
//!
//! Needs a PostgreSQL server with pgvector (`partlens_testkit::postgres`: `PARTLENS_PG_BIN`, or the
//! `pgserver` Python package that `.ci/install.sh` installs); says so and measures nothing without.
//!
//! ```text
//! cargo bench -p partlens-service --bench visual_scale -- postgres                 # 100k views
//! cargo bench -p partlens-service --bench visual_scale -- postgres views=10000,100000
//! ```

use std::time::{Duration, Instant};

use partlens_engine::ViewDescriptor;
use partlens_engine::samples::synthetic_views::SyntheticViews;
use partlens_service::filter_scopes::FilterScopes;
use partlens_service::search::rank_visually;
use partlens_store::model::{IndexState, IndexedContent, NewContent};
use partlens_visual::{VisualKeeper, VisualSettings};

use super::support::millis;
use super::{LIMIT, Recall, memory_files, search_row};

/// Files written in one transaction.
const BATCH_FILES: usize = 100;

/// The search table's rows and one row of the scale table for a library of `views` views, or
/// nothing when there is no PostgreSQL server.
pub fn measure(
    pool: &SyntheticViews,
    views: usize,
    single: &[Vec<ViewDescriptor>],
    triple: &[Vec<ViewDescriptor>],
) -> Option<(Vec<String>, String)> {
    let (store, database, folder) = super::postgres_store::open()?;
    let company = match store.write_tx_blocking(|tx| tx.ensure_company("Bench")) {
        Ok(company) => company,
        Err(error) => panic!("no company: {error}"),
    };
    let has_vectors = store.read_tx_blocking(|tx| tx.has_view_vector_index());
    if !matches!(has_vectors, Ok(true)) {
        eprintln!("the PostgreSQL server has no pgvector: nothing measured");
        return None;
    }

    // Indexing: records and views (with their vectors) as the service saves them.
    let files = memory_files(pool, views, 11);
    let started = Instant::now();
    for (batch_number, batch) in files.chunks(BATCH_FILES).enumerate() {
        let written = store.write_tx_blocking(|tx| -> Result<(), partlens_store::StoreError> {
            for (uid, file_views) in batch {
                let content = NewContent {
                    uid: uid.clone(),
                    company_id: company.clone(),
                    owner_user_id: 1,
                    is_search_input: false,
                    stored_path: format!("Bench/{uid}.png"),
                    display_name: format!("{uid}.png"),
                    extension: ".png".into(),
                    size: 1_000,
                    state: IndexState::InProgress,
                    callback_param: None,
                    text_only: false,
                };
                let now = partlens_store::iso_now();
                let revision = tx.upsert_file(&content, &now)?;
                let indexed = IndexedContent {
                    views: file_views.iter().map(ViewDescriptor::to_bytes).collect(),
                    text: String::new(),
                    extracted_attributes: Vec::new(),
                    pmi_json: "[]".into(),
                    has_thumbnail: false,
                    has_large_image: false,
                    pages_json: String::new(),
                };
                tx.save_indexing(uid, revision, Some(&indexed), &now)?;
            }
            Ok(())
        });
        if let Err(error) = written {
            panic!("the library does not write: {error}");
        }
        if (batch_number + 1) * BATCH_FILES % 2_000 < BATCH_FILES {
            eprintln!(
                "{} / {} files indexed through PostgreSQL",
                (batch_number + 1) * BATCH_FILES,
                files.len()
            );
        }
    }
    let indexing = started.elapsed();

    // Two nodes' libraries loaded from the database: the exact scan, and the database's index.
    let node = |ann_from_views: usize| {
        let settings = VisualSettings {
            ann_from_views,
            ..VisualSettings::default()
        };
        let keeper = VisualKeeper::new(store.clone(), folder.path(), settings);
        if let Err(error) = keeper.recover_blocking() {
            panic!("the library does not load: {error}");
        }
        keeper
    };
    let started = Instant::now();
    let exact = node(usize::MAX);
    let load = started.elapsed();
    let indexed = node(0);
    let run = |keeper: &VisualKeeper, query: &[ViewDescriptor]| {
        let started = Instant::now();
        let found = store.read_tx_blocking(|tx| {
            let library = keeper.current(tx)?;
            rank_visually(
                tx,
                &library,
                &FilterScopes::new(),
                &company,
                &[],
                query,
                LIMIT,
            )
        });
        match found {
            Ok(found) => (found, started.elapsed()),
            Err(error) => panic!("a search fails: {error}"),
        }
    };
    let mut lines = Vec::new();
    for (label, queries) in [("1", single), ("3", triple)] {
        let exact_runs: Vec<_> = queries.iter().map(|query| run(&exact, query)).collect();
        let (mut exact_times, mut index_times): (Vec<Duration>, Vec<Duration>) =
            (Vec::new(), Vec::new());
        let mut recall = Recall::default();
        let mut matches = 0;
        for (query, ((exact_ranked, exact_total), exact_time)) in queries.iter().zip(&exact_runs) {
            let ((ranked, total), time) = run(&indexed, query);
            assert_eq!(*exact_total, total, "both nodes count the same matches");
            matches = total;
            exact_times.push(*exact_time);
            index_times.push(time);
            recall.add(exact_ranked, &ranked);
        }
        lines.push(search_row(
            &format!("{views} (PostgreSQL, pgvector HNSW) | {label} | none | {matches}"),
            &mut exact_times,
            &mut index_times,
            &recall,
        ));
        eprintln!("{}", lines.last().map_or("", String::as_str));
    }
    let per_file = indexing / files.len().max(1) as u32;
    let scale = format!(
        "| {views} (PostgreSQL) | {} files | indexed through the store in {:.1} s ({} ms a file, HNSW rows included) | node loaded in {:.1} s |",
        files.len(),
        indexing.as_secs_f64(),
        millis(per_file),
        load.as_secs_f64(),
    );
    drop(database);
    Some((lines, scale))
}
