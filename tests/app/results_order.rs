//! The order of a result list, driven with egui_kittest against the in-process local workspace: a
//! sort chosen by hand is shown as such and does not carry into the next search, which starts at
//! *Best match*.

use crate::support::*;
use egui::accesskit::Role;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::results::{SortColumn, SortOrder};

#[test]
fn a_new_search_starts_at_best_match_and_a_hand_sort_says_so() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    // A search by a photo: its results come ordered by score, not by name.
    let mut harness = app_searching_by_the_gear_photo(&runtime, data.path());
    let best_first = result_files(&harness);
    assert!(harness.query_by_label("Sorted by hand").is_none());

    harness.get_by_label("Sort by").click();
    step_until_label(&mut harness, "Name");
    harness.get_by_role_and_label(Role::Button, "Name").click();
    step_until_label(&mut harness, "Sorted by hand");
    let by_name = result_files(&harness);
    assert_ne!(
        by_name, best_first,
        "the sample results are not in name order"
    );
    assert_eq!(
        harness.state().search().results().sort().column,
        SortColumn::Name
    );

    // The same search again: the service's order, and nothing says "by hand".
    type_into(&mut harness, "Search text", "");
    search_with_enter(&mut harness);
    assert_eq!(
        harness.state().search().results().sort(),
        &SortOrder::default()
    );
    assert_eq!(result_files(&harness), best_first);
    harness.step();
    assert!(harness.query_by_label("Sorted by hand").is_none());

    // "Best match first" undoes a hand sort in place.
    harness.get_by_label("Sort by").click();
    step_until_label(&mut harness, "Name");
    harness.get_by_role_and_label(Role::Button, "Name").click();
    step_until_label(&mut harness, "Best match first");
    harness.get_by_label("Best match first").click();
    harness.step();
    assert_eq!(result_files(&harness), best_first);
    close_app(&runtime, harness);
}
