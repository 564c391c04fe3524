//! The search history on disk: `history/history.json` in the app's data folder (rewritten whole and
//! atomically, like `jobs.json`) and `history/files/<sha1>/<name>`, a copy of each view, kept so a
//! search can upload its views again when the service no longer has them. Copies are named by their
//! content, so a view kept by several searches is stored once; a copy no search refers to any more
//! is deleted.
//!
//! Limits ([`HistoryLimits::DEFAULT`]), so the history stays small whatever is searched or found in
//! the file:
//!
//! | what | limit | past it |
//! |---|---|---|
//! | searches without a name | 100 | the oldest is dropped |
//! | saved (named) searches | 100 | saving another is refused with a sentence |
//! | a name | 80 characters | refused (a longer name in the file is cut) |
//! | the text of a search | 2,000 characters | cut |
//! | views of a search | 10 (the interface's limit) | further views in the file are dropped |
//! | one kept copy | 32 MiB | not copied: the view keeps its file's path and UID |
//! | all kept copies | 256 MiB | the oldest unnamed searches go first; then new copies are not made |
//! | `history.json` read back | 4 MiB | the file is set aside and the history starts empty |
//!
//! A copy path in the file that is not `<40 hex digits>/<plain file name>` is ignored, so a damaged or
//! hostile file cannot make the app upload a file from elsewhere.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha1::Digest as _;

use super::entry::{HistoryEntry, HistoryView, SearchDraft, SearchHistory, kept_path_in};
use crate::search::view_search::{ViewSource, result_image_file_name};

/// The history's folder inside the data folder.
pub const HISTORY_FOLDER: &str = "history";

/// The file that lists the searches, inside [`HISTORY_FOLDER`].
pub const HISTORY_FILE_NAME: &str = "history.json";

/// The folder of kept copies, inside [`HISTORY_FOLDER`].
pub const FILES_FOLDER: &str = "files";

/// Most views one search has (the interface's limit).
const MAX_VIEWS: usize = partlens_api::limits::MAX_SEARCH_FILES;

/// How much the history keeps (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryLimits {
    /// Searches without a name.
    pub recent: usize,
    /// Saved searches.
    pub saved: usize,
    /// Characters of a name.
    pub name_chars: usize,
    /// Characters of a search's text.
    pub text_chars: usize,
    /// Bytes of one kept copy.
    pub file_bytes: u64,
    /// Bytes of all kept copies.
    pub kept_bytes: u64,
    /// Bytes of `history.json` read back.
    pub history_file_bytes: u64,
}

impl HistoryLimits {
    /// The limits the app uses.
    pub const DEFAULT: Self = Self {
        recent: 100,
        saved: 100,
        name_chars: 80,
        text_chars: 2_000,
        file_bytes: 32 * 1024 * 1024,
        kept_bytes: 256 * 1024 * 1024,
        history_file_bytes: 4 * 1024 * 1024,
    };
}

/// Why the history could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// A file could not be read or written.
    #[error("cannot {action} {path}: {source}")]
    Io {
        /// What was being done ("read the search history").
        action: &'static str,
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not a search history.
    #[error("the search history {path} could not be read: {message}")]
    Format {
        /// The file.
        path: String,
        /// What was wrong.
        message: String,
    },
    /// The file is larger than a history can be.
    #[error("the search history {path} is {size} bytes, more than the {limit} a history can be")]
    TooLarge {
        /// The file.
        path: String,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}

#[derive(Serialize, Deserialize)]
struct HistoryFile {
    version: u32,
    entries: Vec<HistoryEntry>,
}

/// A view of a draft on its way into the history.
struct PreparedView {
    view: HistoryView,
    /// Bytes still to write as the kept copy `view.kept_file`.
    bytes: Option<Vec<u8>>,
}

/// The search history of one data folder.
#[derive(Debug)]
pub struct HistoryStore {
    dir: PathBuf,
    limits: HistoryLimits,
    entries: Vec<HistoryEntry>,
}

impl HistoryStore {
    /// The history of the data folder `data_dir` with the app's limits. A file that cannot be read is
    /// set aside (`history.json.damaged`) and the history starts empty; the error says so.
    pub fn open(data_dir: &Path) -> (Self, Option<HistoryError>) {
        Self::open_with_limits(data_dir, HistoryLimits::DEFAULT)
    }

    /// The same with other limits (tests use small ones).
    pub fn open_with_limits(
        data_dir: &Path,
        limits: HistoryLimits,
    ) -> (Self, Option<HistoryError>) {
        let mut store = Self {
            dir: data_dir.join(HISTORY_FOLDER),
            limits,
            entries: Vec::new(),
        };
        let problem = match store.load() {
            Ok(entries) => {
                store.entries = entries;
                None
            }
            Err(error) => {
                let path = store.file_path();
                if path.exists() {
                    let _ = std::fs::rename(&path, path.with_extension("json.damaged"));
                }
                Some(error)
            }
        };
        store.collect_garbage(&[]);
        (store, problem)
    }

    /// The file listing the searches.
    pub fn file_path(&self) -> PathBuf {
        self.dir.join(HISTORY_FILE_NAME)
    }

    /// The folder of kept copies.
    pub fn files_dir(&self) -> PathBuf {
        self.dir.join(FILES_FOLDER)
    }

    /// The history as the front end sees it.
    pub fn snapshot(&self) -> SearchHistory {
        SearchHistory {
            files_dir: self.files_dir(),
            entries: self.entries.clone(),
        }
    }

    /// Keeps a finished search: a copy of each view (within the limits), then the entry first in
    /// the list. The same search run again (same views by content, text and filters) updates its
    /// entry, keeping its name. `result_images` holds the bytes of views that were a result's
    /// image, by view index (downloaded by the caller). Returns the entry's id.
    pub fn record(
        &mut self,
        draft: SearchDraft,
        result_images: &[(usize, Vec<u8>)],
        service: &str,
        now: DateTime<Utc>,
    ) -> Result<u64, HistoryError> {
        let mut prepared: Vec<PreparedView> = draft
            .views
            .iter()
            .take(MAX_VIEWS)
            .enumerate()
            .map(|(index, view)| {
                let fetched = result_images
                    .iter()
                    .find(|(at, _)| *at == index)
                    .map(|(_, bytes)| bytes.as_slice());
                self.prepare(&view.source, view.input_uid.clone(), fetched)
            })
            .collect();
        let text = cut(&draft.text, self.limits.text_chars);
        let identity = identity(
            prepared.iter().map(|view| &view.view),
            &text,
            &draft.filters,
        );
        let earlier = self
            .entries
            .iter()
            .position(|entry| identity_of(entry) == identity)
            .map(|at| self.entries.remove(at));

        if let Err(error) = self.keep_copies(&mut prepared) {
            if let Some(earlier) = earlier {
                self.entries.insert(0, earlier);
            }
            return Err(error);
        }
        let id = earlier
            .as_ref()
            .map(|entry| entry.id)
            .unwrap_or_else(|| self.next_id());
        let entry = HistoryEntry {
            id,
            name: earlier.as_ref().and_then(|entry| entry.name.clone()),
            last_run: now,
            runs: earlier
                .as_ref()
                .map_or(1, |entry| entry.runs.saturating_add(1)),
            service: service.to_owned(),
            views: prepared.into_iter().map(|view| view.view).collect(),
            text,
            filters: draft.filters,
            total_results: Some(draft.total_results),
            options: draft.options,
        };
        self.entries.insert(0, entry);
        self.drop_oldest_recent();
        self.collect_garbage(&[]);
        self.save()?;
        Ok(id)
    }

    /// Names a search (it is saved and kept until removed) or takes its name away (`None`: it goes
    /// back to the recent searches). A name that is empty, too long, already used or one saved
    /// search too many is refused with the sentence saying why.
    pub fn set_name(&mut self, id: u64, name: Option<&str>) -> Result<(), NameRefused> {
        let name = match name {
            Some(name) => Some(check_name(&self.entries, id, name, &self.limits)?),
            None => None,
        };
        let Some(entry) = self.entries.iter_mut().find(|entry| entry.id == id) else {
            return Err(NameRefused::Refused(
                "That search is no longer in the history.".to_owned(),
            ));
        };
        entry.name = name;
        self.drop_oldest_recent();
        self.collect_garbage(&[]);
        self.save().map_err(NameRefused::Store)
    }

    /// Removes a search (its copies go when no other search keeps them).
    pub fn remove(&mut self, id: u64) -> Result<(), HistoryError> {
        self.entries.retain(|entry| entry.id != id);
        self.collect_garbage(&[]);
        self.save()
    }

    /// Removes every search without a name.
    pub fn clear_recent(&mut self) -> Result<(), HistoryError> {
        self.entries.retain(HistoryEntry::is_saved);
        self.collect_garbage(&[]);
        self.save()
    }

    /// Bytes of the kept copies on disk.
    pub fn kept_bytes(&self) -> u64 {
        self.kept_files()
            .iter()
            .filter_map(|(_, path)| std::fs::metadata(path).ok())
            .map(|metadata| metadata.len())
            .sum()
    }

    fn next_id(&self) -> u64 {
        self.entries.iter().map(|entry| entry.id).max().unwrap_or(0) + 1
    }

    /// What the history keeps of one view; its copy is written later, within the budget.
    fn prepare(
        &self,
        source: &ViewSource,
        input_uid: Option<partlens_api::FileUid>,
        fetched: Option<&[u8]>,
    ) -> PreparedView {
        let files_dir = self.files_dir();
        let mut view = HistoryView {
            name: source.name(),
            input_uid,
            kept_file: None,
            original_path: None,
            not_kept: None,
            library_file: false,
            sketch: source.is_sketch(),
        };
        let bytes = match source {
            ViewSource::LibraryFile { .. } => {
                view.library_file = true;
                return PreparedView { view, bytes: None };
            }
            ViewSource::File(path) | ViewSource::KeptSketch(path) => {
                if let Some(relative) = kept_relative(&files_dir, path) {
                    // Run again from the history: its own copy.
                    view.kept_file = Some(relative);
                    return PreparedView { view, bytes: None };
                }
                view.original_path = Some(path.clone());
                match std::fs::metadata(path) {
                    Ok(metadata) if metadata.len() > self.limits.file_bytes => {
                        view.not_kept = Some(format!(
                            "larger than {}, so no copy is kept: it goes up again from {}",
                            size_in_words(self.limits.file_bytes),
                            path.display()
                        ));
                        None
                    }
                    Ok(_) => match std::fs::read(path) {
                        Ok(bytes) => Some(bytes),
                        Err(error) => {
                            view.not_kept = Some(format!("could not be copied: {error}"));
                            None
                        }
                    },
                    Err(error) => {
                        view.not_kept = Some(format!("could not be copied: {error}"));
                        None
                    }
                }
            }
            ViewSource::Sketch(image) => Some(image.png().to_vec()),
            ViewSource::ResultImage { name, .. } => match fetched {
                Some(bytes) => {
                    if let Ok(file_name) = result_image_file_name(name, bytes) {
                        view.name = file_name;
                    }
                    Some(bytes.to_vec())
                }
                None => {
                    view.not_kept =
                        Some("its picture could not be downloaded again to keep".to_owned());
                    None
                }
            },
        };
        let Some(bytes) = bytes else {
            return PreparedView { view, bytes: None };
        };
        if bytes.len() as u64 > self.limits.file_bytes {
            view.not_kept = Some(format!(
                "larger than {}, so no copy is kept",
                size_in_words(self.limits.file_bytes)
            ));
            return PreparedView { view, bytes: None };
        }
        let relative = format!(
            "{}/{}",
            hex::encode(sha1::Sha1::digest(&bytes)),
            safe_file_name(&view.name)
        );
        let on_disk = kept_path_in(&files_dir, &relative).is_file();
        view.kept_file = Some(relative);
        PreparedView {
            view,
            bytes: (!on_disk).then_some(bytes),
        }
    }

    /// Writes the copies still to write, within the budget for kept copies: the oldest searches
    /// without a name make room first; a copy that still does not fit is not made.
    fn keep_copies(&mut self, prepared: &mut [PreparedView]) -> Result<(), HistoryError> {
        let keep: Vec<String> = prepared
            .iter()
            .filter(|view| view.bytes.is_none())
            .filter_map(|view| view.view.kept_file.clone())
            .collect();
        let needed: u64 = prepared
            .iter()
            .filter_map(|view| view.bytes.as_ref())
            .map(|bytes| bytes.len() as u64)
            .sum();
        self.collect_garbage(&keep);
        let mut held = self.kept_bytes();
        while held + needed > self.limits.kept_bytes {
            let Some(oldest) = self.entries.iter().rposition(|entry| !entry.is_saved()) else {
                break;
            };
            self.entries.remove(oldest);
            self.collect_garbage(&keep);
            held = self.kept_bytes();
        }
        let files_dir = self.files_dir();
        for view in prepared.iter_mut() {
            let (Some(bytes), Some(relative)) = (view.bytes.take(), view.view.kept_file.clone())
            else {
                continue;
            };
            let path = kept_path_in(&files_dir, &relative);
            if path.is_file() {
                // The same content twice in one search.
                continue;
            }
            if held + bytes.len() as u64 > self.limits.kept_bytes {
                view.view.kept_file = None;
                view.view.not_kept = Some(format!(
                    "the history's {} for kept views is full (saved searches hold it); remove \
                     some to keep more",
                    size_in_words(self.limits.kept_bytes)
                ));
                continue;
            }
            write_atomically(&path, &bytes)?;
            held += bytes.len() as u64;
        }
        Ok(())
    }

    /// Drops the oldest searches without a name beyond the limit.
    fn drop_oldest_recent(&mut self) {
        let mut recent = 0;
        let limit = self.limits.recent;
        self.entries.retain(|entry| {
            if entry.is_saved() {
                return true;
            }
            recent += 1;
            recent <= limit
        });
    }

    /// Every kept copy on disk: its relative name and path.
    fn kept_files(&self) -> Vec<(String, PathBuf)> {
        let mut found = Vec::new();
        let Ok(folders) = std::fs::read_dir(self.files_dir()) else {
            return found;
        };
        for folder in folders.flatten() {
            let Ok(files) = std::fs::read_dir(folder.path()) else {
                continue;
            };
            for file in files.flatten() {
                found.push((
                    format!(
                        "{}/{}",
                        folder.file_name().to_string_lossy(),
                        file.file_name().to_string_lossy()
                    ),
                    file.path(),
                ));
            }
        }
        found
    }

    /// Deletes every copy (and stray temporary file) no search and nothing in `keep` refers to.
    fn collect_garbage(&self, keep: &[String]) {
        let referenced: HashSet<&str> = self
            .entries
            .iter()
            .flat_map(|entry| entry.views.iter())
            .filter_map(|view| view.kept_file.as_deref())
            .chain(keep.iter().map(String::as_str))
            .collect();
        for (relative, path) in self.kept_files() {
            if !referenced.contains(relative.as_str())
                && let Err(error) = std::fs::remove_file(&path)
            {
                tracing::warn!("cannot remove {}: {error}", path.display());
            }
        }
        if let Ok(folders) = std::fs::read_dir(self.files_dir()) {
            for folder in folders.flatten() {
                // Only empty folders go; a folder with files fails and stays.
                let _ = std::fs::remove_dir(folder.path());
            }
        }
    }

    /// Reads the file (no file: an empty history), within the limits.
    fn load(&self) -> Result<Vec<HistoryEntry>, HistoryError> {
        let path = self.file_path();
        let shown = path.display().to_string();
        let size = match std::fs::metadata(&path) {
            Ok(metadata) => metadata.len(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(HistoryError::Io {
                    action: "read the search history",
                    path: shown,
                    source,
                });
            }
        };
        if size > self.limits.history_file_bytes {
            return Err(HistoryError::TooLarge {
                path: shown,
                size,
                limit: self.limits.history_file_bytes,
            });
        }
        let text = std::fs::read_to_string(&path).map_err(|source| HistoryError::Io {
            action: "read the search history",
            path: shown.clone(),
            source,
        })?;
        let file: HistoryFile =
            serde_json::from_str(&text).map_err(|error| HistoryError::Format {
                path: shown,
                message: error.to_string(),
            })?;
        Ok(self.within_limits(file.entries))
    }

    /// Entries read back, made to fit the limits (see the module documentation).
    fn within_limits(&self, mut entries: Vec<HistoryEntry>) -> Vec<HistoryEntry> {
        entries.sort_by_key(|entry| std::cmp::Reverse(entry.last_run));
        let mut ids = HashSet::new();
        let mut next_id = entries.iter().map(|entry| entry.id).max().unwrap_or(0);
        let mut saved = 0;
        let mut recent = 0;
        entries.retain_mut(|entry| {
            if !ids.insert(entry.id) {
                next_id += 1;
                entry.id = next_id;
                ids.insert(entry.id);
            }
            entry.name = entry
                .name
                .as_deref()
                .map(|name| cut(name.trim(), self.limits.name_chars))
                .filter(|name| !name.is_empty());
            entry.text = cut(&entry.text, self.limits.text_chars);
            entry.views.truncate(MAX_VIEWS);
            for view in &mut entry.views {
                if view
                    .kept_file
                    .as_deref()
                    .is_some_and(|relative| !is_valid_relative(relative))
                {
                    view.kept_file = None;
                    view.not_kept = Some("the history named an invalid copy".to_owned());
                }
            }
            if entry.is_saved() {
                saved += 1;
                saved <= self.limits.saved
            } else {
                recent += 1;
                recent <= self.limits.recent
            }
        });
        entries
    }

    /// Writes the list, atomically.
    fn save(&self) -> Result<(), HistoryError> {
        let text = serde_json::to_string_pretty(&HistoryFile {
            version: 1,
            entries: self.entries.clone(),
        })
        .map_err(|error| HistoryError::Format {
            path: self.file_path().display().to_string(),
            message: error.to_string(),
        })?;
        write_atomically(&self.file_path(), text.as_bytes())
    }
}

/// Why a name was not given.
#[derive(Debug, thiserror::Error)]
pub enum NameRefused {
    /// The name is not acceptable; the sentence says why.
    #[error("{0}")]
    Refused(String),
    /// The history could not be written.
    #[error(transparent)]
    Store(#[from] HistoryError),
}

/// Checks a name for search `id`: not empty, not too long, not another saved search's, and room for
/// one more saved search. Returns the name trimmed, or the sentence saying why not.
pub fn check_name(
    entries: &[HistoryEntry],
    id: u64,
    name: &str,
    limits: &HistoryLimits,
) -> Result<String, NameRefused> {
    let refused = |sentence: String| Err(NameRefused::Refused(sentence));
    let name = name.trim();
    if name.is_empty() {
        return refused("Give the search a name to save it.".to_owned());
    }
    let chars = name.chars().count();
    if chars > limits.name_chars {
        return refused(format!(
            "A name has at most {} characters; this one has {chars}.",
            limits.name_chars
        ));
    }
    if entries
        .iter()
        .any(|entry| entry.id != id && entry.name.as_deref() == Some(name))
    {
        return refused(format!(
            "A saved search is already called “{name}”; choose another name."
        ));
    }
    let already_saved = entries
        .iter()
        .any(|entry| entry.id == id && entry.is_saved());
    let saved = entries.iter().filter(|entry| entry.is_saved()).count();
    if !already_saved && saved >= limits.saved {
        return refused(format!(
            "At most {} searches can be saved; remove a saved search first.",
            limits.saved
        ));
    }
    Ok(name.to_owned())
}

/// What makes two searches the same: their views by content (or path, or UID), text and filters.
fn identity<'a>(
    views: impl Iterator<Item = &'a HistoryView>,
    text: &str,
    filters: &[partlens_api::FilterTerm],
) -> String {
    let views: Vec<String> = views
        .map(|view| {
            if let Some(relative) = &view.kept_file {
                format!("copy:{}", relative.split('/').next().unwrap_or_default())
            } else if let Some(path) = &view.original_path {
                format!("path:{}", path.display())
            } else if let Some(uid) = &view.input_uid {
                format!("uid:{}", uid.canonical())
            } else {
                format!("name:{}", view.name)
            }
        })
        .collect();
    let filters: Vec<String> = filters
        .iter()
        .map(partlens_api::FilterTerm::expression)
        .collect();
    format!(
        "{}\u{1f}{}\u{1f}{}",
        views.join("\u{1e}"),
        text.trim(),
        filters.join("\u{1e}")
    )
}

fn identity_of(entry: &HistoryEntry) -> String {
    identity(entry.views.iter(), &entry.text, &entry.filters)
}

/// The relative name of `path` when it is a kept copy inside `files_dir`.
fn kept_relative(files_dir: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(files_dir).ok()?;
    let parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let relative = parts.join("/");
    (is_valid_relative(&relative) && path.is_file()).then_some(relative)
}

/// True for `<40 lower-case hex digits>/<plain file name>`.
fn is_valid_relative(relative: &str) -> bool {
    let Some((digest, name)) = relative.split_once('/') else {
        return false;
    };
    digest.len() == 40
        && digest
            .bytes()
            .all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f'))
        && !name.is_empty()
        && safe_file_name(name) == name
}

/// A file name that is one plain path component: separators and control characters replaced, no
/// leading dot, at most 100 characters (the extension kept).
pub fn safe_file_name(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c == ':' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim().trim_start_matches('.').to_owned();
    if cleaned.is_empty() {
        return "view".to_owned();
    }
    if cleaned.chars().count() <= 100 {
        return cleaned;
    }
    let extension = cleaned
        .rsplit_once('.')
        .map(|(_, extension)| extension)
        .filter(|extension| extension.chars().count() <= 10)
        .unwrap_or_default();
    let stem: String = cleaned
        .chars()
        .take(100 - extension.chars().count() - 1)
        .collect();
    format!("{stem}.{extension}")
}

/// At most `limit` characters of `text`.
fn cut(text: &str, limit: usize) -> String {
    text.chars().take(limit).collect()
}

/// "32 MiB".
fn size_in_words(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Writes a temporary file beside `path`, then renames it over `path` (readers never see half a
/// file).
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), HistoryError> {
    let io_error = |source| HistoryError::Io {
        action: "write",
        path: path.display().to_string(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_error)?;
    }
    let file_name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = path.with_file_name(format!(".{file_name}.partial"));
    let written =
        std::fs::write(&temporary, bytes).and_then(|()| std::fs::rename(&temporary, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written.map_err(io_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::entry::DraftView;
    use crate::search::view_search::SketchImage;
    use partlens_api::{FileUid, FilterTerm};

    fn uid(n: u32) -> FileUid {
        FileUid::from_reply(&format!("00000000-0000-4000-8000-{n:012}"))
    }

    fn draft(views: Vec<(ViewSource, u32)>, text: &str) -> SearchDraft {
        SearchDraft {
            views: views
                .into_iter()
                .map(|(source, n)| DraftView {
                    source,
                    input_uid: Some(uid(n)),
                })
                .collect(),
            text: text.to_owned(),
            filters: vec![FilterTerm::Exact {
                name: "material".into(),
                value: "steel".into(),
            }],
            total_results: 7,
            options: Default::default(),
        }
    }

    fn sketch(byte: u8, len: usize) -> ViewSource {
        ViewSource::Sketch(SketchImage::new("sketch.png", vec![byte; len].into()))
    }

    fn small_limits() -> HistoryLimits {
        HistoryLimits {
            recent: 3,
            saved: 2,
            name_chars: 10,
            text_chars: 20,
            file_bytes: 1_000,
            kept_bytes: 2_500,
            history_file_bytes: 64 * 1024,
        }
    }

    #[test]
    fn a_search_is_kept_with_copies_of_its_views_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let photo = dir.path().join("front.png");
        std::fs::write(&photo, b"a picture of the front").unwrap();
        let (mut store, problem) = HistoryStore::open(dir.path());
        assert!(problem.is_none());
        assert!(store.snapshot().entries.is_empty());
        let id = store
            .record(
                draft(
                    vec![(ViewSource::File(photo.clone()), 1), (sketch(7, 50), 2)],
                    "flange",
                ),
                &[],
                "Local workspace",
                Utc::now(),
            )
            .unwrap();
        let history = store.snapshot();
        let entry = history.entry(id).unwrap();
        assert_eq!(entry.views.len(), 2);
        assert_eq!(entry.views[0].name, "front.png");
        assert_eq!(entry.views[0].input_uid, Some(uid(1)));
        assert_eq!(entry.views[0].original_path.as_ref(), Some(&photo));
        assert!(!entry.views[0].sketch && entry.views[1].sketch);
        // The copies are on disk under their content's SHA-1.
        let copy = history.kept_path(&entry.views[0]).unwrap();
        assert_eq!(std::fs::read(&copy).unwrap(), b"a picture of the front");
        assert!(copy.ends_with("front.png"));
        assert_eq!(
            std::fs::read(history.kept_path(&entry.views[1]).unwrap()).unwrap(),
            vec![7; 50]
        );
        assert_eq!(store.kept_bytes(), 22 + 50);

        // Read back by a new store: the same entries.
        let (reopened, problem) = HistoryStore::open(dir.path());
        assert!(problem.is_none());
        assert_eq!(reopened.snapshot(), history);

        // Run again from the history, the sketch (put back as its kept copy) stays a sketch on the
        // same copy.
        let kept_sketch = entry.views[1].kept_file.clone();
        let sketch_copy = history.kept_path(&entry.views[1]).unwrap();
        let again = store
            .record(
                draft(vec![(ViewSource::KeptSketch(sketch_copy), 2)], "again"),
                &[],
                "Local workspace",
                Utc::now(),
            )
            .unwrap();
        let view = store.snapshot().entry(again).unwrap().views[0].clone();
        assert!(view.sketch);
        assert_eq!(view.kept_file, kept_sketch);
        assert_eq!(store.kept_bytes(), 22 + 50);
    }

    #[test]
    fn the_same_search_again_updates_its_entry_and_keeps_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = HistoryStore::open(dir.path());
        let first = store
            .record(draft(vec![(sketch(1, 40), 1)], "a"), &[], "s", Utc::now())
            .unwrap();
        store.set_name(first, Some("  washer  ")).unwrap();
        let other = store
            .record(draft(vec![(sketch(2, 40), 3)], "a"), &[], "s", Utc::now())
            .unwrap();
        assert_ne!(first, other);
        // Run again from the history: its view is now the kept copy, with a new UID.
        let history = store.snapshot();
        let kept = history
            .kept_path(&history.entry(first).unwrap().views[0])
            .unwrap();
        let again = store
            .record(
                draft(vec![(ViewSource::File(kept), 9)], "a"),
                &[],
                "s",
                Utc::now(),
            )
            .unwrap();
        assert_eq!(again, first);
        let history = store.snapshot();
        assert_eq!(history.entries.len(), 2);
        let entry = &history.entries[0];
        assert_eq!(entry.id, first);
        assert_eq!(entry.name.as_deref(), Some("washer"));
        assert_eq!(entry.runs, 2);
        assert_eq!(entry.views[0].input_uid, Some(uid(9)));
        // Other text is another search.
        store
            .record(draft(vec![(sketch(1, 40), 1)], "b"), &[], "s", Utc::now())
            .unwrap();
        assert_eq!(store.snapshot().entries.len(), 3);
    }

    #[test]
    fn unnamed_searches_are_bounded_and_the_oldest_go_first() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = HistoryStore::open_with_limits(dir.path(), small_limits());
        let saved = store
            .record(draft(vec![], "saved"), &[], "s", Utc::now())
            .unwrap();
        store.set_name(saved, Some("kept")).unwrap();
        for n in 0..5 {
            store
                .record(
                    draft(vec![(sketch(n, 10), 1)], &format!("t{n}")),
                    &[],
                    "s",
                    Utc::now(),
                )
                .unwrap();
        }
        let history = store.snapshot();
        let recent: Vec<&str> = history.recent().map(|entry| entry.text.as_str()).collect();
        assert_eq!(recent, ["t4", "t3", "t2"]);
        assert_eq!(history.saved().count(), 1);
        // The copies of the dropped searches are gone.
        assert_eq!(store.kept_bytes(), 30);
        // The real limit.
        assert_eq!(HistoryLimits::DEFAULT.recent, 100);
    }

    #[test]
    fn names_are_checked_and_saved_searches_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = HistoryStore::open_with_limits(dir.path(), small_limits());
        let ids: Vec<u64> = (0..3)
            .map(|n| {
                store
                    .record(draft(vec![], &format!("t{n}")), &[], "s", Utc::now())
                    .unwrap()
            })
            .collect();
        let refusal = |result: Result<(), NameRefused>| match result {
            Err(NameRefused::Refused(sentence)) => sentence,
            other => panic!("not refused: {other:?}"),
        };
        assert!(refusal(store.set_name(ids[0], Some("   "))).contains("Give the search a name"));
        assert!(refusal(store.set_name(ids[0], Some("eleven chars"))).contains("at most 10"));
        store.set_name(ids[0], Some("one")).unwrap();
        assert!(refusal(store.set_name(ids[1], Some("one"))).contains("already called"));
        store.set_name(ids[1], Some("two")).unwrap();
        assert!(refusal(store.set_name(ids[2], Some("three"))).contains("At most 2"));
        // Renaming a saved search is not one too many; taking a name away makes room.
        store.set_name(ids[1], Some("deux")).unwrap();
        store.set_name(ids[0], None).unwrap();
        store.set_name(ids[2], Some("three")).unwrap();
        let names: Vec<&str> = store
            .entries
            .iter()
            .filter_map(|entry| entry.name.as_deref())
            .collect();
        assert_eq!(names, ["three", "deux"]);
        assert_eq!(HistoryLimits::DEFAULT.saved, 100);
        assert_eq!(HistoryLimits::DEFAULT.name_chars, 80);
    }

    #[test]
    fn a_view_over_the_copy_limit_keeps_only_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let big = dir.path().join("big.stl");
        std::fs::write(&big, vec![1u8; 1_001]).unwrap();
        let (mut store, _) = HistoryStore::open_with_limits(dir.path(), small_limits());
        let id = store
            .record(
                draft(
                    vec![(ViewSource::File(big.clone()), 1), (sketch(3, 1_001), 2)],
                    "",
                ),
                &[],
                "s",
                Utc::now(),
            )
            .unwrap();
        let history = store.snapshot();
        let views = &history.entry(id).unwrap().views;
        assert!(views[0].kept_file.is_none());
        assert_eq!(views[0].original_path.as_ref(), Some(&big));
        assert!(views[0].not_kept.as_deref().unwrap().contains("1000 bytes"));
        assert!(views[1].kept_file.is_none());
        assert_eq!(store.kept_bytes(), 0);
        assert_eq!(HistoryLimits::DEFAULT.file_bytes, 32 * 1024 * 1024);
    }

    #[test]
    fn kept_copies_are_bounded_the_oldest_unnamed_searches_making_room() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = HistoryStore::open_with_limits(dir.path(), small_limits());
        let first = store
            .record(draft(vec![(sketch(1, 900), 1)], "1"), &[], "s", Utc::now())
            .unwrap();
        store.set_name(first, Some("saved")).unwrap();
        store
            .record(draft(vec![(sketch(2, 900), 2)], "2"), &[], "s", Utc::now())
            .unwrap();
        // 900 + 900 + 900 > 2500: the oldest unnamed search goes, the saved one stays.
        store
            .record(draft(vec![(sketch(3, 900), 3)], "3"), &[], "s", Utc::now())
            .unwrap();
        let texts: Vec<String> = store
            .entries
            .iter()
            .map(|entry| entry.text.clone())
            .collect();
        assert_eq!(texts, ["3", "1"]);
        assert_eq!(store.kept_bytes(), 1_800);
        // Saved searches alone fill the budget: a new copy is not made.
        let third = store.entries[0].id;
        store.set_name(third, Some("also")).unwrap();
        let id = store
            .record(
                draft(vec![(sketch(4, 800), 4), (sketch(5, 600), 5)], "4"),
                &[],
                "s",
                Utc::now(),
            )
            .unwrap();
        let history = store.snapshot();
        let views = &history.entry(id).unwrap().views;
        assert!(views[0].kept_file.is_none());
        assert!(views[0].not_kept.as_deref().unwrap().contains("is full"));
        assert!(views[1].kept_file.is_some());
        assert!(store.kept_bytes() <= small_limits().kept_bytes);
        assert_eq!(HistoryLimits::DEFAULT.kept_bytes, 256 * 1024 * 1024);
    }

    #[test]
    fn a_damaged_or_oversized_file_is_set_aside() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(HISTORY_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        let file = folder.join(HISTORY_FILE_NAME);
        std::fs::write(&file, "{not json").unwrap();
        let (store, problem) = HistoryStore::open(dir.path());
        assert!(
            matches!(problem, Some(HistoryError::Format { .. })),
            "{problem:?}"
        );
        assert!(store.snapshot().entries.is_empty());
        assert!(folder.join("history.json.damaged").is_file());

        std::fs::write(&file, vec![b' '; 64 * 1024 + 1]).unwrap();
        let (_, problem) = HistoryStore::open_with_limits(dir.path(), small_limits());
        assert!(
            matches!(problem, Some(HistoryError::TooLarge { .. })),
            "{problem:?}"
        );
        assert_eq!(HistoryLimits::DEFAULT.history_file_bytes, 4 * 1024 * 1024);
    }

    #[test]
    fn what_the_file_says_is_held_to_the_limits() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(HISTORY_FOLDER);
        std::fs::create_dir_all(&folder).unwrap();
        let view = |kept: &str| HistoryView {
            name: "x.png".into(),
            input_uid: None,
            kept_file: Some(kept.into()),
            original_path: None,
            not_kept: None,
            library_file: false,
            sketch: false,
        };
        let entry = |id: u64, name: Option<&str>, views: Vec<HistoryView>| HistoryEntry {
            id,
            name: name.map(str::to_owned),
            last_run: Utc::now(),
            runs: 1,
            service: "s".into(),
            views,
            text: "x".repeat(50),
            filters: Vec::new(),
            total_results: None,
            options: Default::default(),
        };
        let valid = format!("{}/x.png", "a".repeat(40));
        let entries = vec![
            entry(
                1,
                Some("a name far too long"),
                vec![view("../../etc/passwd"), view(&valid)],
            ),
            entry(1, None, (0..12).map(|_| view(&valid)).collect()),
            entry(2, Some("  "), Vec::new()),
        ];
        let text = serde_json::to_string(&HistoryFile {
            version: 1,
            entries,
        })
        .unwrap();
        std::fs::write(folder.join(HISTORY_FILE_NAME), text).unwrap();
        let (store, problem) = HistoryStore::open_with_limits(dir.path(), small_limits());
        assert!(problem.is_none());
        let entries = &store.entries;
        assert_eq!(entries.len(), 3);
        let ids: HashSet<u64> = entries.iter().map(|entry| entry.id).collect();
        assert_eq!(ids.len(), 3, "ids are made unique");
        let named = entries.iter().find(|entry| entry.is_saved()).unwrap();
        assert_eq!(named.name.as_deref(), Some("a name far"));
        assert_eq!(named.text.chars().count(), 20);
        assert!(
            named.views[0].kept_file.is_none(),
            "a path out of the folder is dropped"
        );
        assert_eq!(named.views[1].kept_file.as_deref(), Some(valid.as_str()));
        assert!(entries.iter().all(|entry| entry.views.len() <= 10));
        assert_eq!(entries.iter().filter(|entry| entry.is_saved()).count(), 1);
    }

    #[test]
    fn removed_searches_take_their_copies_with_them() {
        let dir = tempfile::tempdir().unwrap();
        let (mut store, _) = HistoryStore::open(dir.path());
        let shared = sketch(1, 30);
        let a = store
            .record(draft(vec![(shared.clone(), 1)], "a"), &[], "s", Utc::now())
            .unwrap();
        let b = store
            .record(
                draft(vec![(shared, 1), (sketch(2, 20), 2)], "b"),
                &[],
                "s",
                Utc::now(),
            )
            .unwrap();
        assert_eq!(store.kept_bytes(), 50);
        store.remove(b).unwrap();
        assert_eq!(store.kept_bytes(), 30, "the copy a still keeps stays");
        store.set_name(a, Some("a")).unwrap();
        store.clear_recent().unwrap();
        assert_eq!(store.snapshot().entries.len(), 1);
        store.remove(a).unwrap();
        assert_eq!(store.kept_bytes(), 0);
    }

    #[test]
    fn kept_file_names_are_one_plain_component() {
        assert_eq!(safe_file_name("../etc/passwd"), "_etc_passwd");
        assert_eq!(safe_file_name(".hidden.png"), "hidden.png");
        assert_eq!(safe_file_name(""), "view");
        let long = format!("{}.stl", "a".repeat(300));
        let safe = safe_file_name(&long);
        assert_eq!(safe.chars().count(), 100);
        assert!(safe.ends_with(".stl"));
        assert!(!is_valid_relative("abc/x.png"));
        assert!(!is_valid_relative(&format!("{}/../x", "a".repeat(40))));
        assert!(is_valid_relative(&format!("{}/x.png", "0".repeat(40))));
    }
}
