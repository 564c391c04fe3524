//! Library sync in the desktop app, driven with egui_kittest: Settings → Library sync previews how
//! the attributes CSV maps onto a folder (and the mapping is changed there), a run shows in the
//! jobs panel and its files arrive in the in-process local workspace with their attributes; a run
//! paused from the jobs panel stays paused across a restart of the app and, resumed, sends only
//! what had not gone up.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;
use partlens_testkit::service as service_support;
use partlens_testkit::sync as sync_support;

use std::sync::Arc;

use app_support::*;
use egui::accesskit::{Role, Toggled};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens::ui::library_sync::PreviewState;
use partlens::ui::{App, Place};
use partlens::workspace::ACCOUNT_FILE_NAME;
use partlens_api::{FileRef, GetFileRequest};
use partlens_tasks::sync::{CsvMapping, SyncPhase, SyncSetup};
use partlens_tasks::{NoLocalWorkspace, PreparedFilePicker, ServiceChoice};
use service_support::{PASSWORD, TestService};
use sync_support::{DroppingProxy, FOLDER_FILES, Loss, client, sample_folder, stored_files};

/// True when the checkbox or radio button `label` is on.
fn is_on(harness: &Harness<'_, App>, label: &str) -> bool {
    harness.get_by_label(label).accesskit_node().toggled() == Some(Toggled::True)
}

/// Steps until the preview of the setup in the settings is ready.
fn wait_for_preview(harness: &mut Harness<'_, App>) {
    step_until(harness, "the preview", |harness| {
        harness
            .state()
            .library_sync()
            .ready_to_run(&harness.state().settings().library_sync)
    });
}

#[test]
fn the_settings_preview_maps_the_csv_and_the_run_shows_in_the_jobs_panel() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let folder = sample_folder(dir.path());
    let mut parts = AppParts::new(&data, empty_workspace(&data, 1));
    parts.picker = Arc::new(PreparedFilePicker::default().with_folders([folder.clone()]));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
    click(&mut harness, "Choose folder…");
    // The folder's name becomes the prefix, and the folder is previewed at once.
    step_until_label_contains(
        &mut harness,
        "6 part files: 6 new, nothing synced from it yet",
    );
    assert_eq!(
        harness.get_by_label("Folder").value().as_deref(),
        Some(folder.to_str().unwrap())
    );
    assert_eq!(
        harness.get_by_label("Target prefix").value().as_deref(),
        Some("library")
    );
    harness.get_by_label_contains("Stored as library/bolt.png");
    harness.get_by_label_contains("2 files that are not part files stay out");
    harness.check_accessibility();

    // The CSV beside the files is offered; its columns get their roles.
    click(&mut harness, "Use attributes.csv");
    step_until_label_contains(&mut harness, "attributes.csv: 6 rows");
    wait_for_preview(&mut harness);
    assert!(is_on(&harness, "File name: file"));
    for column in ["material", "weight(kg)", "region"] {
        assert!(is_on(&harness, &format!("Attribute: {column}")), "{column}");
    }
    harness.get_by_label("weight, unit kg");
    harness.get_by_label_contains("5 files of the folder get attributes, 1 file has no row");
    harness.get_by_label_contains("1 row of the CSV names no file of the folder: missing.png");
    harness.get_by_label("material=steel|stainless steel   weight(kg)=1.2   region=EU|US");
    harness.check_accessibility();

    // Region is left out: the preview is asked again and the rows lose it.
    click(&mut harness, "Attribute: region");
    step_until_label(
        &mut harness,
        "material=steel|stainless steel   weight(kg)=1.2",
    );
    wait_for_preview(&mut harness);
    assert!(!is_on(&harness, "Attribute: region"));
    let mapping = harness
        .state()
        .settings()
        .library_sync
        .attributes
        .clone()
        .unwrap();
    assert_eq!(mapping.file_column.as_deref(), Some("file"));
    assert_eq!(
        mapping.attribute_columns,
        Some(vec!["material".to_owned(), "weight(kg)".to_owned()])
    );

    click(&mut harness, "Run sync");
    assert_eq!(harness.state().place(), Place::Jobs);
    step_until_label_contains(&mut harness, "Done: 6 uploaded");
    harness.get_by_label(&folder.display().to_string());
    harness.check_accessibility();

    // Back in Settings, the preview is of the folder as it is now: every file synced, none new.
    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
    step_until_label_contains(
        &mut harness,
        "6 part files: 0 new, 6 synced before (sent again only if their content changed)",
    );

    // The files are in the local workspace with the mapped attributes, and without region.
    let stored = stored_files(&data.join("workspace"), "library");
    assert_eq!(stored.len(), FOLDER_FILES.len(), "{stored:?}");
    let account: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data.join("workspace").join(ACCOUNT_FILE_NAME)).unwrap(),
    )
    .unwrap();
    let address = harness.state().session().unwrap().address.clone();
    let record = runtime.block_on(async {
        let client = client(
            &address,
            account["user"].as_str().unwrap(),
            account["password"].as_str().unwrap(),
        )
        .await;
        client
            .get_file(&GetFileRequest::new(FileRef::Name(
                "library/flange.png".into(),
            )))
            .await
            .unwrap()
    });
    assert!(
        record
            .attributes
            .contains(&"material=steel|stainless steel".to_owned()),
        "{:?}",
        record.attributes
    );
    assert!(record.attributes.contains(&"weight(kg)=1.2".to_owned()));
    assert!(
        !record
            .attributes
            .iter()
            .any(|text| text.starts_with("region")),
        "{:?}",
        record.attributes
    );
    close_app(&runtime, harness);
}

#[test]
fn a_sync_paused_in_the_jobs_panel_stays_paused_after_a_restart_and_resumes() {
    let runtime = runtime();
    let service = runtime.block_on(TestService::start());
    let proxy = runtime.block_on(DroppingProxy::start(&service.base));
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let folder = sample_folder(dir.path());
    let mut parts = AppParts::new(&data, Arc::new(NoLocalWorkspace("not in this test".into())));
    parts.settings.service = ServiceChoice::remote(&proxy.base, "partlens");
    parts.settings.library_sync = SyncSetup {
        folder: folder.clone(),
        prefix: "Library".into(),
        attributes: Some(CsvMapping {
            csv: folder.join("attributes.csv"),
            ..CsvMapping::default()
        }),
        delete_removed: false,
    };

    let mut harness = app_harness(&runtime, &parts);
    log_in_through_the_form(&mut harness, "admin", PASSWORD);
    wait_logged_in(&mut harness);
    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    harness.step();
    // The setup kept in the settings is previewed as soon as the card shows.
    wait_for_preview(&mut harness);
    // The second upload hangs, so the run is surely under way when it is paused.
    proxy.cut_upload(2, Loss::Hold);
    click(&mut harness, "Run sync");
    step_until_label_contains(&mut harness, "Checking 1 of 6 files, 1 uploaded");
    click(&mut harness, "Pause sync of library");
    step_until_label_contains(&mut harness, "Paused (1 uploaded so far)");
    assert_eq!(stored_files(service.dir.path(), "Library").len(), 1);
    close_app(&runtime, harness);

    // The app starts again: the sync is shown paused, not resumed on its own.
    proxy.restore();
    let mut harness = app_harness(&runtime, &parts);
    log_in_through_the_form(&mut harness, "admin", PASSWORD);
    wait_logged_in(&mut harness);
    harness.get_by_role_and_label(Role::Button, "Jobs").click();
    step_until_label_contains(&mut harness, "Paused (1 uploaded so far)");
    assert!(
        harness
            .state()
            .library_sync()
            .runs()
            .iter()
            .all(|run| matches!(run.phase, SyncPhase::Paused(_)))
    );
    assert_eq!(stored_files(service.dir.path(), "Library").len(), 1);

    click(&mut harness, "Resume sync of library");
    step_until_label_contains(&mut harness, "Done: 5 uploaded, 1 unchanged");
    let stored = stored_files(service.dir.path(), "Library");
    assert_eq!(stored.len(), FOLDER_FILES.len());
    assert!(
        stored.iter().all(|file| file.revision == 1),
        "every file went up once: {stored:?}"
    );
    assert!(matches!(
        harness.state().library_sync().preview(),
        PreviewState::None | PreviewState::Ready { .. }
    ));
    close_app(&runtime, harness);
}
