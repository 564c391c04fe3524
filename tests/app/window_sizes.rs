//! Every place of the app at 800×600, 1120×720 (the default window) and 1920×1080, driven with
//! egui_kittest against the in-process local workspace: each test brings its place on screen with
//! real content (the sample library, real files from `../shared/realworld/` in the jobs), and fails
//! when a text is cut at a side or a widget or table column reaches past the window, or a text is
//! spread letter by letter ([`crate::support::layout`]).

use std::path::PathBuf;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::duplicates::DuplicatesStatus;
use partlens::ui::library::LibraryStatus;
use partlens::ui::search_place::SearchPage;
use partlens_tasks::{Command, JobRole, UploadSpec};

use crate::support::*;

/// Sets each window size in turn, lets the place lay itself out, and checks the frame.
fn check_every_size(harness: &mut Harness<'_, App>, place: &str) {
    for size in WINDOW_SIZES {
        harness.set_size(egui::vec2(size.0, size.1));
        // A resize lays out again; pictures and pages asked for meanwhile arrive.
        for _ in 0..4 {
            harness.step();
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_laid_out(harness, place, size);
    }
}

/// An app on a new local workspace with its sample library in.
fn sample_app(runtime: &tokio::runtime::Runtime, data: &std::path::Path) -> Harness<'static, App> {
    let parts = AppParts::new(data, sample_workspace(data));
    let mut harness = app_harness(runtime, &parts);
    wait_logged_in(&mut harness);
    harness
}

/// Searches the samples by text and waits for the results.
fn search_samples(harness: &mut Harness<'_, App>) {
    type_into(harness, "Search text", "Acme");
    search_with_enter(harness);
}

fn go_to(harness: &mut Harness<'_, App>, place: &str) {
    harness.get_by_role_and_label(Role::Button, place).click();
    harness.step();
    harness.step();
}

#[test]
fn the_search_place_with_its_results_fits_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    check_every_size(&mut harness, "Search (empty)");
    search_samples(&mut harness);
    check_every_size(&mut harness, "Search, results grid");
    harness.get_by_label("Table").click();
    harness.step();
    check_every_size(&mut harness, "Search, results table");
    close_app(&runtime, harness);
}

#[test]
fn the_library_fits_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    go_to(&mut harness, "Library");
    step_until(&mut harness, "the library's first page", |harness| {
        harness.state().library().status() == &LibraryStatus::Ready
    });
    check_every_size(&mut harness, "Library, grid");
    harness.get_by_label("Table").click();
    harness.step();
    check_every_size(&mut harness, "Library, table");
    close_app(&runtime, harness);
}

#[test]
fn the_duplicates_fit_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    go_to(&mut harness, "Duplicates");
    step_until(&mut harness, "the duplicate groups", |harness| {
        harness.state().duplicates().status() == &DuplicatesStatus::Ready
    });
    check_every_size(&mut harness, "Duplicates");
    close_app(&runtime, harness);
}

/// Real files of the corpus whose names and folders are long (the jobs' *Stored as*).
fn long_named_real_files() -> Vec<PathBuf> {
    let corpus = partlens_testkit::realworld::corpus_dir();
    [
        "step/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.step",
        "mesh/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.stl",
        "step/pythonocc_core__as1_pe_203.stp",
        "step/occt__linkrods.step",
        "dxf/",
    ]
    .iter()
    .filter_map(|relative| {
        let path = corpus.join(relative);
        if path.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(&path)
                .ok()?
                .filter_map(|entry| Some(entry.ok()?.path()))
                .collect();
            entries.sort();
            entries.into_iter().next()
        } else {
            path.is_file().then_some(path)
        }
    })
    .collect()
}

#[test]
fn the_upload_form_and_the_jobs_fit_every_size() {
    let files = long_named_real_files();
    if files.len() < 5 {
        assert!(
            std::env::var_os("CI").is_none(),
            "the real-world corpus is missing"
        );
        eprintln!("skipped: the real-world corpus is not beside the repository");
        return;
    }
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    go_to(&mut harness, "Upload");
    drop_files(&mut harness, &files);
    harness.step();
    check_every_size(&mut harness, "Upload, five files staged");
    // As company-database files each is stored under a name in a field of its own: from the
    // default window up, the longest of them is in its field whole (a narrower window scrolls it).
    harness.get_by_label("Company database file").click();
    harness.step();
    check_every_size(&mut harness, "Upload, five company-database files staged");
    let longest = files
        .iter()
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .max_by_key(String::len)
        .unwrap();
    for size in &WINDOW_SIZES[1..] {
        harness.set_size(egui::vec2(size.0, size.1));
        harness.run_steps(3);
        let in_its_field = painted_texts(&harness).into_iter().any(|text| {
            text.text == longest
                && text.is_visible()
                && text.clip.expand(1.5).contains_rect(text.rect)
        });
        assert!(in_its_field, "{longest} is cut in its field at {size:?}");
    }

    // Five real files queued as company-database files under a long folder: the jobs list must
    // show each one's state and progress before its paths.
    let specs = files
        .iter()
        .map(|path| UploadSpec {
            path: path.clone(),
            role: JobRole::Database {
                stored_path: format!(
                    "Customer projects/2026/Gearbox housing revision C/Purchased parts/{}",
                    path.file_name().unwrap().to_string_lossy()
                ),
                attributes: Vec::new(),
                category_id: None,
                index_components: false,
            },
            index_async: false,
        })
        .collect();
    harness.state().backend().send(Command::Upload(specs));
    go_to(&mut harness, "Jobs");
    step_until(&mut harness, "five jobs", |harness| {
        harness.state().jobs().len() == 5
    });
    check_every_size(&mut harness, "Jobs, five real files");
    close_app(&runtime, harness);
}

#[test]
fn settings_fit_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    go_to(&mut harness, "Settings");
    check_every_size(&mut harness, "Settings");
    close_app(&runtime, harness);
}

#[test]
fn a_detail_and_its_drawing_data_fit_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    open_result(&mut harness, "flange drawing", "flange-drawing.dxf");
    check_every_size(&mut harness, "Detail of a drawing");
    harness.get_by_label("Drawing data (PMI)").click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Pmi);
    step_until(&mut harness, "the drawing data", |harness| {
        harness.state().search().pmi().data().is_some()
    });
    check_every_size(&mut harness, "PMI viewer");
    close_app(&runtime, harness);
}

#[test]
fn the_comparison_fits_every_size() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = sample_app(&runtime, data.path());
    search_samples(&mut harness);
    let names: Vec<String> = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .take(3)
        .map(|row| row.name.clone())
        .collect();
    compare_results(&mut harness, &names);
    check_every_size(&mut harness, "Compare, three files");
    close_app(&runtime, harness);
}
