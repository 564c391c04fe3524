//! Library sync: keeps a folder of part files in step with the company database, for the app
//! (Settings → Library sync, progress in the jobs panel) and `partlens-cli sync` alike.
//!
//! A run scans the folder ([`scan`]), reads the attributes CSV beside the files when there is one
//! ([`attribute_csv`]), and goes through the files in path order: each is hashed (SHA-1 of its
//! content); a file the sync record does not know, or whose hash differs from the recorded one, is
//! uploaded as a company-database file at `<prefix>/<path in the folder>` with `overwriteFile=true`
//! (the service replaces the file at that path in place and keeps its UID); a file whose content is
//! unchanged but whose CSV attributes changed gets them with `PUT /api/FileAttributes`; the rest is
//! unchanged. Files the record knows that left the folder are reported, and deleted from the service
//! only when the setup says so ([`SyncSetup::delete_removed`]) ([`engine`]). Up to
//! [`SyncContext::uploads_at_once`] uploads are on their way at once (`partlens-cli sync
//! --parallel N`; the app sends one at a time); files are still checked in path order.
//!
//! The sync record ([`sync_state`]) lives in the data folder, one per service, folder and prefix. It
//! says what went up (path, hash, UID, attributes sent). Before a file goes up its intent is
//! recorded (with the UID it will have: a new file gets a UID chosen here unless the service already
//! has a file at its path); after it went up, the outcome. Both are appended to a journal and synced
//! to disk before the run goes on, so a crash, a pause or a dropped connection loses nothing: the
//! next run carries on where this one stopped, and a new file whose upload reached the service but
//! whose answer was lost is found there by its UID instead of being uploaded a second time.
//!
//! # Limits
//!
//! What a sync reads comes from a user's disk and may be anything; it is bounded by [`SyncLimits`],
//! each refused with a sentence naming the limit before anything is sent:
//!
//! | what | default | why |
//! |---|---|---|
//! | files in the folder (every file counts, part file or not) | [`MAX_SYNC_FILES`] = 200,000 | the scan and the record stay in memory: a run's peak is about 90 MiB at 100,000 files and 140 MiB at 200,000 (measured by the `bulk_load` bench of `partlens-cli`, `memory`) |
//! | folder depth | [`MAX_FOLDER_DEPTH`] = 32 | links are never followed; this bounds the walk |
//! | attributes CSV size | [`MAX_CSV_BYTES`] = 16 MiB | it is read whole |
//! | CSV rows | [`MAX_CSV_ROWS`] = 100,000 | a row a file of a 100,000-file vault (a larger folder's CSV is split with its subfolders) |
//! | CSV columns | [`MAX_CSV_COLUMNS`] = 64 | the attributes of one file go in the upload's query string |
//! | characters in one CSV cell | [`MAX_CSV_CELL_CHARS`] = 1,024 | likewise |
//!
//! Time is bounded by the folder: each file is read once to hash it and once more when it goes up.
//! A run stops between two files when it is paused (or the app closes), at a dropped connection
//! and at a 401; everything done so far is recorded.
//!
//! Only part files are synced ([`crate::file_picker::PART_EXTENSIONS`]: pictures, models,
//! drawings, archives); hidden files and folders (names starting with `.`), links and the
//! attributes CSV itself are left out.

pub mod attribute_csv;
mod backend_sync;
pub mod engine;
pub mod report;
pub mod scan;
pub mod sync_run;
pub mod sync_state;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use attribute_csv::{CsvColumn, CsvPreview, CsvSampleRow};
pub(crate) use backend_sync::SyncTasks;
pub use engine::{
    MAX_UPLOADS_AT_ONCE, SyncContext, SyncControl, SyncPreview, preview_sync, run_sync,
};
pub use report::{SyncFailure, SyncProgress, SyncStage, SyncStop, SyncSummary};
pub use sync_run::{SyncPhase, SyncRun};
pub use sync_state::{SyncKey, SyncOrigin};

/// The most files a synced folder may hold.
pub const MAX_SYNC_FILES: usize = 200_000;
/// The deepest folder level a sync walks into.
pub const MAX_FOLDER_DEPTH: usize = 32;
/// The largest attributes CSV, in bytes.
pub const MAX_CSV_BYTES: u64 = 16 * 1024 * 1024;
/// The most rows (after the header) of an attributes CSV.
pub const MAX_CSV_ROWS: usize = 100_000;
/// The most columns of an attributes CSV.
pub const MAX_CSV_COLUMNS: usize = 64;
/// The most characters in one cell of an attributes CSV.
pub const MAX_CSV_CELL_CHARS: usize = 1_024;

/// The bounds a sync keeps to (see the module doc); tests shrink them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncLimits {
    /// Files in the folder, part files or not.
    pub max_files: usize,
    /// Folder levels below the synced folder.
    pub max_depth: usize,
    /// Bytes of the attributes CSV.
    pub max_csv_bytes: u64,
    /// Rows of the attributes CSV after its header.
    pub max_csv_rows: usize,
    /// Columns of the attributes CSV.
    pub max_csv_columns: usize,
    /// Characters in one CSV cell.
    pub max_csv_cell_chars: usize,
}

impl Default for SyncLimits {
    fn default() -> Self {
        Self {
            max_files: MAX_SYNC_FILES,
            max_depth: MAX_FOLDER_DEPTH,
            max_csv_bytes: MAX_CSV_BYTES,
            max_csv_rows: MAX_CSV_ROWS,
            max_csv_columns: MAX_CSV_COLUMNS,
            max_csv_cell_chars: MAX_CSV_CELL_CHARS,
        }
    }
}

/// What to sync: a folder, into the company database under a path prefix, with attributes from a
/// CSV. The app keeps the one being edited in its settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct SyncSetup {
    /// The folder on this computer.
    pub folder: PathBuf,
    /// The folder of the company database the files go to (`Library/Pumps`): a file `a/b.png` of
    /// the folder is stored at `Library/Pumps/a/b.png`.
    pub prefix: String,
    /// Attributes from a CSV, when given.
    pub attributes: Option<CsvMapping>,
    /// Delete files from the service when they leave the folder (else they are only reported).
    pub delete_removed: bool,
}

/// Which CSV gives the attributes, and which of its columns mean what.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct CsvMapping {
    /// The CSV file.
    pub csv: PathBuf,
    /// The header of the column holding the file names (a name, or a path in the folder); `None`:
    /// guessed (a column called file, file name, filename, path or name, else the first).
    pub file_column: Option<String>,
    /// The headers of the columns that become attributes; `None`: every other column.
    pub attribute_columns: Option<Vec<String>>,
}

/// Why a sync could not start or go on (nothing was sent for what these name).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SyncError {
    /// The folder cannot be read.
    #[error("the folder {path} cannot be read: {message}")]
    Folder {
        /// The folder.
        path: String,
        /// What the system said.
        message: String,
    },
    /// A limit of [`SyncLimits`] was exceeded.
    #[error("{0}")]
    Limit(String),
    /// The attributes CSV cannot be used.
    #[error("the attributes CSV {path} cannot be used: {message}")]
    Csv {
        /// The CSV.
        path: String,
        /// What is wrong, naming the line where there is one.
        message: String,
    },
    /// The setup does not make sense (prefix, column names).
    #[error("{0}")]
    Setup(String),
    /// The sync record cannot be read or written.
    #[error("the sync record {path} cannot be used: {message}")]
    State {
        /// The record's file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// Another run of the same sync holds its record.
    #[error(
        "another sync of this folder to this prefix is running (in the app or partlens-cli); wait \
         for it to end"
    )]
    Busy,
}

/// The prefix as stored paths use it: `/` separators, no leading or trailing `/`; refused when
/// empty or when it holds a part the service refuses (`.`, `..`, `:`, control characters).
pub fn normalized_prefix(prefix: &str) -> Result<String, SyncError> {
    let unified = prefix.trim().replace('\\', "/");
    let parts: Vec<&str> = unified
        .split('/')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    if parts.is_empty() {
        return Err(SyncError::Setup(
            "enter the folder of the company database the files go to (for example Library)".into(),
        ));
    }
    if let Some(bad) = parts.iter().find(|part| {
        **part == "." || **part == ".." || part.contains(':') || part.chars().any(char::is_control)
    }) {
        return Err(SyncError::Setup(format!(
            "the prefix part \"{bad}\" is not accepted: write folder names joined with /, without \
             '.', '..' or ':'"
        )));
    }
    Ok(parts.join("/"))
}

/// The folder as the sync record names it: absolute, links resolved where possible.
pub fn absolute_folder(folder: &Path) -> Result<PathBuf, SyncError> {
    if folder.as_os_str().is_empty() {
        return Err(SyncError::Setup("choose the folder to sync".into()));
    }
    let absolute = std::fs::canonicalize(folder).map_err(|error| SyncError::Folder {
        path: folder.display().to_string(),
        message: error.to_string(),
    })?;
    if !absolute.is_dir() {
        return Err(SyncError::Folder {
            path: folder.display().to_string(),
            message: "it is not a folder".into(),
        });
    }
    Ok(absolute)
}

/// `<prefix>/<relative>`: where a file of the folder is stored.
pub fn stored_path(prefix: &str, relative: &str) -> String {
    format!("{prefix}/{relative}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_normalised_and_bad_ones_refused() {
        assert_eq!(
            normalized_prefix(" /Library/Pumps/ ").unwrap(),
            "Library/Pumps"
        );
        assert_eq!(normalized_prefix("a\\b").unwrap(), "a/b");
        for bad in ["", " / ", "a/../b", "./a", "c:/x", "a\u{7}b"] {
            assert!(normalized_prefix(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_default_limits_are_the_documented_ones() {
        let limits = SyncLimits::default();
        assert_eq!(limits.max_files, 200_000);
        assert_eq!(limits.max_depth, 32);
        assert_eq!(limits.max_csv_bytes, 16 * 1024 * 1024);
        assert_eq!(limits.max_csv_rows, 100_000);
        assert_eq!(limits.max_csv_columns, 64);
        assert_eq!(limits.max_csv_cell_chars, 1_024);
    }

    #[test]
    fn a_missing_folder_is_named() {
        let error = absolute_folder(Path::new("/no/such/partlens/folder")).unwrap_err();
        assert!(
            error.to_string().contains("/no/such/partlens/folder"),
            "{error}"
        );
        assert!(absolute_folder(Path::new("")).is_err());
    }
}
