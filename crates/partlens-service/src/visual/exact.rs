//! The exact scan: each company's views in the engine's contiguous [`VisualIndex`], every allowed file
//! scored against the query. The reference the approximate search is measured and tested against,
//! and what a small company uses.

use std::collections::HashMap;

use super::{FileFilter, Ranked, StoredViews, ViewSearch};
use crate::error::ServiceError;
use partlens_engine::{ViewDescriptor, VisualIndex};

/// The exact scan over every company's views.
#[derive(Clone, Debug, Default)]
pub struct ExactScan {
    companies: HashMap<String, VisualIndex>,
}

impl ExactScan {
    /// An empty scan.
    pub fn new() -> Self {
        Self::default()
    }

    /// The company's index, if it has one.
    pub fn company(&self, company: &str) -> Option<&VisualIndex> {
        self.companies.get(company)
    }

    /// Puts a whole company's index in place (after loading it from the store).
    pub fn set_company(&mut self, company: &str, index: VisualIndex) {
        self.companies.insert(company.to_owned(), index);
    }

    /// Takes a company's index out (when the company moves to the approximate search).
    pub fn take_company(&mut self, company: &str) -> Option<VisualIndex> {
        self.companies.remove(company)
    }

    /// The companies that have an index.
    pub fn companies(&self) -> impl Iterator<Item = &str> {
        self.companies.keys().map(String::as_str)
    }
}

impl ViewSearch for ExactScan {
    fn insert(
        &mut self,
        company: &str,
        uid: &str,
        views: &[ViewDescriptor],
    ) -> Result<(), ServiceError> {
        let index = self.companies.entry(company.to_owned()).or_default();
        if views.is_empty() {
            index.remove(uid);
        } else {
            index.insert(uid.to_owned(), views.to_vec());
        }
        Ok(())
    }

    fn remove(&mut self, company: &str, uid: &str) -> Result<(), ServiceError> {
        if let Some(index) = self.companies.get_mut(company) {
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
    ) -> Result<Ranked, ServiceError> {
        let Some(index) = self.companies.get(company) else {
            return Ok(Vec::new());
        };
        match filter {
            FileFilter::Everything => Ok(index.rank(query, |_| true, limit)),
            FileFilter::Only(allowed) => Ok(index.rank(query, |uid| allowed.contains(uid), limit)),
            FileFilter::Among(matching) => {
                Ok(index.rank(query, |uid| matching.contains(uid), limit))
            }
        }
    }

    fn file_count(&self, company: &str) -> usize {
        self.companies.get(company).map_or(0, VisualIndex::len)
    }

    fn view_count(&self, company: &str) -> usize {
        self.companies
            .get(company)
            .map_or(0, VisualIndex::view_count)
    }

    fn heap_bytes(&self) -> usize {
        self.companies.values().map(VisualIndex::heap_bytes).sum()
    }
}
