//! The Library place, driven with egui_kittest against a real service on 127.0.0.1: 10,000 files
//! paged as the user scrolls, in the grid and the table, with only the rows on screen laid out and
//! only their pages asked for (what keeps a results frame within its budget at any size: see
//! `benches/results_frame.rs`); the filters by kind, folder and attribute; a file opened from it;
//! the empty library, reached from an empty *Find parts*; a file opened from it says nothing of the
//! search in the results meanwhile.

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens::ui::App;
use partlens::ui::library::LibraryStatus;
use partlens::ui::library::pages::{KEPT_PAGES, PAGE_FILES};
use partlens::ui::place::Place;
use partlens::ui::results::ResultsLayout;
use partlens::ui::search_place::SearchPage;
use partlens_testkit::library::{record_material, record_name, write_library};

use crate::support::*;

/// Cards or table rows laid out in a frame at most: what fits the 1100×720 window, never the list.
const MOST_ROWS_ON_SCREEN: usize = 60;

/// Goes to the Library through the top bar and waits for its first page.
fn open_library(harness: &mut Harness<'_, App>) {
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    step_until(harness, "the library's first page", |harness| {
        harness.state().library().status() == &LibraryStatus::Ready
    });
    harness.step();
}

/// The names of the files whose cards or rows are on screen (their "Open …" buttons).
fn files_on_screen(harness: &Harness<'_, App>) -> Vec<String> {
    harness
        .query_all_by_label_contains("Open part-")
        .filter_map(|node| {
            let label = node.accesskit_node().label()?.to_string();
            Some(label.trim_start_matches("Open ").to_owned())
        })
        .collect()
}

/// Brings the file at `index` on screen and steps until its page is in and shown.
fn scroll_to(harness: &mut Harness<'_, App>, index: usize) {
    harness.state_mut().library_mut().scroll_to(index);
    step_until(harness, &format!("file {index} on screen"), |harness| {
        let library = harness.state().library();
        library.shown_rows().contains(&index) && library.pages().row(index).is_some()
    });
    harness.step();
}

#[test]
fn library_place_paging_over_10000_files_at_the_results_frame_budget() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service_dir = dir.path().join("service");
    std::fs::create_dir_all(&service_dir).unwrap();
    write_library(&service_dir, "Acme", 10_000);
    let service = company_service(&runtime, &service_dir);
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    open_library(&mut harness);
    assert_eq!(harness.state().place(), Place::Library);
    harness.get_by_label("10,000 files");

    // Newest first: the last record written is the first card.
    let first_screen = files_on_screen(&harness);
    assert_eq!(
        first_screen.first().map(String::as_str),
        Some("part-09999.png")
    );
    assert_eq!(
        first_screen.get(1).map(String::as_str),
        Some("part-09998.pdf")
    );
    let shown = harness.state().library().shown_rows();
    assert!(
        !shown.is_empty() && shown.len() <= MOST_ROWS_ON_SCREEN,
        "{shown:?} laid out"
    );
    assert_eq!(first_screen.len(), shown.len(), "a card a row laid out");
    // The first page and the one after it, nothing more.
    step_until(&mut harness, "the page after the first", |harness| {
        harness.state().library().pages().pending_pages() == 0
    });
    assert_eq!(harness.state().library().pages().loaded_pages(), 2);
    assert!(
        harness
            .query_all_by_label_contains("3D model · 12 KB · 2026-01-01 02:46")
            .next()
            .is_some()
    );

    // The oldest file, 10,000 files down: its page is asked for, not the 98 between.
    scroll_to(&mut harness, 9_999);
    assert!(files_on_screen(&harness).contains(&"part-00000.png".to_owned()));
    let pages = harness.state().library().pages();
    assert!(
        pages.loaded_pages() <= 4,
        "{} pages held",
        pages.loaded_pages()
    );
    assert!(harness.state().library().shown_rows().len() <= MOST_ROWS_ON_SCREEN);

    // The table: the same listing, rows laid out only on screen, a page asked where it is shown.
    harness.get_by_label("Table").click();
    harness.step();
    assert_eq!(harness.state().library().layout(), ResultsLayout::Table);
    // Newest first: the row at index 5,000 is record 4,999.
    scroll_to(&mut harness, 5_000);
    harness.get_by_label(&record_name(9_999 - 5_000));
    assert!(harness.state().library().shown_rows().len() <= MOST_ROWS_ON_SCREEN);
    // Jumping about holds at most the kept pages, however many were visited.
    for index in (0..10_000).step_by(PAGE_FILES * 3) {
        harness.state_mut().library_mut().scroll_to(index);
        harness.step();
    }
    scroll_to(&mut harness, 42);
    assert!(harness.state().library().pages().loaded_pages() <= KEPT_PAGES);
    assert_eq!(
        harness
            .state()
            .library()
            .pages()
            .row(42)
            .map(|row| row.row.name.clone()),
        Some(record_name(9_999 - 42))
    );
    close_app(&runtime, harness);
}

#[test]
fn the_library_filters_by_kind_folder_and_attribute_and_opens_a_file() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service_dir = dir.path().join("service");
    std::fs::create_dir_all(&service_dir).unwrap();
    write_library(&service_dir, "Acme", 60);
    let service = company_service(&runtime, &service_dir);
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    open_library(&mut harness);
    harness.get_by_label("60 files");

    let wait_for_count = |harness: &mut Harness<'_, App>, label: &str| {
        step_until_label(harness, label);
        step_until(harness, "the listing", |harness| {
            harness.state().library().status() == &LibraryStatus::Ready
        });
        harness.step();
    };

    // Kind: every third record is a drawing.
    harness.get_by_label("Kind").click();
    step_until_label(&mut harness, "Drawings");
    harness.get_by_label("Drawings").click();
    wait_for_count(&mut harness, "20 files");
    assert!(
        files_on_screen(&harness)
            .iter()
            .all(|name| name.ends_with(".pdf"))
    );

    // Folder (and kind still): records 3, 13, …, 53 are in Group-3; of those 23 and 53 are PDFs.
    type_into(&mut harness, "Folder", "library/group-3");
    harness.key_press(egui::Key::Enter);
    wait_for_count(&mut harness, "2 files");
    assert_eq!(
        files_on_screen(&harness),
        ["part-00053.pdf", "part-00023.pdf"]
    );

    // Attribute: odd records are aluminium, so none of these two is steel.
    type_into(&mut harness, "Attribute or words", "material=[steel]");
    harness.key_press(egui::Key::Enter);
    wait_for_count(&mut harness, "No file matches these filters.");
    // The empty state's button (the filter row has one too).
    harness
        .get_all_by_label("Clear filters")
        .last()
        .unwrap()
        .click();
    wait_for_count(&mut harness, "60 files");
    assert_eq!(harness.state().library().filters().query().kind, None);

    type_into(&mut harness, "Attribute or words", "material=[steel]");
    harness.get_by_label("Apply").click();
    wait_for_count(&mut harness, "30 files");
    let steel = files_on_screen(&harness);
    assert_eq!(steel.first().map(String::as_str), Some("part-00058.stl"));
    assert!(steel.iter().all(|name| {
        let number: usize = name[5..10].parse().unwrap();
        record_material(number) == "steel"
    }));

    // A card opens the file's detail in the Search place.
    harness.get_by_label("Open part-00058.stl").click();
    harness.step();
    assert_eq!(harness.state().place(), Place::Search);
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    step_until(&mut harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
    // Its back button leads to the Library, not to the results.
    assert!(harness.query_by_label("Back to results").is_none());
    harness.get_by_label("Back to the Library").click();
    harness.step();
    harness.step();
    assert_eq!(harness.state().place(), Place::Library);
    assert!(!files_on_screen(&harness).is_empty());
    close_app(&runtime, harness);
}

#[test]
fn an_empty_find_parts_opens_the_library_which_says_how_to_fill_it() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    harness.get_by_label("No search yet.");
    harness.get_by_label("Browse the library").click();
    harness.step();
    assert_eq!(harness.state().place(), Place::Library);
    step_until_label(&mut harness, "The library is empty.");
    harness.get_by_label_contains("Upload files into the company database");
    harness.get_by_label("Add files…");
    // Ctrl+F goes back to the search field, Ctrl+L to the Library again.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    harness.step();
    assert_eq!(harness.state().place(), Place::Search);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::L);
    harness.step();
    assert_eq!(harness.state().place(), Place::Library);
    close_app(&runtime, harness);
}

#[test]
fn a_file_opened_from_the_library_does_not_say_how_it_scored_in_the_search_meanwhile() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = app_searching_by_the_gear_photo(&runtime, data.path());
    wait_for_search(&mut harness);
    let result = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .find(|row| row.score.is_some() && row.file_name.ends_with("gear.stl"))
        .unwrap_or_else(|| {
            panic!(
                "gear.stl is not a scored result: {:?}",
                result_files(&harness)
            )
        })
        .clone();
    // Opened from the results, it says how it scored.
    harness
        .get_by_label(&format!("Open {}", result.name))
        .click();
    step_until(&mut harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
    assert!(harness.query_by_label_contains("Raw score").is_some());

    // The same file opened from the Library (the search's results still there): no score.
    open_library(&mut harness);
    type_into(&mut harness, "Attribute or words", "gear");
    harness.key_press(egui::Key::Enter);
    step_until_label(&mut harness, &format!("Open {}", result.name));
    harness
        .get_by_label(&format!("Open {}", result.name))
        .click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    assert!(harness.state().search().detail().is_showing(&result.uid));
    step_until(&mut harness, "the record", |harness| {
        harness.state().search().detail().record().is_some()
    });
    harness.run_steps(2);
    harness.get_by_label("Back to the Library");
    assert!(
        harness.query_by_label_contains("Raw score").is_none(),
        "the detail opened from the Library says how the file scored in the search"
    );
    close_app(&runtime, harness);
}
