//! The visual index's one error type: the store it reads failing, a saved graph's files, or the
//! graph library (usearch) and the index's own locks. The service turns it into its HTTP errors
//! (500, or 507 for a full disk).

use partlens_store::StoreError;

/// What went wrong in the visual index.
#[derive(Debug, thiserror::Error)]
pub enum VisualError {
    /// The store failed while the index read or wrote through it.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A saved graph's files could not be read or written.
    #[error("visual index files: {0}")]
    Io(#[from] std::io::Error),
    /// Anything else that should not happen: the graph library failing, a lock poisoned, a saved
    /// graph damaged.
    #[error("{0}")]
    Internal(String),
}

impl VisualError {
    /// True when the error is the disk being full (a graph's snapshot, or the store).
    pub fn is_disk_full(&self) -> bool {
        match self {
            Self::Store(error) => error.is_disk_full(),
            Self::Io(error) => matches!(
                error.kind(),
                std::io::ErrorKind::StorageFull
                    | std::io::ErrorKind::FileTooLarge
                    | std::io::ErrorKind::QuotaExceeded
            ),
            Self::Internal(_) => false,
        }
    }
}
