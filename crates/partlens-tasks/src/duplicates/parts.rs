//! The duplicate parts as the app shows them: plain data, below both the backend's duplicates
//! command ([`super`]) and the events that carry its answer, so that neither imports the other.

use partlens_api::duplicates::DuplicateFile;
use partlens_api::{FileMap, FileUid};

/// The duplicate groups as the app shows them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DuplicateParts {
    /// The lowest pair score the service applied.
    pub min_score: f64,
    /// How many database files the service compared.
    pub files_compared: u64,
    /// The groups, highest score first.
    pub groups: Vec<DuplicatePartGroup>,
}

/// Files that are one part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DuplicatePartGroup {
    /// The weakest score of the pairs that joined the group (0..1).
    pub score: f64,
    /// The files, two or more.
    pub files: Vec<DuplicatePartFile>,
}

/// One file of a group: what the service said of it, and its record (image links, attributes)
/// when it could be loaded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DuplicatePartFile {
    /// The file as the duplicates reply gives it (UID, names, size).
    pub file: DuplicateFile,
    /// Its record; `None` until it is loaded (`Command::LoadDuplicateRecords`).
    pub record: Option<FileMap>,
}

/// The record of one file of a group, as `Command::LoadDuplicateRecords` answers it.
#[derive(Clone, Debug, PartialEq)]
pub struct DuplicateRecord {
    /// The file.
    pub uid: FileUid,
    /// Its record; `None` when it could not be loaded (deleted meanwhile, or a failed call).
    pub record: Option<FileMap>,
}
