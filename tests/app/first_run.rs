//! The first run and the sample library, driven with egui_kittest against the in-process local
//! workspace: the user is logged in at once, and while the new workspace adds its sample library one
//! banner says so ("Adding the sample library (n of 22)…"), never twice, and never "Not logged in";
//! an addition that stopped carries on where it was at the next start; the user's own upload goes
//! before the samples (the addition pauses and says so); the library removed in Settings is gone
//! and is not added again.

use std::path::Path;

use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::library::LibraryStatus;
use partlens_tasks::{Command, JobPhase, JobRole, UploadSpec};

use crate::support::*;

/// The banner's words while the samples go up.
const ADDING: &str = "Adding the sample library (";

/// The part number of "Adding the sample library (n of 22)…", if the app says that now.
fn adding_number(harness: &Harness<'_, App>) -> Option<usize> {
    let activity = harness.state().workspace_activity()?;
    let rest = activity.strip_prefix(ADDING)?;
    rest.split(' ').next()?.parse().ok()
}

/// How many sample parts are in, by the banner ("(n of 22)" while part n goes up, "(k of 22 in)"
/// while paused).
fn parts_in(harness: &Harness<'_, App>) -> Option<usize> {
    let activity = harness.state().workspace_activity()?;
    let rest = activity.strip_prefix(ADDING)?;
    let number: usize = rest.split(' ').next()?.parse().ok()?;
    Some(if rest.contains(" in)") {
        number
    } else {
        number - 1
    })
}

/// How many sample parts the manifest has.
fn sample_count() -> usize {
    partlens_engine::samples::read_manifest(&samples_dir())
        .unwrap()
        .parts
        .len()
}

/// Goes to the Library and waits for its first page; returns how many files it has.
fn library_total(harness: &mut Harness<'_, App>) -> usize {
    harness
        .get_by_role_and_label(Role::Button, "Library")
        .click();
    step_until(harness, "the library's first page", |harness| {
        harness.state().library().status() == &LibraryStatus::Ready
    });
    harness.state().library().pages().total().unwrap_or(0)
}

fn app(runtime: &tokio::runtime::Runtime, data: &Path) -> Harness<'static, App> {
    let parts = AppParts::new(data, fresh_sample_workspace(data));
    app_harness(runtime, &parts)
}

#[test]
fn the_user_is_logged_in_while_the_samples_are_added_and_one_banner_says_so() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = app(&runtime, data.path());
    step_until(&mut harness, "the sample library being added", |harness| {
        painted_count(harness, ADDING) > 0
    });
    assert_eq!(painted_count(&harness, ADDING), 1, "one banner");
    assert!(
        harness.state().session().is_some(),
        "the samples are added with the user logged in"
    );
    assert!(
        harness
            .query_by_label(&harness.state().session().unwrap().user)
            .is_some()
    );
    assert!(
        harness.query_by_label("Not logged in").is_none(),
        "the header does not claim nobody is logged in"
    );
    // The Jobs place does not say it a second time.
    harness.get_by_role_and_label(Role::Button, "Jobs").click();
    harness.step();
    harness.step();
    if harness.state().workspace_activity().is_some() {
        assert_eq!(painted_count(&harness, ADDING), 1, "one banner on Jobs too");
    }
    wait_logged_in(&mut harness);
    harness.step();
    assert!(harness.query_by_label("Not logged in").is_none());
    assert_eq!(painted_count(&harness, ADDING), 0);
    close_app(&runtime, harness);
}

#[test]
fn an_addition_that_stopped_carries_on_where_it_was_at_the_next_start() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = app(&runtime, data.path());
    step_until(&mut harness, "a few samples in", |harness| {
        adding_number(harness).is_some_and(|number| number >= 4)
    });
    let reached = adding_number(&harness).unwrap();
    close_app(&runtime, harness);

    let mut harness = app(&runtime, data.path());
    step_until(&mut harness, "the addition carrying on", |harness| {
        adding_number(harness).is_some()
    });
    let carried_on_at = adding_number(&harness).unwrap();
    assert!(
        carried_on_at >= reached,
        "the second start began at part {carried_on_at}, the first had reached {reached}"
    );
    wait_logged_in(&mut harness);
    assert_eq!(library_total(&mut harness), sample_count());
    close_app(&runtime, harness);
}

#[test]
fn your_own_upload_goes_before_the_samples() {
    let Some(step) = partlens_testkit::realworld::corpus_file("step/occt__linkrods.step") else {
        return;
    };
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("linkrods.step");
    std::fs::write(&file, step).unwrap();
    let mut harness = app(&runtime, data.path());
    step_until(&mut harness, "the samples going up", |harness| {
        adding_number(harness).is_some_and(|number| number >= 2)
    });
    harness
        .state()
        .backend()
        .send(Command::Upload(vec![UploadSpec {
            path: file,
            role: JobRole::Database {
                stored_path: "Mine/linkrods.step".into(),
                attributes: Vec::new(),
                category_id: None,
                index_components: false,
            },
            index_async: false,
        }]));
    let at_upload = parts_in(&harness).unwrap_or(0);
    let paused = std::cell::Cell::new(false);
    step_until(&mut harness, "the user's upload to be done", |harness| {
        if harness
            .state()
            .workspace_activity()
            .is_some_and(|activity| activity.contains("paused while your own work runs"))
        {
            paused.set(true);
        }
        matches!(
            harness.state().jobs().first().map(|job| &job.phase),
            Some(JobPhase::Done { .. } | JobPhase::Failed { .. })
        )
    });
    assert!(
        paused.get(),
        "the addition never paused for the user's upload"
    );
    let at_done = parts_in(&harness).unwrap_or(usize::MAX);
    assert!(
        at_done <= at_upload + 1,
        "{at_upload} sample parts were in when the upload began, {at_done} when it was done"
    );
    assert!(
        matches!(harness.state().jobs()[0].phase, JobPhase::Done { .. }),
        "{:?}",
        harness.state().jobs()[0].phase
    );
    close_app(&runtime, harness);
}

#[test]
fn the_sample_library_removed_in_settings_is_not_added_again() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let mut harness = app(&runtime, data.path());
    wait_logged_in(&mut harness);
    assert_eq!(library_total(&mut harness), sample_count());
    harness
        .get_by_role_and_label(Role::Button, "Settings")
        .click();
    step_until_label(&mut harness, "Remove the sample library");
    harness
        .get_by_role_and_label(Role::Button, "Remove the sample library")
        .click();
    step_until(&mut harness, "the samples removed", |harness| {
        harness
            .state()
            .notices()
            .messages()
            .iter()
            .any(|message| message.starts_with("The sample library was removed"))
    });
    harness.step();
    harness.get_by_label("Removed. It is not added again in this workspace.");
    assert_eq!(library_total(&mut harness), 0);
    close_app(&runtime, harness);

    let mut harness = app(&runtime, data.path());
    wait_logged_in(&mut harness);
    assert_eq!(library_total(&mut harness), 0, "not added again");
    close_app(&runtime, harness);
}
