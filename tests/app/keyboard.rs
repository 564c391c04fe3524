//! The keyboard and the clipboard, driven with egui_kittest against the in-process local
//! workspace: a whole search by keyboard (Ctrl+F, typing, Enter, arrows through the results, Enter
//! on one, Backspace back), the Library and the duplicates the same way; Ctrl+V with a file path
//! and with a picture on the clipboard searches by it; Ctrl+Z takes the last attribute edit back
//! before it is saved; F1 and `?` open the shortcuts sheet, Escape closes it.

use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::duplicates::DuplicatesStatus;
use partlens::ui::library::LibraryStatus;
use partlens::ui::place::Place;
use partlens::ui::search_bar::ViewSource;
use partlens::ui::search_place::SearchPage;

use crate::support::*;

fn sample_app(runtime: &tokio::runtime::Runtime, data: &std::path::Path) -> Harness<'static, App> {
    let parts = AppParts::new(data, sample_workspace(data));
    let mut harness = app_harness(runtime, &parts);
    wait_logged_in(&mut harness);
    harness
}

fn press(harness: &mut Harness<'_, App>, key: Key) {
    harness.key_press(key);
    harness.step();
    harness.step();
}

#[test]
fn a_whole_search_and_the_library_and_duplicates_by_keyboard_only() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());

    // Ctrl+F, type, Enter: a search.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::F);
    harness.step();
    harness.step();
    harness.get_by_label("Search text").type_text("Acme");
    harness.step();
    search_with_enter(&mut harness);
    assert!(harness.state().search().results().cursor().is_none());
    // The search field keeps the keyboard until Escape hands it to the list.
    press(&mut harness, Key::Escape);
    press(&mut harness, Key::ArrowRight);
    press(&mut harness, Key::ArrowRight);
    let second = harness.state().search().results().cursor().unwrap().clone();
    let order: Vec<_> = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .map(|row| row.uid.clone())
        .collect();
    assert_eq!(second.uid, order[1], "two arrows: the second result");
    press(&mut harness, Key::Enter);
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    assert!(harness.state().search().detail().is_showing(&second.uid));
    press(&mut harness, Key::Backspace);
    assert_eq!(harness.state().search().page(), SearchPage::Results);
    // The cursor is where it was.
    assert_eq!(
        harness
            .state()
            .search()
            .results()
            .cursor()
            .map(|row| &row.uid),
        Some(&second.uid)
    );

    // The Library: Ctrl+L, End, Enter, Escape back to it.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::L);
    step_until(&mut harness, "the library's first page", |harness| {
        harness.state().library().status() == &LibraryStatus::Ready
    });
    press(&mut harness, Key::ArrowDown);
    press(&mut harness, Key::End);
    step_until(&mut harness, "the last file's page", |harness| {
        harness.state().library().cursor().is_some()
    });
    let last = harness.state().library().cursor().unwrap().uid.clone();
    press(&mut harness, Key::Enter);
    assert_eq!(harness.state().place(), Place::Search);
    assert!(harness.state().search().detail().is_showing(&last));
    press(&mut harness, Key::Escape);
    assert_eq!(harness.state().place(), Place::Library);

    // Duplicates: Ctrl+Shift+D, an arrow, Enter, Backspace back to them.
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::D);
    step_until(&mut harness, "the duplicate groups", |harness| {
        harness.state().duplicates().status() == &DuplicatesStatus::Ready
    });
    press(&mut harness, Key::ArrowRight);
    press(&mut harness, Key::Enter);
    assert_eq!(harness.state().place(), Place::Search);
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    press(&mut harness, Key::Backspace);
    assert_eq!(harness.state().place(), Place::Duplicates);
    close_app(&runtime, harness);
}

#[test]
fn ctrl_v_searches_by_a_copied_file_path_and_by_a_copied_picture() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    let photo = samples_dir().join("views").join("gear-a.png");

    // A file copied in a file manager arrives as its address.
    let address = url_of(&photo);
    harness.event(egui::Event::Paste(address));
    harness.step();
    let views = harness.state().search().bar().views().to_vec();
    assert_eq!(views.len(), 1, "{views:?}");
    assert!(matches!(&views[0].source, ViewSource::File(path) if path == &photo));
    wait_for_search(&mut harness);
    assert_eq!(
        result_files(&harness).first().map(String::as_str),
        Some("Samples/gear.png")
    );

    // A picture copied from another program.
    let picture = image::open(&photo).unwrap().to_rgba8();
    let size = [picture.width() as usize, picture.height() as usize];
    let image = egui::ColorImage::from_rgba_unmultiplied(size, picture.as_raw());
    harness.event(egui::Event::PasteImage(std::sync::Arc::new(image)));
    harness.step();
    let views = harness.state().search().bar().views().to_vec();
    assert_eq!(views.len(), 1);
    assert!(
        matches!(&views[0].source, ViewSource::Sketch(_)),
        "{views:?}"
    );
    wait_for_search(&mut harness);
    assert_eq!(
        result_files(&harness).first().map(String::as_str),
        Some("Samples/gear.png")
    );

    // Text that names no file is said once, and nothing is searched.
    let before = harness.state().search().searches_started();
    harness.event(egui::Event::Paste("hello".into()));
    harness.step();
    assert_eq!(harness.state().search().searches_started(), before);
    assert!(
        harness
            .state()
            .notices()
            .messages()
            .iter()
            .any(|message| message.starts_with("The clipboard holds neither"))
    );
    close_app(&runtime, harness);
}

/// The `file://` address of a file, as a file manager copies it.
fn url_of(path: &std::path::Path) -> String {
    format!("file://{}", path.display()).replace(' ', "%20")
}

#[test]
fn ctrl_z_takes_the_last_attribute_edit_back_before_it_is_saved() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    open_result(&mut harness, "gear", "gear.png");
    harness.get_by_label("Edit attributes").click();
    step_until(&mut harness, "the editor", |harness| {
        harness.state().search().page() == SearchPage::Attributes
    });
    step_until_label(&mut harness, "Add attribute");
    let original = harness
        .state()
        .search()
        .editor()
        .draft()
        .unwrap()
        .rows
        .clone();
    harness.get_by_label("Add attribute").click();
    harness.step();
    let names = harness.get_all_by_label("Name").count();
    let field = harness.get_all_by_label("Name").nth(names - 1).unwrap();
    field.focus();
    harness.step();
    harness
        .get_all_by_label("Name")
        .nth(names - 1)
        .unwrap()
        .type_text("finish");
    harness.step();
    assert_eq!(harness.state().search().editor().undo_steps(), 2);
    // Ctrl+Z: the name typed goes, then the row added.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.step();
    let rows = &harness.state().search().editor().draft().unwrap().rows;
    assert_eq!(rows.len(), original.len() + 1);
    assert_eq!(rows.last().unwrap().name, "");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.step();
    assert_eq!(
        harness.state().search().editor().draft().unwrap().rows,
        original
    );
    harness.get_by_label("The last edit was undone.");
    close_app(&runtime, harness);
}

#[test]
fn f1_and_the_question_mark_open_the_shortcuts_sheet_and_escape_closes_it() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    press(&mut harness, Key::F1);
    assert!(harness.state().shortcuts_sheet().is_open());
    harness.get_by_label("Keyboard shortcuts");
    harness.get_by_label("Search by the picture or the file path on the clipboard");
    press(&mut harness, Key::Escape);
    assert!(!harness.state().shortcuts_sheet().is_open());
    harness.event(egui::Event::Text("?".into()));
    harness.step();
    harness.step();
    assert!(harness.state().shortcuts_sheet().is_open());
    harness.get_by_label("Close").click();
    harness.step();
    assert!(!harness.state().shortcuts_sheet().is_open());
    close_app(&runtime, harness);
}
