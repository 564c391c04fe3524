//! Where a stored file's bytes are, for a program that runs the service in its own process: the
//! app's local workspace, whose 3D preview reads a model straight from the service's disk instead
//! of downloading it. A handle on the running service's own store and disk (no second store).

use std::path::PathBuf;

use partlens_api::FileUid;

use super::disk::Disk;
use super::error::ServiceError;
use super::store::Store;

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

/// Answers "where are the bytes of this file" from the service's store and disk.
#[derive(Clone)]
pub struct StoredFiles {
    store: Store,
    disk: Disk,
}

impl StoredFiles {
    /// A handle on this store and disk.
    pub(crate) fn new(store: Store, disk: Disk) -> Self {
        Self { store, disk }
    }

    /// The bytes of file `uid` (in any company: the caller is the program that runs the service),
    /// or `None` when there is no such file or its bytes are gone.
    pub async fn content(&self, uid: &FileUid) -> Result<Option<StoredFileContent>, ServiceError> {
        let uid = uid.canonical();
        let Some(record) = self.store.read_tx(move |tx| tx.find_any_file(&uid)).await? else {
            return Ok(None);
        };
        let path = self.disk.content_path(&record.uid);
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
