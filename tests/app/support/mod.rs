//! Shared pieces of the app tests: a tokio runtime owned by the test, the real `App` built in an
//! egui_kittest harness with a temporary data directory, injected secrets and file choices, stepping
//! until a condition holds (with a deadline), logging in through the form, dropped files, and test
//! images; [`search`] holds the Search place's helpers (sample workspace, running a search).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod layout;
pub mod sample_template;
pub mod search;
// Not every test file checks the layout or searches.
#[allow(unused_imports)]
pub use layout::*;
pub use sample_template::*;
#[allow(unused_imports)]
pub use search::*;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::desktop::DialogChoice;
use partlens::ui::{App, AppOptions, ConnectionState, Settings};
use partlens_tasks::{
    Backend, BackendParts, FilePicker, LocalWorkspaceLauncher, MemoryStore, PreparedFilePicker,
};

/// How long a condition may take before the test fails.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// A test runtime: two workers, like the machine.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Settings for tests: polling every 50 ms.
pub fn fast_settings() -> Settings {
    Settings {
        poll_interval_secs: 0.05,
        ..Settings::default()
    }
}

/// What an app under test is built from.
pub struct AppParts {
    /// The app's data directory.
    pub data_dir: PathBuf,
    /// The local workspace launcher.
    pub launcher: Arc<dyn LocalWorkspaceLauncher>,
    /// The secret store.
    pub secrets: Arc<MemoryStore>,
    /// The file picker.
    pub picker: Arc<dyn FilePicker>,
    /// Settings to start with.
    pub settings: Settings,
    /// Views given on the command line (`partlens --search VIEW…`).
    pub initial_views: Vec<PathBuf>,
    /// Which file dialog the app uses (the native one, answered by `picker`, unless a test says).
    pub dialogs: DialogChoice,
}

impl AppParts {
    /// Parts with a memory store, no file choices and fast settings.
    pub fn new(data_dir: &Path, launcher: Arc<dyn LocalWorkspaceLauncher>) -> Self {
        Self {
            data_dir: data_dir.to_path_buf(),
            launcher,
            secrets: Arc::new(MemoryStore::new()),
            picker: Arc::new(PreparedFilePicker::default()),
            settings: fast_settings(),
            initial_views: Vec::new(),
            dialogs: DialogChoice::native(),
        }
    }
}

/// Builds the real app in a harness the size of a small window.
pub fn app_harness(runtime: &tokio::runtime::Runtime, parts: &AppParts) -> Harness<'static, App> {
    let (backend, events) = Backend::new(BackendParts {
        runtime: runtime.handle().clone(),
        data_dir: parts.data_dir.clone(),
        secrets: parts.secrets.clone(),
        picker: parts.picker.clone(),
        launcher: parts.launcher.clone(),
        upload_slots: 2,
    });
    let options = AppOptions {
        data_dir: parts.data_dir.clone(),
        settings: Some(parts.settings.clone()),
        initial_files: Vec::new(),
        initial_views: parts.initial_views.clone(),
        dialogs: parts.dialogs.clone(),
    };
    Harness::builder()
        .with_size(egui::vec2(1100.0, 720.0))
        .build_eframe(move |cc| App::new(cc, backend, events, options))
}

/// Steps the app until `done` holds; fails with `what` after the deadline.
pub fn step_until(
    harness: &mut Harness<'_, App>,
    what: &str,
    done: impl Fn(&Harness<'_, App>) -> bool,
) {
    let started = Instant::now();
    loop {
        harness.step();
        if done(harness) {
            return;
        }
        if started.elapsed() > DEADLINE {
            let jobs: Vec<String> = harness
                .state()
                .jobs()
                .iter()
                .map(|job| format!("{} {:?}", job.file_name(), job.phase))
                .collect();
            panic!(
                "waited {DEADLINE:?} for {what}; connection {:?}, jobs {jobs:?}, notices {:?}",
                harness.state().connection(),
                harness.state().notices().messages()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Steps until a node with this exact label exists.
pub fn step_until_label(harness: &mut Harness<'_, App>, label: &str) {
    step_until(harness, &format!("\"{label}\" on screen"), |harness| {
        harness.query_by_label(label).is_some()
    });
}

/// Steps until a node whose label contains `text` exists.
pub fn step_until_label_contains(harness: &mut Harness<'_, App>, text: &str) {
    step_until(
        harness,
        &format!("a label containing \"{text}\""),
        |harness| harness.query_all_by_label_contains(text).next().is_some(),
    );
}

/// Waits for a node, brings it into view (a Settings card may be below the fold), waits until the
/// scrolling has settled, and clicks it.
pub fn click(harness: &mut Harness<'_, App>, label: &str) {
    step_until_label(harness, label);
    harness.get_by_label(label).scroll_to_me();
    // Scrolling is animated: the node has settled once it stays put for a few frames.
    let (mut last, mut still) = (None, 0);
    while still < 5 {
        harness.step();
        let rect = harness.get_by_label(label).rect();
        still = if last == Some(rect) { still + 1 } else { 0 };
        last = Some(rect);
    }
    harness.get_by_label(label).click();
    harness.step();
}

/// Steps until the app is logged in.
pub fn wait_logged_in(harness: &mut Harness<'_, App>) {
    step_until(harness, "the login", |harness| {
        harness.state().session().is_some()
            && harness.state().connection() == &ConnectionState::Ready
            // A new local workspace adds its sample library after the login.
            && harness.state().workspace_activity().is_none()
    });
}

/// Types user and password into the login form and presses "Log in".
pub fn log_in_through_the_form(harness: &mut Harness<'_, App>, user: &str, password: &str) {
    step_until_label(harness, "Password");
    if harness.get_by_label("User").value().as_deref() != Some(user) {
        harness.get_by_label("User").focus();
        harness.step();
        harness.get_by_label("User").type_text(user);
    }
    harness.get_by_label("Password").focus();
    harness.step();
    harness.get_by_label("Password").type_text(password);
    harness.step();
    harness
        .get_by_role_and_label(Role::Button, "Log in")
        .click();
    harness.step();
}

/// Stops the app's tasks and local service, then drops the harness.
pub fn close_app(runtime: &tokio::runtime::Runtime, harness: Harness<'_, App>) {
    let backend = harness.state().backend().clone();
    drop(harness);
    runtime.block_on(async {
        tokio::time::timeout(Duration::from_secs(20), backend.shutdown())
            .await
            .expect("the local service stops");
    });
}

/// A file dropped on the window.
#[derive(Debug)]
struct DroppedPath(PathBuf);

impl egui::DroppedFile for DroppedPath {
    fn path(&self) -> &Path {
        &self.0
    }

    fn bytes(&self) -> Result<Vec<u8>, String> {
        std::fs::read(&self.0).map_err(|error| error.to_string())
    }
}

/// Drops files on the window (as the platform would deliver them).
pub fn drop_files(harness: &mut Harness<'_, App>, paths: &[PathBuf]) {
    harness.input_mut().dropped_files = paths
        .iter()
        .map(|path| Arc::new(DroppedPath(path.clone())) as egui::DroppedFileHandle)
        .collect();
    harness.step();
}

/// Writes a 128×128 PNG of a sample part drawn by the library's generator (well over 1024 bytes);
/// `seed` picks the part and its noise.
pub fn write_part_png(path: &Path, seed: u32) {
    use partlens_engine::samples::parts::{PART_NAMES, Pose, draw_part};
    let name = PART_NAMES[seed as usize % PART_NAMES.len()];
    let image = draw_part(name, &Pose::noisy(seed.into()), 128).unwrap();
    image.save(path).unwrap();
    assert!(std::fs::metadata(path).unwrap().len() > 1024);
}

/// Writes bytes that claim to be a PNG but do not decode (at least 1024 of them).
pub fn write_broken_png(path: &Path) {
    let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 7 % 251) as u8).collect();
    std::fs::write(path, bytes).unwrap();
}
