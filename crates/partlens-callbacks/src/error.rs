//! What can go wrong with callbacks: a setting refused (a sentence saying what to do), a company
//! unknown, the store failing.

use partlens_store::StoreError;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    /// A setting or address refused, nothing written (the sentence says what to do instead).
    #[error("{0}")]
    Refused(String),
    /// The company (or its callback settings) does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}
