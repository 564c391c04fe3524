//! A search request as the endpoints parse it, checked against every limit once, where it is parsed:
//! `maxResults`, the input UIDs (GUIDs, at most [`ServiceLimits::max_search_inputs`]) and the
//! filter's conditions (at most [`ServiceLimits::max_filter_conditions`]) by [`SearchQuery::parse`];
//! the files of a `PUT /api/Search` body by its streaming decoder, within the room the query leaves
//! ([`SearchQuery::file_allowance`]: the interface's ten, fewer when the filter's UIDs leave less
//! under `max_search_inputs`), kept as [`SearchInputs`]. Only these make a [`SearchQuery`] and
//! [`SearchInputs`], so the search itself ([`crate::search::run`]) checks none of it again.

use partlens_api::limits::MAX_SEARCH_FILES;
use partlens_api::{FilterTerm, SearchFilter, SearchOptions};

use super::body::TempFile;
use super::error::ServiceError;
use super::limits::ServiceLimits;
use super::params::canonical_uid;
use super::search_body::FileAllowance;

/// Results returned when the caller does not say (`maxResults`).
pub const DEFAULT_MAX_RESULTS: usize = 200;

/// The largest `maxResults` accepted.
pub const MAX_RESULTS_LIMIT: usize = 10_000;

/// A search as the endpoints received it, within the limits (made by [`SearchQuery::parse`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchQuery {
    /// The input UIDs as given, reported back in `InputFileUID`.
    given_uids: Vec<String>,
    /// The same UIDs in canonical form, as the store keeps them.
    input_uids: Vec<String>,
    /// Every FT condition (all must hold).
    terms: Vec<FilterTerm>,
    /// How many results to return at most.
    max_results: usize,
    /// Size first, mirror images left out ([`SearchOptions`]; the defaults unless
    /// [`SearchQuery::with_options`] says otherwise).
    options: SearchOptions,
}

impl SearchQuery {
    /// Parses a search and checks it, in this order: `max_results` (1..=10000, 200 when absent),
    /// each input UID (a GUID), the number of conditions and of input UIDs. Past any of them, 400
    /// with a sentence, before anything is read or stored.
    pub fn parse(
        filter: &SearchFilter,
        max_results: Option<&str>,
        limits: &ServiceLimits,
    ) -> Result<Self, ServiceError> {
        let max_results = max_results_param(max_results)?;
        let given_uids: Vec<String> = filter
            .file_uids
            .iter()
            .map(|uid| uid.as_str().to_owned())
            .collect();
        let input_uids = given_uids
            .iter()
            .map(|uid| canonical_uid(uid, "fileUID"))
            .collect::<Result<Vec<_>, _>>()?;
        let terms: Vec<FilterTerm> = filter.terms().cloned().collect();
        check_conditions(&terms, limits)?;
        if input_uids.len() > limits.max_search_inputs {
            return Err(ServiceError::BadRequest(format!(
                "the filter names {} input files; one search takes at most {}",
                input_uids.len(),
                limits.max_search_inputs
            )));
        }
        Ok(Self {
            given_uids,
            input_uids,
            terms,
            max_results,
            options: SearchOptions::default(),
        })
    }

    /// The same search with `options` (`sizeFirst`, `ignoreMirrored`).
    pub fn with_options(mut self, options: SearchOptions) -> Self {
        self.options = options;
        self
    }

    /// What the search asks beyond its filter.
    pub fn options(&self) -> SearchOptions {
        self.options
    }

    /// The input UIDs in canonical form, in order.
    pub fn input_uids(&self) -> &[String] {
        &self.input_uids
    }

    /// The input UIDs as given, comma-separated (the result's `InputFileUID`).
    pub fn reported_inputs(&self) -> String {
        self.given_uids.join(",")
    }

    /// Every FT condition.
    pub fn terms(&self) -> &[FilterTerm] {
        &self.terms
    }

    /// How many results to return at most.
    pub fn max_results(&self) -> usize {
        self.max_results
    }

    /// How many files the body of a `PUT /api/Search` with this query may hold: the interface's
    /// [`MAX_SEARCH_FILES`], or fewer when the filter's input UIDs leave less room under
    /// `max_search_inputs` (the body's files are inputs too).
    pub fn file_allowance(&self, limits: &ServiceLimits) -> FileAllowance {
        let room = limits
            .max_search_inputs
            .saturating_sub(self.input_uids.len());
        if room >= MAX_SEARCH_FILES {
            return FileAllowance::per_search(MAX_SEARCH_FILES);
        }
        FileAllowance {
            max_files: room,
            refusal: format!(
                "the filter names {} input files, so the body may hold at most {room}: one search \
                 takes at most {} inputs, the body's files included",
                self.input_uids.len(),
                limits.max_search_inputs
            ),
        }
    }

    /// Adds an input stored during the call (a file of a `PUT /api/Search` body, within the
    /// [`SearchQuery::file_allowance`] its decoder kept to).
    pub(crate) fn add_stored_input(&mut self, uid: String) {
        self.given_uids.push(uid.clone());
        self.input_uids.push(uid);
    }
}

/// Refuses (400) conditions past [`ServiceLimits::max_filter_conditions`]: each word of a free-text
/// term and each attribute term counts one. Runs before any SQL is built; the library listing's
/// filter is held to it too.
pub fn check_conditions(terms: &[FilterTerm], limits: &ServiceLimits) -> Result<(), ServiceError> {
    let conditions: usize = terms
        .iter()
        .map(|term| match term {
            FilterTerm::Text(words) => words.split_whitespace().count(),
            _ => 1,
        })
        .sum();
    if conditions > limits.max_filter_conditions {
        return Err(ServiceError::BadRequest(format!(
            "the filter holds {conditions} conditions (free-text words and attribute terms); \
             one search takes at most {}",
            limits.max_filter_conditions
        )));
    }
    Ok(())
}

/// Reads the `maxResults` extension parameter (1..=10000; 200 when absent).
fn max_results_param(value: Option<&str>) -> Result<usize, ServiceError> {
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

/// The files of a `PUT /api/Search` body, each in its temporary file with its size, and the one
/// extension the call gives them: at least one, and no more than the body's [`FileAllowance`]
/// (its decoder refused more as they arrived).
#[derive(Debug)]
pub struct SearchInputs {
    extension: String,
    files: Vec<(TempFile, u64)>,
}

impl SearchInputs {
    /// The files a body's decoder accepted within `allowance`; 400 when it held none.
    pub(crate) fn received(
        extension: String,
        files: Vec<(TempFile, u64)>,
        allowance: &FileAllowance,
    ) -> Result<Self, ServiceError> {
        debug_assert!(
            files.len() <= allowance.max_files,
            "the body's decoder refuses files past its allowance"
        );
        if files.is_empty() {
            return Err(ServiceError::BadRequest(
                "the body holds no file: send a JSON string holding an array of base64 files"
                    .into(),
            ));
        }
        Ok(Self { extension, files })
    }

    /// The extension and the files, in body order.
    pub(crate) fn into_parts(self) -> (String, Vec<(TempFile, u64)>) {
        (self.extension, self.files)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter_of(uids: usize, words: usize) -> SearchFilter {
        let mut inner = String::new();
        if uids > 0 {
            let uids: Vec<String> = (0..uids)
                .map(|number| format!("00000000-0000-4000-8000-{number:012}"))
                .collect();
            inner.push_str(&format!("fileUID={}", uids.join(",")));
        }
        if words > 0 {
            inner.push_str(&format!("&FT={}", vec!["disc"; words].join(" ")));
        }
        SearchFilter::parse_inner(&inner)
    }

    #[test]
    fn a_query_is_made_only_within_the_limits() {
        let limits = ServiceLimits {
            max_filter_conditions: 3,
            max_search_inputs: 12,
            ..ServiceLimits::default()
        };
        let parsed = SearchQuery::parse(&filter_of(12, 3), Some("7"), &limits).unwrap();
        assert_eq!(parsed.max_results(), 7);
        assert_eq!(parsed.input_uids().len(), 12);
        for (filter, max, refused) in [
            (filter_of(13, 0), None, "input files"),
            (filter_of(0, 4), None, "4 conditions"),
            (filter_of(0, 1), Some("0"), "maxResults=0"),
            (SearchFilter::parse_inner("fileUID=x"), None, "not a GUID"),
        ] {
            let error = SearchQuery::parse(&filter, max, &limits).unwrap_err();
            assert!(error.to_string().contains(refused), "{error}");
        }
    }

    #[test]
    fn a_body_may_hold_ten_files_or_the_room_the_filter_leaves() {
        let limits = ServiceLimits {
            max_search_inputs: 14,
            ..ServiceLimits::default()
        };
        let allowed = |uids| {
            SearchQuery::parse(&filter_of(uids, 0), None, &limits)
                .unwrap()
                .file_allowance(&limits)
                .max_files
        };
        assert_eq!(
            [allowed(0), allowed(4), allowed(5), allowed(14)],
            [10, 10, 9, 0]
        );
    }
}
