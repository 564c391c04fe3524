//! The platform's file dialogs (xdg-desktop-portal or zenity on Linux, the system dialog on macOS and
//! Windows) as the app's [`FilePicker`], through rfd's `AsyncFileDialog`, awaited inside a task and
//! never on the UI thread. It lives in the app so that the command line never builds rfd.

use std::path::PathBuf;

use futures_util::future::BoxFuture;
use partlens_tasks::FilePicker;
use partlens_tasks::file_picker::PART_EXTENSIONS;

/// The native dialog (xdg-desktop-portal on Linux, the system dialog on macOS and Windows).
#[derive(Debug, Default, Clone, Copy)]
pub struct NativeFilePicker;

impl FilePicker for NativeFilePicker {
    fn pick_files(&self) -> BoxFuture<'static, Vec<PathBuf>> {
        Box::pin(async {
            let dialog = rfd::AsyncFileDialog::new()
                .set_title("Add files to upload")
                .add_filter("Parts (images, models, drawings)", PART_EXTENSIONS)
                .add_filter("All files", &["*"]);
            dialog
                .pick_files()
                .await
                .unwrap_or_default()
                .into_iter()
                .map(|handle| handle.path().to_path_buf())
                .collect()
        })
    }

    fn pick_model_file(&self) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async {
            rfd::AsyncFileDialog::new()
                .set_title("Open a model file to see in 3D")
                .add_filter("3D models", &["stl", "obj", "ply"])
                .add_filter("All files", &["*"])
                .pick_file()
                .await
                .map(|handle| handle.path().to_path_buf())
        })
    }

    fn save_file(&self, suggested_name: String) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async move {
            rfd::AsyncFileDialog::new()
                .set_title("Save as CSV")
                .set_file_name(suggested_name)
                .add_filter("CSV", &["csv"])
                .save_file()
                .await
                .map(|handle| handle.path().to_path_buf())
        })
    }

    fn pick_folder(&self) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async {
            rfd::AsyncFileDialog::new()
                .set_title("Choose the folder to sync")
                .pick_folder()
                .await
                .map(|handle| handle.path().to_path_buf())
        })
    }

    fn pick_csv(&self) -> BoxFuture<'static, Option<PathBuf>> {
        Box::pin(async {
            rfd::AsyncFileDialog::new()
                .set_title("Choose the attributes CSV")
                .add_filter("CSV", &["csv", "txt"])
                .add_filter("All files", &["*"])
                .pick_file()
                .await
                .map(|handle| handle.path().to_path_buf())
        })
    }
}
