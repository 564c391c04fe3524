//! The 3D preview and the compare page of the desktop app, driven with egui_kittest against the
//! in-process local service: the sample gear's STL turns in its detail with its measurements and a
//! standard-view button moves the camera, a model result turns in its card on hover, a model this
//! computer has no copy of says why and shows a file the user opens, a model whose read hits the
//! reader's time limit (in a worker process) says so while the window keeps answering and the app's
//! memory stays small, and two ticked results (a card and a table row) open the compare page with
//! the differing attribute marked, a difference picture, and the comparison exported as CSV and read
//! back.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::compare::CompareMode;
use partlens::ui::model_view::camera::StandardView;
use partlens::ui::model_view::{ModelEntry, measure_text};
use partlens::ui::search_place::SearchPage;
use partlens_geometry::{MeshMeasurements, read_mesh};
use partlens_tasks::PreparedFilePicker;
use partlens_tasks::models::{ReaderLimits, Sandbox, model_key_of_file, model_key_of_path};

use app_support::search::*;
use app_support::*;

/// The name the results show for the result stored as `file_name`.
fn result_name(harness: &Harness<'_, App>, file_name: &str) -> String {
    harness
        .state()
        .search()
        .results()
        .rows()
        .iter()
        .find(|row| row.file_name == file_name)
        .unwrap_or_else(|| panic!("no result {file_name}: {:?}", result_files(harness)))
        .name
        .clone()
}

/// The size line of the measurements of a sample model, as the detail shows it.
fn size_text(model: &str) -> String {
    let bytes = std::fs::read(samples_dir().join("models").join(model)).unwrap();
    let measured = MeshMeasurements::of(&read_mesh(".stl", &bytes).unwrap()).unwrap();
    let [x, y, z] = measured.size();
    format!(
        "{} × {} × {} mm",
        measure_text(x),
        measure_text(y),
        measure_text(z)
    )
}

/// The standard view the detail's camera shows.
fn detail_view(harness: &Harness<'_, App>) -> Option<StandardView> {
    harness
        .state()
        .search()
        .detail()
        .model()
        .and_then(|model| model.view().camera().copied())
        .and_then(|camera| camera.standard_view())
}

#[test]
fn the_sample_gear_turns_in_its_detail_with_its_measurements_and_in_its_card_on_hover() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    type_into(&mut harness, "Search text", "gear");
    search_with_enter(&mut harness);
    let name = result_name(&harness, "Samples/models/gear.stl");
    harness.get_by_label(&format!("Open {name}")).click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    // The local workspace's store has the model: it is read and shown in 3D.
    wait_for_detail_model(&mut harness);
    harness.run_steps(2);
    harness.get_by_label("3D view of gear.stl");
    harness.get_by_label("Model measurements");
    harness.get_by_label(&size_text("gear.stl"));
    harness.get_by_label("the local workspace");
    assert_eq!(detail_view(&harness), Some(StandardView::Isometric));

    // A standard view moves the camera to look straight down.
    harness.get_by_label("Top").click();
    harness.run_steps(2);
    assert_eq!(detail_view(&harness), Some(StandardView::Top));
    let camera = harness
        .state()
        .search()
        .detail()
        .model()
        .and_then(|model| model.view().camera().copied())
        .unwrap();
    let toward_viewer = camera.basis().toward_viewer;
    assert!(
        toward_viewer[2] > 0.999_99 && toward_viewer[0].abs() < 1e-6,
        "{toward_viewer:?}"
    );
    // The keyboard picks the views too (Front is 1), with the pointer over the viewport.
    harness.get_by_label("3D view of gear.stl").hover();
    harness.run_steps(1);
    harness.key_press(egui::Key::Num1);
    harness.run_steps(2);
    assert_eq!(detail_view(&harness), Some(StandardView::Front));
    // The picture is still there on request.
    harness.get_by_label("Picture").click();
    harness.run_steps(2);
    assert!(harness.query_by_label("3D view of gear.stl").is_none());

    // Back in the results, the gear model's card turns the model on hover.
    harness.get_by_label("Back to results").click();
    harness.run_steps(2);
    harness.get_by_label(&format!("Open {name}")).hover();
    step_until(&mut harness, "the hovered card's model", |harness| {
        let uid = harness
            .state()
            .search()
            .results()
            .hovered_model()
            .map(|(row, _)| row.uid.clone());
        uid.is_some_and(|uid| {
            harness
                .state()
                .search()
                .models()
                .ready(&model_key_of_file(&uid))
                .is_some()
        })
    });
    close_app(&runtime, harness);
}

#[test]
fn a_model_this_computer_has_no_copy_of_says_why_and_shows_a_file_the_user_opens() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &data.path().join("service"));
    let admin = admin_client(&runtime, &service);
    let washer = samples_dir().join("models").join("washer.stl");
    add_database_file(
        &runtime,
        &admin,
        &washer,
        "Parts/washer.stl",
        &["material=steel"],
    );

    let app_data = data.path().join("app");
    let mut parts = AppParts::new(&app_data, sample_workspace(&app_data));
    parts.settings.service = partlens_tasks::ServiceChoice::remote(&service.base_url(), "partlens");
    parts.picker = Arc::new(PreparedFilePicker::new([vec![washer.clone()]]));
    let mut harness = app_harness(&runtime, &parts);
    log_in_through_the_form(&mut harness, "alice", "alice password");
    wait_logged_in(&mut harness);

    open_result(&mut harness, "washer", "washer.stl");
    // A remote service sends no file content and nothing here uploaded it: the picture stays.
    step_until_label_contains(&mut harness, "this computer has no copy of washer.stl");
    harness.get_by_label("Open model file…");
    assert!(harness.query_by_label("3D view of washer.stl").is_none());
    harness.get_by_label("Zoom in");

    // The user opens a copy: it is shown in 3D with its measurements.
    harness.get_by_label("Open model file…").click();
    let opened = model_key_of_path(&washer);
    step_until(&mut harness, "the opened file in the detail", |harness| {
        harness
            .state()
            .search()
            .detail()
            .model()
            .is_some_and(|model| model.key() == opened)
    });
    wait_for_detail_model(&mut harness);
    harness.run_steps(2);
    harness.get_by_label("3D view of washer.stl");
    harness.get_by_label(&size_text("washer.stl"));
    harness.get_by_label(&washer.display().to_string());
    close_app(&runtime, harness);
}

/// A real STEP file that takes the pure-Rust reader seconds (a build123d screw whose helical
/// thread is one spline face: about 7 s in a test build, at least the 2 s the reader gives that
/// face); `None` (the test is skipped) without the real-world corpus beside the repository, unless
/// `CI` is set.
fn slow_step_model() -> Option<PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld/step");
    let path = folder.join("build123d__M6-1x12-countersunk-screw.step");
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "the real-world corpus is missing: no {}",
        path.display()
    );
    eprintln!("skipped: no real-world corpus at {}", folder.display());
    None
}

/// Makes the app read its 3D previews in workers of its own program with a time limit of `time`;
/// returns the limits.
fn read_previews_within(harness: &Harness<'_, App>, time: Duration) -> ReaderLimits {
    let limits = ReaderLimits {
        time,
        ..ReaderLimits::default()
    };
    harness
        .state()
        .backend()
        .set_preview_sandbox(Sandbox::new(env!("CARGO_BIN_EXE_partlens"), limits));
    limits
}

/// This process's resident memory in bytes (`VmRSS`).
fn resident_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmRSS in /proc/self/status:\n{status}"));
    kib * 1024
}

#[test]
#[cfg_attr(
    feature = "occt",
    ignore = "OpenCASCADE reads the screw in a second: this needs the pure-Rust reader"
)]
fn a_model_past_the_readers_time_limit_says_so_while_the_window_keeps_answering() {
    let Some(step) = slow_step_model() else {
        return;
    };
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut parts = AppParts::new(data.path(), sample_workspace(data.path()));
    parts.picker = Arc::new(PreparedFilePicker::new([vec![step.clone()]]));
    let mut harness = app_harness(&runtime, &parts);
    // Models are read in workers of the app's own program, with a short time limit (long enough for
    // the sample gear on a loaded machine).
    read_previews_within(&harness, Duration::from_secs(5));
    wait_logged_in(&mut harness);

    // A sound model goes through the worker and is shown.
    type_into(&mut harness, "Search text", "gear");
    search_with_enter(&mut harness);
    let name = result_name(&harness, "Samples/models/gear.stl");
    harness.get_by_label(&format!("Open {name}")).click();
    harness.step();
    wait_for_detail_model(&mut harness);
    harness.run_steps(2);
    harness.get_by_label("3D view of gear.stl");
    let memory_before = resident_bytes();

    // The user opens a STEP file the reader cannot finish within a limit of one second.
    let limits = read_previews_within(&harness, Duration::from_secs(1));
    harness.get_by_label("Open model file…").click();
    let opened = model_key_of_path(&step);
    step_until(
        &mut harness,
        "the opened STEP file in the detail",
        |harness| {
            harness
                .state()
                .search()
                .detail()
                .model()
                .is_some_and(|model| model.key() == opened)
        },
    );
    // While it is read, frames keep coming and say so; none waits for the read.
    let reading_since = Instant::now();
    let mut frames_reading = 0_u32;
    let mut longest_frame = Duration::ZERO;
    let reason = loop {
        let frame = Instant::now();
        harness.step();
        longest_frame = longest_frame.max(frame.elapsed());
        match detail_model_entry(&harness) {
            Some(ModelEntry::Unavailable(reason)) => break reason,
            Some(ModelEntry::Ready(_)) => panic!("the slow STEP file was read within 1 s"),
            Some(ModelEntry::Loading) | None => {
                if harness.query_by_label("Reading the model…").is_some() {
                    frames_reading += 1;
                }
            }
        }
        assert!(
            reading_since.elapsed() < DEADLINE,
            "no answer within {DEADLINE:?} of a read limited to {:?}",
            limits.time
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let answered_after = reading_since.elapsed();
    eprintln!(
        "answered after {answered_after:?}; {frames_reading} frames showed the read, the longest \
         took {longest_frame:?}"
    );
    assert!(
        reason.contains("reader's time limit of 1 s"),
        "the preview says: {reason}"
    );
    // The worker's clock starts when the read is asked for, a few frames before this test sees
    // the detail waiting for it: the answer comes at the limit less those frames.
    assert!(
        answered_after >= limits.time.mul_f64(0.5),
        "answered after {answered_after:?}, long before the limit: {reason}"
    );
    assert!(
        frames_reading >= 5,
        "only {frames_reading} frames showed the read in {answered_after:?}"
    );
    // No frame waited for the read (which took the whole limit).
    assert!(
        longest_frame < limits.time,
        "a frame took {longest_frame:?} while the model was read"
    );
    // The limit is said in the detail, and the window still answers.
    harness.run_steps(2);
    step_until_label_contains(&mut harness, "time limit of 1 s");
    harness.get_by_label("Picture").click();
    harness.run_steps(2);
    assert!(
        harness
            .state()
            .search()
            .detail()
            .model()
            .is_some_and(|model| !model.showing_3d())
    );
    // The model was read elsewhere: the app's own memory hardly grew.
    let grown = resident_bytes().saturating_sub(memory_before);
    eprintln!("the app's resident memory grew by {} KiB", grown / 1024);
    assert!(
        grown < 200 * 1024 * 1024,
        "the app's resident memory grew by {} MiB",
        grown / (1024 * 1024)
    );
    close_app(&runtime, harness);
}

#[test]
fn two_ticked_results_are_compared_with_the_differing_attribute_marked_and_exported() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let csv_path = data.path().join("comparison.csv");
    let mut parts = AppParts::new(data.path(), sample_workspace(data.path()));
    parts.picker = Arc::new(PreparedFilePicker::default().with_save_paths([csv_path.clone()]));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    type_into(&mut harness, "Search text", "Acme");
    search_with_enter(&mut harness);
    let gear = result_name(&harness, "Samples/gear.png");
    let flange = result_name(&harness, "Samples/flange.png");
    // With one result ticked there is nothing to compare yet.
    harness.get_by_label(&format!("Compare {gear}")).click();
    harness.run_steps(2);
    assert_eq!(harness.state().search().results().selected_rows().len(), 1);
    // The second is ticked in the table.
    harness.get_by_label("Table").click();
    harness.run_steps(2);
    harness.get_by_label(&format!("Compare {flange}")).click();
    harness.run_steps(2);
    harness.get_by_label("Compare (2)").click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Compare);
    let compared: Vec<String> = harness
        .state()
        .search()
        .compare()
        .rows()
        .iter()
        .map(|row| row.file_name.clone())
        .collect();
    assert_eq!(compared, ["Samples/gear.png", "Samples/flange.png"]);
    harness.run_steps(2);
    harness.get_by_label("material (differs)");
    harness.get_by_label("part_number (differs)");
    harness.get_by_label("supplier");
    assert!(harness.query_by_label("supplier (differs)").is_none());
    // Several values read as a list on the page, as everywhere else (the CSV keeps `a|b`).
    harness.get_by_label("steel, stainless steel");
    assert!(harness.query_by_label("steel|stainless steel").is_none());

    step_until(&mut harness, "both pictures", |harness| {
        harness.state().search().compare().pictures_settled()
    });
    harness.get_by_label("Difference").click();
    harness.run_steps(2);
    assert_eq!(
        harness.state().search().compare().mode(),
        CompareMode::Difference
    );
    step_until_label_contains(&mut harness, "% of the picture differs");

    harness.get_by_label("Export CSV…").click();
    step_until(&mut harness, "the comparison CSV", |_| csv_path.is_file());
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], format!("field,{gear},{flange},differs"), "{csv}");
    assert!(lines.contains(&"supplier,Acme,Acme,no"), "{csv}");
    assert!(
        lines.contains(&"material,steel,steel|stainless steel,yes"),
        "{csv}"
    );
    step_until_label_contains(&mut harness, "The comparison was saved to");
    close_app(&runtime, harness);
}
