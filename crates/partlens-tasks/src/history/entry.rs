//! What the search history holds, as plain data: the searches ([`HistoryEntry`]) with their views
//! ([`HistoryView`]: name, input UID, the copy kept to upload it again), and a finished search as
//! it is recorded ([`SearchDraft`], made from the request it ran).

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::search::view_search::{ViewSearchRequest, ViewSource};
use partlens_api::{FileUid, FilterTerm, SearchOptions};

/// One view of a kept search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryView {
    /// The name shown (the file name it goes up under).
    pub name: String,
    /// Its search-input UID when the search last ran.
    #[serde(default)]
    pub input_uid: Option<FileUid>,
    /// The copy the history keeps, relative to its files folder (`<sha1>/<name>`).
    #[serde(default)]
    pub kept_file: Option<String>,
    /// The file the user chose, when the view was one (shown, and uploaded from when no copy is
    /// kept).
    #[serde(default)]
    pub original_path: Option<PathBuf>,
    /// Why no copy is kept, when there is none.
    #[serde(default)]
    pub not_kept: Option<String>,
    /// True for a file of the company's library searched by itself (its input UID is its own):
    /// nothing is kept, since the library holds it.
    #[serde(default)]
    pub library_file: bool,
    /// True for a drawing made on the sketch pad: put back into the bar it is a sketch again, so
    /// its results are labelled by the sketch curve, not the photographs' (an entry kept before
    /// this was known reads as a picture).
    #[serde(default)]
    pub sketch: bool,
}

/// One search of the history: its views, text and filters, when it last ran and what it found; a
/// search with a name is saved (kept until removed).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Identifies the entry in the history.
    pub id: u64,
    /// The name it is saved under; `None` for a search that is only in the recent list.
    #[serde(default)]
    pub name: Option<String>,
    /// When it last ran.
    pub last_run: DateTime<Utc>,
    /// How often it ran.
    #[serde(default = "one")]
    pub runs: u32,
    /// The service it last ran on (its label).
    #[serde(default)]
    pub service: String,
    /// The views, in slot order.
    #[serde(default)]
    pub views: Vec<HistoryView>,
    /// The free text.
    #[serde(default)]
    pub text: String,
    /// The attribute filters.
    #[serde(default)]
    pub filters: Vec<FilterTerm>,
    /// How many results it found last time.
    #[serde(default)]
    pub total_results: Option<u64>,
    /// The switches of a search by a model (same size first, mirror images left out) it last ran
    /// with; the defaults for an entry kept before there were any.
    #[serde(default)]
    pub options: SearchOptions,
}

fn one() -> u32 {
    1
}

impl HistoryEntry {
    /// True when the search is saved under a name.
    pub fn is_saved(&self) -> bool {
        self.name.is_some()
    }

    /// The search in a few words: its name, else its text and views (“flange” · front.png, side.png).
    pub fn title(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let mut parts = Vec::new();
        if !self.text.trim().is_empty() {
            parts.push(format!("“{}”", self.text.trim()));
        }
        let names: Vec<&str> = self.views.iter().map(|view| view.name.as_str()).collect();
        match names.as_slice() {
            [] => {}
            names if names.len() <= 3 => parts.push(names.join(", ")),
            names => parts.push(format!(
                "{}, {} + {} more",
                names[0],
                names[1],
                names.len() - 2
            )),
        }
        if parts.is_empty() {
            parts.push(format!("{} filter(s)", self.filters.len()));
        }
        parts.join(" · ")
    }

    /// True when `words` (lower case) occur in its name, text, view names or filters.
    pub fn mentions(&self, words: &str) -> bool {
        let words = words.trim().to_lowercase();
        if words.is_empty() {
            return true;
        }
        let mut haystack = vec![self.name.clone().unwrap_or_default(), self.text.clone()];
        haystack.extend(self.views.iter().map(|view| view.name.clone()));
        haystack.extend(self.filters.iter().map(FilterTerm::expression));
        haystack
            .iter()
            .any(|text| text.to_lowercase().contains(&words))
    }
}

/// The history as the front end sees it: every entry, newest first, and where kept copies are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchHistory {
    /// The folder kept copies are in.
    pub files_dir: PathBuf,
    /// The searches, the most recently run first.
    pub entries: Vec<HistoryEntry>,
}

impl SearchHistory {
    /// Where the copy of a view is, when one is kept.
    pub fn kept_path(&self, view: &HistoryView) -> Option<PathBuf> {
        view.kept_file
            .as_deref()
            .map(|relative| kept_path_in(&self.files_dir, relative))
    }

    /// The entry with this id.
    pub fn entry(&self, id: u64) -> Option<&HistoryEntry> {
        self.entries.iter().find(|entry| entry.id == id)
    }

    /// The saved searches, most recently run first.
    pub fn saved(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.entries.iter().filter(|entry| entry.is_saved())
    }

    /// The searches without a name, most recently run first.
    pub fn recent(&self) -> impl Iterator<Item = &HistoryEntry> {
        self.entries.iter().filter(|entry| !entry.is_saved())
    }
}

/// The path of a kept copy (`<sha1>/<name>`) inside the files folder.
pub(super) fn kept_path_in(files_dir: &Path, relative: &str) -> PathBuf {
    relative
        .split('/')
        .fold(files_dir.to_path_buf(), |path, part| path.join(part))
}

/// One view of a finished search, as the query bar had it.
#[derive(Clone, Debug, PartialEq)]
pub struct DraftView {
    /// Where its bytes are.
    pub source: ViewSource,
    /// The search-input UID it got.
    pub input_uid: Option<FileUid>,
}

/// A finished search as the history keeps it, made from the request it ran
/// ([`SearchDraft::of_request`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SearchDraft {
    /// The views, in slot order.
    pub views: Vec<DraftView>,
    /// The free text.
    pub text: String,
    /// The attribute filters.
    pub filters: Vec<FilterTerm>,
    /// How many results it found.
    pub total_results: u64,
    /// The switches of a search by a model it ran with.
    pub options: SearchOptions,
}

impl SearchDraft {
    /// The search `request` ran as (each view with the input UID it was searched by), which found
    /// `total_results`: its views in the bar's order, its free text and its attribute filters.
    pub fn of_request(request: &ViewSearchRequest, total_results: u64) -> Self {
        let (texts, filters): (Vec<&FilterTerm>, Vec<&FilterTerm>) = request
            .terms
            .terms()
            .partition(|term| matches!(term, FilterTerm::Text(_)));
        let text = texts
            .into_iter()
            .filter_map(|term| match term {
                FilterTerm::Text(words) => Some(words.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" ");
        Self {
            views: request
                .views
                .iter()
                .map(|view| DraftView {
                    source: view.source.clone(),
                    input_uid: view.input.clone(),
                })
                .collect(),
            text,
            filters: filters.into_iter().cloned().collect(),
            total_results,
            options: SearchOptions::from_params(&request.extra_params),
        }
    }
}
