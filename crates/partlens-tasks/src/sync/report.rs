//! What a sync run reports: where it is ([`SyncProgress`]), what it did ([`SyncSummary`], the JSON
//! line `partlens-cli sync` prints), the files that failed and why a run stopped early. Plain data,
//! shared by the run itself (`engine.rs`), its record (`sync_state.rs`) and the front ends.

use serde::{Deserialize, Serialize};

/// The part of a run under way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncStage {
    /// Reading the folder and the CSV.
    #[default]
    Scanning,
    /// Going through the files.
    Checking,
    /// Deleting files that left the folder.
    Removing,
}

/// Where a run is, for progress displays.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncProgress {
    /// The part under way.
    pub stage: SyncStage,
    /// Part files in the folder.
    pub files: usize,
    /// Files gone through so far.
    pub checked: usize,
    /// The file being worked on (its path in the folder).
    pub current: Option<String>,
    /// Files uploaded so far.
    pub uploaded: usize,
    /// Files found unchanged so far.
    pub unchanged: usize,
    /// Files that failed so far.
    pub failed: usize,
}

/// A file that could not be synced, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncFailure {
    /// Its path in the folder.
    pub path: String,
    /// What happened and what to do, in words.
    pub reason: String,
}

/// Why a run ended before going through every file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyncStop {
    /// The user paused it.
    Paused,
    /// The program closed or the service changed.
    Stopped,
    /// The service could not be reached (the sentence says so).
    ConnectionLost(String),
    /// The service wants a new login.
    LoginNeeded,
}

impl SyncStop {
    /// What the stop means for the user.
    pub fn sentence(&self) -> String {
        match self {
            Self::Paused => "Paused; resume to carry on where it stopped.".to_owned(),
            Self::Stopped => {
                "Stopped before the end; it carries on where it stopped at the next start."
                    .to_owned()
            }
            Self::ConnectionLost(reason) => format!(
                "{reason} Everything that went up is recorded; the next sync carries on where \
                 this one stopped."
            ),
            Self::LoginNeeded => {
                "The session ended; after the next login the sync carries on where it stopped."
                    .to_owned()
            }
        }
    }
}

/// What a run did. `partlens-cli sync` prints it as its JSON line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncSummary {
    /// The folder (absolute).
    pub folder: String,
    /// The prefix the files went to.
    pub prefix: String,
    /// Part files in the folder.
    pub files: usize,
    /// Files uploaded (new or changed), by their path in the folder.
    pub uploaded: Vec<String>,
    /// Files whose upload by an interrupted run was found on the service, so they were not
    /// uploaded again.
    pub confirmed: Vec<String>,
    /// Files whose content was unchanged but whose CSV attributes changed, sent with
    /// `PUT /api/FileAttributes`.
    pub attributes_updated: Vec<String>,
    /// Files that were unchanged.
    pub unchanged: usize,
    /// Files that left the folder and stay on the service (reported only).
    pub removed: Vec<String>,
    /// Files that left the folder and were deleted from the service.
    pub deleted: Vec<String>,
    /// Files that failed, with why.
    pub failed: Vec<SyncFailure>,
    /// Files of the folder that are not part files.
    pub ignored: Vec<String>,
    /// Things worth knowing (CSV rows that name no file, ambiguous names, left-out columns).
    pub warnings: Vec<String>,
    /// Why the run ended early, in words; `null` when it went through every file.
    pub interrupted: Option<String>,
    /// Why the run ended early.
    #[serde(skip)]
    pub stop: Option<SyncStop>,
}

impl SyncSummary {
    /// "3 uploaded, 12 unchanged, 1 removed, 1 failed": the counts that are not zero.
    pub fn counts_text(&self) -> String {
        let mut parts = Vec::new();
        let mut add = |count: usize, what: &str| {
            if count > 0 {
                parts.push(format!("{count} {what}"));
            }
        };
        add(self.uploaded.len(), "uploaded");
        add(self.confirmed.len(), "found already up");
        add(self.attributes_updated.len(), "with new attributes");
        add(self.unchanged, "unchanged");
        add(self.deleted.len(), "deleted");
        add(self.removed.len(), "removed from the folder");
        add(self.failed.len(), "failed");
        if parts.is_empty() {
            "no part files".to_owned()
        } else {
            parts.join(", ")
        }
    }
}
