//! The sample library of a local workspace as plain data: its parts (from the workspace's
//! manifest), and its record in the workspace folder (`samples.json`), which says whether the
//! library is still being added, was added or was removed, and which parts are in. Below both the
//! backend's sample work ([`super`]) and the events that report it.
//!
//! The record is what makes the library added once per workspace: a new workspace starts it as
//! *adding*; each part that went up is written to it at once (so an interrupted start carries on
//! where it stopped, not from the first part); *removed* is written before anything is deleted,
//! so a removed library is never added again, even when a deletion fails.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use partlens_api::Attribute;

/// The record's file name, in the workspace's service folder.
pub const SAMPLE_RECORD_FILE_NAME: &str = "samples.json";

/// One part of the sample library: its file on this computer, its stored path and attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplePart {
    /// The file to upload.
    pub path: PathBuf,
    /// The company-database path it is stored under (`Samples/gear.stl`).
    pub stored_path: String,
    /// Its attributes.
    pub attributes: Vec<Attribute>,
}

/// Where the sample library is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleState {
    /// Being added (a new workspace, or an addition that stopped).
    #[default]
    Adding,
    /// Every part is in.
    Added,
    /// The user removed it: it is never added again.
    Removed,
}

/// The record kept in the workspace folder.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Where the library is.
    pub state: SampleState,
    /// The stored paths of the parts already in, in the order they went up.
    #[serde(default)]
    pub added: Vec<String>,
}

/// A workspace's sample library: its parts and where its record is.
#[derive(Clone, Debug)]
pub struct SampleLibrary {
    /// The parts, in the manifest's order.
    pub parts: Vec<SamplePart>,
    /// The record's path.
    pub record_path: PathBuf,
}

/// What the sample library is doing, as the front end shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SampleLibraryStatus {
    /// Parts are going up: `added` of `total` are in. `paused` while the user's own uploads or
    /// searches run (theirs go first).
    Adding {
        /// Parts in.
        added: usize,
        /// Parts in all.
        total: usize,
        /// True while it waits for the user's work.
        paused: bool,
    },
    /// Every part is in.
    Added {
        /// How many parts.
        parts: usize,
    },
    /// Being removed.
    Removing,
    /// Removed; never added again in this workspace.
    Removed,
}

impl SampleLibraryStatus {
    /// The banner's sentence while parts go up ("Adding the sample library (3 of 22)…").
    pub fn activity(&self) -> Option<String> {
        match self {
            Self::Adding {
                added,
                total,
                paused: false,
            } => Some(format!(
                "Adding the sample library ({} of {total})…",
                (added + 1).min(*total)
            )),
            Self::Adding {
                added,
                total,
                paused: true,
            } => Some(format!(
                "Adding the sample library ({added} of {total} in): paused while your own work \
                 runs…"
            )),
            Self::Removing => Some("Removing the sample library…".to_owned()),
            Self::Added { .. } | Self::Removed => None,
        }
    }
}

impl SampleLibrary {
    /// The record, or a new one (*adding*, nothing in) when there is none. A damaged record reads
    /// as new: adding again only replaces the parts at their stored paths.
    pub fn read_record(&self) -> SampleRecord {
        read_record(&self.record_path)
    }

    /// Writes the record (a temporary file, then renamed).
    pub fn write_record(&self, record: &SampleRecord) -> std::io::Result<()> {
        write_record(&self.record_path, record)
    }

    /// The parts not in yet, by the record.
    pub fn remaining<'a>(&'a self, record: &SampleRecord) -> Vec<&'a SamplePart> {
        self.parts
            .iter()
            .filter(|part| !record.added.contains(&part.stored_path))
            .collect()
    }

    /// What the library is, by the record.
    pub fn status(&self, record: &SampleRecord, paused: bool) -> SampleLibraryStatus {
        match record.state {
            SampleState::Removed => SampleLibraryStatus::Removed,
            SampleState::Added => SampleLibraryStatus::Added {
                parts: record.added.len(),
            },
            SampleState::Adding => SampleLibraryStatus::Adding {
                added: self.parts.len() - self.remaining(record).len(),
                total: self.parts.len(),
                paused,
            },
        }
    }
}

/// The record at `path`, or a new one.
pub fn read_record(path: &Path) -> SampleRecord {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).unwrap_or_else(|error| {
            tracing::warn!("{} is damaged ({error}); it is read as new", path.display());
            SampleRecord::default()
        }),
        Err(_) => SampleRecord::default(),
    }
}

/// Writes `record` to `path` so that a reader never sees it half written.
pub fn write_record(path: &Path, record: &SampleRecord) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    let temporary = path.with_extension("json.tmp");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn library(dir: &Path) -> SampleLibrary {
        SampleLibrary {
            parts: ["a", "b", "c"]
                .iter()
                .map(|name| SamplePart {
                    path: dir.join(format!("{name}.png")),
                    stored_path: format!("Samples/{name}.png"),
                    attributes: Vec::new(),
                })
                .collect(),
            record_path: dir.join(SAMPLE_RECORD_FILE_NAME),
        }
    }

    #[test]
    fn the_record_says_what_is_left_and_survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let library = library(dir.path());
        let mut record = library.read_record();
        assert_eq!(record, SampleRecord::default());
        assert_eq!(library.remaining(&record).len(), 3);
        record.added.push("Samples/b.png".into());
        library.write_record(&record).unwrap();
        let again = library.read_record();
        let left: Vec<&str> = library
            .remaining(&again)
            .iter()
            .map(|part| part.stored_path.as_str())
            .collect();
        assert_eq!(left, ["Samples/a.png", "Samples/c.png"]);
        assert_eq!(
            library.status(&again, false).activity().as_deref(),
            Some("Adding the sample library (2 of 3)…")
        );
        std::fs::write(&library.record_path, "{ not json").unwrap();
        assert_eq!(library.read_record(), SampleRecord::default());
    }

    #[test]
    fn a_removed_library_has_no_banner() {
        let dir = tempfile::tempdir().unwrap();
        let library = library(dir.path());
        let record = SampleRecord {
            state: SampleState::Removed,
            added: Vec::new(),
        };
        assert_eq!(library.status(&record, false), SampleLibraryStatus::Removed);
        assert_eq!(library.status(&record, false).activity(), None);
    }
}
