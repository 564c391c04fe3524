//! `visual_scale -- postgres`: the visual search through PostgreSQL (issues 26 and 51). A company
//! of synthetic files (the in-memory mode's: pictures and 7-view models whose views blend really
//! analysed drawings, each file a supplier of 50) is loaded through the PostgreSQL store as the
//! service saves a file (its record, its supplier, then its views), then searched through
//! `rank_visually` in a read transaction exactly as a node searches, without a filter and with
//! `supplier=[…]` (1 file in 50): once by a node that scans every view exactly (the reference) and
//! once by a node that asks the database's HNSW index for candidates and scores them exactly
//! (`visual/store_vectors.rs`), in the same run, with recall@10 of the second against the first.
//!
//! Two ways to load, timed in the same run:
//!
//! - **row by row** (`baseline=N` views, 100,000 by default, `baseline=0` to skip; into a database
//!   of its own, then dropped): the service's path, 100 files a transaction, each file's vectors
//!   written with its views into the live HNSW index;
//! - **in bulk** (every measured size): the same files, 1,000 a transaction, each batch written
//!   set-based by `StoreTx::write_loaded_files` (PostgreSQL: a few statements a batch,
//!   `postgres/bulk_records.rs`), inside one `Store::bulk_load_blocking`: the index dropped first
//!   (a load of more than 50,000 views), the vectors left out of the writes, sent by `COPY` at the
//!   end, the index built once, then analysed.
//!
//! `several=N,M`: besides the index node with the default settings, nodes asking the index for
//! `N`, `M` nearest views for each view of a three-view query (`AnnSettings::
//! views_per_view_of_several`; 800 by default), measured on the unfiltered three-view queries.
//!
//! Needs a PostgreSQL server with pgvector (`partlens_testkit::postgres`: `PARTLENS_PG_BIN`, or the
//! `pgserver` Python package that `.ci/install.sh` installs); says so and measures nothing without.
//!
//! ```text
//! cargo bench -p partlens-service --bench visual_scale -- postgres                 # 100k views
//! cargo bench -p partlens-service --bench visual_scale -- postgres views=300000,1000000 baseline=100000
//! cargo bench -p partlens-service --bench visual_scale -- postgres views=100000 baseline=0 several=300,500
//! ```

use std::time::{Duration, Instant};

use partlens_api::Attribute;
use partlens_engine::ViewDescriptor;
use partlens_engine::samples::synthetic_views::SyntheticViews;
use partlens_service::filter_scopes::FilterScopes;
use partlens_service::large_library::supplier;
use partlens_service::search::rank_visually;
use partlens_store::model::{IndexState, IndexedContent, LoadedFile, NewContent};
use partlens_store::{BulkVectors, Store, StoreError};
use partlens_visual::{AnnSettings, VisualKeeper, VisualSettings};

use super::{LIMIT, Recall, cases, memory_files, search_row};

/// Files written in one transaction by the service's path (row by row).
const ROW_BY_ROW_FILES: usize = 100;

/// Files written in one transaction by the bulk load.
const BULK_FILES: usize = 1_000;

/// Suppliers the files are spread over (the filter keeps one: 1 file in 50).
const SUPPLIERS: usize = 50;

/// A synthetic file: its GUID and views.
type File = (String, Vec<ViewDescriptor>);

/// Writes `files` of `company` through the store as the service saves an indexed file (record,
/// supplier, views), `per_transaction` files a transaction.
fn write_files(store: &Store, company: &str, files: &[File], per_transaction: usize) {
    for (batch_number, batch) in files.chunks(per_transaction).enumerate() {
        let first = batch_number * per_transaction;
        let written = store.write_tx_blocking(|tx| -> Result<(), StoreError> {
            for (offset, (uid, file_views)) in batch.iter().enumerate() {
                let content = content(company, uid);
                let now = partlens_store::iso_now();
                let revision = tx.upsert_file(&content, &now)?;
                let attribute = format!("supplier={}", supplier((first + offset) % SUPPLIERS));
                if let Ok(parsed) = Attribute::parse(&attribute) {
                    tx.replace_attributes(company, uid, &[parsed])?;
                }
                tx.save_indexing(uid, revision, Some(&indexed(file_views)), &now)?;
            }
            Ok(())
        });
        if let Err(error) = written {
            panic!("the library does not write: {error}");
        }
        let done = first + batch.len();
        if done % 20_000 < per_transaction {
            eprintln!("{done} / {} files written through PostgreSQL", files.len());
        }
    }
}

/// The record of synthetic file `uid` of `company`, as an upload makes it.
fn content(company: &str, uid: &str) -> NewContent {
    NewContent {
        uid: uid.to_owned(),
        company_id: company.to_owned(),
        owner_user_id: 1,
        is_search_input: false,
        stored_path: format!("Bench/{uid}.png"),
        display_name: format!("{uid}.png"),
        extension: ".png".into(),
        size: 1_000,
        state: IndexState::InProgress,
        callback_param: None,
        text_only: false,
    }
}

/// What indexing learned of a synthetic file: its views.
fn indexed(file_views: &[ViewDescriptor]) -> IndexedContent {
    IndexedContent {
        views: file_views.iter().map(ViewDescriptor::to_bytes).collect(),
        text: String::new(),
        extracted_attributes: Vec::new(),
        pmi_json: "[]".into(),
        has_thumbnail: false,
        has_large_image: false,
        pages_json: String::new(),
    }
}

/// Writes `files` of `company` as a bulk load does, [`BULK_FILES`] a transaction, each batch by
/// `StoreTx::write_loaded_files` (the same records, supplier and views as [`write_files`]).
fn write_loaded(store: &Store, company: &str, files: &[File]) {
    for (batch_number, batch) in files.chunks(BULK_FILES).enumerate() {
        let first = batch_number * BULK_FILES;
        let loaded: Vec<LoadedFile> = batch
            .iter()
            .enumerate()
            .map(|(offset, (uid, file_views))| LoadedFile {
                content: content(company, uid),
                attributes: Attribute::parse(&format!(
                    "supplier={}",
                    supplier((first + offset) % SUPPLIERS)
                ))
                .into_iter()
                .collect(),
                indexed: indexed(file_views),
            })
            .collect();
        let now = partlens_store::iso_now();
        if let Err(error) = store.write_tx_blocking(|tx| tx.write_loaded_files(&loaded, &now)) {
            panic!("the library does not load: {error}");
        }
        let done = first + batch.len();
        if done % 100_000 < BULK_FILES {
            eprintln!("{done} / {} files loaded into PostgreSQL", files.len());
        }
    }
}

/// The numbers of the command line's `NAME=N,M` (none when it is not given).
fn asked_list(name: &str) -> Vec<usize> {
    let prefix = format!("{name}=");
    std::env::args()
        .find_map(|arg| arg.strip_prefix(&prefix).map(str::to_owned))
        .map(|list| {
            list.split(',')
                .map(|value| match value.parse() {
                    Ok(value) => value,
                    Err(error) => panic!("{name}={list}: {error}"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// A store on a fresh database with a company, or nothing (said on stderr) without a server
/// with pgvector.
fn fresh_store() -> Option<(
    Store,
    partlens_testkit::postgres::TestDatabase,
    tempfile::TempDir,
    String,
)> {
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
    Some((store, database, folder, company))
}

/// The row of the load table for `views` views loaded by the service's path, row by row, into
/// a database of its own: (row, time a view).
pub fn row_by_row(pool: &SyntheticViews, views: usize) -> Option<(String, Duration)> {
    let (store, database, _folder, company) = fresh_store()?;
    let files = memory_files(pool, views, 11);
    let started = Instant::now();
    write_files(&store, &company, &files, ROW_BY_ROW_FILES);
    let took = started.elapsed();
    drop(store);
    drop(database);
    let per_view = took / views.max(1) as u32;
    Some((
        format!(
            "| {views} | row by row ({ROW_BY_ROW_FILES} files a transaction, vectors into the live index) | {} files | {:.1} s | – | – | – | {:.1} s | {:.3} ms | – |",
            files.len(),
            took.as_secs_f64(),
            took.as_secs_f64(),
            per_view.as_secs_f64() * 1000.0
        ),
        per_view,
    ))
}

/// The load table's row of a bulk load that took `took` in all (records, vectors, index,
/// statistics).
fn bulk_row(views: usize, files: usize, took: Duration, vectors: &BulkVectors) -> String {
    let build = vectors.index_build.unwrap_or_default();
    let records = took
        .saturating_sub(vectors.filling)
        .saturating_sub(build)
        .saturating_sub(vectors.analysing);
    format!(
        "| {views} | in bulk ({BULK_FILES} files a transaction, set-based; index dropped: {}) | {files} files | {:.1} s | {:.1} s | {:.1} s | {:.1} s | {:.1} s | {:.3} ms |",
        if vectors.index_dropped { "yes" } else { "no" },
        records.as_secs_f64(),
        vectors.filling.as_secs_f64(),
        build.as_secs_f64(),
        vectors.analysing.as_secs_f64(),
        took.as_secs_f64(),
        took.as_secs_f64() * 1000.0 / views.max(1) as f64,
    )
}

/// The search table's rows, one row of the load table and the load's time a view (records,
/// views, vectors and index) for a library of `views` views loaded in bulk, or nothing when
/// there is no PostgreSQL server.
pub fn measure(
    pool: &SyntheticViews,
    views: usize,
    single: &[Vec<ViewDescriptor>],
    triple: &[Vec<ViewDescriptor>],
) -> Option<(Vec<String>, String, Duration)> {
    let (store, database, folder, company) = fresh_store()?;
    let files = memory_files(pool, views, 11);
    let started = Instant::now();
    let loaded = store.bulk_load_blocking(views, || -> Result<(), StoreError> {
        write_loaded(&store, &company, &files);
        Ok(())
    });
    let took = started.elapsed();
    let vectors = match loaded {
        Ok(((), vectors)) => vectors,
        Err(error) => panic!("the bulk load fails: {error}"),
    };
    eprintln!("{}", bulk_row(views, files.len(), took, &vectors));

    // Two nodes' libraries loaded from the database: the exact scan, and the database's index.
    let node = |ann_from_views: usize, ann: AnnSettings| {
        // The index node asks the index for several views whatever the company's size, so that
        // the table compares it with the exact scan (the service takes the faster one).
        let settings = VisualSettings {
            ann_from_views,
            ann,
            several_through_index_from_views: 0,
            ..VisualSettings::default()
        };
        let keeper = VisualKeeper::new(store.clone(), folder.path(), settings);
        if let Err(error) = keeper.recover_blocking() {
            panic!("the library does not load: {error}");
        }
        keeper
    };
    let started = Instant::now();
    let exact = node(usize::MAX, AnnSettings::default());
    let load = started.elapsed();
    let indexed = node(0, AnnSettings::default());
    // Nodes asking the index for fewer (or more) views for each view of several (`several=`),
    // and for a one-view query (`single=`).
    let nodes_asking = |name: &str, ann_asking: fn(usize) -> AnnSettings| {
        asked_list(name)
            .into_iter()
            .map(|asked| (asked, node(0, ann_asking(asked))))
            .collect::<Vec<(usize, VisualKeeper)>>()
    };
    let asking = nodes_asking("several", |views_per_view_of_several| AnnSettings {
        views_per_view_of_several,
        ..AnnSettings::default()
    });
    let asking_single = nodes_asking("single", |views_per_query_view| AnnSettings {
        views_per_query_view,
        ..AnnSettings::default()
    });
    let mut lines = Vec::new();
    let chosen = cases()
        .into_iter()
        .filter(|case| case.label == "none" || case.label.starts_with("supplier"));
    for case in chosen {
        // Filter resolutions kept for the case's searches, as the service keeps them.
        let scopes = FilterScopes::new();
        let run = |keeper: &VisualKeeper, query: &[ViewDescriptor]| {
            let started = Instant::now();
            let found = store.read_tx_blocking(|tx| {
                let library = keeper.current(tx)?;
                rank_visually(tx, &library, &scopes, &company, &case.terms, query, LIMIT)
            });
            match found {
                Ok(found) => (found, started.elapsed()),
                Err(error) => panic!("a search fails: {error}"),
            }
        };
        for (label, queries) in [("1", single), ("3", triple)] {
            let exact_runs: Vec<_> = queries.iter().map(|query| run(&exact, query)).collect();
            let (mut exact_times, mut index_times): (Vec<Duration>, Vec<Duration>) =
                (Vec::new(), Vec::new());
            let mut recall = Recall::default();
            let mut matches = 0;
            for (query, ((exact_ranked, exact_total), exact_time)) in
                queries.iter().zip(&exact_runs)
            {
                let ((ranked, total), time) = run(&indexed, query);
                assert_eq!(*exact_total, total, "both nodes count the same matches");
                matches = total;
                exact_times.push(*exact_time);
                index_times.push(time);
                recall.add(exact_ranked, &ranked);
            }
            lines.push(search_row(
                &format!(
                    "{views} (PostgreSQL, pgvector HNSW) | {label} | {} | {matches}",
                    case.label
                ),
                &mut exact_times,
                &mut index_times,
                &recall,
            ));
            eprintln!("{}", lines.last().map_or("", String::as_str));
            if case.label != "none" {
                continue;
            }
            let nodes = if label == "3" {
                &asking
            } else {
                &asking_single
            };
            for (asked, keeper) in nodes {
                let mut recall = Recall::default();
                let mut times = Vec::new();
                for (query, ((exact_ranked, _), _)) in queries.iter().zip(&exact_runs) {
                    let ((ranked, _), time) = run(keeper, query);
                    times.push(time);
                    recall.add(exact_ranked, &ranked);
                }
                lines.push(search_row(
                    &format!(
                        "{views} (PostgreSQL, pgvector HNSW, {asked} views a query view) | {label} | {} | {matches}",
                        case.label
                    ),
                    &mut exact_times,
                    &mut times,
                    &recall,
                ));
                eprintln!("{}", lines.last().map_or("", String::as_str));
            }
        }
    }
    let scale = format!(
        "{} {:.1} s |",
        bulk_row(views, files.len(), took, &vectors),
        load.as_secs_f64(),
    );
    drop(exact);
    drop(indexed);
    drop(asking);
    drop(asking_single);
    drop(database);
    let per_view = took / views.max(1) as u32;
    Some((lines, scale, per_view))
}
