//! A library sync as the front end shows it (plain data in `Event::SyncUpdated`): which sync, and
//! where its run is.

use serde::{Deserialize, Serialize};

use super::SyncSetup;
use super::report::{SyncProgress, SyncSummary};
use super::sync_state::SyncKey;

/// One sync and where its run is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncRun {
    /// Which sync (service, folder, prefix).
    pub key: SyncKey,
    /// Its setup.
    pub setup: SyncSetup,
    /// Where its run is.
    pub phase: SyncPhase,
}

/// Where a sync's run is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SyncPhase {
    /// Waiting for a login (it starts, or carries on, after it).
    WaitingForLogin,
    /// Running.
    Running(SyncProgress),
    /// Paused by the user; the summary of what the run did before.
    Paused(Option<SyncSummary>),
    /// Stopped by a dropped connection or a closed app; it carries on when run again (by itself at
    /// the next login).
    Interrupted {
        /// Why, and what happens next.
        reason: String,
        /// What the run did before it stopped.
        summary: Option<SyncSummary>,
    },
    /// Ran to the end.
    Finished(SyncSummary),
    /// Could not run (the folder, the CSV or the record could not be used).
    Failed(String),
}

impl SyncPhase {
    /// True while a task works on it or waits to.
    pub fn is_active(&self) -> bool {
        matches!(self, Self::WaitingForLogin | Self::Running(_))
    }

    /// True when the user can carry it on.
    pub fn can_resume(&self) -> bool {
        matches!(
            self,
            Self::Paused(_) | Self::Interrupted { .. } | Self::Failed(_)
        )
    }

    /// The summary of the run, when it has one.
    pub fn summary(&self) -> Option<&SyncSummary> {
        match self {
            Self::Finished(summary) => Some(summary),
            Self::Paused(summary) | Self::Interrupted { summary, .. } => summary.as_ref(),
            _ => None,
        }
    }
}
