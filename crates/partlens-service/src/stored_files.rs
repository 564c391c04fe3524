//! Where a stored file's bytes are, for a program that runs the service in its own process: the
//! app's local workspace, whose 3D preview reads a model straight from the service's disk instead
//! of downloading it. A handle on the running service's own store and blob store (no second
//! store). Only a folder blob store has such a file; on an object store the answer is `None`.

use std::path::PathBuf;

use partlens_api::FileUid;

use super::blobs::{BlobKey, Blobs};
use super::error::ServiceError;
use partlens_store::Store;

/// A stored file's bytes on disk, with what its record says of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredFileContent {
    /// The file holding the stored bytes (named by the record's own UID, never by anything typed).
    pub path: PathBuf,
    /// Lower-case extension with the dot (`.stl`, `.step`).
    pub extension: String,
    /// The stored path (`FileName`), as the company sees it.
    pub stored_path: String,
}

/// Answers "where are the bytes of this file" from the service's store and blob store.
#[derive(Clone)]
pub struct StoredFiles {
    store: Store,
    blobs: Blobs,
}

impl StoredFiles {
    /// A handle on this store and blob store.
    pub(crate) fn new(store: Store, blobs: Blobs) -> Self {
        Self { store, blobs }
    }

    /// The bytes of file `uid` (in any company: the caller is the program that runs the service),
    /// or `None` when there is no such file, its bytes are gone or are not on this machine.
    pub async fn content(&self, uid: &FileUid) -> Result<Option<StoredFileContent>, ServiceError> {
        let uid = uid.canonical();
        let Some(record) = self.store.read_tx(move |tx| tx.find_any_file(&uid)).await? else {
            return Ok(None);
        };
        let Some(path) = self.blobs.local_path(BlobKey::Content(&record.uid)) else {
            return Ok(None);
        };
        let is_file = tokio::fs::metadata(&path)
            .await
            .is_ok_and(|metadata| metadata.is_file());
        Ok(is_file.then_some(StoredFileContent {
            path,
            extension: record.extension,
            stored_path: record.stored_path,
        }))
    }
}
