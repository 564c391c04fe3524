//! The data directory on disk: uploaded bytes under `files/`, rendered images under `images/`,
//! bodies being received under `tmp/`.
//!
//! Files are named by UID only: the stored path a client gives is a name in the record, never a path
//! on this disk, so no upload can write outside these folders whatever its name says.

use std::path::{Path, PathBuf};

/// Which rendered image of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    /// The thumbnail, JPEG (`type=0`).
    Thumbnail,
    /// The large image, PNG (`type=1`).
    Large,
}

impl ImageKind {
    /// The `type` parameter of an image URL.
    pub fn type_number(self) -> u8 {
        match self {
            Self::Thumbnail => 0,
            Self::Large => 1,
        }
    }

    /// Reads the `type` parameter.
    pub fn from_type_number(number: &str) -> Option<Self> {
        match number.trim() {
            "0" => Some(Self::Thumbnail),
            "1" => Some(Self::Large),
            _ => None,
        }
    }

    /// The content type it is served with.
    pub fn content_type(self) -> &'static str {
        match self {
            Self::Thumbnail => "image/jpeg",
            Self::Large => "image/png",
        }
    }
}

/// The layout of one data directory.
#[derive(Clone, Debug)]
pub struct Disk {
    root: PathBuf,
}

impl Disk {
    /// The layout under `root`; [`Disk::create_folders`] makes the folders.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// Creates the folders and empties `tmp/` (what is there belongs to requests of an earlier run).
    pub fn create_folders(&self) -> std::io::Result<()> {
        for folder in [self.files_dir(), self.images_dir()] {
            std::fs::create_dir_all(folder)?;
        }
        let tmp = self.tmp_dir();
        if tmp.exists() {
            std::fs::remove_dir_all(&tmp)?;
        }
        std::fs::create_dir_all(tmp)
    }

    fn files_dir(&self) -> PathBuf {
        self.root.join("files")
    }

    fn images_dir(&self) -> PathBuf {
        self.root.join("images")
    }

    fn tmp_dir(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// Where the bytes of file `uid` live.
    pub fn content_path(&self, uid: &str) -> PathBuf {
        self.files_dir().join(uid)
    }

    /// Where an image of file `uid` lives.
    pub fn image_path(&self, uid: &str, kind: ImageKind) -> PathBuf {
        let name = match kind {
            ImageKind::Thumbnail => format!("{uid}.sm.jpg"),
            ImageKind::Large => format!("{uid}.lg.png"),
        };
        self.images_dir().join(name)
    }

    /// A fresh path under `tmp/` for a body being received.
    pub fn temp_path(&self) -> PathBuf {
        self.tmp_dir()
            .join(format!("{}.part", uuid::Uuid::new_v4().simple()))
    }

    /// Removes the bytes and images of a file.
    pub fn remove_file(&self, uid: &str) -> std::io::Result<()> {
        remove_if_present(&self.content_path(uid))?;
        self.remove_images(uid)
    }

    /// Removes the images of a file.
    pub fn remove_images(&self, uid: &str) -> std::io::Result<()> {
        remove_if_present(&self.image_path(uid, ImageKind::Thumbnail))?;
        remove_if_present(&self.image_path(uid, ImageKind::Large))
    }
}

/// Removes a file; one that is not there is fine.
pub fn remove_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}
