//! 3D models for the preview: where the app finds a model's bytes, reading them within the geometry
//! readers' limits, and preparing them for display ([`preview`]), all off the UI thread.
//!
//! The interface has no call that returns a file's content, so a model is shown only where this
//! computer has it, tried in this order: the local workspace's store (when that is the service in
//! use), the file an upload job of this service sent (if it still has the size it had), the files
//! the query bar searched by, or a file the user opens ("Open model file…"). Otherwise the answer is
//! [`Event::ModelUnavailable`] with the reason in words, and the detail keeps the service's picture.
//!
//! Limits: a file over [`partlens_geometry::MAX_MODEL_BYTES`] is refused before it is read, the
//! readers' triangle and vertex limits apply, and one model is read at a time (a model at the limits
//! takes a few hundred MB while it is read), so memory stays bounded whatever is hovered or opened.
//! The same key is never read twice at once. What is kept afterwards is the reduced display copy
//! (at most [`DISPLAY_TRIANGLES`] triangles).

mod loading;
pub mod preview;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Semaphore;

pub use self::preview::{DISPLAY_TRIANGLES, ModelFileError, ModelPreview, read_preview};
use partlens_api::FileUid;
use partlens_api::encoding::file_extension;

/// Where to look for a model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelSource {
    /// A file of the service: its bytes are looked for on this computer.
    StoredFile {
        /// The file.
        uid: FileUid,
        /// Its stored path (`FileName`), for the format and for messages.
        file_name: String,
        /// Files on this computer the front end knows to be this file's content (the query bar's
        /// views indexed under this UID).
        known_paths: Vec<PathBuf>,
    },
    /// A file on this computer the user opened.
    LocalFile(PathBuf),
}

/// A model to read, answered under `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRequest {
    /// What the answer is filed under ([`model_key_of_file`], [`model_key_of_path`]).
    pub key: String,
    /// Where to look.
    pub source: ModelSource,
}

impl ModelRequest {
    /// The model of a service file, looked for on this computer.
    pub fn stored_file(uid: FileUid, file_name: impl Into<String>, known: Vec<PathBuf>) -> Self {
        Self {
            key: model_key_of_file(&uid),
            source: ModelSource::StoredFile {
                uid,
                file_name: file_name.into(),
                known_paths: known,
            },
        }
    }

    /// A model file on this computer.
    pub fn local_file(path: impl Into<PathBuf>) -> Self {
        let path = path.into();
        Self {
            key: model_key_of_path(&path),
            source: ModelSource::LocalFile(path),
        }
    }
}

/// The key a service file's model is answered under.
pub fn model_key_of_file(uid: &FileUid) -> String {
    format!("model:file:{}", uid.canonical())
}

/// The key a local model file is answered under.
pub fn model_key_of_path(path: &Path) -> String {
    format!("model:path:{}", path.display())
}

/// True when a file of this name is read as a 3D model.
pub fn is_model_file_name(file_name: &str) -> bool {
    partlens_geometry::is_model_extension(&file_extension(file_name))
}

/// The models being read: one read at a time, one request per key.
#[derive(Debug)]
pub struct ModelLoader {
    reads: Arc<Semaphore>,
    in_flight: Mutex<HashSet<String>>,
}

impl Default for ModelLoader {
    fn default() -> Self {
        Self {
            reads: Arc::new(Semaphore::new(1)),
            in_flight: Mutex::new(HashSet::new()),
        }
    }
}

impl ModelLoader {
    fn keys(&self) -> MutexGuard<'_, HashSet<String>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// True when a request for `key` is being read.
    pub fn is_in_flight(&self, key: &str) -> bool {
        self.keys().contains(key)
    }
}
