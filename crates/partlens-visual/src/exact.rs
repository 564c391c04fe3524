//! The exact scan: each company's views in the engine's contiguous [`VisualIndex`], every allowed file
//! scored against the query. The reference the approximate search is measured and tested against,
//! and what a small company uses.

use super::per_company::PerCompany;
use super::{FileFilter, Ranked, StoredViews, ViewSearch};
use crate::error::VisualError;
use partlens_engine::{ViewDescriptor, VisualIndex};

/// The exact scan over every company's views: a [`VisualIndex`] for each company with files.
/// It takes a metadata filter as every match listed and counts the matches by ranking them all:
/// [`ViewSearch::filter_form`]'s and [`ViewSearch::rank_and_count`]'s defaults.
pub type ExactScan = PerCompany<VisualIndex>;

impl ViewSearch for ExactScan {
    fn insert(
        &mut self,
        company: &str,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<(), VisualError> {
        let index = self.company_or_insert_with(company, VisualIndex::new);
        if views.is_empty() {
            index.remove(uid);
        } else {
            index.insert(uid.to_owned(), views.to_vec());
        }
        Ok(())
    }

    fn remove(&mut self, company: &str, uid: &str) -> Result<(), VisualError> {
        if let Some(index) = self.company_mut(company) {
            index.remove(uid);
        }
        Ok(())
    }

    fn rank(
        &self,
        company: &str,
        query: &[ViewDescriptor],
        filter: FileFilter<'_>,
        limit: usize,
        _stored: &dyn StoredViews,
    ) -> Result<Ranked, VisualError> {
        let Some(index) = self.company(company) else {
            return Ok(Vec::new());
        };
        match filter {
            FileFilter::Everything => Ok(index.rank(query, |_| true, limit)),
            // The listed files looked up, not every file asked whether it is listed.
            FileFilter::Only(allowed) => {
                Ok(index.rank_listed(query, allowed.iter().map(String::as_str), limit))
            }
            FileFilter::Among(matching) => {
                Ok(index.rank(query, |uid| matching.contains(uid), limit))
            }
        }
    }

    fn file_count(&self, company: &str) -> usize {
        self.measure_of(company, VisualIndex::len)
    }

    fn view_count(&self, company: &str) -> usize {
        self.measure_of(company, VisualIndex::view_count)
    }

    fn heap_bytes(&self) -> usize {
        self.measure_all(VisualIndex::heap_bytes)
    }
}
