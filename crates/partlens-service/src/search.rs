//! Search: the company's indexed database files, narrowed by every FT condition, ranked by visual
//! similarity to the input files when there are inputs.
//!
//! - With inputs: the query views are the views of every input, in order; each candidate is scored in
//!   0..1 by matching each query view to a different view of the candidate; best first, ties by UID.
//!   An input that is not indexed (yet), failed, or is not the caller's contributes no view; with no
//!   view at all there are no matches.
//! - When every input is a model with known extents (a STEP, IGES, STL, OBJ or PLY file), the
//!   candidates that are models too are ranked by shape and size ([`super::part_size`]): the
//!   visual ranking's first [`SIZE_POOL`] (or `max_results`, if more) are scored again with the
//!   size difference and sorted anew; unless the search says `sizeFirst=false`, which ranks them
//!   by shape alone. Pictures, sketches and drawings are ranked by shape alone.
//! - A result that is the mirror image of the model searched by says so (`Mirrored: true`,
//!   [`super::mirrored`]); `ignoreMirrored=true` leaves those out (and out of `TotalResults`).
//! - A drawing of several pages found by inputs says which page matched (`Page`, the page whose
//!   own views score best against the query views), and its image URLs are that page's.
//! - Without inputs: every match, score null, ordered by display name then UID.
//! - `TotalResults` counts all matches; `ResultsList` holds the first `max_results` of them.
//! - Limits: checked once, where the request is parsed ([`super::search_request`]); a
//!   [`SearchQuery`] is within them, and [`run_with_files`] adds no more inputs than the body's
//!   decoder allowed.
//! - An input whose stored descriptor cannot be read back is treated as not indexed (no views) and
//!   queued to be indexed again, with one warning in the log; the search still answers.
//!
//! The visual ranking goes through the [`super::visual`] library. A company on the exact scan gets
//! every match ranked, as always. A company on an approximate graph gets the `max_results` best
//! (each scored exactly); its metadata conditions are resolved first when they select at most
//! [`SELECTIVE_FILES`] files with views (those are the only candidates), and otherwise checked on the graph's
//! candidates after the ranking; `TotalResults` still counts every file with views that matches.
//! The resolution (the files listed, or the count) is kept for the next searches with the same
//! filter while the store's metadata is unchanged ([`super::filter_scopes`]).

use std::collections::{HashMap, HashSet};

use partlens_api::model::{ExtraFields, SearchResult};
use partlens_api::search_options::MIRRORED_FIELD;
use partlens_api::{FilterTerm, SearchOptions};

use super::error::ServiceError;
pub use super::filter_scopes::SELECTIVE_FILES;
use super::mirrored::mirror_images;
use super::pages::{matched_page, pages_of};
use super::part_size::{PartSize, blend, nearest_difference};
use super::records::{ImageUrls, add_relation_counts, result_item, show_page};
use super::search_request::{SearchInputs, SearchQuery};
use super::state::{AppState, ServiceState};
use super::upload::store_and_index;
use super::upload_params::{UploadParams, UploadTarget};
pub use super::visual_ranking::rank_visually;
use crate::caller::Caller;
use partlens_engine::ViewDescriptor;
use partlens_store::StoreTx;
use partlens_store::model::{FileRecord, IndexState, RelationCount};
use partlens_store::unix_now;
use partlens_visual::Ranked;

/// A search by models takes at least this many of the visual ranking's best to rank again by size:
/// enough that a part of the same size ranked lower by shape alone (at most a size penalty away
/// from the first) is among them.
pub const SIZE_POOL: usize = 200;

/// A search that leaves mirror images out ranks this many more than it shows, so that as many
/// results as it asks for remain once they are left out (a library rarely holds more mirror
/// images of one part).
pub const MIRRORED_ROOM: usize = 20;

/// What a search ranks, as [`select`] read it.
enum Selection {
    /// No input: the first `max_results` database files of the company that satisfy the filter,
    /// by display name, then UID, and how many satisfy it in all.
    Filtered(Vec<partlens_store::model::Candidate>, usize),
    /// Inputs: the views of every indexed input of the caller's company, in input order (none
    /// when no input has views), and their sizes when every such input is a model of known size.
    ByViews(Vec<ViewDescriptor>, Option<Vec<PartSize>>),
}

/// What a search shows, as [`rank`] ordered it.
struct Ranking {
    /// The first `max_results` files, in the result order, each with its visual score when the
    /// search has inputs.
    shown: Vec<(String, Option<f32>)>,
    /// How many files matched in all.
    total: usize,
    /// The records the ranking read already (the size ranking's), so that [`load`] reads each
    /// record once.
    read: HashMap<String, FileRecord>,
    /// The query views (none without inputs): a drawing of several pages shown is said to match
    /// on the page they match best ([`matched_page`]).
    query_views: Vec<ViewDescriptor>,
    /// The shown files that are the mirror image of the model searched by.
    mirrored: HashSet<String>,
}

/// What a search has found, read in its one transaction.
struct Found {
    /// The shown files, in the result order.
    shown: Vec<ShownFile>,
    /// How many files matched in all.
    total: usize,
    /// Inputs whose stored views could not be read back, with the reason, to index again.
    damaged: Vec<(String, String)>,
}

/// A file a search shows, as read in its transaction.
struct ShownFile {
    /// Its record.
    record: FileRecord,
    /// Its visual score, when the search has inputs.
    score: Option<f32>,
    /// Its saved attributes in their wire form.
    texts: Vec<String>,
    /// The page a drawing of several pages matched on.
    page: Option<u32>,
    /// How many components it has and how many files hold it.
    relations: RelationCount,
    /// It is the mirror image of the model searched by.
    mirrored: bool,
}

/// Stores and indexes the files of a `PUT /api/Search` body as the caller's search inputs, during
/// the call and in body order, adds them to the search's inputs after those its filter names, and
/// runs it ([`run`]).
pub async fn run_with_files(
    state: &AppState,
    caller: &Caller,
    mut search: SearchQuery,
    inputs: SearchInputs,
) -> Result<SearchResult, ServiceError> {
    let (extension, files) = inputs.into_parts();
    for (temp, size) in files {
        let params = UploadParams {
            target: UploadTarget::SearchInput {
                extension: extension.clone(),
            },
            index_async: false,
            uid: None,
            overwrite_file: None,
            attributes: None,
            gzipped: false,
            callback_param: None,
            text_only: false,
            category_id: None,
            index_assembly_components: false,
        };
        let record = store_and_index(state, caller, params, temp, size).await?;
        search.add_stored_input(record.uid);
    }
    run(state, caller, search).await
}

/// Runs a search for the caller in one read transaction, so one snapshot of the store: [`select`]
/// what it ranks, [`rank`] it (the filter resolved once), [`load`] the shown files' records and
/// attributes in a batch; then makes the result items. The query was checked where it was parsed.
pub async fn run(
    state: &AppState,
    caller: &Caller,
    query: SearchQuery,
) -> Result<SearchResult, ServiceError> {
    debug_assert!(query.input_uids().len() <= state.config.limits.max_search_inputs);
    let input_uids = query.input_uids().to_vec();
    let shared = state.clone();
    let company_id = caller.company_id.clone();
    let terms = query.terms().to_vec();
    let max_results = query.max_results();
    let options = query.options();
    let found = tokio::task::spawn_blocking(move || {
        shared
            .store
            .read_tx_blocking(|tx| -> Result<Found, ServiceError> {
                let started = std::time::Instant::now();
                let (selection, damaged) =
                    select(tx, &company_id, &input_uids, &terms, max_results, options)?;
                let selected = started.elapsed();
                let ranking = rank(
                    tx,
                    &shared,
                    &company_id,
                    &terms,
                    (max_results, options),
                    selection,
                )?;
                let ranked = started.elapsed();
                let found = load(tx, &company_id, ranking, damaged)?;
                tracing::debug!(
                    select_ms = selected.as_secs_f64() * 1e3,
                    rank_ms = (ranked - selected).as_secs_f64() * 1e3,
                    load_ms = (started.elapsed() - ranked).as_secs_f64() * 1e3,
                    "search"
                );
                Ok(found)
            })
    })
    .await??;
    if !found.damaged.is_empty() {
        state.indexer.reindex_damaged(found.damaged).await?;
    }
    let urls = ImageUrls {
        links: &state.image_links,
        origin: &state.public_origin,
        viewer: caller,
        now: unix_now(),
    };
    let results = found
        .shown
        .iter()
        .map(|shown| {
            let ShownFile {
                record,
                score,
                texts,
                page,
                relations,
                mirrored,
            } = shown;
            let mut item = result_item(record, *score, texts, &urls);
            add_relation_counts(&mut item.extra, *relations);
            if *mirrored {
                item.extra
                    .insert(MIRRORED_FIELD.into(), serde_json::Value::Bool(true));
            }
            if let Some(page) = page {
                let images = (&mut item.thumbnail_url, &mut item.large_image_url);
                show_page(
                    &mut item.extra,
                    images,
                    record,
                    &pages_of(record),
                    *page,
                    &urls,
                );
            }
            item
        })
        .collect();
    Ok(SearchResult {
        input_file_uid: query.reported_inputs(),
        total_results: found.total as i64,
        results,
        extra: ExtraFields::new(),
    })
}

/// The first step of a search: what it ranks. Without inputs, the database files that satisfy
/// every condition; with inputs, the views of those that are the caller's and indexed, and their
/// sizes unless `options` rank by shape alone. An input whose stored views cannot be read back
/// contributes none and is returned to be indexed again.
fn select(
    tx: &mut dyn StoreTx,
    company_id: &str,
    input_uids: &[String],
    terms: &[FilterTerm],
    max_results: usize,
    options: SearchOptions,
) -> Result<(Selection, Vec<(String, String)>), ServiceError> {
    if input_uids.is_empty() {
        let (first, total) = tx.first_matching_database_files(company_id, terms, max_results)?;
        return Ok((Selection::Filtered(first, total), Vec::new()));
    }
    let mut views = Vec::new();
    let mut damaged = Vec::new();
    // Sizes stay `Some` while every input that gives views is a model of known size.
    let mut sizes = Some(Vec::new());
    for uid in input_uids {
        let Some(record) = tx
            .find_file(company_id, uid)?
            .filter(|record| record.state == IndexState::Completed)
        else {
            continue;
        };
        let read: Result<Vec<ViewDescriptor>, _> = tx
            .views_of(uid)?
            .iter()
            .map(|bytes| ViewDescriptor::from_bytes(bytes))
            .collect();
        match read {
            Ok(read) if read.is_empty() => {}
            Ok(read) => {
                views.extend(read);
                match PartSize::of(&record.extracted_attributes, &record.extension) {
                    Some(size) => sizes.iter_mut().for_each(|sizes| sizes.push(size)),
                    None => sizes = None,
                }
            }
            Err(error) => damaged.push((uid.clone(), error.to_string())),
        }
    }
    let sizes = sizes.filter(|sizes| options.size_first && !sizes.is_empty());
    Ok((Selection::ByViews(views, sizes), damaged))
}

/// The second step of a search: orders what [`select`] read and keeps the first `max_results`.
/// Without inputs the order is the selection's (no score) and every selected file counts; with
/// inputs the files are ranked by visual similarity to the query views ([`rank_visually`]), the
/// mirror images of the model searched by found ([`mirror_images`]) and left out when `options`
/// ask, then ranked by size when every input is a model of known size (and `options` rank size
/// first), and with no query view nothing matches.
fn rank(
    tx: &mut dyn StoreTx,
    state: &ServiceState,
    company_id: &str,
    terms: &[FilterTerm],
    (max_results, options): (usize, SearchOptions),
    selection: Selection,
) -> Result<Ranking, ServiceError> {
    let (query_views, sizes) = match selection {
        Selection::Filtered(candidates, total) => {
            let shown = candidates
                .into_iter()
                .take(max_results)
                .map(|candidate| (candidate.uid, None))
                .collect();
            return Ok(Ranking {
                shown,
                total,
                read: HashMap::new(),
                query_views: Vec::new(),
                mirrored: HashSet::new(),
            });
        }
        Selection::ByViews(query_views, _) if query_views.is_empty() => {
            return Ok(Ranking {
                shown: Vec::new(),
                total: 0,
                read: HashMap::new(),
                query_views: Vec::new(),
                mirrored: HashSet::new(),
            });
        }
        Selection::ByViews(query_views, sizes) => (query_views, sizes),
    };
    let pool = if sizes.is_some() {
        max_results.max(SIZE_POOL)
    } else {
        max_results
    };
    // Room for the mirror images left out, so that `max_results` remain.
    let pool = if options.ignore_mirrored {
        pool + MIRRORED_ROOM
    } else {
        pool
    };
    let started = std::time::Instant::now();
    let library = state.visual.current(&mut *tx)?;
    let (ranked, total) = rank_visually(
        &mut *tx,
        &library,
        &state.filter_scopes,
        company_id,
        terms,
        &query_views,
        pool,
    )?;
    let mut mirrored = mirror_images(&mut *tx, &query_views, &ranked)?;
    let (ranked, total) = if options.ignore_mirrored {
        let kept: Ranked = ranked
            .into_iter()
            .filter(|(uid, _)| !mirrored.contains(uid))
            .collect();
        let left_out = std::mem::take(&mut mirrored).len();
        (kept, total.saturating_sub(left_out))
    } else {
        (ranked, total)
    };
    let visual_done = started.elapsed();
    let (ranked, read) = match &sizes {
        Some(sizes) => rank_by_size(tx, company_id, sizes, ranked)?,
        None => (ranked, Vec::new()),
    };
    tracing::debug!(
        query_views = query_views.len(),
        visual_ms = visual_done.as_secs_f64() * 1e3,
        size_ms = (started.elapsed() - visual_done).as_secs_f64() * 1e3,
        "search ranked"
    );
    Ok(Ranking {
        shown: ranked
            .into_iter()
            .take(max_results)
            .map(|(uid, score)| (uid, Some(score)))
            .collect(),
        total,
        read: read
            .into_iter()
            .map(|record| (record.uid.clone(), record))
            .collect(),
        query_views,
        mirrored,
    })
}

/// Scores the visually ranked files again with their size difference to the nearest of the search's
/// `sizes` ([`blend`]) and sorts them anew, best first, ties by UID. A file of no known size (a
/// picture, a drawing) keeps its visual score. The sizes are read from the files' records (their
/// extracted attributes) in one pass; the records read are returned with the ranking.
pub fn rank_by_size(
    tx: &mut dyn StoreTx,
    company_id: &str,
    sizes: &[PartSize],
    ranked: Ranked,
) -> Result<(Ranked, Vec<FileRecord>), ServiceError> {
    let uids: Vec<String> = ranked.iter().map(|(uid, _)| uid.clone()).collect();
    let records = tx.find_files(company_id, &uids)?;
    let size_of: HashMap<&str, PartSize> = records
        .iter()
        .filter_map(|record| {
            let size = PartSize::of(&record.extracted_attributes, &record.extension)?;
            Some((record.uid.as_str(), size))
        })
        .collect();
    let mut scored: Ranked = ranked
        .into_iter()
        .map(|(uid, visual)| {
            let score = size_of
                .get(uid.as_str())
                .and_then(|size| nearest_difference(sizes, size))
                .map_or(visual, |difference| blend(visual, difference));
            (uid, score)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok((scored, records))
}

/// The last step of a search: the shown files' records (those the ranking has not read already)
/// and their saved attributes, each read once in a batch, in the shown order. In the search's one
/// snapshot every shown file still exists and satisfies the filter.
fn load(
    tx: &mut dyn StoreTx,
    company_id: &str,
    ranking: Ranking,
    damaged: Vec<(String, String)>,
) -> Result<Found, ServiceError> {
    let Ranking {
        shown,
        total,
        read: mut records,
        query_views,
        mirrored,
    } = ranking;
    let unread: Vec<String> = shown
        .iter()
        .filter(|(uid, _)| !records.contains_key(uid))
        .map(|(uid, _)| uid.clone())
        .collect();
    records.extend(
        tx.find_files(company_id, &unread)?
            .into_iter()
            .map(|record| (record.uid.clone(), record)),
    );
    let uids: Vec<String> = shown.iter().map(|(uid, _)| uid.clone()).collect();
    let mut texts = tx.attribute_texts_of_files(&uids)?;
    let mut counts = tx.relation_counts(&uids)?;
    let mut found = Vec::with_capacity(shown.len());
    for (uid, score) in shown {
        let Some(record) = records.remove(&uid) else {
            continue;
        };
        let texts = texts.remove(&uid).unwrap_or_default();
        let page = matched_page(tx, &record, &query_views)?;
        let relations = counts.remove(&uid).unwrap_or_default();
        let mirrored = mirrored.contains(&uid);
        found.push(ShownFile {
            record,
            score,
            texts,
            page,
            relations,
            mirrored,
        });
    }
    Ok(Found {
        shown: found,
        total,
        damaged,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::large_library::{LibrarySpec, MATERIALS, generate};

    #[test]
    fn a_search_reads_the_store_in_one_transaction_with_or_without_inputs_and_filter() {
        // A runtime for the service's calls only: the set-up reads the store blocking, which
        // PostgreSQL's client cannot do on a runtime's thread.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        for (store, kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::new("Big", 120);
            spec.pool_pictures = 24;
            spec.text_only_records = 40;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            let company = generated.company_id.clone();
            let engine = store
                .read_tx_blocking(|tx| -> Result<_, ServiceError> { Ok(tx.engine()) })
                .unwrap();
            let (state, caller) =
                runtime.block_on(crate::state::state_over_store_for_tests(store, kept.path()));
            // The visual index loaded from the store, as the service does at start.
            runtime.block_on(state.indexer.recover()).unwrap();
            let caller = crate::caller::Caller(partlens_store::model::Caller {
                company_id: company.clone(),
                ..caller.0
            });
            let material = format!("material=[{}]", MATERIALS[0].0);
            let (input, first_of_material) = state
                .store
                .read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    let terms = [FilterTerm::parse(&material)];
                    let with_views = tx.matching_uids_with_views(&company, &terms)?;
                    let some = tx.matching_uids_with_views(&company, &[])?;
                    Ok((some[0].clone(), with_views[0].clone()))
                })
                .unwrap();
            let searches = [
                (vec![input.clone()], vec![]),
                (vec![first_of_material.clone()], vec![material.clone()]),
                (vec![], vec![material.clone()]),
            ];
            for (inputs, filter) in searches {
                let mut inner = format!("fileUID={}", inputs.join(","));
                for term in &filter {
                    inner.push_str(&format!("&FT={term}"));
                }
                let query = SearchQuery::parse(
                    &partlens_api::SearchFilter::parse_inner(&inner),
                    Some("20"),
                    &state.config.limits,
                )
                .unwrap();
                let before = state.store.transaction_counts();
                let found = runtime.block_on(run(&state, &caller, query)).unwrap();
                let used = state.store.transaction_counts().since(&before);
                assert_eq!(
                    (used.reads, used.writes, used.queue),
                    (1, 0, 0),
                    "{engine}: inputs {inputs:?}, filter {filter:?}"
                );
                assert!(
                    !found.results.is_empty() && found.total_results >= found.results.len() as i64,
                    "{engine}: inputs {inputs:?}, filter {filter:?}: {found:?}"
                );
                if let Some(input) = inputs.first() {
                    assert_eq!(&found.results[0].uid, input, "{engine}: itself first");
                }
            }
        }
    }
}
