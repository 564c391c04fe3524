//! Analyses of search inputs kept by their content: the same file uploaded again as a search input
//! of the same company (a one-step search repeated, the command-line client searching by one model
//! again, the app uploading a kept view again) takes the analysis made the first time instead of
//! reading the file again in a worker (for a model, most of a search by it: docs/PERFORMANCE.md,
//! "search by a model").
//!
//! Kept in memory only, the most recently used first, up to [`InputAnalyses::new`]'s bytes; an
//! analysis depends only on the bytes, their extension, the extraction caps (the service's, fixed
//! while it runs) and the engine (this build), so a kept one is always what a read would give.
//! Kept per company: one company never learns from a fast answer that another searched by a file.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use sha2::{Digest, Sha256};

/// The bytes kept analyses take at most by default (an analysed model is about 50 kB: 93
/// descriptors and a thumbnail).
pub const DEFAULT_KEPT_BYTES: usize = 16 * 1024 * 1024;

/// What a kept analysis is found by: the company, the extension and the content's SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentKey {
    company: String,
    extension: String,
    digest: [u8; 32],
}

impl ContentKey {
    /// The key of `bytes` uploaded by `company` with `extension` (any case).
    pub fn of(company: &str, extension: &str, bytes: &[u8]) -> Self {
        Self {
            company: company.to_owned(),
            extension: extension.to_ascii_lowercase(),
            digest: Sha256::digest(bytes).into(),
        }
    }
}

/// Search inputs' analyses, the most recently used first, within a budget of bytes.
#[derive(Debug)]
pub struct InputAnalyses {
    kept: Mutex<VecDeque<(ContentKey, partlens_engine::Analysis, usize)>>,
    most_bytes: usize,
}

impl InputAnalyses {
    /// Keeps analyses of at most `most_bytes` together (0 keeps none).
    pub fn new(most_bytes: usize) -> Self {
        Self {
            kept: Mutex::new(VecDeque::new()),
            most_bytes,
        }
    }

    /// The analysis kept for `key`, now the most recently used.
    pub fn find(&self, key: &ContentKey) -> Option<partlens_engine::Analysis> {
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        let at = kept.iter().position(|(known, _, _)| known == key)?;
        let entry = kept.remove(at)?;
        let analysis = entry.1.clone();
        kept.push_front(entry);
        Some(analysis)
    }

    /// Keeps `analysis` for `key`, forgetting the least recently used past the budget (one larger
    /// than the whole budget is not kept).
    pub fn keep(&self, key: ContentKey, analysis: &partlens_engine::Analysis) {
        let bytes = approximate_bytes(analysis);
        if bytes > self.most_bytes {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|(known, _, _)| *known != key);
        kept.push_front((key, analysis.clone(), bytes));
        let mut total: usize = kept.iter().map(|(_, _, bytes)| bytes).sum();
        while total > self.most_bytes {
            match kept.pop_back() {
                Some((_, _, bytes)) => total -= bytes,
                None => break,
            }
        }
    }

    /// How many analyses are kept.
    pub fn len(&self) -> usize {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// True when none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The heap bytes an analysis holds, near enough for a budget.
fn approximate_bytes(analysis: &partlens_engine::Analysis) -> usize {
    let views: usize = analysis
        .views
        .iter()
        .map(|view| view.features().len() * 2 + 128)
        .sum();
    let pictures = analysis.thumbnail_jpeg.as_ref().map_or(0, Vec::len)
        + analysis.large_png.as_ref().map_or(0, Vec::len);
    let attributes: usize = analysis
        .extracted_attributes
        .iter()
        .map(|attribute| attribute.len() + 24)
        .sum();
    let pmi: usize = analysis
        .pmi_pages
        .iter()
        .map(|page| page.items.len() * 256 + 256)
        .sum();
    views + pictures + analysis.text.len() + attributes + pmi
}

#[cfg(test)]
mod tests {
    use super::*;

    fn analysis(text: &str, thumbnail_bytes: usize) -> partlens_engine::Analysis {
        partlens_engine::Analysis {
            text: text.to_owned(),
            thumbnail_jpeg: Some(vec![7; thumbnail_bytes]),
            ..Default::default()
        }
    }

    #[test]
    fn the_same_content_of_the_same_company_finds_its_analysis() {
        let kept = InputAnalyses::new(DEFAULT_KEPT_BYTES);
        let key = ContentKey::of("acme", ".STEP", b"ISO-10303-21;");
        kept.keep(key.clone(), &analysis("flange", 10));
        assert_eq!(
            kept.find(&key).map(|found| found.text),
            Some("flange".into())
        );
        assert_eq!(
            kept.find(&ContentKey::of("acme", ".step", b"ISO-10303-21;"))
                .map(|found| found.text),
            Some("flange".into())
        );
        // Other bytes, another extension, another company: not found.
        assert!(
            kept.find(&ContentKey::of("acme", ".step", b"ISO-10303-21; "))
                .is_none()
        );
        assert!(
            kept.find(&ContentKey::of("acme", ".stp", b"ISO-10303-21;"))
                .is_none()
        );
        assert!(
            kept.find(&ContentKey::of("globex", ".step", b"ISO-10303-21;"))
                .is_none()
        );
        // Kept again: replaced, not doubled.
        kept.keep(key.clone(), &analysis("flange 2", 10));
        assert_eq!(kept.len(), 1);
        assert_eq!(
            kept.find(&key).map(|found| found.text),
            Some("flange 2".into())
        );
    }

    #[test]
    fn the_least_recently_used_is_forgotten_past_the_budget() {
        let one = approximate_bytes(&analysis("", 1000));
        let kept = InputAnalyses::new(2 * one + one / 2);
        let key = |name: &str| ContentKey::of("acme", ".stl", name.as_bytes());
        kept.keep(key("a"), &analysis("", 1000));
        kept.keep(key("b"), &analysis("", 1000));
        // Using a makes b the least recently used.
        assert!(kept.find(&key("a")).is_some());
        kept.keep(key("c"), &analysis("", 1000));
        assert_eq!(kept.len(), 2);
        assert!(kept.find(&key("b")).is_none());
        assert!(kept.find(&key("a")).is_some() && kept.find(&key("c")).is_some());
        // One larger than the whole budget is not kept, and forgets nothing.
        kept.keep(key("d"), &analysis("", 10 * one));
        assert!(kept.find(&key("d")).is_none());
        assert_eq!(kept.len(), 2);
        assert!(InputAnalyses::new(0).is_empty());
    }
}
