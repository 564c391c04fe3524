//! The service away, driven with egui_kittest against a real service on 127.0.0.1 that is stopped
//! under the app and started again on the same address and data (as an upgrade does): one banner
//! says so with what is kept and *Retry*, no notice a failed request; the search and the upload
//! that met it wait, and both finish once the service is back and *Retry* is pressed.

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use partlens_service::{RunningService, ServiceConfig};
use partlens_tasks::{Command, JobPhase, JobRole, UploadSpec};

use crate::support::*;

/// The banner's words.
const AWAY: &str = "The service cannot be reached";

#[test]
fn a_service_stopped_under_the_app_is_said_once_and_the_work_waits_for_it() {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service_dir = dir.path().join("service");
    let service = company_service(&runtime, &service_dir);
    let address = service.addr();
    let boss = admin_client(&runtime, &service);
    let bracket = dir.path().join("bracket.png");
    write_part_png(&bracket, 3);
    add_database_file(&runtime, &boss, &bracket, "Library/bracket.png", &[]);
    let mut harness = app_on(
        &runtime,
        &dir.path().join("app"),
        &service,
        "boss",
        "boss password",
    );

    // Stopped under the app (an upgrade stops it, then starts the new build on the same data).
    runtime.block_on(service.shutdown());
    type_into(&mut harness, "Search text", "bracket");
    harness.key_press(egui::Key::Enter);
    let upload = dir.path().join("pulley.png");
    write_part_png(&upload, 5);
    harness
        .state()
        .backend()
        .send(Command::Upload(vec![UploadSpec {
            path: upload,
            role: JobRole::Database {
                stored_path: "Library/pulley.png".into(),
                attributes: Vec::new(),
                category_id: None,
                index_components: false,
            },
            index_async: false,
        }]));
    step_until(&mut harness, "the banner", |harness| {
        painted_count(harness, AWAY) == 1
    });
    step_until(&mut harness, "the upload to wait", |harness| {
        harness
            .state()
            .jobs()
            .first()
            .is_some_and(|job| job.waiting_for_service)
    });
    harness.step();
    assert_eq!(painted_count(&harness, AWAY), 1, "one banner");
    harness.get_by_label_contains("Kept: 1 upload(s)");
    assert!(harness.state().search().is_searching(), "the search waits");
    assert!(
        harness.state().notices().messages().is_empty(),
        "no notice for each failed request: {:?}",
        harness.state().notices().messages()
    );
    assert!(!matches!(
        harness.state().jobs()[0].phase,
        JobPhase::Failed { .. }
    ));

    // Back on the same address and data: Retry, and the waiting work finishes.
    let service = runtime.block_on(async {
        let mut config = ServiceConfig::new(&service_dir);
        config.addr = address;
        RunningService::start(config).await.unwrap()
    });
    harness.get_by_role_and_label(Role::Button, "Retry").click();
    step_until(
        &mut harness,
        "the banner gone and the search done",
        |harness| {
            harness.state().search().results().status()
                == &partlens::ui::results::ResultsStatus::Ready
                && painted_count(harness, AWAY) == 0
        },
    );
    assert_eq!(
        result_files(&harness).first().map(String::as_str),
        Some("Library/bracket.png")
    );
    step_until(&mut harness, "the upload done", |harness| {
        matches!(harness.state().jobs()[0].phase, JobPhase::Done { .. })
    });
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}
