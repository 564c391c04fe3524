//! Where loading something about one file is: nothing asked, loading, failed (with the sentence
//! that says why), or ready with what was loaded. The detail view's record and the PMI viewer's
//! drawing data both go through it.

use partlens_api::FileUid;

/// Where loading `T` about one file is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum LoadState<T> {
    /// No file chosen.
    #[default]
    Empty,
    /// Being loaded.
    Loading(FileUid),
    /// Could not be loaded; the sentence says why and what to do.
    Failed {
        /// The file asked for.
        uid: FileUid,
        /// Why, and what to do.
        message: String,
    },
    /// Loaded.
    Ready(T),
}

impl<T> LoadState<T> {
    /// What was loaded, when it is ready.
    pub fn ready(&self) -> Option<&T> {
        match self {
            Self::Ready(value) => Some(value),
            Self::Empty | Self::Loading(_) | Self::Failed { .. } => None,
        }
    }

    /// The file being loaded or that failed (a ready value knows its own file).
    pub fn pending_uid(&self) -> Option<&FileUid> {
        match self {
            Self::Loading(uid) | Self::Failed { uid, .. } => Some(uid),
            Self::Empty | Self::Ready(_) => None,
        }
    }
}
