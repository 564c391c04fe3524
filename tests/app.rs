//! The desktop app driven with egui_kittest: clicks, typing and dropped files on the real `App`,
//! with the task layer on a tokio runtime owned by each test.

mod app_support;

use std::sync::Arc;

use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use futures_util::future::BoxFuture;
use partlens::tasks::{
    LocalWorkspaceLauncher, OpenedWorkspace, ServiceChoice, WorkspaceError, WorkspaceProgressFn,
};
use partlens::ui::{ConnectionState, View};
use app_support::*;

/// A launcher for tests that never open the local workspace.
struct NoLocalWorkspace;

impl LocalWorkspaceLauncher for NoLocalWorkspace {
    fn open(
        &self,
        _progress: WorkspaceProgressFn,
    ) -> BoxFuture<'static, Result<OpenedWorkspace, WorkspaceError>> {
        Box::pin(async { Err(WorkspaceError("not in this test".into())) })
    }
}

/// A remote service nobody listens on (the discard port of the loopback address).
fn unreachable_remote() -> ServiceChoice {
    ServiceChoice::remote("http://127.0.0.1:9", "partlens")
}

#[test]
fn a_remote_service_without_a_login_asks_for_one_and_esc_closes_the_form() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut parts = AppParts::new(data.path(), Arc::new(NoLocalWorkspace));
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
    let mut parts = AppParts::new(data.path(), Arc::new(NoLocalWorkspace));
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
    drop_files(&mut harness, &files);
    step_until_label(&mut harness, "Upload 2 files");
    assert_eq!(harness.state().view(), View::Upload);

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

fn step_until_label_contains(
    harness: &mut egui_kittest::Harness<'_, partlens::ui::App>,
    text: &str,
) {
    step_until(
        harness,
        &format!("a label containing \"{text}\""),
        |harness| harness.query_by_label_contains(text).is_some(),
    );
}
