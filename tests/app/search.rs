//! The Search place of the desktop app, driven with egui_kittest against the in-process local service:
//! a search by two views of a sample part, text plus an exact attribute, "More like this", the CSV
//! export, a multi-valued attribute edited in the editor, a failed save that keeps its draft, a
//! delete refused with 403, and the drawing data (PMI) view: the sample drawing's page with its
//! dimension items (rows and boxes selecting each other), the empty state, feedback on extracted
//! attributes stored by the service, a feedback over 300 characters refused before sending, a draft
//! kept when leaving, and a feedback that meets a 401 sent after the login.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;

use std::path::Path;
use std::sync::Arc;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::load_state::LoadState;
use partlens::ui::pmi::feedback::{FeedbackNotice, Verdict};
use partlens::ui::search_bar::{ViewSource, ViewState, view_thumbnail_request};
use partlens::ui::search_place::SearchPage;
use partlens::ui::{App, Place};
use partlens_api::{ApiClient, FileRef, FileUid, GetFileRequest};
use partlens_service::admin;
use partlens_tasks::PreparedFilePicker;
use partlens_tasks::thumbnails::thumbnail_of_file_key;

use app_support::search::*;
use app_support::*;

#[test]
fn a_search_by_a_model_finds_it_first_and_its_slot_shows_the_service_picture() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    drop_files(
        &mut harness,
        &[samples_dir().join("models").join("gear.stl")],
    );
    step_until(&mut harness, "the model's view slot", |harness| {
        harness.state().search().bar().views().len() == 1
    });
    harness.get_by_label("gear.stl");
    // Not uploaded yet: the app cannot draw an STL, so the slot asks for no picture.
    let slot = harness.state().search().bar().views()[0].clone();
    assert!(view_thumbnail_request(&slot).is_none());

    harness.get_by_label("Find parts").click();
    wait_for_search(&mut harness);
    let files = result_files(&harness);
    assert_eq!(
        files.first().map(String::as_str),
        Some("Samples/models/gear.stl"),
        "{files:?}"
    );
    // Indexed: the slot shows the picture the service rendered of the model.
    let slot = harness.state().search().bar().views()[0].clone();
    let ViewState::Indexed(input) = &slot.state else {
        panic!("the view is not indexed: {slot:?}");
    };
    let key = thumbnail_of_file_key(input);
    assert_eq!(
        view_thumbnail_request(&slot).map(|request| request.key),
        Some(key.clone())
    );
    step_until(&mut harness, "the model slot's picture", |harness| {
        harness.state().search().textures().is_loaded(&key)
    });
    close_app(&runtime, harness);
}

#[test]
fn a_search_with_two_views_of_a_sample_part_returns_that_part_first() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    assert_eq!(harness.state().place(), Place::Search);

    // Two views of the gear in two formats: they go up two-step, indexed asynchronously.
    let views = [
        samples_dir().join("views").join("gear-a.png"),
        samples_dir().join("views").join("gear-b.jpg"),
    ];
    drop_files(&mut harness, &views);
    step_until(&mut harness, "two view slots", |harness| {
        harness.state().search().bar().views().len() == 2
    });
    harness.get_by_label("gear-a.png");
    harness.get_by_label("gear-b.jpg");
    harness.get_by_label("Find parts").click();
    harness.step();
    assert!(harness.state().search().is_searching());
    wait_for_search(&mut harness);

    let files = result_files(&harness);
    assert_eq!(
        files.first().map(String::as_str),
        Some("Samples/gear.png"),
        "{files:?}"
    );
    // Both inputs are indexed and their UIDs kept for the next search.
    let bar = harness.state().search().bar();
    assert!(
        bar.views()
            .iter()
            .all(|slot| matches!(slot.state, ViewState::Indexed(_))),
        "{:?}",
        bar.views()
    );

    // The first card is on screen; thumbnails come through the task layer into the cache.
    let first_name = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .next()
        .unwrap()
        .name
        .clone();
    harness.get_by_label(&format!("Open {first_name}"));
    step_until(&mut harness, "thumbnails in the cache", |harness| {
        harness.state().search().textures().loaded_count() > 0
    });
    harness.check_accessibility();

    // "More like this" searches by the first result itself, by its own UID, as the single view
    // of a new search: nothing is uploaded.
    let first_uid = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .next()
        .unwrap()
        .uid
        .clone();
    harness
        .get_all_by_label("More like this")
        .next()
        .unwrap()
        .click();
    harness.step();
    let views = harness.state().search().bar().views();
    assert_eq!(views.len(), 1);
    assert!(
        matches!(&views[0].source, ViewSource::LibraryFile { uid, .. } if *uid == first_uid),
        "{views:?}"
    );
    wait_for_search(&mut harness);
    assert_eq!(
        result_files(&harness).first().map(String::as_str),
        Some("Samples/gear.png")
    );
    assert_eq!(
        harness.state().search().bar().views()[0].state,
        ViewState::Indexed(first_uid),
        "searched by the library file's own UID"
    );
    close_app(&runtime, harness);
}

#[test]
fn text_plus_an_exact_attribute_narrows_the_results_and_the_list_exports_to_csv() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let csv_path = data.path().join("results.csv");
    let mut parts = AppParts::new(data.path(), sample_workspace(data.path()));
    parts.picker = Arc::new(PreparedFilePicker::default().with_save_paths([csv_path.clone()]));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    type_into(&mut harness, "Search text", "Acme");
    search_with_enter(&mut harness);
    let mut by_text = result_files(&harness);
    by_text.sort();
    // The flange's DXF drawing and its STL and STEP models share the flange's supplier and material.
    assert_eq!(
        by_text,
        [
            "Samples/drawings/flange-drawing.dxf",
            "Samples/flange.png",
            "Samples/gear.png",
            "Samples/hinge.png",
            "Samples/models/flange.step",
            "Samples/models/flange.stl",
            "Samples/models/gear.stl",
            "Samples/plate-with-holes.png"
        ]
    );

    // An exact material: one value of a multi-valued attribute is enough to match.
    harness.get_by_label("Add filter").click();
    harness.step();
    type_into(&mut harness, "Attribute", "material");
    harness.get_by_label("Match").click();
    step_until_label(&mut harness, "is exactly");
    harness.get_by_label("is exactly").click();
    harness.step();
    type_into(&mut harness, "Value", "stainless steel");
    search_with_enter(&mut harness);
    let mut narrowed = result_files(&harness);
    narrowed.sort();
    assert_eq!(
        narrowed,
        [
            "Samples/drawings/flange-drawing.dxf",
            "Samples/flange.png",
            "Samples/hinge.png",
            "Samples/models/flange.step",
            "Samples/models/flange.stl"
        ]
    );

    harness.get_by_label("Export CSV…").click();
    step_until(&mut harness, "the CSV file", |_| csv_path.is_file());
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert!(
        csv.starts_with("rank,name,file name,uid,score,band,"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 6, "{csv}");
    assert!(csv.contains("steel|stainless steel"), "{csv}");
    step_until_label_contains(&mut harness, "The result list was saved to");
    close_app(&runtime, harness);
}

/// The attributes of a file as the service has them.
fn attributes_of(
    runtime: &tokio::runtime::Runtime,
    client: &ApiClient,
    uid: &FileUid,
) -> Vec<String> {
    runtime.block_on(async {
        client
            .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
            .await
            .unwrap()
            .attributes
    })
}

#[test]
fn a_multi_valued_attribute_edited_in_the_editor_round_trips_through_the_service() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &data.path().join("service"));
    let boss = admin_client(&runtime, &service);
    let image = data.path().join("bracket.png");
    write_part_png(&image, 3);
    let uid = add_database_file(
        &runtime,
        &boss,
        &image,
        "Library/bracket.png",
        &["material=steel|stainless steel", "supplier=Acme"],
    );
    let mut harness = app_on(&runtime, data.path(), &service, "boss", "boss password");

    open_result(&mut harness, "bracket", "bracket.png");
    harness.get_by_label("material: steel, stainless steel");
    harness.get_by_label("Edit attributes").click();
    step_until_label(&mut harness, "steel ×");
    assert_eq!(harness.state().search().page(), SearchPage::Attributes);
    harness.get_by_label("stainless steel ×");

    // A third value, typed into the material row and added as a chip.
    let material_values = harness.get_all_by_label("Values").next().unwrap();
    material_values.focus();
    harness.step();
    harness
        .get_all_by_label("Values")
        .next()
        .unwrap()
        .type_text("duplex steel");
    harness.step();
    harness.key_press(egui::Key::Enter);
    harness.step();
    harness.get_by_label("duplex steel ×");
    harness.check_accessibility();
    harness.get_by_label("Save").click();
    step_until_label(&mut harness, "Saved 2 attribute(s).");

    let mut saved = attributes_of(&runtime, &boss, &uid);
    saved.sort();
    assert_eq!(
        saved,
        [
            "material=steel|stainless steel|duplex steel",
            "supplier=Acme"
        ]
    );
    // The editor starts over from what the service has; nothing is left as a draft.
    assert!(harness.state().search().drafts().is_empty());
    harness.get_by_label("Back to the file").click();
    step_until_label(
        &mut harness,
        "material: steel, stainless steel, duplex steel",
    );
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

#[test]
fn a_save_that_fails_keeps_the_draft_and_offers_it_again() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service_dir = data.path().join("service");
    let service = company_service(&runtime, &service_dir);
    let boss = admin_client(&runtime, &service);
    let image = data.path().join("hinge.png");
    write_part_png(&image, 4);
    let uid = add_database_file(
        &runtime,
        &boss,
        &image,
        "Library/hinge.png",
        &["material=brass"],
    );
    let mut harness = app_as_alice(&runtime, data.path(), &service);

    open_result(&mut harness, "hinge", "hinge.png");
    harness.get_by_label("Edit attributes").click();
    step_until_label(&mut harness, "brass ×");
    type_into(&mut harness, "Values", "bronze");
    harness.key_press(egui::Key::Enter);
    harness.step();
    harness.get_by_label("bronze ×");

    // An admin resets alice's password: her session ends, and the save meets a 401.
    admin::add_user(&service_dir, "Acme", "alice", "new password", false).unwrap();
    harness.get_by_label("Save").click();
    step_until_label_contains(&mut harness, "your edits are kept as a draft");
    step_until(&mut harness, "the login form", |harness| {
        harness.state().login_open()
    });
    let drafts = harness.state().search().drafts();
    assert_eq!(drafts.len(), 1);
    let draft = drafts.get(&uid).unwrap();
    assert_eq!(
        draft.to_attributes().unwrap()[0].to_string(),
        "material=brass|bronze"
    );
    assert_eq!(attributes_of(&runtime, &boss, &uid), ["material=brass"]);

    // After the login, leaving and coming back offers the draft again; restored, it saves.
    log_in_through_the_form(&mut harness, "alice", "new password");
    wait_logged_in(&mut harness);
    harness.get_by_label("Back to the file").click();
    step_until_label(&mut harness, "Edit attributes");
    harness.get_by_label("Edit attributes").click();
    step_until_label(&mut harness, "Restore my edits");
    harness.get_by_label("Restore my edits").click();
    // Wait for the frame without the offer, so the buttons below it have settled.
    step_until(&mut harness, "the offer gone", |harness| {
        harness.query_by_label("Restore my edits").is_none()
    });
    harness.get_by_label("bronze ×");
    harness.get_by_label("Save").click();
    step_until_label(&mut harness, "Saved 1 attribute(s).");
    assert_eq!(
        attributes_of(&runtime, &boss, &uid),
        ["material=brass|bronze"]
    );
    assert!(harness.state().search().drafts().is_empty());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

#[test]
fn a_delete_refused_with_403_says_why() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &data.path().join("service"));
    let boss = admin_client(&runtime, &service);
    let image = data.path().join("pulley.png");
    write_part_png(&image, 5);
    let uid = add_database_file(&runtime, &boss, &image, "Library/pulley.png", &[]);
    let mut harness = app_as_alice(&runtime, data.path(), &service);

    open_result(&mut harness, "pulley", "pulley.png");
    harness.check_accessibility();
    harness.get_by_label("Delete file…").click();
    harness.step();
    harness.get_by_label_contains("This cannot be undone");
    harness
        .get_by_role_and_label(Role::Button, "Delete")
        .click();
    step_until_label_contains(
        &mut harness,
        "Only an admin may delete company files; you can delete the search inputs you uploaded.",
    );
    // The file is still there.
    assert_eq!(attributes_of(&runtime, &boss, &uid), Vec::<String>::new());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

// ---- drawing data (PMI) and feedback -------------------------------------------------------------

/// Opens the drawing data of the file shown in the detail view and waits for it.
fn open_pmi(harness: &mut Harness<'_, App>) {
    harness.get_by_label("Drawing data (PMI)").click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Pmi);
    step_until(harness, "the drawing data", |harness| {
        matches!(harness.state().search().pmi().status(), LoadState::Ready(_))
    });
    harness.step();
}

/// The feedback rows the service stored: (id, file, feedback, external user, attributes).
fn stored_feedback(service_dir: &Path) -> Vec<(String, String, String, String, String)> {
    let database =
        rusqlite::Connection::open(service_dir.join(partlens_store::DATABASE_FILE)).unwrap();
    let mut statement = database
        .prepare(
            "SELECT id, file_uid, feedback, external_user, attributes FROM feedback ORDER BY id",
        )
        .unwrap();
    statement
        .query_map([], |row| {
            Ok((
                row.get(0)?,
                row.get(1)?,
                row.get(2)?,
                row.get(3)?,
                row.get(4)?,
            ))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Clicks the widget with this label after scrolling it into the window (kittest clicks with the
/// pointer, at the widget's place).
fn click_shown(harness: &mut Harness<'_, App>, label: &str) {
    harness.get_by_label(label).scroll_to_me();
    step_until(harness, &format!("\"{label}\" in the window"), |harness| {
        let rect = harness.get_by_label(label).rect();
        let screen = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1100.0, 720.0));
        screen.contains_rect(rect)
    });
    harness.get_by_label(label).click();
    harness.step();
}

/// Replaces the text of the field with this label: focus, delete what is there, type.
fn replace_text(harness: &mut Harness<'_, App>, label: &str, text: &str) {
    type_into(harness, label, "");
    let length = harness
        .get_by_label(label)
        .value()
        .map(|value| value.chars().count())
        .unwrap_or(0);
    harness.key_press(egui::Key::End);
    for _ in 0..length {
        harness.key_press(egui::Key::Backspace);
    }
    harness.step();
    harness.get_by_label(label).type_text(text);
    harness.step();
}

#[test]
fn feedback_with_a_corrected_attribute_is_stored_and_a_file_without_pmi_says_so() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service_dir = data.path().join("service");
    let service = company_service(&runtime, &service_dir);
    let boss = admin_client(&runtime, &service);
    let image = data.path().join("gasket.png");
    write_part_png(&image, 6);
    let uid = add_database_file(&runtime, &boss, &image, "Library/gasket.png", &[]);
    let mut harness = app_on(&runtime, data.path(), &service, "boss", "boss password");

    open_result(&mut harness, "gasket", "gasket.png");
    open_pmi(&mut harness);
    // An image has no PMI: the empty state, with the attributes the service extracted below it.
    harness.get_by_label("No PMI was extracted from this file");
    assert!(harness.query_by_label("Show boxes").is_none());
    harness.get_by_label("width_px=128");
    harness.check_accessibility();

    // height_px is wrong: its correct value is typed over the extracted one (which marks it wrong).
    replace_text(&mut harness, "Correct value of height_px", "120");
    type_into(&mut harness, "Explanation", "The height includes the rim.");
    let draft = harness.state().search().pmi().feedback().draft().unwrap();
    assert_eq!(draft.user, "boss");
    assert_eq!(draft.reviews[1].verdict, Verdict::Wrong);
    click_shown(&mut harness, "Send feedback");
    step_until(&mut harness, "the feedback to be sent", |harness| {
        matches!(
            harness.state().search().pmi().feedback().notice(),
            Some(FeedbackNotice::Sent(_))
        )
    });
    let Some(FeedbackNotice::Sent(feedback_id)) =
        harness.state().search().pmi().feedback().notice().cloned()
    else {
        unreachable!()
    };
    harness.step();
    harness.get_by_label(&feedback_id);
    assert_eq!(
        stored_feedback(&service_dir),
        [(
            feedback_id,
            uid.to_string(),
            "The height includes the rim.".to_owned(),
            "boss".to_owned(),
            "[\"height_px=120\"]".to_owned()
        )]
    );
    // The form starts over, and no draft is left.
    assert!(harness.state().search().feedback_drafts().is_empty());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

#[test]
fn feedback_over_300_characters_is_refused_kept_and_sent_after_a_401_and_login() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service_dir = data.path().join("service");
    let service = company_service(&runtime, &service_dir);
    let boss = admin_client(&runtime, &service);
    let image = data.path().join("shim.png");
    write_part_png(&image, 7);
    add_database_file(&runtime, &boss, &image, "Library/shim.png", &[]);
    let mut harness = app_as_alice(&runtime, data.path(), &service);

    open_result(&mut harness, "shim", "shim.png");
    open_pmi(&mut harness);
    harness.get_by_label("width_px=128").click();
    harness.step();
    type_into(&mut harness, "Explanation", &"w".repeat(301));
    step_until_label(&mut harness, "301/300");
    click_shown(&mut harness, "Send feedback");
    step_until_label_contains(&mut harness, "Shorten it by 1");
    assert!(stored_feedback(&service_dir).is_empty());

    // Leaving the view keeps the form; coming back brings it again.
    harness.get_by_label("Back to the file").click();
    step_until_label(&mut harness, "Drawing data (PMI)");
    assert_eq!(harness.state().search().feedback_drafts().len(), 1);
    open_pmi(&mut harness);
    let draft = harness.state().search().pmi().feedback().draft().unwrap();
    assert_eq!(draft.explanation.chars().count(), 301);
    assert!(draft.reviews[0].selected);

    // 300 characters pass; the session has ended meanwhile, so the send waits for the login.
    type_into(&mut harness, "Explanation", "");
    harness.key_press(egui::Key::End);
    harness.key_press(egui::Key::Backspace);
    step_until_label(&mut harness, "300/300");
    admin::add_user(&service_dir, "Acme", "alice", "new password", false).unwrap();
    click_shown(&mut harness, "Send feedback");
    step_until(&mut harness, "the login form", |harness| {
        harness.state().login_open()
    });
    step_until(
        &mut harness,
        "the feedback waiting for the login",
        |harness| {
            harness.state().search().pmi().feedback().notice()
                == Some(&FeedbackNotice::AwaitingLogin)
        },
    );
    assert!(stored_feedback(&service_dir).is_empty());
    log_in_through_the_form(&mut harness, "alice", "new password");
    step_until(
        &mut harness,
        "the feedback sent after the login",
        |harness| {
            matches!(
                harness.state().search().pmi().feedback().notice(),
                Some(FeedbackNotice::Sent(_))
            )
        },
    );
    let stored = stored_feedback(&service_dir);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0].2, "w".repeat(300));
    assert_eq!(stored[0].3, "alice");
    assert_eq!(stored[0].4, "[\"width_px=128\"]");
    assert!(harness.state().search().feedback_drafts().is_empty());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

#[test]
fn the_sample_drawing_shows_its_page_with_the_dimension_items_and_boxes_select_rows() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    // A word of the drawing's note finds it.
    open_result(&mut harness, "deburr", "flange-drawing.dxf");
    open_pmi(&mut harness);
    let pmi = harness.state().search().pmi().data().unwrap().clone();
    assert_eq!(pmi.pages.len(), 1);
    let items = &pmi.pages[0].items;
    let diameter = items
        .iter()
        .position(|item| item.type_id == 2 && item.text == "Ø60 H7 ±0.015")
        .unwrap();
    // The dimension items are listed, and the legend counts them.
    harness.get_by_label("Dimension: Ø60 H7 ±0.015");
    harness.get_by_label("Dimension: Ø160");
    let dimensions = items.iter().filter(|item| item.type_id == 2).count();
    harness.get_by_label(&format!("Dimension ({dimensions})"));
    assert!(
        harness
            .state()
            .search()
            .pmi()
            .feedback()
            .draft()
            .unwrap()
            .reviews
            .iter()
            .any(|review| review.extracted == "part_number=PL-1002")
    );
    // The page picture is the record's large image, loaded through the task layer.
    step_until(&mut harness, "the page picture", |harness| {
        harness.state().search().textures().loaded_count() > 0
            && harness
                .query_by_label("Loading the page picture…")
                .is_none()
    });

    // A row selects its item; a box selects its item.
    harness.get_by_label("Dimension: Ø60 H7 ±0.015").click();
    harness.step();
    assert_eq!(harness.state().search().pmi().selected(), Some(diameter));
    let note = items.iter().position(|item| item.type_id == 1).unwrap();
    let note_box = format!("Note box: {}", items[note].text);
    harness.get_by_label(&note_box).click();
    harness.step();
    assert_eq!(harness.state().search().pmi().selected(), Some(note));
    // The free text holds the note (besides its row and its box).
    assert!(
        harness
            .get_all_by_label_contains("DEBURR BOLT HOLES")
            .any(|node| node.value().is_some_and(|text| text.contains("PL-1002")))
    );
    harness.check_accessibility();

    // Feedback on the drawing: the material read from the title block gets a corrected value.
    let material = harness
        .state()
        .search()
        .pmi()
        .feedback()
        .draft()
        .unwrap()
        .reviews
        .iter()
        .find(|review| review.name() == "material")
        .unwrap()
        .extracted
        .clone();
    harness.get_by_label(&material).click();
    harness.step();
    replace_text(
        &mut harness,
        "Correct value of material",
        "STAINLESS STEEL 1.4404",
    );
    type_into(&mut harness, "Explanation", "Revision C changed the grade.");
    click_shown(&mut harness, "Send feedback");
    step_until(&mut harness, "the feedback to be sent", |harness| {
        matches!(
            harness.state().search().pmi().feedback().notice(),
            Some(FeedbackNotice::Sent(_))
        )
    });
    let stored = stored_feedback(&data.path().join("workspace"));
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert_eq!(stored[0].2, "Revision C changed the grade.");
    assert_eq!(stored[0].3, "tester");
    assert_eq!(stored[0].4, "[\"material=STAINLESS STEEL 1.4404\"]");
    close_app(&runtime, harness);
}
