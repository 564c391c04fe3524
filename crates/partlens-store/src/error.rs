//! The store's one error type. A rule of the store that refuses a write (a user name of another
//! company, attributes over a file's caps) and a file that is not there are errors of the caller's
//! request, told apart from the database failing, so that the service answers them 400 and 404
//! rather than 500; a full disk, whichever engine met it, is told by [`StoreError::is_disk_full`].

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A rule of the store refused the write, nothing was written (the sentence says which rule
    /// and what to do instead).
    #[error("{0}")]
    Refused(String),
    /// The file (or other record) asked for does not exist for the caller's company.
    #[error("{0}")]
    NotFound(String),
    /// The SQLite database failed.
    #[error("storage failed: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The PostgreSQL database failed.
    #[error("storage failed: {0}")]
    Postgres(#[from] r2d2_postgres::postgres::Error),
    /// No connection of the PostgreSQL pool came free in time (or none could be made).
    #[error("storage unavailable: {0}")]
    Pool(#[from] r2d2::Error),
    /// A file of the data directory (the SQLite database, its folder) could not be read or
    /// written.
    #[error("data directory: {0}")]
    Io(#[from] std::io::Error),
    /// Anything else that should not happen: a schema newer than this program, a worker thread
    /// that panicked, a lock poisoned, a stored value damaged.
    #[error("{0}")]
    Internal(String),
}

impl StoreError {
    /// The error of a file that is not the caller's company's (or no longer exists).
    pub fn file_not_found(file: &str) -> Self {
        Self::NotFound(format!("no file {file} in this account"))
    }

    /// True when the error is the disk being full: no space, a quota, a file past the size the
    /// system allows this process, or the database saying so.
    pub fn is_disk_full(&self) -> bool {
        match self {
            Self::Io(error) => matches!(
                error.kind(),
                std::io::ErrorKind::StorageFull
                    | std::io::ErrorKind::FileTooLarge
                    | std::io::ErrorKind::QuotaExceeded
            ),
            Self::Sqlite(rusqlite::Error::SqliteFailure(error, _)) => {
                error.code == rusqlite::ErrorCode::DiskFull
            }
            Self::Postgres(error) => {
                error.code() == Some(&r2d2_postgres::postgres::error::SqlState::DISK_FULL)
            }
            _ => false,
        }
    }
}

impl From<tokio::task::JoinError> for StoreError {
    fn from(error: tokio::task::JoinError) -> Self {
        Self::Internal(format!("a store worker thread failed: {error}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_told_whichever_layer_saw_it() {
        let sqlite_full = StoreError::Sqlite(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
            None,
        ));
        let too_large = StoreError::Io(std::io::Error::from(std::io::ErrorKind::FileTooLarge));
        for error in [sqlite_full, too_large] {
            assert!(error.is_disk_full(), "{error}");
        }
        let other = StoreError::Io(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
        assert!(!other.is_disk_full());
        assert!(!StoreError::file_not_found("x").is_disk_full());
    }
}
