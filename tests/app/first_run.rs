//! The first run, driven with egui_kittest against the in-process local workspace: while the new
//! workspace adds its sample library, the header says so ("Adding the sample library (n of 22)…")
//! instead of "Not logged in".

use crate::support::*;
use egui_kittest::kittest::Queryable as _;

#[test]
fn while_the_samples_are_added_the_header_says_so_instead_of_not_logged_in() {
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
        harness.query_by_label("Not logged in").is_none(),
        "the header does not claim nobody is logged in while the workspace opens"
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
