//! The folder blob store: `files/` and `images/` under one root (the data directory by default),
//! private to the service's user.

use std::path::{Path, PathBuf};

use super::BlobKey;
use crate::body::TempFile;
use crate::disk::{create_private_dir, make_private, remove_if_present, write_private};

/// Stored files and images as files under a root folder.
#[derive(Debug)]
pub struct FolderBlobs {
    root: PathBuf,
}

impl FolderBlobs {
    /// The store under `root`: makes `root`, `files/` and `images/` (private: `0700`) when missing.
    pub fn open(root: &Path) -> std::io::Result<Self> {
        create_private_dir(root)?;
        for folder in ["files", "images"] {
            create_private_dir(&root.join(folder))?;
        }
        Ok(Self {
            root: root.to_owned(),
        })
    }

    /// The root folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file that holds `key`.
    pub fn path(&self, key: BlobKey<'_>) -> PathBuf {
        self.root.join(key.name())
    }

    /// Moves `file` into place. A root on another file system than the data directory's `tmp/` (a
    /// shared mount) cannot take a rename: the file is then copied beside its place under a
    /// temporary name and renamed there, so no reader sees it half written.
    pub fn persist(&self, key: BlobKey<'_>, file: TempFile) -> std::io::Result<()> {
        let destination = self.path(key);
        let source = file.path().to_owned();
        match file.persist(&destination) {
            Err(error) if error.kind() == std::io::ErrorKind::CrossesDevices => {
                let beside = destination
                    .with_extension(format!("{}.partial", uuid::Uuid::new_v4().simple()));
                if let Some(folder) = destination.parent() {
                    create_private_dir(folder)?;
                }
                let partial = TempFile::new(beside.clone());
                std::fs::copy(&source, partial.path())?;
                make_private(partial.path(), 0o600)?;
                partial.persist(&destination)
            }
            other => other,
        }
    }

    /// Removes `key`; one that is not there is fine.
    pub fn remove(&self, key: BlobKey<'_>) -> std::io::Result<()> {
        remove_if_present(&self.path(key))
    }

    /// Removes the folder `prefix` (`images/pages/UID/`) with what it holds; none is fine.
    pub fn remove_folder(&self, prefix: &str) -> std::io::Result<()> {
        match std::fs::remove_dir_all(self.root.join(prefix)) {
            Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    /// The bytes of `key`, `None` when there is no such file.
    pub async fn read(&self, key: BlobKey<'_>) -> std::io::Result<Option<Vec<u8>>> {
        match tokio::fs::read(self.path(key)).await {
            Ok(bytes) => Ok(Some(bytes)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Creates and removes a file beside the stored files: the folder takes writes.
    pub async fn probe(&self) -> std::io::Result<()> {
        let beside = self
            .root
            .join("files")
            .join(format!(".probe-{}", uuid::Uuid::new_v4().simple()));
        tokio::task::spawn_blocking(move || {
            write_private(&beside, b"ready")?;
            std::fs::remove_file(&beside)
        })
        .await
        .map_err(std::io::Error::other)?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::disk::ImageKind;

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[tokio::test]
    async fn a_file_put_is_read_back_private_and_removed() {
        let root = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let blobs = FolderBlobs::open(&root.path().join("blobs")).unwrap();
        let staged = TempFile::new(tmp.path().join("body.part"));
        write_private(staged.path(), b"solid part").unwrap();
        blobs.persist(BlobKey::Content("u1"), staged).unwrap();
        assert!(!tmp.path().join("body.part").exists(), "moved, not copied");
        assert_eq!(
            blobs.read(BlobKey::Content("u1")).await.unwrap().as_deref(),
            Some(&b"solid part"[..])
        );
        #[cfg(unix)]
        {
            assert_eq!(mode(&root.path().join("blobs/files")), 0o700);
            assert_eq!(mode(&blobs.path(BlobKey::Content("u1"))), 0o600);
        }
        let thumbnail = BlobKey::Image("u1", ImageKind::Thumbnail);
        assert_eq!(blobs.read(thumbnail).await.unwrap(), None);
        blobs.remove(BlobKey::Content("u1")).unwrap();
        blobs.remove(thumbnail).unwrap();
        assert_eq!(blobs.read(BlobKey::Content("u1")).await.unwrap(), None);
        blobs.probe().await.unwrap();
        assert_eq!(
            std::fs::read_dir(root.path().join("blobs/files"))
                .unwrap()
                .count(),
            0,
            "the probe leaves nothing"
        );
    }
}
