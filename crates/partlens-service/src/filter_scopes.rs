//! Metadata filters of visual searches, resolved once and reused: on an approximate graph, and
//! for the exact scan when the listing is short (below).
//!
//! Resolving a filter is the slowest part of a filtered visual search in a large library: which files
//! with views it selects (listed, when at most [`SELECTIVE_FILES`], else held by
//! GUID). At a million records a term that 30 % of them hold takes SQLite over a second to list,
//! while the graph answers in milliseconds. Engineers
//! repeat a search with other pictures and the same filter (the history, refining a query), so the
//! resolution is kept, keyed by company and terms, with the store's metadata generation it was made
//! at (schema step 6: a counter every write to records, attribute values or views moves, in the
//! same transaction, by this process or another), and reused while the generation is unchanged. The
//! first search after a change resolves again.
//!
//! A broad filter (more files than a graph search is restricted to) is kept as the GUIDs of the
//! files with views it matches ([`GuidSet`]): the graph's candidates are checked against it in
//! memory, a binary search each, where asking SQLite took 14 µs a candidate at a million records
//! (the three-view search of a filter 30 % of the files match asked about some 700). Its size is
//! `TotalResults`.
//!
//! The exact scan takes every match listed: at a million views through PostgreSQL's vector index a
//! supplier's 10,000 files took about 100 ms to list, every search, against a few to score. Such a
//! listing is kept too, when it lists at most `SELECTIVE_FILES` files; a longer one is not (the scan
//! of that many files costs as much as listing them). A resolution is kept for the form it was made
//! in ([`FilterForm`]): the exact scan's lists every match, the graph's only the files with views.
//!
//! Limits: at most [`MAX_KEPT`] resolutions (the least recently used is dropped); a listed one holds
//! at most `SELECTIVE_FILES` UIDs (about 2 MB), a broad one 16 bytes a matching file (16 MB for a
//! million), so at most 128 MB in all for a company of a million files with views.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use partlens_api::FilterTerm;

use super::error::ServiceError;
use partlens_visual::{FilterForm, GuidSet};

/// Most resolutions kept.
pub const MAX_KEPT: usize = 8;

/// A metadata filter that selects at most this many files with views is resolved before an
/// approximate visual search (the files listed); one that selects more is checked on the graph's
/// candidates. Also the longest listing kept for the exact scan.
pub const SELECTIVE_FILES: usize = 20_000;

/// What a metadata filter selects among a company's files.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Few enough to list: exactly these files (indexed or not), which the graph's search is
    /// restricted to.
    Listed(HashSet<String>),
    /// Too many to restrict the graph's search to: its candidates are checked against these.
    Broad {
        /// The files with views that satisfy the filter.
        matching_with_views: GuidSet,
    },
}

impl Resolved {
    /// True when it is small enough to keep: a broad one always (16 bytes a file), a listed one of
    /// at most [`SELECTIVE_FILES`] files.
    fn fits_kept(&self) -> bool {
        match self {
            Self::Listed(files) => files.len() <= SELECTIVE_FILES,
            Self::Broad { .. } => true,
        }
    }
}

/// One kept resolution.
struct Kept {
    company: String,
    form: FilterForm,
    terms: Vec<FilterTerm>,
    generation: i64,
    resolved: Arc<Resolved>,
}

/// The kept resolutions, most recently used first. Shared by every search of the service.
#[derive(Default)]
pub struct FilterScopes {
    kept: Mutex<VecDeque<Kept>>,
}

impl FilterScopes {
    /// Nothing kept yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The resolution of `terms` in `form` for `company` at metadata `generation`: the kept one
    /// when there is one for exactly these, else `resolve()`'s, which is then kept when it fits
    /// (replacing one made at another generation). `resolve` runs without the lock held, so
    /// searches never wait on each other here.
    pub fn resolve(
        &self,
        company: &str,
        form: FilterForm,
        terms: &[FilterTerm],
        generation: i64,
        resolve: impl FnOnce() -> Result<Resolved, ServiceError>,
    ) -> Result<Arc<Resolved>, ServiceError> {
        if let Some(found) = self.take(company, form, terms, generation) {
            return Ok(found);
        }
        let resolved = Arc::new(resolve()?);
        let mut kept = self.lock();
        kept.retain(|entry| {
            !(entry.company == company && entry.form == form && entry.terms == terms)
        });
        if !resolved.fits_kept() {
            return Ok(resolved);
        }
        kept.push_front(Kept {
            company: company.to_owned(),
            form,
            terms: terms.to_vec(),
            generation,
            resolved: resolved.clone(),
        });
        kept.truncate(MAX_KEPT);
        Ok(resolved)
    }

    /// The kept resolution for exactly these, moved to the front; `None` when there is none at
    /// this generation.
    fn take(
        &self,
        company: &str,
        form: FilterForm,
        terms: &[FilterTerm],
        generation: i64,
    ) -> Option<Arc<Resolved>> {
        let mut kept = self.lock();
        let at = kept.iter().position(|entry| {
            entry.generation == generation
                && entry.company == company
                && entry.form == form
                && entry.terms == terms
        })?;
        let entry = kept.remove(at)?;
        let resolved = entry.resolved.clone();
        kept.push_front(entry);
        Some(resolved)
    }

    /// How many resolutions are kept.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// True when none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Kept>> {
        // A panic while the lock was held leaves whole entries behind: keep using them.
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRAPH: FilterForm = FilterForm::ListedWhenSelective;
    const EXACT: FilterForm = FilterForm::EveryMatchListed;

    fn listed(uids: &[&str]) -> Resolved {
        Resolved::Listed(uids.iter().map(|uid| (*uid).to_owned()).collect())
    }

    #[test]
    fn a_resolution_is_reused_at_its_generation_only() {
        let scopes = FilterScopes::new();
        let terms = [FilterTerm::parse("material=[steel]")];
        let mut calls = 0;
        let mut resolve = |generation, uids: &[&str]| {
            scopes
                .resolve("acme", GRAPH, &terms, generation, || {
                    calls += 1;
                    Ok(listed(uids))
                })
                .unwrap()
        };
        assert_eq!(*resolve(1, &["a"]), listed(&["a"]));
        assert_eq!(*resolve(1, &["b"]), listed(&["a"]), "kept at generation 1");
        assert_eq!(
            *resolve(2, &["b"]),
            listed(&["b"]),
            "resolved again after a change"
        );
        assert_eq!(*resolve(2, &["c"]), listed(&["b"]));
        assert_eq!(calls, 2);
        assert_eq!(scopes.len(), 1, "the stale resolution was replaced");
    }

    #[test]
    fn other_terms_or_companies_are_resolved_on_their_own_and_the_oldest_is_dropped() {
        let scopes = FilterScopes::new();
        let steel = [FilterTerm::parse("material=[steel]")];
        let brass = [FilterTerm::parse("material=[brass]")];
        let broad = |count: usize| Resolved::Broad {
            matching_with_views: GuidSet::new(
                (0..count as u128).map(|n| uuid::Uuid::from_u128(n).to_string()),
            ),
        };
        scopes
            .resolve("acme", GRAPH, &steel, 1, || Ok(broad(10)))
            .unwrap();
        let other_company = scopes
            .resolve("globex", GRAPH, &steel, 1, || Ok(broad(20)))
            .unwrap();
        assert_eq!(*other_company, broad(20));
        let other_terms = scopes
            .resolve("acme", GRAPH, &brass, 1, || Ok(broad(30)))
            .unwrap();
        assert_eq!(*other_terms, broad(30));
        // A failed resolution keeps nothing.
        assert!(
            scopes
                .resolve("acme", GRAPH, &[], 1, || Err(ServiceError::Internal(
                    "down".into()
                )))
                .is_err()
        );
        assert_eq!(scopes.len(), 3);
        for number in 0..MAX_KEPT {
            let terms = [FilterTerm::Text(format!("word{number}"))];
            scopes
                .resolve("acme", GRAPH, &terms, 1, || Ok(broad(number)))
                .unwrap();
        }
        assert_eq!(scopes.len(), MAX_KEPT);
        let again = scopes
            .resolve("acme", GRAPH, &steel, 1, || Ok(broad(99)))
            .unwrap();
        assert_eq!(*again, broad(99), "the least recently used was dropped");
    }

    #[test]
    fn each_form_keeps_its_own_resolution_and_a_long_listing_is_not_kept() {
        let scopes = FilterScopes::new();
        let steel = [FilterTerm::parse("material=[steel]")];
        let exact = scopes
            .resolve("acme", EXACT, &steel, 1, || Ok(listed(&["a", "b"])))
            .unwrap();
        assert_eq!(*exact, listed(&["a", "b"]));
        let graph = scopes
            .resolve("acme", GRAPH, &steel, 1, || Ok(listed(&["a"])))
            .unwrap();
        assert_eq!(*graph, listed(&["a"]), "not the exact scan's listing");
        let again = scopes
            .resolve("acme", EXACT, &steel, 1, || Ok(listed(&["c"])))
            .unwrap();
        assert_eq!(*again, listed(&["a", "b"]), "the exact scan's listing kept");
        let long = || {
            Resolved::Listed(
                (0..=SELECTIVE_FILES)
                    .map(|n| n.to_string())
                    .collect::<HashSet<String>>(),
            )
        };
        let brass = [FilterTerm::parse("material=[brass]")];
        let mut calls = 0;
        for _ in 0..2 {
            scopes
                .resolve("acme", EXACT, &brass, 1, || {
                    calls += 1;
                    Ok(long())
                })
                .unwrap();
        }
        assert_eq!(
            calls, 2,
            "a listing longer than SELECTIVE_FILES is made again"
        );
        assert_eq!(scopes.len(), 2);
    }
}
