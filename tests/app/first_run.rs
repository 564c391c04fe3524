//! The first run, driven with egui_kittest against the in-process local workspace: the user is
//! logged in at once, and while the new workspace adds its sample library the header says so
//! ("Adding the sample library (n of 22)…") beside who is logged in, never "Not logged in".

use crate::support::*;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;

#[test]
fn the_user_is_logged_in_while_the_samples_are_added_and_the_header_says_so() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let parts = AppParts::new(data.path(), sample_workspace(data.path()));
    let mut harness = app_harness(&runtime, &parts);

    step_until(&mut harness, "the sample library being added", |harness| {
        // The header and the banner under it.
        harness
            .query_all_by_label_contains("Adding the sample library (")
            .count()
            >= 2
    });
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
    // The Jobs place says it too.
    harness.get_by_role_and_label(Role::Button, "Jobs").click();
    harness.step();
    harness.step();
    assert!(
        harness
            .query_all_by_label_contains("Adding the sample library (")
            .count()
            >= 3
    );
    wait_logged_in(&mut harness);
    harness.step();
    assert!(harness.query_by_label("Not logged in").is_none());
    assert!(
        harness
            .query_all_by_label_contains("Adding the sample library (")
            .next()
            .is_none()
    );
    close_app(&runtime, harness);
}
