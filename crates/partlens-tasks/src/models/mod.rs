//! 3D models for the preview: where the app finds a model's bytes, reading them within the geometry
//! readers' limits, and preparing them for display ([`preview`]), all off the UI thread.
//!
//! The interface has no call that returns a file's content, so a model is shown only where this
//! computer has it, tried in this order: the local workspace's store (when that is the service in
//! use), the file an upload job of this service sent (if it still has the size it had), the files
//! the query bar searched by, or a file the user opens ("Open model file…"). Otherwise the answer is
//! [`Event::ModelUnavailable`] with the reason in words, and the detail keeps the service's picture.
//!
//! Limits: a model is never read in the app's own process. Each read runs in a reader worker
//! process ([`partlens_sandbox::Sandbox`]; the worker program is the app itself, `partlens
//! read-worker`, or `partlens-service` beside it) with limits the operating system enforces:
//! wall-clock time (the worker is killed), memory and CPU time (the worker sets them on itself),
//! by default those of [`ReaderLimits::default`] and changed with [`Backend::set_preview_sandbox`]
//! or [`Backend::set_preview_limits`]. A model that hits a limit, or crashes its reader, answers
//! [`Event::ModelUnavailable`] with the limit in words; the app's memory holds only the file's
//! bytes on their way to the worker and the reduced display copy that comes back (at most
//! [`DISPLAY_TRIANGLES`] triangles), and the UI thread never waits for a read. Before a worker
//! starts, a file over [`partlens_geometry::MAX_MODEL_BYTES`] is refused. One model is read at a
//! time, the same key is never read twice at once, and the read in progress is stopped when the
//! task layer shuts down ([`Backend::shutdown`]). Without a reader program the preview says so;
//! nothing is read in-process instead.
//!
//! [`Backend::set_preview_sandbox`]: crate::Backend::set_preview_sandbox
//! [`Backend::set_preview_limits`]: crate::Backend::set_preview_limits
//! [`Backend::shutdown`]: crate::Backend::shutdown

mod loading;
pub mod preview;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

pub use self::preview::{
    DISPLAY_TRIANGLES, ModelFileError, ModelPreview, component_name, read_preview,
};
use partlens_api::FileUid;
use partlens_api::encoding::file_extension;

/// The reader worker the preview reads models in, and its limits (from `partlens-sandbox`).
pub use partlens_sandbox::{ReaderLimits, Sandbox};

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

/// The models being read: one read at a time, one request per key, each in a reader worker.
#[derive(Debug)]
pub struct ModelLoader {
    reads: Arc<Semaphore>,
    in_flight: Mutex<HashSet<String>>,
    /// The worker program and limits reads use; `None` when no reader program was found.
    sandbox: Mutex<Option<Sandbox>>,
    /// Cancelled when the task layer shuts down: the read in progress stops.
    stopping: CancellationToken,
}

impl Default for ModelLoader {
    /// Reads in the program [`partlens_sandbox::default_program`] finds, with the default limits.
    fn default() -> Self {
        Self {
            reads: Arc::new(Semaphore::new(1)),
            in_flight: Mutex::new(HashSet::new()),
            sandbox: Mutex::new(
                partlens_sandbox::default_program()
                    .map(|program| Sandbox::new(program, ReaderLimits::default())),
            ),
            stopping: CancellationToken::new(),
        }
    }
}

impl ModelLoader {
    fn keys(&self) -> MutexGuard<'_, HashSet<String>> {
        self.in_flight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn sandbox_slot(&self) -> MutexGuard<'_, Option<Sandbox>> {
        self.sandbox.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The worker program and limits reads use; `None` when no reader program was found.
    pub fn sandbox(&self) -> Option<Sandbox> {
        self.sandbox_slot().clone()
    }

    /// Stops the read in progress and every later one (the task layer is shutting down).
    pub fn stop(&self) {
        self.stopping.cancel();
    }

    /// True when a request for `key` is being read.
    pub fn is_in_flight(&self, key: &str) -> bool {
        self.keys().contains(key)
    }
}
