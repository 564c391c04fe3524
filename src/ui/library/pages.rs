//! The Library's files as plain data: the pages of one listing that have come in, which are asked
//! for, and which to ask for next for the rows on screen. At most [`KEPT_PAGES`] pages are held
//! (those farthest from the latest one go first), so scrolling through 100,000 files holds the same
//! memory as scrolling through 1,000. No egui here.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::ui::jobs::size_text;
use crate::ui::results::ResultRow;
use partlens_api::library::{FileKind, LibraryFile};

/// Files a page holds.
pub const PAGE_FILES: usize = 100;

/// Pages held at most (3,000 files).
pub const KEPT_PAGES: usize = 30;

/// Pages asked for beyond the last row on screen, so that scrolling on finds them there.
pub const PREFETCH_PAGES: usize = 1;

/// One file of the Library: a result row (what the cards and the table draw) and what the Library
/// shows of it beside.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryRow {
    /// The file as a result without a score.
    pub row: ResultRow,
    /// What the file is.
    pub kind: FileKind,
    /// The folder of its stored path.
    pub folder: String,
    /// Size in bytes.
    pub size: u64,
    /// When it was uploaded (ISO 8601).
    pub uploaded_at: String,
    /// Where its indexing is (`completed`, `failed`, `queued`, `in_progress`).
    pub state: String,
}

impl LibraryRow {
    /// The row of `file`, at position `index` of the listing (from 0).
    pub fn from_file(index: usize, file: &LibraryFile) -> Self {
        Self {
            // No query: no score, and a search by text's meaning of none.
            row: ResultRow::from_item(index + 1, &file.item, None),
            kind: file.kind,
            folder: file.folder.clone(),
            size: file.size,
            uploaded_at: file.uploaded_at.clone(),
            state: file.state.clone(),
        }
    }

    /// The kind in words, singular ("picture").
    pub fn kind_text(&self) -> &'static str {
        match self.kind {
            FileKind::Picture => "picture",
            FileKind::Model => "3D model",
            FileKind::Drawing => "drawing",
            FileKind::Other => "other",
        }
    }

    /// The upload time to the minute, as people read it (`2026-11-28 06:41`).
    pub fn uploaded_text(&self) -> String {
        self.uploaded_at
            .get(..16)
            .unwrap_or(&self.uploaded_at)
            .replace('T', " ")
    }

    /// Where indexing is, in words; empty when it is done.
    pub fn state_text(&self) -> &'static str {
        match self.state.as_str() {
            "completed" | "" => "",
            "failed" => "could not be indexed",
            "in_progress" => "indexing",
            _ => "waiting to be indexed",
        }
    }

    /// The card's line under the name: kind, size and upload time (and the indexing state while
    /// it is not done).
    pub fn caption(&self) -> String {
        let mut caption = format!(
            "{} · {} · {}",
            self.kind_text(),
            size_text(self.size),
            self.uploaded_text()
        );
        let state = self.state_text();
        if !state.is_empty() {
            caption.push_str(" · ");
            caption.push_str(state);
        }
        caption
    }
}

/// The pages of one listing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LibraryPages {
    total: Option<usize>,
    loaded: BTreeMap<usize, Vec<LibraryRow>>,
    asked: BTreeSet<usize>,
    /// The page loaded last (eviction keeps the pages nearest to it).
    latest: usize,
}

impl LibraryPages {
    /// How many files the listing holds, once a page has said.
    pub fn total(&self) -> Option<usize> {
        self.total
    }

    /// The file at `index` (from 0), when its page is held.
    pub fn row(&self, index: usize) -> Option<&LibraryRow> {
        self.loaded
            .get(&(index / PAGE_FILES))
            .and_then(|rows| rows.get(index % PAGE_FILES))
    }

    /// Every file held, in listing order.
    pub fn rows(&self) -> impl Iterator<Item = &LibraryRow> {
        self.loaded.values().flatten()
    }

    /// The pages held.
    pub fn loaded_pages(&self) -> usize {
        self.loaded.len()
    }

    /// The pages asked for and not answered.
    pub fn pending_pages(&self) -> usize {
        self.asked.len()
    }

    /// The pages the rows `visible` need (and [`PREFETCH_PAGES`] after them), neither held nor
    /// asked for, within the listing; marks them asked. Before the first answer, page 0 alone.
    pub fn take_missing(&mut self, visible: Range<usize>) -> Vec<usize> {
        let wanted: Vec<usize> = match self.total {
            None => vec![0],
            Some(0) => Vec::new(),
            Some(total) => {
                let last_page = (total - 1) / PAGE_FILES;
                let first = visible.start / PAGE_FILES;
                let last =
                    (visible.end.saturating_sub(1) / PAGE_FILES + PREFETCH_PAGES).min(last_page);
                (first.min(last_page)..=last).collect()
            }
        };
        let missing: Vec<usize> = wanted
            .into_iter()
            .filter(|page| !self.loaded.contains_key(page) && !self.asked.contains(page))
            .collect();
        self.asked.extend(missing.iter().copied());
        missing
    }

    /// Takes in page `page` of a listing of `total` files; drops the pages farthest from it past
    /// [`KEPT_PAGES`].
    pub fn insert(&mut self, page: usize, total: usize, files: &[LibraryFile]) {
        self.total = Some(total);
        self.asked.remove(&page);
        let first = page * PAGE_FILES;
        let rows = files
            .iter()
            .enumerate()
            .map(|(at, file)| LibraryRow::from_file(first + at, file))
            .collect();
        self.loaded.insert(page, rows);
        self.latest = page;
        while self.loaded.len() > KEPT_PAGES {
            let farthest = self
                .loaded
                .keys()
                .copied()
                .max_by_key(|held| held.abs_diff(self.latest));
            match farthest {
                Some(farthest) => self.loaded.remove(&farthest),
                None => break,
            };
        }
    }

    /// A page that could not be loaded is no longer asked for (it is asked again when it is on
    /// screen again, or when the user tries again).
    pub fn forget_asked(&mut self, page: usize) {
        self.asked.remove(&page);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_api::SearchResultItem;

    fn files(first: usize, count: usize) -> Vec<LibraryFile> {
        (first..first + count)
            .map(|number| LibraryFile {
                item: SearchResultItem {
                    uid: format!("00000000-0000-4000-8000-{number:012}"),
                    file_name: format!("Parts/part-{number}.png"),
                    ..SearchResultItem::default()
                },
                kind: FileKind::Picture,
                folder: "Parts".into(),
                size: 35,
                uploaded_at: "2026-11-28T06:41:07.123Z".into(),
                state: "completed".into(),
            })
            .collect()
    }

    #[test]
    fn only_the_pages_on_screen_and_the_next_are_asked_for_once() {
        let mut pages = LibraryPages::default();
        assert_eq!(pages.take_missing(0..0), [0]);
        assert!(
            pages.take_missing(0..30).is_empty(),
            "page 0 is asked already"
        );
        pages.insert(0, 10_000, &files(0, PAGE_FILES));
        assert_eq!(pages.total(), Some(10_000));
        assert_eq!(pages.take_missing(0..30), [1]);
        // A jump to the end: the last page only (nothing after it).
        assert_eq!(pages.take_missing(9_980..10_000), [99]);
        assert_eq!(pages.pending_pages(), 2);
        pages.insert(99, 10_000, &files(9_900, PAGE_FILES));
        assert_eq!(
            pages.row(9_999).map(|row| row.row.rank),
            Some(10_000),
            "ranks count from 1"
        );
        assert!(pages.row(5_000).is_none());
        pages.forget_asked(1);
        assert_eq!(pages.take_missing(150..160), [1, 2]);
    }

    #[test]
    fn at_most_the_kept_pages_are_held_the_farthest_dropped_first() {
        let mut pages = LibraryPages::default();
        for page in 0..KEPT_PAGES + 5 {
            pages.insert(page, 100_000, &files(page * PAGE_FILES, PAGE_FILES));
        }
        assert_eq!(pages.loaded_pages(), KEPT_PAGES);
        assert!(pages.row(0).is_none(), "the first pages went");
        assert!(pages.row((KEPT_PAGES + 4) * PAGE_FILES).is_some());
        let empty = LibraryPages {
            total: Some(0),
            ..LibraryPages::default()
        };
        assert!(empty.clone().take_missing(0..10).is_empty());
    }

    #[test]
    fn a_row_says_kind_size_time_and_an_unfinished_state() {
        let mut file = files(7, 1).remove(0);
        let row = LibraryRow::from_file(0, &file);
        assert_eq!(row.caption(), "picture · 35 B · 2026-11-28 06:41");
        assert_eq!(row.row.name, "part-7.png");
        file.state = "queued".into();
        file.kind = FileKind::Model;
        assert_eq!(
            LibraryRow::from_file(0, &file).caption(),
            "3D model · 35 B · 2026-11-28 06:41 · waiting to be indexed"
        );
    }
}
