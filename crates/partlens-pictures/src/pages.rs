//! A drawing's pages in the service: what a record keeps of each page ([`StoredPage`], the JSON of
//! its `pages` column), the page `lgFileNumber` selects, the page detail `includeShapelets=true`
//! adds to a FileMap, and the page a search by pictures matched on.
//!
//! Pages are numbered from 1, as the PMI's `page`. Page 1's pictures are the file's own (its
//! thumbnail and large image, as before pages were kept); the pictures of pages 2 and later are
//! blobs of their own (the service's `BlobKey::PageImage`). A file that is not paged (a picture, a
//! model) has no stored pages and counts as one page: its own pictures.

use serde::{Deserialize, Serialize};

use partlens_api::encoding::QueryString;
use partlens_engine::ViewDescriptor;
use partlens_store::model::FileRecord;
use partlens_store::{StoreError, StoreTx};

/// A page asked for that is no page of the file, or no page number: what to do, in words (the
/// service answers it with 400).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PageError(pub String);

/// The query parameter that selects a page (`GET /api/File`, `PUT /api/FileBinaryDirect`).
pub const PAGE_PARAM: &str = "lgFileNumber";

/// One page of a drawing as its record keeps it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPage {
    /// The page's number, from 1.
    pub number: u32,
    /// `Model` or a layout's name on a DXF; none on a PDF.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Width and height of the page's picture in pixels (the pixels its PMI boxes are given in).
    pub size: [u32; 2],
    /// Which of the file's stored views are this page's: positions `views[0]..views[1]`.
    pub views: [usize; 2],
    /// The page has a thumbnail (it was pictured: within the file's picture budget).
    pub thumbnail: bool,
    /// The page has a large image (a database file's pictured page).
    pub large: bool,
}

impl StoredPage {
    /// How many views of the visual index are this page's.
    pub fn view_count(&self) -> usize {
        self.views[1].saturating_sub(self.views[0])
    }
}

/// The pages of an analysis as a record keeps them (none for a file without pages).
pub fn stored_pages(analysis: &partlens_engine::Analysis) -> Vec<StoredPage> {
    analysis
        .pages
        .iter()
        .map(|page| StoredPage {
            number: page.number,
            name: page.name.clone(),
            size: page.size_px,
            views: [page.views.start, page.views.end],
            thumbnail: page.thumbnail_jpeg.is_some(),
            large: page.large_png.is_some(),
        })
        .collect()
}

/// Pages as the record's JSON.
pub fn pages_json(pages: &[StoredPage]) -> String {
    serde_json::to_string(pages).unwrap_or_else(|_| "[]".into())
}

/// The pages of a record; a record without pages (or whose JSON cannot be read) has none.
pub fn pages_of(record: &FileRecord) -> Vec<StoredPage> {
    pages_from_json(&record.pages_json)
}

/// Pages read from a record's JSON (none when it cannot be read).
fn pages_from_json(text: &str) -> Vec<StoredPage> {
    serde_json::from_str(text).unwrap_or_default()
}

/// How many pages a file has: a file without stored pages is one page (its own pictures).
pub fn page_count(pages: &[StoredPage]) -> usize {
    pages.len().max(1)
}

/// Reads `lgFileNumber`: `None` when absent or empty (page 1), else a page number from 1; anything
/// else is a 400 that says what the parameter takes.
pub fn page_param(query: &QueryString) -> Result<Option<u32>, PageError> {
    let Some(text) = query.get(PAGE_PARAM).map(str::trim) else {
        return Ok(None);
    };
    if text.is_empty() {
        return Ok(None);
    }
    match text.parse::<u32>() {
        Ok(page) if page >= 1 => Ok(Some(page)),
        _ => Err(PageError(format!(
            "{PAGE_PARAM}={text} is not a page number: give a number from 1 (pages are numbered \
             from 1, as PMIData's page), or leave it out for page 1"
        ))),
    }
}

/// Checks that file `uid` with `pages` has page `page`: a 400 that says how many pages it has
/// otherwise.
pub fn check_page(uid: &str, pages: &[StoredPage], page: u32) -> Result<(), PageError> {
    let count = page_count(pages);
    if page as usize <= count {
        return Ok(());
    }
    Err(PageError(format!(
        "{PAGE_PARAM}={page}: file {uid} has {count} page{}; give a number from 1 to {count}",
        if count == 1 { "" } else { "s" }
    )))
}

/// The page of a drawing with several pages whose own views match `query` best (the engine's
/// multi-view score of the query against that page's views alone; ties: the earlier page); `None`
/// for a file of one page or none, or whose stored views cannot be read.
pub fn matched_page(
    tx: &mut dyn StoreTx,
    record: &FileRecord,
    query: &[ViewDescriptor],
) -> Result<Option<u32>, StoreError> {
    let pages = pages_of(record);
    if pages.len() < 2 || query.is_empty() {
        return Ok(None);
    }
    let views: Result<Vec<ViewDescriptor>, _> = tx
        .views_of(&record.uid)?
        .iter()
        .map(|bytes| ViewDescriptor::from_bytes(bytes))
        .collect();
    let Ok(views) = views else { return Ok(None) };
    let mut best: Option<(u32, f32)> = None;
    for page in &pages {
        let Some(own) = views.get(page.views[0]..page.views[1]) else {
            continue;
        };
        if own.is_empty() {
            continue;
        }
        let score = partlens_engine::match_views(query, own);
        if best.is_none_or(|(_, best)| score > best) {
            best = Some((page.number, score));
        }
    }
    Ok(best.map(|(page, _)| page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_number_is_from_one_and_absent_means_page_one() {
        let read = |text: &str| page_param(&QueryString::parse(text));
        assert_eq!(read("").unwrap(), None);
        assert_eq!(read("lgFileNumber=").unwrap(), None);
        assert_eq!(read("lgfilenumber=3").unwrap(), Some(3));
        for refused in ["lgFileNumber=0", "lgFileNumber=-1", "lgFileNumber=two"] {
            let error = read(refused).unwrap_err().to_string();
            assert!(error.contains("from 1"), "{refused}: {error}");
        }
    }

    #[test]
    fn pages_round_trip_and_a_file_without_pages_is_one_page() {
        let pages = vec![
            StoredPage {
                number: 1,
                size: [800, 600],
                views: [0, 1],
                thumbnail: true,
                large: true,
                ..StoredPage::default()
            },
            StoredPage {
                number: 2,
                name: Some("Layout1".into()),
                size: [600, 800],
                views: [1, 1],
                ..StoredPage::default()
            },
        ];
        assert_eq!(pages_from_json(&pages_json(&pages)), pages);
        assert_eq!(pages[1].view_count(), 0);
        assert!(check_page("u", &pages, 2).is_ok());
        let error = check_page("u", &pages, 3).unwrap_err().to_string();
        assert!(error.contains("has 2 pages"), "{error}");
        assert_eq!(page_count(&[]), 1);
        assert!(check_page("u", &[], 2).is_err());
        assert!(pages_from_json("{").is_empty());
    }
}
