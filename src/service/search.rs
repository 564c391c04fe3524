//! Search: the company's indexed database files, narrowed by every FT condition, ranked by visual
//! similarity to the input files when there are inputs.
//!
//! - With inputs: the query views are the views of every input, in order; each candidate is scored in
//!   0..1 by matching each query view to a different view of the candidate; best first, ties by UID.
//!   An input that is not indexed (yet), failed, or is not the caller's contributes no view; with no
//!   view at all there are no matches.
//! - Without inputs: every match, score null, ordered by display name then UID.
//! - `TotalResults` counts all matches; `ResultsList` holds the first `max_results` of them.
//! - Limits, checked on the parsed filter before any SQL is built: at most
//!   [`ServiceLimits::max_filter_conditions`] conditions (each free-text word and each attribute term
//!   counts one) and [`ServiceLimits::max_search_inputs`] input UIDs; past either, 400.
//! - An input whose stored descriptor cannot be read back is treated as not indexed (no views) and
//!   queued to be indexed again, with one warning in the log; the search still answers.

use std::collections::{HashMap, HashSet};

use crate::api::model::{ExtraFields, SearchResult};
use crate::api::{FilterTerm, SearchFilter};

use super::engine::ViewDescriptor;
use super::error::ServiceError;
use super::image_links::ImageLinks;
use super::limits::ServiceLimits;
use super::params::canonical_uid;
use super::records::{ImageUrls, result_item};
use super::state::AppState;
use super::store::accounts::Caller;
use super::store::files::{self, IndexState};
use super::store::{attributes, search, unix_now};

/// Results returned when the caller does not say (`maxResults`).
pub const DEFAULT_MAX_RESULTS: usize = 200;

/// The largest `maxResults` accepted.
pub const MAX_RESULTS_LIMIT: usize = 10_000;

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

/// Runs a search for the caller.
pub async fn run(
    state: &AppState,
    caller: &Caller,
    query: SearchQuery,
) -> Result<SearchResult, ServiceError> {
    let input_uids = query
        .input_uids
        .iter()
        .map(|uid| canonical_uid(uid, "fileUID"))
        .collect::<Result<Vec<_>, _>>()?;
    query.check_within(&state.config.limits)?;
    let company_id = caller.company_id.clone();
    let terms = query.terms.clone();
    let (candidates, query_views, damaged) = state
        .store
        .read(move |connection| {
            let candidates = search::matching_database_files(connection, &company_id, &terms)?;
            let mut views = Vec::new();
            let mut damaged = Vec::new();
            for uid in &input_uids {
                let indexed = files::find(connection, &company_id, uid)?
                    .is_some_and(|record| record.state == IndexState::Completed);
                if !indexed {
                    continue;
                }
                let read: Result<Vec<ViewDescriptor>, _> = files::views_of(connection, uid)?
                    .iter()
                    .map(|bytes| ViewDescriptor::from_bytes(bytes))
                    .collect();
                match read {
                    Ok(read) => views.extend(read),
                    Err(error) => damaged.push((uid.clone(), error.to_string())),
                }
            }
            Ok((candidates, views, damaged))
        })
        .await?;
    if !damaged.is_empty() {
        state.indexer.reindex_damaged(damaged).await?;
    }
    let ranked: Vec<(String, Option<f32>)> = if query.input_uids.is_empty() {
        candidates
            .into_iter()
            .map(|candidate| (candidate.uid, None))
            .collect()
    } else if query_views.is_empty() {
        Vec::new()
    } else {
        let visual_index = state.indexer.visual_index().clone();
        tokio::task::spawn_blocking(move || {
            let allowed: HashSet<String> = candidates.into_iter().map(|c| c.uid).collect();
            let index = visual_index
                .read()
                .map_err(|_| ServiceError::Internal("the visual index is poisoned".into()))?;
            Ok::<_, ServiceError>(
                index
                    .rank(&query_views, |uid| allowed.contains(uid), usize::MAX)
                    .into_iter()
                    .map(|(uid, score)| (uid, Some(score)))
                    .collect(),
            )
        })
        .await??
    };
    let total = ranked.len();
    let shown: Vec<(String, Option<f32>)> = ranked.into_iter().take(query.max_results).collect();
    let company_id = caller.company_id.clone();
    let uids: Vec<String> = shown.iter().map(|(uid, _)| uid.clone()).collect();
    let terms = query.terms;
    let loaded = state
        .store
        .read(move |connection| {
            // One snapshot: the files are checked against the filter again and read as they are
            // then, so a file changed since it was selected is left out rather than shown with
            // attributes that no longer match.
            let snapshot = connection.unchecked_transaction()?;
            let matching = search::still_matching(&snapshot, &company_id, &terms, &uids)?;
            let records = files::find_many(&snapshot, &company_id, &uids)?;
            records
                .into_iter()
                .filter(|record| matching.contains(&record.uid))
                .map(|record| {
                    let texts = attributes::texts_of(&snapshot, &record.uid)?;
                    Ok((record, texts))
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
        .map(|(record, texts)| (record.uid.as_str(), (record, texts)))
        .collect();
    let results = shown
        .iter()
        .filter_map(|(uid, score)| {
            let (record, texts) = loaded.get(uid.as_str())?;
            Some(result_item(record, *score, texts, &urls))
        })
        .collect();
    Ok(SearchResult {
        input_file_uid: query.input_uids.join(","),
        total_results: total as i64,
        results,
        extra: ExtraFields::new(),
    })
}
