//! Where stored files and rendered images live: the blob store, one seam with two implementations.
//!
//! - **A folder** ([`FolderBlobs`], the default): `files/UID`, `images/UID.sm.jpg` and
//!   `images/UID.lg.png` under the data directory (or under `--blobs DIR`, a folder of their own, for
//!   example a mount several nodes share), private (`0700` folders, `0600` files).
//! - **S3-compatible object storage** ([`S3Blobs`], `--blobs s3://BUCKET[/PREFIX]`): the same names
//!   as object keys under the prefix, through `object_store`'s S3 client; credentials, region and
//!   endpoint (MinIO, Ceph, Garage, R2…) from the usual `AWS_*` variables.
//!
//! Bodies being received stay in the data directory's `tmp/` either way (see `disk.rs`): a file is
//! put into the store only once it is whole, so no reader ever sees part of one. The store is
//! written inside the record's transaction (as the folder always was), so a record never points at
//! bytes that are not there; on S3 that transaction lasts as long as the upload to the bucket.
//!
//! Every operation is offered where its callers are: `*_blocking` for the store's transaction
//! closures (tokio's blocking threads), `async` for the request handlers.

mod folder;
mod s3;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use folder::FolderBlobs;
pub use s3::{S3Blobs, S3Location};

use super::body::TempFile;
use super::disk::ImageKind;

/// Where the service keeps stored files and images (`--blobs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum BlobLocation {
    /// `files/` and `images/` in the data directory (the default).
    #[default]
    DataDirectory,
    /// `files/` and `images/` in a folder of their own (a local disk or a shared mount).
    Folder(PathBuf),
    /// An S3-compatible bucket.
    S3(S3Location),
}

impl BlobLocation {
    /// Reads a `--blobs` value: `s3://BUCKET[/PREFIX]`, or a folder.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.is_empty() {
            return Err("empty: give a folder or s3://BUCKET[/PREFIX]".into());
        }
        let lower = text.to_ascii_lowercase();
        if lower.starts_with("s3://") || lower.starts_with("s3a://") {
            return S3Location::parse(text).map(Self::S3);
        }
        if lower.contains("://") {
            return Err(format!(
                "{text}: not a blob store this service knows (a folder, or s3://BUCKET[/PREFIX])"
            ));
        }
        Ok(Self::Folder(PathBuf::from(text)))
    }
}

/// One stored object: a file's bytes or one of its images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlobKey<'a> {
    /// The uploaded bytes of file UID.
    Content(&'a str),
    /// A rendered image of file UID.
    Image(&'a str, ImageKind),
    /// A rendered image of page N (2 and later: page 1's are [`BlobKey::Image`]) of drawing UID.
    PageImage(&'a str, u32, ImageKind),
}

impl BlobKey<'_> {
    /// Its name in the store: `files/UID`, `images/UID.sm.jpg`, `images/UID.lg.png`, and a page's
    /// `images/pages/UID/N.sm.jpg` and `…/N.lg.png` (the folder store's paths under its root, the
    /// object store's keys under its prefix).
    pub fn name(&self) -> String {
        match self {
            Self::Content(uid) => format!("files/{uid}"),
            Self::Image(uid, ImageKind::Thumbnail) => format!("images/{uid}.sm.jpg"),
            Self::Image(uid, ImageKind::Large) => format!("images/{uid}.lg.png"),
            Self::PageImage(uid, page, ImageKind::Thumbnail) => {
                format!("{}{page}.sm.jpg", page_images_prefix(uid))
            }
            Self::PageImage(uid, page, ImageKind::Large) => {
                format!("{}{page}.lg.png", page_images_prefix(uid))
            }
        }
    }
}

/// Where the images of a drawing's pages after the first are kept: `images/pages/UID/`, one folder
/// (or key prefix) a file, so that they go together.
pub fn page_images_prefix(uid: &str) -> String {
    format!("images/pages/{uid}/")
}

/// The service's blob store (cheap to clone: a handle).
#[derive(Clone, Debug)]
pub struct Blobs {
    backend: Arc<Backend>,
}

#[derive(Debug)]
enum Backend {
    Folder(FolderBlobs),
    S3(S3Blobs),
}

impl Blobs {
    /// Opens the store at `location` (`data_dir` for [`BlobLocation::DataDirectory`]): makes the
    /// folders, or connects the S3 client (which reaches the bucket at the first request: see
    /// [`Blobs::probe`]). Must be called in a tokio runtime, whose handle the S3 store keeps.
    pub fn open(location: &BlobLocation, data_dir: &Path) -> std::io::Result<Self> {
        let backend = match location {
            BlobLocation::DataDirectory => Backend::Folder(FolderBlobs::open(data_dir)?),
            BlobLocation::Folder(folder) => Backend::Folder(FolderBlobs::open(folder)?),
            BlobLocation::S3(location) => Backend::S3(S3Blobs::open(location)?),
        };
        Ok(Self {
            backend: Arc::new(backend),
        })
    }

    /// In words, for logs and `check`: `folder /srv/partlens` or `s3://bucket/prefix`.
    pub fn describe(&self) -> String {
        match &*self.backend {
            Backend::Folder(folder) => format!("folder {}", folder.root().display()),
            Backend::S3(s3) => s3.describe(),
        }
    }

    /// Puts the whole file `file` (under the data directory's `tmp/`) at `key`, replacing what was
    /// there; on a blocking thread. The temporary file is gone afterwards either way.
    pub fn persist_blocking(&self, key: BlobKey<'_>, file: TempFile) -> std::io::Result<()> {
        match &*self.backend {
            Backend::Folder(folder) => folder.persist(key, file),
            Backend::S3(s3) => s3.persist_blocking(key, file),
        }
    }

    /// Removes `key`; one that is not there is fine. On a blocking thread.
    pub fn remove_blocking(&self, key: BlobKey<'_>) -> std::io::Result<()> {
        match &*self.backend {
            Backend::Folder(folder) => folder.remove(key),
            Backend::S3(s3) => s3.remove_blocking(key),
        }
    }

    /// Removes the bytes and images of file `uid`. On a blocking thread.
    pub fn remove_file_blocking(&self, uid: &str) -> std::io::Result<()> {
        self.remove_blocking(BlobKey::Content(uid))?;
        self.remove_images_blocking(uid)
    }

    /// Removes the images of file `uid`, its pages' too. On a blocking thread.
    pub fn remove_images_blocking(&self, uid: &str) -> std::io::Result<()> {
        self.remove_blocking(BlobKey::Image(uid, ImageKind::Thumbnail))?;
        self.remove_blocking(BlobKey::Image(uid, ImageKind::Large))?;
        self.remove_page_images_blocking(uid)
    }

    /// Removes the images of the pages after the first of drawing `uid` (none there is fine). On a
    /// blocking thread.
    pub fn remove_page_images_blocking(&self, uid: &str) -> std::io::Result<()> {
        let prefix = page_images_prefix(uid);
        match &*self.backend {
            Backend::Folder(folder) => folder.remove_folder(&prefix),
            Backend::S3(s3) => s3.remove_prefix_blocking(&prefix),
        }
    }

    /// The bytes at `key`, or `None` when there are none.
    pub async fn read(&self, key: BlobKey<'_>) -> std::io::Result<Option<Vec<u8>>> {
        match &*self.backend {
            Backend::Folder(folder) => folder.read(key).await,
            Backend::S3(s3) => s3.read(key).await,
        }
    }

    /// The file holding `key` on this machine, for a program that runs the service in its own
    /// process and reads a model straight from it; `None` for an object store.
    pub fn local_path(&self, key: BlobKey<'_>) -> Option<PathBuf> {
        match &*self.backend {
            Backend::Folder(folder) => Some(folder.path(key)),
            Backend::S3(_) => None,
        }
    }

    /// Writes and removes a small object, as the readiness probe does: `Ok` when the store takes
    /// writes.
    pub async fn probe(&self) -> std::io::Result<()> {
        match &*self.backend {
            Backend::Folder(folder) => folder.probe().await,
            Backend::S3(s3) => s3.probe().await,
        }
    }
}

/// An object store's failure as the I/O error the callers handle (`NotFound` kept as such).
fn io_error(error: object_store::Error) -> std::io::Error {
    match error {
        object_store::Error::NotFound { .. } => {
            std::io::Error::new(std::io::ErrorKind::NotFound, error.to_string())
        }
        other => std::io::Error::other(format!("the object store: {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blobs_value_is_a_bucket_or_a_folder() {
        assert!(matches!(
            BlobLocation::parse("s3://parts/team-a"),
            Ok(BlobLocation::S3(location)) if location.bucket() == "parts" && location.prefix() == "team-a"
        ));
        assert_eq!(
            BlobLocation::parse(" /srv/shared/partlens "),
            Ok(BlobLocation::Folder(PathBuf::from("/srv/shared/partlens")))
        );
        for refused in ["", "  ", "gs://bucket", "s3://", "s3:///prefix"] {
            assert!(
                BlobLocation::parse(refused).is_err(),
                "{refused:?} should be refused"
            );
        }
    }

    #[test]
    fn keys_keep_the_folder_layout() {
        assert_eq!(BlobKey::Content("ab12").name(), "files/ab12");
        assert_eq!(
            BlobKey::Image("ab12", ImageKind::Thumbnail).name(),
            "images/ab12.sm.jpg"
        );
        assert_eq!(
            BlobKey::Image("ab12", ImageKind::Large).name(),
            "images/ab12.lg.png"
        );
        assert_eq!(
            BlobKey::PageImage("ab12", 3, ImageKind::Large).name(),
            "images/pages/ab12/3.lg.png"
        );
        assert!(
            BlobKey::PageImage("ab12", 3, ImageKind::Thumbnail)
                .name()
                .starts_with(&page_images_prefix("ab12"))
        );
    }
}
