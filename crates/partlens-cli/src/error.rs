//! What can make a partlens-cli command fail; each becomes one `partlens-cli: …` line on stderr.

use partlens_api::ApiError;
use partlens_tasks::search_flow::FileSearchError;
use partlens_tasks::sync::SyncError;

/// The error of a command. Its `Display` is the sentence printed after `partlens-cli: `; the
/// [`ApiError`] sentences already name the HTTP status where there is one.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The service refused, failed or could not be reached, or a rule of the interface was broken
    /// before anything was sent.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A search by files failed (an upload, the indexing of a view, or the search itself).
    #[error(transparent)]
    Search(#[from] FileSearchError),
    /// The arguments do not make sense together (nothing was sent).
    #[error("{0}")]
    Usage(String),
    /// Something on this machine failed (reading stdin, writing an output file or stdout).
    #[error("{0}")]
    Local(String),
    /// Indexing ended in a state other than completed (failed, unknown, still running at the
    /// deadline). The JSON result has already been printed; this only sets the exit code and the line.
    #[error("{0}")]
    Indexing(String),
    /// A sync could not start (the folder, the CSV, the prefix or its record cannot be used);
    /// nothing was sent.
    #[error(transparent)]
    Sync(#[from] SyncError),
    /// A sync ran but not everything went through (files failed, or the run stopped early). The
    /// JSON summary has already been printed; this only sets the exit code and the line.
    #[error("{0}")]
    Unfinished(String),
}

impl CliError {
    /// The HTTP status behind this error, where there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Api(error) | Self::Search(FileSearchError::Api(error)) => error.status(),
            _ => None,
        }
    }
}
