//! One score scale, driven with egui_kittest against the in-process local workspace: a search by a
//! photo finds pictures and models of the parts, and the chance of being the same part shown on each
//! result never rises down the list (across kinds); the raw score is in the detail.

use crate::support::*;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::results::calibration::QueryKind;
use partlens::ui::search_place::SearchPage;

#[test]
fn the_chance_shown_falls_with_the_order_across_kinds_and_the_raw_score_is_in_the_detail() {
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    // A search by a photo: its results come ordered by score, not by name.
    let mut harness = app_searching_by_the_gear_photo(&runtime, data.path());

    let rows: Vec<_> = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .cloned()
        .collect();
    let kinds: std::collections::HashSet<QueryKind> =
        rows.iter().map(|row| row.query_kind).collect();
    assert!(
        kinds.contains(&QueryKind::PictureToPicture) && kinds.contains(&QueryKind::PictureToModel),
        "pictures and models in the list: {kinds:?}"
    );
    let chances: Vec<f64> = rows
        .iter()
        .map(|row| row.same_part_chance().unwrap())
        .collect();
    assert!(
        chances.windows(2).all(|pair| pair[0] >= pair[1]),
        "the chance falls with the order: {chances:?}"
    );
    let ranks: Vec<usize> = rows.iter().map(|row| row.rank).collect();
    assert_eq!(ranks, (1..=rows.len()).collect::<Vec<_>>());
    // What is shown is the chance.
    let best = &rows[0];
    harness.step();
    let shown = format!("{:.0} % · ", best.same_part_chance().unwrap() * 100.0);
    assert!(
        harness.query_all_by_label_contains(&shown).next().is_some(),
        "{shown}"
    );

    // The raw score stays in the detail.
    harness
        .get_all_by_label(&format!("Open {}", best.name))
        .next()
        .unwrap()
        .click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    step_until_label_contains(&mut harness, "Raw score ");
    harness.get_by_label_contains(&format!("Raw score {:.3}", best.score.unwrap()));
    close_app(&runtime, harness);
}
