//! Choosing files to upload, where to save an export, and the folder and attributes CSV of a library
//! sync, with the platform's file dialogs.
//!
//! The dialog is awaited inside a task, never on the UI thread. The app hands in the platform's
//! dialogs (`partlens::desktop::NativeFilePicker`, over rfd, so that the command line never builds
//! it); tests inject their choices through the [`FilePicker`] trait. Drag and drop does not work on
//! native Wayland, so this dialog is always offered next to dropping.

use std::path::PathBuf;

use futures_util::future::BoxFuture;

/// The extensions of part files (pictures, 3D models, drawings, archives): the upload dialog offers
/// them and a library sync uploads them (lower case, without the dot).
pub const PART_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "bmp", "tif", "tiff", "webp", "gif", "stl", "obj", "ply", "step", "stp",
    "iges", "igs", "dxf", "pdf", "zip", "ifz",
];

/// Asks the user for files.
pub trait FilePicker: Send + Sync {
    /// The files the user chose; empty when the dialog was cancelled or could not open.
    fn pick_files(&self) -> BoxFuture<'static, Vec<PathBuf>>;

    /// Where to save a file, starting from `suggested_name`; `None` when the dialog was cancelled or
    /// could not open.
    fn save_file(&self, suggested_name: String) -> BoxFuture<'static, Option<PathBuf>>;

    /// One model file to show in 3D; `None` when cancelled. By default the first file of
    /// [`FilePicker::pick_files`].
    fn pick_model_file(&self) -> BoxFuture<'static, Option<PathBuf>> {
        let files = self.pick_files();
        Box::pin(async move { files.await.into_iter().next() })
    }

    /// A folder (the folder of a library sync); `None` when the dialog was cancelled or could not
    /// open.
    fn pick_folder(&self) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async { None })
    }

    /// One CSV file (the attributes of a library sync); `None` when the dialog was cancelled or
    /// could not open.
    fn pick_csv(&self) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async { None })
    }
}

/// A picker that hands out prepared choices, one list per call (tests).
#[derive(Debug, Default)]
pub struct PreparedFilePicker {
    choices: std::sync::Mutex<std::collections::VecDeque<Vec<PathBuf>>>,
    save_paths: std::sync::Mutex<std::collections::VecDeque<PathBuf>>,
    folders: std::sync::Mutex<std::collections::VecDeque<PathBuf>>,
}

impl PreparedFilePicker {
    /// A picker that will answer the given choices in order, then nothing.
    pub fn new(choices: impl IntoIterator<Item = Vec<PathBuf>>) -> Self {
        Self {
            choices: std::sync::Mutex::new(choices.into_iter().collect()),
            save_paths: std::sync::Mutex::default(),
            folders: std::sync::Mutex::default(),
        }
    }

    /// The same picker, answering the folder dialog with these folders in order, then nothing.
    pub fn with_folders(self, folders: impl IntoIterator<Item = PathBuf>) -> Self {
        Self {
            folders: std::sync::Mutex::new(folders.into_iter().collect()),
            ..self
        }
    }

    /// The same picker, answering the save dialog with these paths in order, then nothing.
    pub fn with_save_paths(self, paths: impl IntoIterator<Item = PathBuf>) -> Self {
        Self {
            save_paths: std::sync::Mutex::new(paths.into_iter().collect()),
            ..self
        }
    }
}

impl FilePicker for PreparedFilePicker {
    fn pick_files(&self) -> BoxFuture<'static, Vec<PathBuf>> {
        let next = self
            .choices
            .lock()
            .ok()
            .and_then(|mut choices| choices.pop_front())
            .unwrap_or_default();
        Box::pin(async move { next })
    }

    fn save_file(&self, _suggested_name: String) -> BoxFuture<'static, Option<PathBuf>> {
        let next = self
            .save_paths
            .lock()
            .ok()
            .and_then(|mut paths| paths.pop_front());
        Box::pin(async move { next })
    }

    fn pick_folder(&self) -> BoxFuture<'static, Option<PathBuf>> {
        let next = self
            .folders
            .lock()
            .ok()
            .and_then(|mut folders| folders.pop_front());
        Box::pin(async move { next })
    }

    /// The first file of the next prepared list of choices.
    fn pick_csv(&self) -> BoxFuture<'static, Option<PathBuf>> {
        let next = self
            .choices
            .lock()
            .ok()
            .and_then(|mut choices| choices.pop_front())
            .and_then(|choice| choice.into_iter().next());
        Box::pin(async move { next })
    }
}
