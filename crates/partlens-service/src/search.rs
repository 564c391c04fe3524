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
//!   size difference and sorted anew. Pictures, sketches and drawings are ranked by shape alone.
//! - A drawing of several pages found by inputs says which page matched (`Page`, the page whose
//!   own views score best against the query views), and its image URLs are that page's.
//! - Without inputs: every match, score null, ordered by display name then UID.
//! - `TotalResults` counts all matches; `ResultsList` holds the first `max_results` of them.
//! - Limits, checked on the parsed filter before any SQL is built: at most
//!   [`ServiceLimits::max_filter_conditions`] conditions (each free-text word and each attribute term
//!   counts one) and [`ServiceLimits::max_search_inputs`] input UIDs; past either, 400.
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

use std::collections::HashMap;

use partlens_api::model::{ExtraFields, SearchResult, SearchResultItem};
use partlens_api::{FilterTerm, SearchFilter};

use super::error::ServiceError;
use super::filter_scopes::{FilterScopes, Resolved};
use super::image_links::ImageLinks;
use super::limits::ServiceLimits;
use super::pages::{matched_page, pages_of};
use super::params::canonical_uid;
use super::part_size::{PartSize, blend, nearest_difference};
use super::records::{ImageUrls, result_item, show_page};
use super::state::AppState;
use crate::auth::Caller;
use partlens_engine::ViewDescriptor;
use partlens_store::StoreTx;
use partlens_store::model::IndexState;
use partlens_store::unix_now;
use partlens_visual::{
    FileFilter, FilterForm, GuidSet, Ranked, StoreViews, ViewSearch, VisualLibrary,
};

/// Results returned when the caller does not say (`maxResults`).
pub const DEFAULT_MAX_RESULTS: usize = 200;

/// The largest `maxResults` accepted.
pub const MAX_RESULTS_LIMIT: usize = 10_000;

/// A metadata filter that selects at most this many files with views is resolved before an
/// approximate visual search (the files listed); one that selects more is checked on the graph's
/// candidates.
pub const SELECTIVE_FILES: usize = 20_000;

/// A search by models takes at least this many of the visual ranking's best to rank again by size:
/// enough that a part of the same size ranked lower by shape alone (at most a size penalty away
/// from the first) is among them.
pub const SIZE_POOL: usize = 200;

/// A search as the endpoints received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    /// The input UIDs as given (reported back in `InputFileUID`).
    pub input_uids: Vec<String>,
    /// Every FT condition (all must hold).
    pub terms: Vec<FilterTerm>,
    /// How many results to return at most.
    pub max_results: usize,
}

impl SearchQuery {
    /// From a parsed `filterStr`.
    pub fn from_filter(filter: &SearchFilter, max_results: usize) -> Self {
        Self {
            input_uids: filter
                .file_uids
                .iter()
                .map(|uid| uid.as_str().to_owned())
                .collect(),
            terms: filter.terms().cloned().collect(),
            max_results,
        }
    }

    /// How many conditions the filter holds: each word of a free-text term and each attribute term.
    pub fn condition_count(&self) -> usize {
        self.terms
            .iter()
            .map(|term| match term {
                FilterTerm::Text(words) => words.split_whitespace().count(),
                _ => 1,
            })
            .sum()
    }

    /// Refuses (400) a search over the limits of conditions or inputs. Runs before SQL is built.
    pub fn check_within(&self, limits: &ServiceLimits) -> Result<(), ServiceError> {
        let conditions = self.condition_count();
        if conditions > limits.max_filter_conditions {
            return Err(ServiceError::BadRequest(format!(
                "the filter holds {conditions} conditions (free-text words and attribute terms); \
                 one search takes at most {}",
                limits.max_filter_conditions
            )));
        }
        if self.input_uids.len() > limits.max_search_inputs {
            return Err(ServiceError::BadRequest(format!(
                "the filter names {} input files; one search takes at most {}",
                self.input_uids.len(),
                limits.max_search_inputs
            )));
        }
        Ok(())
    }
}

/// Reads the `maxResults` extension parameter (1..=10000; 200 when absent).
pub fn max_results_param(value: Option<&str>) -> Result<usize, ServiceError> {
    match value {
        None => Ok(DEFAULT_MAX_RESULTS),
        Some(text) => match text.trim().parse::<usize>() {
            Ok(count) if (1..=MAX_RESULTS_LIMIT).contains(&count) => Ok(count),
            _ => Err(ServiceError::BadRequest(format!(
                "maxResults={text} is not a number from 1 to {MAX_RESULTS_LIMIT}"
            ))),
        },
    }
}

/// How a graph search resolves its metadata filter: the files with views it selects, listed when at
/// most `selective` ([`SELECTIVE_FILES`]) (the search is restricted to them), else held by GUID
/// (the search's candidates are checked against them).
fn resolve_for_graph(
    tx: &mut dyn StoreTx,
    company_id: &str,
    terms: &[FilterTerm],
    selective: usize,
) -> Result<Resolved, ServiceError> {
    // One condition that many files hold is told from the index before anything is listed:
    // listing 20,001 files by name only to find there are too many took 1.3 s at a million
    // records. The index counts every file holding it (records without views too), so the files
    // with views it matches decide.
    if tx.one_condition_held_by_more_than(company_id, terms, selective)? {
        let matching = tx.matching_uids_with_views(company_id, terms)?;
        if matching.len() > selective {
            return Ok(Resolved::Broad {
                matching_with_views: GuidSet::new(matching),
            });
        }
    }
    let some = tx.some_matching_files_with_views(company_id, terms, selective + 1)?;
    Ok(if some.len() > selective {
        Resolved::Broad {
            matching_with_views: GuidSet::new(tx.matching_uids_with_views(company_id, terms)?),
        }
    } else {
        Resolved::Listed(some.into_iter().collect())
    })
}

/// Ranks the company's files that satisfy `terms` by visual similarity to `query_views`, with one
/// read connection: the metadata conditions are resolved in the form the library's path for the
/// company takes them ([`FilterForm`]: all of them listed for the exact scan; for a graph, listed
/// when they select at most [`SELECTIVE_FILES`] files, else held in memory to check the graph's
/// candidates against, the resolution kept in `scopes`), and the library ranks and counts.
/// Returns the best `limit` files and the number of matches.
pub fn rank_visually(
    tx: &mut dyn StoreTx,
    library: &VisualLibrary,
    scopes: &FilterScopes,
    company_id: &str,
    terms: &[FilterTerm],
    query_views: &[ViewDescriptor],
    limit: usize,
) -> Result<(Ranked, usize), ServiceError> {
    let resolved = if terms.is_empty() {
        None
    } else {
        Some(match library.filter_form(company_id) {
            FilterForm::ListedWhenSelective => {
                let generation = tx.metadata_generation()?;
                scopes.resolve(company_id, terms, generation, || {
                    resolve_for_graph(&mut *tx, company_id, terms, SELECTIVE_FILES)
                })?
            }
            FilterForm::EveryMatchListed => {
                let all = tx.matching_database_files(company_id, terms)?;
                std::sync::Arc::new(Resolved::Listed(
                    all.into_iter().map(|candidate| candidate.uid).collect(),
                ))
            }
        })
    };
    let filter = match resolved.as_deref() {
        None => FileFilter::Everything,
        Some(Resolved::Listed(allowed)) => FileFilter::Only(allowed),
        Some(Resolved::Broad {
            matching_with_views,
        }) => FileFilter::Among(matching_with_views),
    };
    let stored = StoreViews {
        tx: std::cell::RefCell::new(tx),
    };
    Ok(library.rank_and_count(company_id, query_views, filter, limit, &stored)?)
}

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
    /// The query views (none without inputs): a drawing of several pages shown is said to match
    /// on the page they match best ([`matched_page`]).
    query_views: Vec<ViewDescriptor>,
}

/// Runs a search for the caller: [`select`], [`rank`], [`load`].
pub async fn run(
    state: &AppState,
    caller: &Caller,
    query: SearchQuery,
) -> Result<SearchResult, ServiceError> {
    let started = std::time::Instant::now();
    let selection = select(state, caller, &query).await?;
    let selected = started.elapsed();
    let ranking = rank(state, caller, &query, selection).await?;
    let ranked = started.elapsed();
    let (results, total) = load(state, caller, query.terms, ranking).await?;
    tracing::debug!(
        select_ms = selected.as_secs_f64() * 1e3,
        rank_ms = (ranked - selected).as_secs_f64() * 1e3,
        load_ms = (started.elapsed() - ranked).as_secs_f64() * 1e3,
        "search"
    );
    Ok(SearchResult {
        input_file_uid: query.input_uids.join(","),
        total_results: total as i64,
        results,
        extra: ExtraFields::new(),
    })
}

/// The first step of a search: checks its input UIDs (400 for one that is not a UID) and its
/// limits, then reads in one pass what it ranks: without inputs, the database files that satisfy
/// every condition; with inputs, the views of those that are the caller's and indexed. An input
/// whose stored views cannot be read back contributes none and is queued to be indexed again.
async fn select(
    state: &AppState,
    caller: &Caller,
    query: &SearchQuery,
) -> Result<Selection, ServiceError> {
    let input_uids = query
        .input_uids
        .iter()
        .map(|uid| canonical_uid(uid, "fileUID"))
        .collect::<Result<Vec<_>, _>>()?;
    query.check_within(&state.config.limits)?;
    let company_id = caller.company_id.clone();
    let terms = query.terms.clone();
    let by_inputs = !query.input_uids.is_empty();
    let max_results = query.max_results;
    let (selection, damaged) = state
        .store
        .read_tx(move |tx| -> Result<_, ServiceError> {
            if !by_inputs {
                let (first, total) =
                    tx.first_matching_database_files(&company_id, &terms, max_results)?;
                return Ok((Selection::Filtered(first, total), Vec::new()));
            }
            let mut views = Vec::new();
            let mut damaged = Vec::new();
            // Sizes stay `Some` while every input that gives views is a model of known size.
            let mut sizes = Some(Vec::new());
            for uid in &input_uids {
                let Some(record) = tx
                    .find_file(&company_id, uid)?
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
            let sizes = sizes.filter(|sizes| !sizes.is_empty());
            Ok((Selection::ByViews(views, sizes), damaged))
        })
        .await?;
    if !damaged.is_empty() {
        state.indexer.reindex_damaged(damaged).await?;
    }
    Ok(selection)
}

/// The second step of a search: orders what [`select`] read and keeps the first `max_results`.
/// Without inputs the order is the selection's (no score) and every selected file counts; with
/// inputs the files are ranked by visual similarity to the query views ([`rank_visually`], on a
/// blocking thread), and with no query view nothing matches.
async fn rank(
    state: &AppState,
    caller: &Caller,
    query: &SearchQuery,
    selection: Selection,
) -> Result<Ranking, ServiceError> {
    let query_views = match &selection {
        Selection::ByViews(views, _) => views.clone(),
        Selection::Filtered(..) => Vec::new(),
    };
    let (ranked, total): (Vec<(String, Option<f32>)>, usize) = match selection {
        Selection::Filtered(candidates, total) => (
            candidates
                .into_iter()
                .map(|candidate| (candidate.uid, None))
                .collect(),
            total,
        ),
        Selection::ByViews(query_views, _) if query_views.is_empty() => (Vec::new(), 0),
        Selection::ByViews(query_views, sizes) => {
            let store = state.store.clone();
            let visual = state.indexer.visual().clone();
            let shared = state.clone();
            let company_id = caller.company_id.clone();
            let terms = query.terms.clone();
            let limit = query.max_results;
            let pool = if sizes.is_some() {
                limit.max(SIZE_POOL)
            } else {
                limit
            };
            let (ranked, total) = tokio::task::spawn_blocking(move || {
                store.read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    let started = std::time::Instant::now();
                    let library = visual.current(&mut *tx)?;
                    let (ranked, total) = rank_visually(
                        &mut *tx,
                        &library,
                        &shared.filter_scopes,
                        &company_id,
                        &terms,
                        &query_views,
                        pool,
                    )?;
                    let visual_done = started.elapsed();
                    let ranked = match &sizes {
                        Some(sizes) => rank_by_size(tx, &company_id, sizes, ranked)?,
                        None => ranked,
                    };
                    tracing::debug!(
                        query_views = query_views.len(),
                        visual_ms = visual_done.as_secs_f64() * 1e3,
                        size_ms = (started.elapsed() - visual_done).as_secs_f64() * 1e3,
                        "search ranked"
                    );
                    Ok((ranked, total))
                })
            })
            .await??;
            (
                ranked
                    .into_iter()
                    .map(|(uid, score)| (uid, Some(score)))
                    .collect(),
                total,
            )
        }
    };
    let shown = ranked.into_iter().take(query.max_results).collect();
    Ok(Ranking {
        shown,
        total,
        query_views,
    })
}

/// Scores the visually ranked files again with their size difference to the nearest of the search's
/// `sizes` ([`blend`]) and sorts them anew, best first, ties by UID. A file of no known size (a
/// picture, a drawing) keeps its visual score. The sizes are read from the files' records (their
/// extracted attributes) in one pass.
pub fn rank_by_size(
    tx: &mut dyn StoreTx,
    company_id: &str,
    sizes: &[PartSize],
    ranked: Ranked,
) -> Result<Ranked, ServiceError> {
    let uids: Vec<String> = ranked.iter().map(|(uid, _)| uid.clone()).collect();
    let size_of: HashMap<String, PartSize> = tx
        .find_files(company_id, &uids)?
        .into_iter()
        .filter_map(|record| {
            let size = PartSize::of(&record.extracted_attributes, &record.extension)?;
            Some((record.uid, size))
        })
        .collect();
    let mut scored: Ranked = ranked
        .into_iter()
        .map(|(uid, visual)| {
            let score = size_of
                .get(&uid)
                .and_then(|size| nearest_difference(sizes, size))
                .map_or(visual, |difference| blend(visual, difference));
            (uid, score)
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(scored)
}

/// The last step of a search: reads the shown files' records and attributes and makes the result
/// items, in the shown order. A shown file deleted, or changed so that it no longer satisfies
/// `terms`, since it was selected is left out and not counted; returns the items and the total.
async fn load(
    state: &AppState,
    caller: &Caller,
    terms: Vec<FilterTerm>,
    ranking: Ranking,
) -> Result<(Vec<SearchResultItem>, usize), ServiceError> {
    let Ranking {
        shown,
        total,
        query_views,
    } = ranking;
    let company_id = caller.company_id.clone();
    let uids: Vec<String> = shown.iter().map(|(uid, _)| uid.clone()).collect();
    let loaded = state
        .store
        .read_tx(move |tx| {
            // One snapshot (every read transaction is one): the files are checked against the
            // filter again and read as they are then, so a file changed since it was selected is
            // left out rather than shown with attributes that no longer match.
            let matching = tx.still_matching(&company_id, &terms, &uids)?;
            let records = tx.find_files(&company_id, &uids)?;
            records
                .into_iter()
                .filter(|record| matching.contains(&record.uid))
                .map(|record| {
                    let texts = tx.attribute_texts_of(&record.uid)?;
                    let page = matched_page(tx, &record, &query_views)?;
                    Ok((record, texts, page))
                })
                .collect::<Result<Vec<_>, ServiceError>>()
        })
        .await?;
    let links: &ImageLinks = &state.image_links;
    let urls = ImageUrls {
        links,
        origin: &state.public_origin,
        viewer: caller,
        now: unix_now(),
    };
    // A file deleted or changed between the two reads is simply left out, and not counted.
    let total = total - (shown.len() - loaded.len());
    let loaded: HashMap<&str, _> = loaded
        .iter()
        .map(|(record, texts, page)| (record.uid.as_str(), (record, texts, page)))
        .collect();
    let results = shown
        .iter()
        .filter_map(|(uid, score)| {
            let (record, texts, page) = loaded.get(uid.as_str())?;
            let mut item = result_item(record, *score, texts, &urls);
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
            Some(item)
        })
        .collect();
    Ok((results, total))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::large_library::{LibrarySpec, MATERIALS, generate};

    #[test]
    fn a_graph_search_lists_the_files_with_views_a_filter_selects_until_there_are_too_many() {
        for (store, _kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::new("Big", 120);
            spec.pool_pictures = 24;
            spec.text_only_records = 300;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            let company = generated.company_id;
            let material = [FilterTerm::parse(&format!("material=[{}]", MATERIALS[0].0))];
            store
                .read_tx_blocking(|tx| -> Result<(), ServiceError> {
                    let matching = tx.matching_uids_with_views(&company, &material)?;
                    let with_views = matching.len();
                    let broad = || Resolved::Broad {
                        matching_with_views: GuidSet::new(&matching),
                    };
                    let held = tx.matching_database_files(&company, &material)?.len();
                    assert!(
                        with_views > 5 && held > 2 * with_views,
                        "{with_views} of {held}"
                    );
                    // More files hold the term than the limit, but few enough of them have views:
                    // those are listed, and only those.
                    let limit = with_views;
                    assert!(tx.one_condition_held_by_more_than(&company, &material, limit)?);
                    match resolve_for_graph(tx, &company, &material, limit)? {
                        Resolved::Listed(listed) => assert_eq!(listed.len(), with_views),
                        other => panic!("{}: {other:?}", tx.engine()),
                    }
                    // One file with views more than the limit: too many to restrict the graph's
                    // search to, held to check its candidates against.
                    assert_eq!(
                        resolve_for_graph(tx, &company, &material, with_views - 1)?,
                        broad()
                    );
                    // A filter of two conditions takes the listing, with the same outcome.
                    let two = [material[0].clone(), FilterTerm::parse("category=*")];
                    assert_eq!(
                        resolve_for_graph(tx, &company, &two, with_views - 1)?,
                        broad()
                    );
                    assert!(matches!(
                        resolve_for_graph(tx, &company, &two, with_views)?,
                        Resolved::Listed(listed) if listed.len() == with_views
                    ));
                    Ok(())
                })
                .unwrap();
        }
    }
}
