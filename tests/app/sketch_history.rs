//! Sketch search and the search history, driven with egui_kittest against the in-process local
//! service with the sample library: a circle with a hole drawn on the sketch pad (drag gestures)
//! finds the washer and the flange before the L-bracket; a search is kept in the history, saved under
//! a name, survives rebuilding the app and runs again by its input UID without an upload; a kept
//! search whose input the service deleted uploads its view again from the history's copy; and
//! `partlens --search VIEW` runs the search at start.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;

use std::path::Path;

use egui::{Pos2, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::search_bar::sketch::PAD_LABEL;
use partlens::ui::search_bar::sketch::strokes::Shape;
use partlens::ui::search_bar::{ViewSource, ViewState};
use partlens::ui::search_place::SearchPage;
use partlens::workspace::ACCOUNT_FILE_NAME;
use partlens_api::{ApiClient, Credentials, FileUid};
use partlens_store::DATABASE_FILE;
use partlens_tasks::history::HistoryEntry;
use partlens_tasks::service_choice::DEFAULT_CLIENT_ID;

use app_support::*;

/// Drags the pointer through `points` (screen positions), a frame for each move.
fn drag_through(harness: &mut Harness<'_, App>, points: &[Pos2]) {
    harness.hover_at(points[0]);
    harness.step();
    harness.drag_at(points[0]);
    harness.step();
    for point in &points[1..] {
        harness.hover_at(*point);
        harness.step();
    }
    harness.drop_at(points[points.len() - 1]);
    harness.step();
}

/// Drops sample views on the window, presses "Find parts" and waits for the results.
fn search_by_sample_views(harness: &mut Harness<'_, App>, views: &[&str], text: &str) {
    let paths: Vec<_> = views
        .iter()
        .map(|view| samples_dir().join("views").join(view))
        .collect();
    drop_files(harness, &paths);
    if !text.is_empty() {
        type_into(harness, "Search text", text);
    }
    harness.get_by_label("Find parts").click();
    wait_for_search(harness);
}

/// Where the sketch pad is on screen.
fn pad_rect(harness: &Harness<'_, App>) -> egui::Rect {
    harness.get_by_label(PAD_LABEL).rect()
}

/// Search inputs the workspace's service holds.
fn search_inputs(data_dir: &Path) -> i64 {
    let database =
        rusqlite::Connection::open(data_dir.join("workspace").join(DATABASE_FILE)).unwrap();
    database
        .query_row(
            "SELECT count(*) FROM files WHERE is_search_input = 1",
            [],
            |row| row.get(0),
        )
        .unwrap()
}

/// The history entries the app shows.
fn history_entries(harness: &Harness<'_, App>) -> Vec<HistoryEntry> {
    harness.state().search().history().history().entries.clone()
}

/// The input UIDs of the query bar's views, once indexed.
fn view_uids(harness: &Harness<'_, App>) -> Vec<FileUid> {
    harness
        .state()
        .search()
        .bar()
        .views()
        .iter()
        .map(|slot| match &slot.state {
            ViewState::Indexed(uid) => uid.clone(),
            other => panic!("a view is not indexed: {other:?}"),
        })
        .collect()
}

/// Opens the history with Ctrl+H.
fn open_history(harness: &mut Harness<'_, App>) {
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::H);
    step_until(harness, "the history page", |harness| {
        harness.state().search().page() == SearchPage::History
    });
}

/// Presses "Run again" on the first search of the history and waits for its results.
fn run_first_kept_search(harness: &mut Harness<'_, App>) {
    let before = harness.state().search().searches_started();
    harness
        .get_all_by_label("Run again")
        .next()
        .unwrap()
        .click();
    step_until(harness, "the kept search to start", |harness| {
        harness.state().search().searches_started() > before
    });
    assert_eq!(harness.state().search().page(), SearchPage::Results);
    wait_for_search(harness);
}

/// The position of the first result stored at `path`.
fn rank_of(files: &[String], path: &str) -> usize {
    files
        .iter()
        .position(|file| file == path)
        .unwrap_or_else(|| panic!("{path} is not among {files:?}"))
}

#[test]
fn a_sketched_circle_with_a_hole_finds_the_washer_and_the_flange_before_the_bracket() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    harness.get_by_label("Sketch").click();
    step_until_label(&mut harness, PAD_LABEL);
    harness.check_accessibility();
    harness.get_by_label("Circle").click();
    harness.step();
    let pad = pad_rect(&harness);
    let centre = pad.center();
    // The rim: from the centre outwards, in a few moves as a hand would.
    drag_through(
        &mut harness,
        &[
            centre,
            centre + Vec2::new(30.0, 10.0),
            centre + Vec2::new(80.0, 30.0),
            centre + Vec2::new(100.0, 0.0),
        ],
    );
    // The hole.
    drag_through(
        &mut harness,
        &[
            centre,
            centre + Vec2::new(20.0, 5.0),
            centre + Vec2::new(0.0, 40.0),
        ],
    );
    // A stray freehand scribble, taken back with Undo.
    harness.get_by_label("Freehand").click();
    harness.step();
    drag_through(
        &mut harness,
        &[
            pad.min + Vec2::new(20.0, 20.0),
            pad.min + Vec2::new(60.0, 30.0),
            pad.min + Vec2::new(90.0, 70.0),
        ],
    );
    let sketch = harness.state().search().bar().sketch_pad().sketch().clone();
    assert_eq!(sketch.strokes().len(), 3, "{sketch:?}");
    harness.get_by_label("Undo").click();
    harness.step();
    let strokes = harness
        .state()
        .search()
        .bar()
        .sketch_pad()
        .sketch()
        .strokes()
        .to_vec();
    assert_eq!(strokes.len(), 2);
    let radii: Vec<f32> = strokes
        .iter()
        .map(|stroke| match stroke.shape {
            Shape::Circle { radius, .. } => radius,
            ref other => panic!("not a circle: {other:?}"),
        })
        .collect();
    assert!(
        (radii[0] - 100.0).abs() < 1.0 && (radii[1] - 40.0).abs() < 1.0,
        "{radii:?}"
    );

    // "Find parts" puts the drawing into a view slot and searches by it.
    harness.get_by_label("Find parts").click();
    harness.step();
    let views = harness.state().search().bar().views().to_vec();
    assert_eq!(views.len(), 1);
    let ViewSource::Sketch(image) = &views[0].source else {
        panic!("the view is not the sketch: {views:?}");
    };
    assert_eq!(image.name(), "sketch.png");
    harness.step();
    harness.get_by_label("sketch.png");
    wait_for_search(&mut harness);
    let files = result_files(&harness);
    let bracket = rank_of(&files, "Samples/l-bracket.png");
    for round_part in ["Samples/washer.png", "Samples/flange.png"] {
        assert!(rank_of(&files, round_part) < bracket, "{files:?}");
    }
    assert!(files[0].contains("washer"), "{files:?}");
    assert!(matches!(
        harness.state().search().bar().views()[0].state,
        ViewState::Indexed(_)
    ));
    // The sketch is in the history with a kept copy of its picture.
    step_until(
        &mut harness,
        "the sketch search in the history",
        |harness| !history_entries(harness).is_empty(),
    );
    let history = harness.state().search().history().history().clone();
    let kept = history.kept_path(&history.entries[0].views[0]).unwrap();
    assert_eq!(
        std::fs::read(kept).unwrap(),
        image.png().as_ref(),
        "the copy is the PNG that went up"
    );
    close_app(&runtime, harness);
}

#[test]
fn a_saved_search_survives_a_restart_and_runs_again_by_uid_without_an_upload() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    search_by_sample_views(&mut harness, &["washer-a.png"], "fastener");
    let first_uids = view_uids(&harness);
    let first_results = result_files(&harness);
    assert!(first_results[0].contains("washer"), "{first_results:?}");
    step_until(&mut harness, "the search in the history", |harness| {
        history_entries(harness).len() == 1
    });

    open_history(&mut harness);
    assert!(
        harness
            .query_all_by_label_contains("washer-a.png")
            .next()
            .is_some()
    );
    harness.get_by_label("Save…").click();
    harness.step();
    type_into(&mut harness, "Name", "washer photo");
    harness.get_by_label("Save").click();
    step_until(&mut harness, "the search saved under its name", |harness| {
        history_entries(harness)[0].name.as_deref() == Some("washer photo")
    });
    harness.check_accessibility();
    close_app(&runtime, harness);

    // A new app on the same data folder: the saved search is there.
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    open_history(&mut harness);
    step_until_label(&mut harness, "washer photo");
    let entry = history_entries(&harness)[0].clone();
    assert_eq!(entry.text, "fastener");
    assert_eq!(entry.views[0].input_uid.as_ref(), Some(&first_uids[0]));

    // Run again: by the kept UID, no new search input on the service.
    let inputs = search_inputs(data.path());
    run_first_kept_search(&mut harness);
    assert_eq!(search_inputs(data.path()), inputs, "nothing was uploaded");
    assert_eq!(view_uids(&harness), first_uids);
    assert_eq!(harness.state().search().bar().text, "fastener");
    assert_eq!(result_files(&harness), first_results);
    // It is the same search: its entry counts a second run, still under its name.
    step_until(&mut harness, "the second run in the history", |harness| {
        history_entries(harness)[0].runs == 2
    });
    assert_eq!(history_entries(&harness).len(), 1);
    assert_eq!(
        history_entries(&harness)[0].name.as_deref(),
        Some("washer photo")
    );
    close_app(&runtime, harness);
}

#[test]
fn a_kept_search_whose_input_was_deleted_uploads_its_view_again_from_the_history() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    search_by_sample_views(&mut harness, &["gear-a.png"], "");
    let old_uid = view_uids(&harness)[0].clone();
    step_until(&mut harness, "the search in the history", |harness| {
        history_entries(harness).len() == 1
    });

    // The service forgets the input: its owner deletes it through the interface.
    let address = harness.state().session().unwrap().address.clone();
    let account: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data.path().join("workspace").join(ACCOUNT_FILE_NAME)).unwrap(),
    )
    .unwrap();
    runtime.block_on(async {
        let mut client = ApiClient::new(&address).unwrap();
        client
            .login(&Credentials {
                client_id: DEFAULT_CLIENT_ID.into(),
                username: account["user"].as_str().unwrap().into(),
                password: account["password"].as_str().unwrap().into(),
            })
            .await
            .unwrap();
        client.delete_file(&old_uid, None).await.unwrap();
    });
    let inputs = search_inputs(data.path());

    open_history(&mut harness);
    run_first_kept_search(&mut harness);
    assert_eq!(
        search_inputs(data.path()),
        inputs + 1,
        "the view went up again"
    );
    let new_uid = view_uids(&harness)[0].clone();
    assert_ne!(new_uid, old_uid);
    assert!(result_files(&harness)[0].contains("gear"));
    // The view went up from the history's copy, and the entry now holds the new UID.
    let slot = harness.state().search().bar().views()[0].clone();
    let ViewSource::File(path) = &slot.source else {
        panic!("not a file view: {slot:?}");
    };
    assert!(path.starts_with(data.path().join("history")), "{path:?}");
    step_until(&mut harness, "the new UID in the history", |harness| {
        history_entries(harness)[0].views[0].input_uid.as_ref() == Some(&new_uid)
    });
    assert_eq!(history_entries(&harness).len(), 1);
    close_app(&runtime, harness);
}

#[test]
fn views_given_with_search_on_the_command_line_are_searched_at_start() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut parts = AppParts::new(data.path(), sample_workspace(data.path()));
    parts.initial_views = vec![samples_dir().join("views").join("gear-a.png")];
    let mut harness = app_harness(&runtime, &parts);
    // Nothing clicked: the search is under way from the start and runs after the login.
    assert!(harness.state().search().is_searching());
    wait_logged_in(&mut harness);
    wait_for_search(&mut harness);
    let files = result_files(&harness);
    assert!(files[0].contains("gear"), "{files:?}");
    close_app(&runtime, harness);
}
