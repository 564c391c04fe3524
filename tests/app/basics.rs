//! The desktop app driven with egui_kittest: clicks, typing and dropped files on the real `App`,
//! with the task layer on a tokio runtime owned by each test.

use crate::support as app_support;

use std::sync::Arc;

use egui::accesskit::Role;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens_tasks::{NoLocalWorkspace, PreparedFilePicker, ServiceChoice};
use std::path::PathBuf;

use app_support::*;
use egui_kittest::Harness;
use partlens::ui::{App, ConnectionState, Place};
use partlens::workspace::{LocalServiceLauncher, WorkspaceConfig};
use partlens_service::{RunningService, ServiceConfig, admin};
use partlens_tasks::{JobPhase, JobRole};

/// A launcher for tests that never open the local workspace.
fn no_local_workspace() -> Arc<NoLocalWorkspace> {
    Arc::new(NoLocalWorkspace("not in this test".into()))
}

/// A remote service nobody listens on (the discard port of the loopback address).
fn unreachable_remote() -> ServiceChoice {
    ServiceChoice::remote("http://127.0.0.1:9", "partlens")
}

#[test]
fn a_remote_service_without_a_login_asks_for_one_and_esc_closes_the_form() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut parts = AppParts::new(data.path(), no_local_workspace());
    parts.settings.service = unreachable_remote();
    let mut harness = app_harness(&runtime, &parts);

    step_until(&mut harness, "the login form", |harness| {
        harness.state().login_open()
    });
    assert_eq!(harness.state().connection(), &ConnectionState::NeedsLogin);
    assert_eq!(
        harness.get_by_label("Service address").value().as_deref(),
        Some("http://127.0.0.1:9")
    );

    harness.get_by_label("User").focus();
    harness.step();
    harness.get_by_label("User").type_text("alice");
    harness.get_by_label("Password").focus();
    harness.step();
    harness.get_by_label("Password").type_text("secret");
    harness.step();
    harness
        .get_by_role_and_label(Role::Button, "Log in")
        .click();
    step_until_label_contains(&mut harness, "could not be reached");
    assert!(
        harness.state().login_open(),
        "the form stays open after a failure"
    );

    harness.key_press(egui::Key::Escape);
    step_until(&mut harness, "the form to close", |harness| {
        !harness.state().login_open()
    });
    step_until_label_contains(&mut harness, "You are not logged in to http://127.0.0.1:9");
    harness
        .get_by_role_and_label(Role::Button, "Log in")
        .click();
    step_until_label(&mut harness, "User");
    assert!(harness.state().login_open());
    assert_eq!(
        harness.get_by_label("User").value().as_deref(),
        Some("alice"),
        "what was typed is kept"
    );
}

#[test]
fn dropped_files_land_in_the_upload_form_with_folder_and_name_prefilled() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut parts = AppParts::new(data.path(), no_local_workspace());
    parts.settings.service = unreachable_remote();
    let mut harness = app_harness(&runtime, &parts);
    step_until(&mut harness, "the login form", |harness| {
        harness.state().login_open()
    });
    harness.key_press(egui::Key::Escape);
    harness.step();

    let library = data.path().join("library");
    std::fs::create_dir_all(&library).unwrap();
    let files = [library.join("flange.png"), library.join("bracket.png")];
    for (seed, file) in files.iter().enumerate() {
        write_part_png(file, seed as u32);
    }
    // Dropped on any place but Search (where they become the views of a search).
    harness.get_by_role_and_label(Role::Button, "Jobs").click();
    harness.step();
    drop_files(&mut harness, &files);
    step_until_label(&mut harness, "Upload 2 files");
    assert_eq!(harness.state().place(), Place::Upload);

    harness.get_by_label("Company database file").click();
    harness.step();
    harness.step();
    assert_eq!(
        harness
            .get_by_label("Folder for flange.png")
            .value()
            .as_deref(),
        Some("library")
    );
    assert_eq!(
        harness
            .get_by_label("Name for bracket.png")
            .value()
            .as_deref(),
        Some("bracket.png")
    );
    harness.get_by_label("Remove bracket.png").click();
    step_until_label(&mut harness, "Upload 1 file");
}

#[test]
fn every_view_names_its_widgets_and_the_keyboard_shortcuts_work() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let files = [data.path().join("a.png"), data.path().join("b.png")];
    for (seed, file) in files.iter().enumerate() {
        write_part_png(file, seed as u32);
    }
    let mut parts = AppParts::new(data.path(), no_local_workspace());
    parts.settings.service = unreachable_remote();
    parts.picker = Arc::new(PreparedFilePicker::new([files.to_vec()]));
    let mut harness = app_harness(&runtime, &parts);
    step_until_label(&mut harness, "Password");
    harness.check_accessibility();

    // Esc closes the login form; Ctrl+O asks the (injected) file dialog.
    harness.key_press(egui::Key::Escape);
    harness.step();
    assert!(!harness.state().login_open());
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::O);
    step_until_label(&mut harness, "Upload 2 files");
    assert_eq!(harness.state().place(), Place::Upload);
    harness.check_accessibility();
    harness.get_by_label("Company database file").click();
    harness.step();
    harness.get_by_label("Add attribute").click();
    step_until_label(&mut harness, "Attribute 1 value");
    harness.check_accessibility();

    // Not logged in: the jobs wait for the login, and can be cancelled meanwhile.
    harness.get_by_label("Upload 2 files").click();
    step_until(&mut harness, "two waiting jobs", |harness| {
        harness.query_all_by_label("Waiting for login").count() == 2
    });
    harness.check_accessibility();
    harness.get_by_label("Cancel a.png").click();
    step_until_label(&mut harness, "Retry a.png");
    assert!(harness.query_by_label("Remove job a.png").is_some());
    harness.check_accessibility();

    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    step_until_label(&mut harness, "Service address");
    harness.check_accessibility();

    // Ctrl+F goes to Search and puts the focus in the search field.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::F);
    step_until(&mut harness, "the focused search field", |harness| {
        harness
            .query_by_label("Search text")
            .is_some_and(|field| field.accesskit_node().is_focused())
    });
    assert_eq!(harness.state().place(), Place::Search);
    harness.check_accessibility();
}

// ---- against the in-process local service ---------------------------------------------------------

/// Drops `files`, keeps them as search inputs (asynchronous indexing) or makes them database files,
/// and presses Upload.
fn upload_through_the_form(harness: &mut Harness<'_, App>, files: &[PathBuf], database: bool) {
    // On the Search place dropped files become search views; the upload form takes them here.
    harness
        .get_by_role_and_label(Role::Button, "Upload")
        .click();
    harness.step();
    drop_files(harness, files);
    let button = if files.len() == 1 {
        "Upload 1 file".to_owned()
    } else {
        format!("Upload {} files", files.len())
    };
    step_until_label(harness, &button);
    harness
        .get_by_label(if database {
            "Company database file"
        } else {
            "Search input"
        })
        .click();
    harness.step();
    harness.get_by_label(&button).click();
    step_until(harness, "the jobs view", |harness| {
        harness.state().place() == Place::Jobs
    });
}

/// The number of jobs whose state label reads `text`.
fn jobs_reading(harness: &Harness<'_, App>, text: &str) -> usize {
    harness.query_all_by_label(text).count()
}

/// The only job's failure reason is cut short in its column; with the pointer resting on it, its
/// whole text is painted once: egui's tooltip of a truncated label, not a second tooltip of the
/// same words over it (the walkthrough's screenshot 06).
fn reason_is_shown_whole_once_on_hover(harness: &mut Harness<'_, App>) {
    let JobPhase::Failed { reason } = harness.state().jobs()[0].phase.clone() else {
        panic!(
            "the job has not failed: {:?}",
            harness.state().jobs()[0].phase
        );
    };
    // Its end, which only a whole painting of the reason holds.
    let end: String = {
        let chars: Vec<char> = reason.chars().collect();
        chars[chars.len().saturating_sub(24)..].iter().collect()
    };
    harness.run_steps(2);
    let in_the_row = painted_texts(harness)
        .into_iter()
        .find(|text| text.is_visible() && text.text == reason)
        .unwrap_or_else(|| panic!("the reason {reason:?} is not painted in its row"));
    assert!(
        in_the_row.elided,
        "the reason fits its column at this size, so nothing is shown on hover: {reason:?}"
    );
    assert_eq!(painted_whole_count(harness, &end), 0, "no tooltip yet");

    harness.get_by_label(&reason).hover();
    step_until(harness, "the reason's tooltip", |harness| {
        painted_whole_count(harness, &end) > 0
    });
    // Resting there a while longer shows nothing more.
    harness.run_steps(4);
    assert_eq!(
        painted_whole_count(harness, &end),
        1,
        "the reason {reason:?} is painted whole more than once on hover"
    );
}

#[test]
fn the_local_workspace_opens_logged_in_and_a_new_one_gets_the_sample_library() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let samples = data.path().join("samples");
    std::fs::create_dir_all(&samples).unwrap();
    write_part_png(&samples.join("flange.png"), 1);
    write_part_png(&samples.join("bracket.png"), 2);
    std::fs::write(
        samples.join("manifest.json"),
        r#"{"parts":[
            {"file":"flange.png","stored_path":"Samples/flange.png",
             "attributes":["part_number=PL-1001","material=steel|stainless steel","weight(kg)=1.2"],
             "views":[]},
            {"file":"bracket.png","stored_path":"Samples/bracket.png",
             "attributes":["part_number=PL-1002"],"views":[]}]}"#,
    )
    .unwrap();
    let launcher = Arc::new(LocalServiceLauncher::new(WorkspaceConfig {
        data_dir: data.path().to_path_buf(),
        samples_dir: Some(samples),
        user: "tester".into(),
        index_workers: Some(1),
    }));
    let parts = AppParts::new(data.path(), launcher);
    let mut harness = app_harness(&runtime, &parts);

    wait_logged_in(&mut harness);
    let session = harness.state().session().unwrap().clone();
    assert_eq!(session.service, ServiceChoice::LocalWorkspace);
    assert_eq!(session.user, "tester");
    assert_eq!(session.company.as_deref(), Some("Local workspace"));
    harness.step();
    assert!(
        harness.query_by_label("tester").is_some(),
        "the top bar names the user"
    );
    assert!(
        !harness.state().login_open(),
        "no login prompt for the local workspace"
    );

    // The samples are company-database files of the workspace, with their attributes.
    let account: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data.path().join("workspace").join("local-account.json")).unwrap(),
    )
    .unwrap();
    let record = runtime.block_on(async {
        let mut client = partlens_api::ApiClient::new(&session.address).unwrap();
        client
            .login(&partlens_api::Credentials {
                client_id: "partlens".into(),
                username: "tester".into(),
                password: account["password"].as_str().unwrap().into(),
            })
            .await
            .unwrap();
        client
            .get_file(&partlens_api::GetFileRequest::new(
                partlens_api::FileRef::Name("Samples/flange.png".into()),
            ))
            .await
            .unwrap()
    });
    assert!(record.indexing_finished);
    assert!(
        record
            .attributes
            .iter()
            .any(|attribute| attribute == "material=steel|stainless steel"),
        "{:?}",
        record.attributes
    );
    close_app(&runtime, harness);
}

#[test]
fn two_dropped_files_are_uploaded_and_indexed() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), empty_workspace(data.path(), 2));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    let files = [
        data.path().join("flange.png"),
        data.path().join("bracket.png"),
    ];
    for (seed, file) in files.iter().enumerate() {
        write_part_png(file, seed as u32 + 3);
    }
    upload_through_the_form(&mut harness, &files, false);
    step_until(&mut harness, "both jobs done", |harness| {
        jobs_reading(harness, "Done") == 2
    });
    for job in harness.state().jobs() {
        assert!(matches!(job.phase, JobPhase::Done { .. }), "{job:?}");
        assert_eq!(job.role, JobRole::SearchInput);
        assert!(job.index_async);
    }
    close_app(&runtime, harness);
}

#[test]
fn a_cancelled_job_says_cancelled() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    // No indexing workers: an asynchronous upload stays "indexing" until cancelled.
    let parts = AppParts::new(data.path(), empty_workspace(data.path(), 0));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    let file = data.path().join("gear.png");
    write_part_png(&file, 9);
    upload_through_the_form(&mut harness, std::slice::from_ref(&file), false);
    step_until_label_contains(&mut harness, "Indexing for");
    harness.get_by_label("Cancel gear.png").click();
    step_until(&mut harness, "the job to say cancelled", |harness| {
        jobs_reading(harness, "Cancelled") == 1
    });
    assert_eq!(harness.state().jobs()[0].phase, JobPhase::Cancelled);
    assert!(harness.query_by_label("Retry gear.png").is_some());
    close_app(&runtime, harness);
}

#[test]
fn a_failed_job_says_why_once_and_can_be_retried() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), empty_workspace(data.path(), 1));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);

    let file = data.path().join("scan.png");
    write_broken_png(&file);
    upload_through_the_form(&mut harness, std::slice::from_ref(&file), false);
    step_until(&mut harness, "the job to fail", |harness| {
        jobs_reading(harness, "Failed") == 1
    });
    step_until_label_contains(&mut harness, "could not index this file");
    reason_is_shown_whole_once_on_hover(&mut harness);

    write_part_png(&file, 11);
    harness.get_by_label("Retry scan.png").click();
    step_until(&mut harness, "the retried job done", |harness| {
        jobs_reading(harness, "Done") == 1
    });
    assert!(matches!(
        harness.state().jobs()[0].phase,
        JobPhase::Done { .. }
    ));
    close_app(&runtime, harness);
}

#[test]
fn a_401_in_the_middle_brings_the_login_back_and_the_upload_completes_after_it() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service_dir = data.path().join("remote-service");
    std::fs::create_dir_all(&service_dir).unwrap();
    admin::add_user(&service_dir, "Acme", "alice", "first password", false).unwrap();
    let service = runtime.block_on(async {
        let mut config = ServiceConfig::new(&service_dir);
        config.addr = "127.0.0.1:0".parse().unwrap();
        RunningService::start(config).await.unwrap()
    });
    let mut parts = AppParts::new(data.path(), empty_workspace(data.path(), 1));
    parts.settings.service = ServiceChoice::remote(&service.base_url(), "partlens");
    let mut harness = app_harness(&runtime, &parts);

    log_in_through_the_form(&mut harness, "alice", "first password");
    wait_logged_in(&mut harness);
    assert_eq!(parts.secrets.len(), 1, "Remember me keeps the token");
    let first = data.path().join("first.png");
    write_part_png(&first, 21);
    upload_through_the_form(&mut harness, std::slice::from_ref(&first), false);
    step_until(&mut harness, "the first upload", |harness| {
        jobs_reading(harness, "Done") == 1
    });

    // An admin resets alice's password: her session ends, the next call gets a real 401.
    admin::add_user(&service_dir, "Acme", "alice", "second password", false).unwrap();
    let second = data.path().join("second.png");
    write_part_png(&second, 22);
    upload_through_the_form(&mut harness, std::slice::from_ref(&second), false);
    step_until(&mut harness, "the login form", |harness| {
        harness.state().login_open()
    });
    step_until_label_contains(&mut harness, "Your session has ended");
    step_until_label(&mut harness, "Waiting for login");
    assert_eq!(
        harness.state().place(),
        Place::Jobs,
        "the view stays where the user was"
    );

    log_in_through_the_form(&mut harness, "alice", "second password");
    step_until(&mut harness, "the parked upload done", |harness| {
        jobs_reading(harness, "Done") == 2
    });
    assert!(!harness.state().login_open());
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}

#[test]
fn jobs_survive_a_restart_and_indexing_resumes() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let database_file = data.path().join("Library").join("valve.png");
    let search_file = data.path().join("query.png");
    std::fs::create_dir_all(database_file.parent().unwrap()).unwrap();
    write_part_png(&database_file, 31);
    write_part_png(&search_file, 32);

    // First run: no indexing workers, so the asynchronous search input is still being indexed when
    // the app closes; the database file is indexed as it uploads.
    let parts = AppParts::new(data.path(), empty_workspace(data.path(), 0));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    upload_through_the_form(&mut harness, std::slice::from_ref(&database_file), true);
    step_until(&mut harness, "the database file", |harness| {
        jobs_reading(harness, "Done") == 1
    });
    upload_through_the_form(&mut harness, std::slice::from_ref(&search_file), false);
    step_until_label_contains(&mut harness, "Indexing for");
    close_app(&runtime, harness);

    // Second run on the same data: the list comes back from storage and the indexing job resumes.
    let parts = AppParts::new(data.path(), empty_workspace(data.path(), 2));
    let mut harness = app_harness(&runtime, &parts);
    harness.step();
    assert_eq!(
        harness.state().jobs().len(),
        2,
        "restored before the service is even up"
    );
    let restored = harness.state().jobs().to_vec();
    assert!(restored.iter().any(|job| matches!(
        &job.role,
        JobRole::Database { stored_path, .. } if stored_path == "Library/valve.png"
    )));
    harness.get_by_label("Jobs").click();
    step_until(&mut harness, "the resumed job done", |harness| {
        jobs_reading(harness, "Done") == 2
    });
    close_app(&runtime, harness);
}
