//! `visual_scale -- real-models parts=N,M`: the store run (exact scan and graph on the same SQLite
//! store, 1 and 3 query views, the filter cases, recall@10 with ties, memory a view, build time,
//! restart) on libraries of N, M parts that are **real-structure models** (issue 51 item 1), made
//! by `LibrarySpec::of_real_models`'s generator from a pool of real corpus models
//! (`partlens_engine::samples::model_view_sets`): each part a model of the stored layout, 163 views
//! (211 when flat), blended direction by direction from three real models of that layout and
//! noised view by view, so neighbouring directions of one part look alike as they do for a real
//! model; as many text-only records as parts.
//!
//! Queries are photographs of library parts: after the library is written, 2 × 60 of its parts
//! are read back from the store (spread evenly over it); a one-view query is a noised copy
//! (`synthetic_views::noised`: the noise and flips that make every synthetic view) of one view of
//! a part, its direction drawn at random among all the part's views (any of the sphere's, a flat
//! part's near-edge-on ones, the picture's); a three-view query is noised copies of three
//! different directions of one part (three photographs of it). Each without what only a model's
//! views carry (the D2 distribution, the parts' descriptors, the file's part numbers), as a
//! photograph's view is. So a query is never a stored view, and its part is in the library, as a
//! photograph of a stocked part is.
//!
//! ```text
//! cargo bench -p partlens-service --bench visual_scale -- real-models parts=10000,30000
//! cargo bench -p partlens-service --bench visual_scale -- real-models parts=300 pool=24 keep=/tmp/real
//! ```
//!
//! `pool=K`: real models analysed for the pool (default `large_library::POOL_MODELS`), from the
//! corpus `partlens_testkit::realworld::corpus_dir` finds. `keep=DIR`: each library kept in
//! `DIR/real-models-<parts>` and searched again on later runs. The graph's settings are the
//! bench's one `ann_settings()`. `exact=streamed`: recall against the exact answers of one pass
//! over the stored views instead of an exact scan holding every view (100,000 parts do not fit
//! both in memory; support/streamed_exact.rs), `exact=both` the two asserted to agree.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use partlens_engine::ViewDescriptor;
use partlens_engine::samples::model_view_sets::ModelViewSets;
use partlens_engine::samples::synthetic_views::{noised, seeded};
use partlens_service::error::ServiceError;
use partlens_service::large_library::{LibrarySpec, POOL_MODELS};
use partlens_store::Store;
use rand::RngExt;

use super::{Library, QUERIES, StoreOptions, Tables, library_of, measure_store};

/// Directions of one part a three-view query shows.
const VIEWS_OF_SEVERAL: usize = 3;

/// Runs the `real-models` store runs the arguments ask for (none without `real-models`).
pub fn run(
    arguments: &[String],
    kept: Option<&PathBuf>,
    options: &StoreOptions,
    tables: &mut Tables,
) {
    if !arguments.iter().any(|arg| arg == "real-models") {
        return;
    }
    let number = |name: &str, value: &str| -> usize {
        match value.trim().parse() {
            Ok(value) => value,
            Err(error) => panic!("{name}={value}: {error}"),
        }
    };
    let sizes: Vec<usize> = arguments
        .iter()
        .find_map(|arg| arg.strip_prefix("parts="))
        .map_or_else(
            || vec![10_000],
            |list| {
                list.split(',')
                    .map(|value| number("parts", value))
                    .collect()
            },
        );
    let models = arguments
        .iter()
        .find_map(|arg| arg.strip_prefix("pool="))
        .map_or(POOL_MODELS, |value| number("pool", value));
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let corpus = partlens_testkit::realworld::corpus_dir();
    let pool = match ModelViewSets::analysed(&corpus, models, threads) {
        Ok(pool) => Arc::new(pool),
        Err(error) => panic!("the real models do not analyse: {error}"),
    };
    let flat = pool.models().iter().filter(|model| model.is_flat()).count();
    eprintln!(
        "real models: {} of {models} asked analysed ({flat} flat) in {:.1} s",
        pool.len(),
        started.elapsed().as_secs_f64()
    );
    for parts in sizes {
        let temporary = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(error) => panic!("no temporary directory: {error}"),
        };
        let dir = kept.map_or_else(
            || temporary.path().to_path_buf(),
            |kept| kept.join(format!("real-models-{parts}")),
        );
        let generated = library(&dir, parts, &pool);
        if let Some(writing) = generated.writing {
            eprintln!(
                "{parts} parts: {} views written in {:.1} s ({:.0} views a second)",
                generated.views,
                writing.as_secs_f64(),
                generated.views as f64 / writing.as_secs_f64().max(1e-9)
            );
        }
        let (single, triple) = queries(&dir, &generated);
        measure_store(
            &dir,
            &format!("{parts} parts ({} views)", generated.views),
            &generated,
            (&single, &triple),
            options,
            tables,
        );
    }
}

/// The library of `parts` real-structure models from `pool` in `dir` (as many text-only records
/// as parts), written there or kept from an earlier run.
fn library(dir: &Path, parts: usize, pool: &Arc<ModelViewSets>) -> Library {
    let mut spec = LibrarySpec::of_model_pool("Bench", parts, Arc::clone(pool));
    spec.text_only_records = parts;
    let views = (0..parts).map(|model| pool.base(model).views.len()).sum();
    match library_of(dir, &spec, views) {
        Ok(library) => library,
        Err(error) => panic!("the library does not generate: {error}"),
    }
}

/// [`QUERIES`] one-view and as many three-view queries: photographs of the library's parts (see
/// the module doc).
fn queries(dir: &Path, library: &Library) -> (Vec<Vec<ViewDescriptor>>, Vec<Vec<ViewDescriptor>>) {
    let wanted = 2 * QUERIES;
    let every = (library.visual_files / wanted).max(1);
    let store = match Store::open_blocking(dir) {
        Ok(store) => store,
        Err(error) => panic!("the store does not open: {error}"),
    };
    let mut parts: Vec<Vec<ViewDescriptor>> = Vec::new();
    let mut at = 0;
    let read = store.read_tx_blocking(|tx| -> Result<(), ServiceError> {
        Ok(
            tx.for_each_searched_file(&library.company_id, &mut |_, views| {
                if at % every == 0 && !views.is_empty() {
                    let decoded = views
                        .iter()
                        .map(|bytes| ViewDescriptor::from_bytes(bytes))
                        .collect::<Result<Vec<_>, _>>();
                    match decoded {
                        Ok(decoded) => parts.push(decoded),
                        Err(error) => panic!("a stored view does not read: {error}"),
                    }
                }
                at += 1;
                if parts.len() < wanted {
                    std::ops::ControlFlow::Continue(())
                } else {
                    std::ops::ControlFlow::Break(())
                }
            })?,
        )
    });
    if let Err(error) = read {
        panic!("the library's views do not read: {error}");
    }
    assert!(!parts.is_empty(), "the library has no model");
    let mut random = seeded(601);
    let mut photographs = |part: &[ViewDescriptor], count: usize| -> Vec<ViewDescriptor> {
        let mut directions: Vec<usize> = Vec::new();
        while directions.len() < count.min(part.len()) {
            let direction = random.random_range(0..part.len());
            if !directions.contains(&direction) {
                directions.push(direction);
            }
        }
        directions
            .into_iter()
            .map(|direction| {
                // A photograph has no D2 distribution, parts' descriptors or part numbers.
                noised(&part[direction], &mut random)
                    .with_shape(None)
                    .with_part_numbers(Vec::new())
            })
            .collect()
    };
    let single = (0..QUERIES)
        .map(|query| photographs(&parts[query % parts.len()], 1))
        .collect();
    let triple = (0..QUERIES)
        .map(|query| photographs(&parts[(QUERIES + query) % parts.len()], VIEWS_OF_SEVERAL))
        .collect();
    (single, triple)
}
