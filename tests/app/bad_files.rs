//! Bad files, driven with egui_kittest against the in-process local workspace: a search by a view
//! the service cannot read shows the service's reason and asks for another view instead of offering
//! *Try again*.

use crate::support::*;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::results::ResultsStatus;

#[test]
fn a_view_the_service_cannot_read_shows_its_reason_and_no_try_again() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let fake = dir.path().join("fake.png");
    write_broken_png(&fake);
    let mut parts = AppParts::new(&data, sample_workspace(&data));
    parts.initial_views = vec![fake];
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    step_until(&mut harness, "the search to fail", |harness| {
        matches!(
            harness.state().search().results().status(),
            ResultsStatus::Failed { .. }
        )
    });
    let ResultsStatus::Failed { message, retry } =
        harness.state().search().results().status().clone()
    else {
        unreachable!("matched above");
    };
    assert!(!retry, "{message}");
    assert!(
        message.starts_with("View 1 (fake.png) could not be indexed: "),
        "{message}"
    );
    // The service's own words (its X-Failure-Reason), not "the service reported it failed".
    assert!(message.contains("cannot decode"), "{message}");
    assert!(!message.contains("reported it failed"), "{message}");
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("cannot decode")
            .next()
            .is_some()
    );
    assert!(harness.query_by_label("Try again").is_none());
    assert!(harness.query_all_by_label("Add views…").next().is_some());
    close_app(&runtime, harness);
}

#[test]
fn a_picture_too_small_to_search_by_is_warned_about_and_small_sizes_read_in_bytes() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let tiny = dir.path().join("tiny.png");
    image::RgbImage::from_pixel(1, 1, image::Rgb([200, 40, 40]))
        .save(&tiny)
        .unwrap();
    let tiny_bytes = std::fs::metadata(&tiny).unwrap().len();
    assert!(tiny_bytes < 1000);
    let parts = AppParts::new(&data, sample_workspace(&data));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    harness
        .get_by_role_and_label(egui::accesskit::Role::Button, "Upload")
        .click();
    harness.step();
    drop_files(&mut harness, std::slice::from_ref(&tiny));
    step_until_label_contains(&mut harness, "tiny.png is 1 × 1 px");
    harness.get_by_label("Company database file").click();
    harness.step();
    harness.get_by_label_contains("too small to search by");
    // A normal picture gets no warning.
    let fine = dir.path().join("fine.png");
    write_part_png(&fine, 1);
    drop_files(&mut harness, &[fine]);
    harness.step();
    assert_eq!(
        harness
            .query_all_by_label_contains("too small to search by")
            .count(),
        1
    );

    harness.get_by_label("Upload 2 files").click();
    // The jobs list gives the tiny file's size in bytes, not "1 KB".
    step_until_label(&mut harness, &format!("{tiny_bytes} B"));
    close_app(&runtime, harness);
}
