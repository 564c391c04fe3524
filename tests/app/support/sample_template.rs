//! One local workspace with the sample library in it, made once for the whole test binary and
//! copied into each test's data directory: adding the 22 samples (indexing their models, rendering
//! their pictures) took about 6 s of each of twenty tests. The tests of the addition itself
//! (`first_run.rs`, `basics.rs`) make a fresh workspace instead ([`fresh_sample_workspace`]).
//!
//! The template lives in the tests' own scratch folder (`CARGO_TARGET_TMPDIR`), named by this
//! process's id; the templates of earlier runs are removed when a new one is made.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::*;

/// The prefix of a template's folder name (followed by the process id).
const TEMPLATE_PREFIX: &str = "app-sample-workspace-";

/// Copies the sample workspace into `data_dir` unless it holds something already (a test that
/// restarts the app on its data directory keeps what the first start left).
pub fn copy_sample_template(data_dir: &Path) {
    let holds_something =
        std::fs::read_dir(data_dir).is_ok_and(|mut entries| entries.next().is_some());
    if !holds_something {
        copy_folder(template(), data_dir);
    }
}

/// The template's data directory, made on first use.
fn template() -> &'static Path {
    static TEMPLATE: OnceLock<PathBuf> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_earlier_templates(scratch);
        let data = scratch.join(format!("{TEMPLATE_PREFIX}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data);
        let runtime = runtime();
        let parts = AppParts::new(&data, fresh_sample_workspace(&data));
        let mut harness = app_harness(&runtime, &parts);
        // Logged in with no workspace activity left: every sample is in.
        wait_logged_in(&mut harness);
        // The app, its backend and the in-process service stop; their blocking work ends with the
        // runtime, so nothing writes to the folder while it is copied.
        drop(harness);
        runtime.shutdown_timeout(Duration::from_secs(30));
        data
    })
}

/// Removes the templates of earlier runs of this test binary from `scratch`.
fn remove_earlier_templates(scratch: &Path) {
    let Ok(entries) = std::fs::read_dir(scratch) else {
        return;
    };
    for entry in entries.flatten() {
        if entry
            .file_name()
            .to_string_lossy()
            .starts_with(TEMPLATE_PREFIX)
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Copies the folder `from` into `to` (made when missing), file by file.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_folder(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
