//! The Search place's helpers for app tests: the sample workspace, running a search and waiting for
//! it, the result list, and typing into a labelled field.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens::ui::App;
use partlens::ui::results::ResultsStatus;
use partlens::workspace::{LocalServiceLauncher, WorkspaceConfig};

use super::step_until;

/// The sample library shipped in `assets/samples`.
pub fn samples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join("samples")
}

/// The local workspace in `data_dir`, seeded with the sample library.
pub fn sample_workspace(data_dir: &Path) -> Arc<LocalServiceLauncher> {
    Arc::new(LocalServiceLauncher::new(WorkspaceConfig {
        data_dir: data_dir.to_path_buf(),
        samples_dir: Some(samples_dir()),
        user: "tester".into(),
        index_workers: Some(2),
    }))
}

/// Presses Enter (in the focused field), steps until that started a new search, and waits for it.
pub fn search_with_enter(harness: &mut Harness<'_, App>) {
    let before = harness.state().search().searches_started();
    harness.key_press(egui::Key::Enter);
    step_until(harness, "Enter to start a search", |harness| {
        harness.state().search().searches_started() > before
    });
    wait_for_search(harness);
}

/// Steps until the running search (started this frame or earlier) has its answer; fails on an error.
pub fn wait_for_search(harness: &mut Harness<'_, App>) {
    step_until(harness, "the search to finish", |harness| {
        !harness.state().search().is_searching()
    });
    if let ResultsStatus::Failed { message } = harness.state().search().results().status() {
        panic!("the search failed: {message}");
    }
    assert_eq!(
        harness.state().search().results().status(),
        &ResultsStatus::Ready
    );
}

/// The stored file names of the results, in display order.
pub fn result_files(harness: &Harness<'_, App>) -> Vec<String> {
    harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .map(|row| row.file_name.clone())
        .collect()
}

/// Types into the field with this accessible label (focusing it first, which may take a frame or two
/// after a modal closed).
pub fn type_into(harness: &mut Harness<'_, App>, label: &str, text: &str) {
    step_until(harness, &format!("the focus in \"{label}\""), |harness| {
        let field = harness.get_by_label(label);
        if field.accesskit_node().is_focused() {
            true
        } else {
            field.focus();
            false
        }
    });
    harness.get_by_label(label).type_text(text);
    harness.step();
}
