//! The app's own file browser, used where the system's file dialog cannot open (no desktop portal,
//! no zenity), driven with egui_kittest against the in-process local workspace: files added for
//! upload and the result list exported to CSV through it, and a system dialog that answers nothing
//! at once (as rfd does without portal and zenity) replaced by it for *Add views…* and the sync
//! folder's *Choose folder…*.

use std::path::Path;
use std::sync::Arc;

use crate::support::*;
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::desktop::{DialogChoice, FallbackFilePicker};
use partlens::ui::{App, Place};
use partlens_tasks::PreparedFilePicker;

/// Types `path` into the browser's path field and presses Enter.
fn type_path(harness: &mut Harness<'_, App>, path: &Path) {
    let field = harness.get_by_label("Path");
    let typed = field.value().unwrap_or_default();
    type_into(harness, "Path", "");
    // Replace what the field holds: select it all, then type.
    for _ in 0..typed.chars().count() {
        harness.key_press(egui::Key::Backspace);
    }
    harness
        .get_by_label("Path")
        .type_text(path.to_str().unwrap());
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();
}

/// A folder with a part picture, a second one and a text file the parts filter hides.
fn picks_folder(root: &Path) -> std::path::PathBuf {
    let folder = root.join("picks");
    std::fs::create_dir(&folder).unwrap();
    write_part_png(&folder.join("bracket-photo.png"), 3);
    write_part_png(&folder.join("second.png"), 5);
    std::fs::write(folder.join("notes.txt"), b"not a part").unwrap();
    folder
}

#[test]
fn without_a_system_dialog_the_app_browser_adds_files_and_exports_the_results() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let picks = picks_folder(dir.path());
    let exports = dir.path().join("exports");
    std::fs::create_dir(&exports).unwrap();
    let mut parts = AppParts::new(&data, sample_workspace(&data));
    parts.dialogs = DialogChoice::in_app("this desktop has no file-dialog portal and no zenity");
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    harness
        .get_by_role_and_label(Role::Button, "Upload")
        .click();
    step_until_label(&mut harness, "Add files…");
    harness.get_by_label("Add files…").click();
    step_until_label(&mut harness, "Add files to upload");
    // The browser says it is the app's own, and why.
    harness.get_by_label_contains("partlens's own file browser: this desktop has no file-dialog");
    type_path(&mut harness, &picks);
    step_until_label(&mut harness, "bracket-photo.png");
    assert!(
        harness.query_by_label("notes.txt").is_none(),
        "the parts filter hides a text file"
    );
    harness.get_by_label("bracket-photo.png").click();
    harness.step();

    harness.get_by_label("second.png").click();
    harness.step();
    harness.get_by_label("2 selected");
    harness.get_by_role_and_label(Role::Button, "Add").click();
    step_until(&mut harness, "the browser to close", |harness| {
        harness.state().file_browser().is_none()
    });
    assert_eq!(harness.state().place(), Place::Upload);
    harness.get_by_label_contains("bracket-photo.png");
    harness.get_by_label_contains("second.png");

    // The result list goes to a CSV file chosen in the browser.
    harness
        .get_by_role_and_label(Role::Button, "Search")
        .click();
    harness.step();
    type_into(&mut harness, "Search text", "Acme");
    search_with_enter(&mut harness);
    harness.get_by_label("Export CSV…").click();
    step_until_label(&mut harness, "Save the result list as CSV");
    type_path(&mut harness, &exports);
    let suggested = harness.get_by_label("Save as").value().unwrap_or_default();
    assert!(suggested.ends_with(".csv"), "{suggested}");
    harness.get_by_role_and_label(Role::Button, "Save").click();
    let csv_path = exports.join(&suggested);
    step_until(&mut harness, "the CSV file", |_| csv_path.is_file());
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert!(csv.starts_with("rank,name,file name,uid,score,"), "{csv}");
    step_until_label_contains(&mut harness, "The result list was saved to");
    // The folder chosen from is offered among the recent places next time.
    harness.get_by_label("Export CSV…").click();
    step_until_label(&mut harness, "Save the result list as CSV");
    harness.get_by_label("Recent");
    harness
        .get_by_role_and_label(Role::Button, "Cancel")
        .click();
    harness.step();
    assert!(harness.state().file_browser().is_none());
    close_app(&runtime, harness);
}

#[test]
fn a_system_dialog_that_cannot_open_gives_way_to_the_app_browser() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let picks = picks_folder(dir.path());
    let mut parts = AppParts::new(&data, sample_workspace(&data));
    let dialogs = DialogChoice::native();
    // A dialog that answers "nothing" at once, as rfd does with no portal and no zenity.
    parts.picker = Arc::new(FallbackFilePicker::new(
        PreparedFilePicker::default(),
        dialogs.clone(),
    ));
    parts.dialogs = dialogs;
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    assert!(!harness.state().dialogs().uses_in_app());

    harness
        .get_by_role_and_label(Role::Button, "Search")
        .click();
    harness.step();
    step_until_label_contains(&mut harness, "Add views…");
    // The query bar's button (the empty results offer one too).
    harness
        .get_all_by_label("Add views…")
        .next()
        .unwrap()
        .click();
    step_until_label(&mut harness, "Add views to search by");
    step_until_label_contains(&mut harness, "partlens's own file browser is used instead");
    assert!(harness.state().dialogs().uses_in_app());
    type_path(&mut harness, &picks.join("bracket-photo.png"));
    step_until(&mut harness, "the view in the query bar", |harness| {
        harness.state().file_browser().is_none()
            && harness
                .query_all_by_label_contains("bracket-photo.png")
                .next()
                .is_some()
    });

    // The sync folder, in folder mode: files are not listed, the folder shown is chosen.
    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
    step_until_label(&mut harness, "Choose folder…");
    // Through accesskit, not at the button's position: the cards above it fill in as their
    // answers arrive, which on a loaded machine moved the button under a pointer click.
    harness.get_by_label("Choose folder…").click_accesskit();
    step_until_label(&mut harness, "Choose the folder to sync");
    type_path(&mut harness, &picks);
    assert!(harness.query_by_label("bracket-photo.png").is_none());
    harness
        .get_by_role_and_label(Role::Button, "Choose this folder")
        .click();
    step_until(&mut harness, "the sync folder", |harness| {
        harness.state().settings().library_sync.folder == picks
    });
    // Settings says which file dialog is in use, and why.
    step_until_label_contains(
        &mut harness,
        "File dialogs: partlens's own file browser (the system file dialog could not open",
    );
    close_app(&runtime, harness);
}
