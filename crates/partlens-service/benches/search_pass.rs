//! The search in one pass at 100,000 files (issue 46 item 3): a filtered picture search and a model
//! search timed through the service's own `search::run` (what `GET /api/Search` calls), on SQLite
//! or PostgreSQL, p50 and p95.
//!
//! The library is `partlens_service::large_library`'s: 100,000 views in about 50,000 visual files
//! (five in six pictures of one view, one in six models of seven views, their descriptors seeded
//! blends of really analysed part drawings) and 50,000 text-only records, so about 100,000 files,
//! each with six attributes (one of 50 suppliers, one of 8 materials, …) and a text. It is written
//! straight into the store (no file bytes, no rendered images). The visual index is loaded from the
//! store as the service loads it at start (`Indexer::recover`, the service's default settings).
//!
//! The searches, [`QUERIES`] of each case after [`WARM_UP`] untimed ones, each by another input,
//! 200 results (the default `maxResults`):
//! - a picture search with an attribute filter: a library picture as input, `supplier=[Supplier
//!   NN]` (1 file in 50), then `material=[steel]` (3 in 10);
//! - a model search: a search input holding the seven views of a library model and extents
//!   (`extents=…`, as a STEP or STL model's analysis gives them), so the search ranks the visual
//!   ranking's first 200 again by size (the library's models carry no extents: they keep their
//!   visual score, but their records are read and sorted as with sizes).
//!
//! ```text
//! cargo bench -p partlens-service --bench search_pass -- keep=/tmp/pass          # SQLite; the library
//!                                                        # written there on the first run, reused after
//! cargo bench -p partlens-service --bench search_pass -- postgres postgres_url=URL
//!                                                        # a database of a server of your own: the
//!                                                        # library written when the company is empty
//! ```
//!
//! With `duplicates` among the arguments it times duplicates at that size instead
//! (`support/duplicates_pass.rs`): the pairing of one newly indexed file, and `GET /api/Duplicates`
//! once every visual file is paired (synthetic pairs beyond the first 40).
//!
//! `RUST_LOG=partlens_service::search=debug` logs each search's steps (select, rank, load) on stderr.
//! Without `keep=` the SQLite library goes to a temporary folder; without `postgres_url=` the
//! PostgreSQL library goes to a fresh database of the test server (`partlens_testkit::postgres`).

#[path = "support/duplicates_pass.rs"]
mod duplicates_pass;
#[path = "support/postgres_store.rs"]
mod postgres_store;
mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use partlens_api::{FileUid, FilterTerm, SearchFilter};
use partlens_service::blobs::{BlobLocation, Blobs};
use partlens_service::caller::Caller;
use partlens_service::disk::Disk;
use partlens_service::error::ServiceError;
use partlens_service::filter_scopes::FilterScopes;
use partlens_service::image_links::ImageLinks;
use partlens_service::indexing::Indexer;
use partlens_service::large_library::{LibrarySpec, generate, supplier};
use partlens_service::login_guard::LoginGuard;
use partlens_service::part_size::EXTENTS_ATTRIBUTE;
use partlens_service::search::run;
use partlens_service::search_request::SearchQuery;
use partlens_service::state::{AppState, ServiceState};
use partlens_service::{ServiceConfig, config};
use partlens_store::model::{IndexState, IndexedContent, NewContent};
use partlens_store::{Store, iso_now};
use partlens_visual::VisualKeeper;

use support::{millis, percentile};

/// Views of the library's visual files together.
const VIEWS: usize = 100_000;
/// Text-only records of the library.
const TEXT_ONLY: usize = 50_000;
/// Part drawings analysed for the library's descriptor pool.
const POOL_PICTURES: usize = 200;
/// Timed searches a case.
const QUERIES: usize = 60;
/// Untimed searches before a case.
const WARM_UP: usize = 5;
/// The company the library is written into.
const COMPANY: &str = "SearchPass";

/// A case: its label, its input UIDs for query `number`, its filter.
struct Case {
    label: &'static str,
    inputs: Vec<String>,
    filter: fn(usize) -> Vec<FilterTerm>,
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    // `RUST_LOG=partlens_service::search=debug`: each search's steps (select, rank, load) on stderr.
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_default_env() {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let postgres = arguments.iter().any(|arg| arg == "postgres");
    let url = arguments
        .iter()
        .find_map(|arg| arg.strip_prefix("postgres_url="));
    let temporary = match tempfile::tempdir() {
        Ok(folder) => folder,
        Err(error) => panic!("no temporary directory: {error}"),
    };
    // The store, its data folder, and what must outlive it (a test database).
    let (store, data_dir, _database, _folder) = if postgres {
        match url {
            Some(url) => {
                let (store, folder) = postgres_store::open_kept(url);
                let dir = folder.path().to_path_buf();
                (store, dir, None, Some(folder))
            }
            None => {
                let Some((store, database, folder)) = postgres_store::open() else {
                    return;
                };
                let dir = folder.path().to_path_buf();
                (store, dir, Some(database), Some(folder))
            }
        }
    } else {
        let dir =
            support::library_folder(support::kept_folder(&arguments).as_ref(), VIEWS, &temporary);
        if let Err(error) = std::fs::create_dir_all(&dir) {
            panic!("{}: {error}", dir.display());
        }
        match Store::open_blocking(&dir) {
            Ok(store) => (store, dir, None, None),
            Err(error) => panic!("the store does not open: {error}"),
        }
    };
    let engine = if postgres { "PostgreSQL" } else { "SQLite" };
    let company = ensure_library(&store);
    let (pictures, models) = inputs(&store, &company);
    eprintln!(
        "{engine}: {} pictures and {} model inputs chosen",
        pictures.len(),
        models.len()
    );
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => panic!("no runtime: {error}"),
    };
    let state = runtime.block_on(service_state(store, &data_dir));
    let caller = Caller(partlens_store::model::Caller {
        user_id: 1,
        company_id: company,
        admin: false,
        credential_stamp: String::new(),
    });
    if arguments.iter().any(|arg| arg == "duplicates") {
        runtime.block_on(duplicates_pass::measure(&state, &caller, engine));
        return;
    }
    let cases = [
        Case {
            label: "picture, `supplier=[…]` (1 in 50)",
            inputs: pictures.clone(),
            filter: |number| {
                vec![FilterTerm::parse(&format!(
                    "supplier=[{}]",
                    supplier(number % 50)
                ))]
            },
        },
        Case {
            label: "picture, `material=[steel]` (3 in 10)",
            inputs: pictures,
            filter: |_| vec![FilterTerm::parse("material=[steel]")],
        },
        Case {
            label: "model (7 views, ranked by size)",
            inputs: models,
            filter: |_| Vec::new(),
        },
    ];
    println!("| store | search | results | matches (median) | p50 | p95 |");
    println!("|---|---|---|---|---|---|");
    for case in &cases {
        let (mut times, matches, shown) = runtime.block_on(measure(&state, &caller, case));
        let p50 = percentile(&mut times, 0.5);
        let p95 = percentile(&mut times, 0.95);
        println!(
            "| {engine} | {} | {shown} | {matches} | {} ms | {} ms |",
            case.label,
            millis(p50),
            millis(p95)
        );
    }
}

/// Times the searches of `case`: their durations, the median match count and the results shown.
async fn measure(state: &AppState, caller: &Caller, case: &Case) -> (Vec<Duration>, i64, usize) {
    let mut times = Vec::with_capacity(QUERIES);
    let mut matches = Vec::with_capacity(QUERIES);
    let mut shown = 0;
    for number in 0..WARM_UP + QUERIES {
        let query = query(
            &case.inputs[number % case.inputs.len()],
            (case.filter)(number),
            state,
        );
        let started = Instant::now();
        let found = match run(state, caller, query).await {
            Ok(found) => found,
            Err(error) => panic!("{}: {error}", case.label),
        };
        let took = started.elapsed();
        if number >= WARM_UP {
            times.push(took);
            matches.push(found.total_results);
            shown = shown.max(found.results.len());
        }
    }
    matches.sort_unstable();
    (times, matches[matches.len() / 2], shown)
}

/// The search by `input` and `terms`, 200 results at most (the default `maxResults`).
fn query(input: &str, terms: Vec<FilterTerm>, state: &AppState) -> SearchQuery {
    let filter = terms.into_iter().fold(
        SearchFilter::default().with_uids([FileUid::from_reply(input)]),
        SearchFilter::term,
    );
    match SearchQuery::parse(&filter, None, &state.config.limits) {
        Ok(query) => query,
        Err(error) => panic!("{error}"),
    }
}

/// The company's id, its library written first when it has no file yet.
fn ensure_library(store: &Store) -> String {
    let company = store
        .write_tx_blocking(|tx| -> Result<_, ServiceError> { Ok(tx.ensure_company(COMPANY)?) });
    let company = match company {
        Ok(company) => company,
        Err(error) => panic!("no company: {error}"),
    };
    let existing = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
        Ok(tx.matching_uids_with_views(&company, &[])?.len())
    });
    match existing {
        Ok(0) => {}
        Ok(files) => {
            eprintln!("the library is there already ({files} files with views)");
            return company;
        }
        Err(error) => panic!("the library does not read: {error}"),
    }
    let mut spec = LibrarySpec::new(COMPANY, VIEWS);
    spec.text_only_records = TEXT_ONLY;
    spec.pool_pictures = POOL_PICTURES;
    let mut last = Instant::now();
    let written = generate(store, &spec, |done, total| {
        if last.elapsed() > Duration::from_secs(30) {
            eprintln!("{done} of {total} files written");
            last = Instant::now();
        }
    });
    match written {
        Ok(library) => eprintln!(
            "written: {} files ({} visual, {} views) in {:.1} s (pool analysed in {:.1} s)",
            library.records,
            library.visual_files,
            library.views,
            library.writing.as_secs_f64(),
            library.analysis.as_secs_f64()
        ),
        Err(error) => panic!("the library is not written: {error}"),
    }
    company
}

/// The inputs: [`QUERIES`] library pictures, and as many search inputs holding a library model's
/// views and extents (written when missing).
fn inputs(store: &Store, company: &str) -> (Vec<String>, Vec<String>) {
    let chosen = store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
        let mut uids = tx.matching_uids_with_views(company, &[])?;
        uids.sort();
        let records = tx.find_files(company, &uids)?;
        let of = |extension: &str| -> Vec<String> {
            let mut kind: Vec<String> = records
                .iter()
                .filter(|record| record.extension == extension && !record.is_search_input)
                .map(|record| record.uid.clone())
                .collect();
            kind.sort();
            let step = (kind.len() / QUERIES).max(1);
            kind.into_iter().step_by(step).take(QUERIES).collect()
        };
        let models = of(".stl");
        let mut model_views = Vec::new();
        for uid in &models {
            model_views.push(tx.views_of(uid)?);
        }
        Ok((of(".png"), model_views))
    });
    let (pictures, model_views) = match chosen {
        Ok(chosen) => chosen,
        Err(error) => panic!("the inputs are not chosen: {error}"),
    };
    let mut models = Vec::new();
    let written = store.write_tx_blocking(|tx| -> Result<(), ServiceError> {
        let now = iso_now();
        for (number, views) in model_views.iter().enumerate() {
            let uid = format!("00000000-0000-4000-8000-{number:012}");
            models.push(uid.clone());
            if tx.find_file(company, &uid)?.is_some() {
                continue;
            }
            let revision = tx.upsert_file(&model_input(company, &uid), &now)?;
            let content = model_content(views, number);
            tx.save_indexing(&uid, revision, Some(&content), &now)?;
        }
        Ok(())
    });
    if let Err(error) = written {
        panic!("the model inputs are not written: {error}");
    }
    (pictures, models)
}

/// The record of model input `uid`, as `PUT /api/Search` stores a model.
fn model_input(company: &str, uid: &str) -> NewContent {
    NewContent {
        uid: uid.to_owned(),
        company_id: company.to_owned(),
        owner_user_id: 1,
        is_search_input: true,
        stored_path: format!("SearchInputs/{uid}.stl"),
        display_name: format!("{uid}.stl"),
        extension: ".stl".into(),
        size: 4096,
        state: IndexState::InProgress,
        callback_param: None,
        text_only: false,
    }
}

/// What indexing model input `number` gives: the views of a library model and extents.
fn model_content(views: &[Vec<u8>], number: usize) -> IndexedContent {
    let length = 20.0 + (number % 40) as f32 * 5.0;
    IndexedContent {
        views: views.to_vec(),
        text: String::new(),
        extracted_attributes: vec![format!(
            "{EXTENTS_ATTRIBUTE}={length} x {:.1} x {:.1}",
            length / 2.0,
            length / 4.0
        )],
        pmi_json: "[]".into(),
        has_thumbnail: false,
        has_large_image: false,
        pages_json: String::new(),
    }
}

/// A service state over `store` as the service sets one up (no HTTP, no workers), the visual
/// index loaded from the store.
async fn service_state(store: Store, data_dir: &Path) -> AppState {
    let disk = Disk::new(data_dir);
    if let Err(error) = disk.create_folders(&[]) {
        panic!("{}: {error}", data_dir.display());
    }
    let blobs = match Blobs::open(&BlobLocation::DataDirectory, data_dir) {
        Ok(blobs) => blobs,
        Err(error) => panic!("no blobs: {error}"),
    };
    let config = ServiceConfig::new(data_dir);
    let visual = VisualKeeper::new(store.clone(), data_dir, config.visual);
    let indexer = Indexer::new(
        store.clone(),
        disk.clone(),
        blobs.clone(),
        visual.clone(),
        config.limits.clone(),
        &config.reader,
    );
    let started = Instant::now();
    match indexer.recover().await {
        Ok((loaded, damaged)) => eprintln!(
            "visual index loaded: {loaded} files ({damaged} damaged) in {:.1} s",
            started.elapsed().as_secs_f64()
        ),
        Err(error) => panic!("the visual index does not load: {error}"),
    }
    Arc::new(ServiceState {
        local_addr: config.addr,
        public_origin: config::public_origin(None, config.addr),
        filter_scopes: FilterScopes::new(),
        login_guard: LoginGuard::new(config.limits.login.clone()),
        config,
        store,
        disk,
        blobs,
        indexer,
        visual,
        image_links: ImageLinks::new(b"bench".to_vec(), Duration::from_secs(60)),
        metrics: None,
    })
}
