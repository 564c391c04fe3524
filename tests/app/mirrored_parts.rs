//! The search bar's switches of a search by a model (issue 49: size as the user wants it), driven
//! with egui_kittest against a real service on 127.0.0.1: *Same size first* (on) and *Ignore
//! mirrored parts* (off) appear once the view is a model; the mirror image of the part searched
//! by is among the results, marked "mirrored"; ticking *Ignore mirrored parts* searches again
//! without it, and *Same size first* off ranks by shape alone (the request carries each switch).
//! The part is the Prusa i3's filament-sensor lever of the corpus (`../shared/realworld/`); its
//! mirror image (x negated, winding turned) and a copy twice its size are written by the test.

// Test helpers outside `#[test]` functions unwrap too: a failure there is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support as app_support;

use egui::accesskit::Toggled;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT as _, Queryable as _};
use partlens::ui::App;
use partlens::ui::search_bar::options::{IGNORE_MIRRORED_LABEL, SIZE_FIRST_LABEL};

use app_support::search::*;
use app_support::*;

/// A binary STL's triangles with every corner moved by `place`; `mirror` also turns the winding.
fn moved_stl(stl: &[u8], place: impl Fn([f32; 3]) -> [f32; 3], mirror: bool) -> Vec<u8> {
    let mut bytes = stl[..84].to_vec();
    for facet in stl[84..].chunks_exact(50) {
        let corner =
            |at: usize| {
                place([0, 1, 2].map(|k| {
                    f32::from_le_bytes(facet[at + 4 * k..at + 4 * k + 4].try_into().unwrap())
                }))
            };
        let mut corners = [corner(12), corner(24), corner(36)];
        if mirror {
            corners.swap(1, 2);
        }
        bytes.extend_from_slice(&[0; 12]);
        for value in corners.iter().flatten() {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&[0; 2]);
    }
    bytes
}

/// Whether the switch with this label is ticked.
fn ticked(harness: &Harness<'_, App>, label: &str) -> bool {
    harness.get_by_label(label).accesskit_node().toggled() == Some(Toggled::True)
}

/// Clicks a switch (which searches again) and waits for the new search's answer.
fn toggle_and_search(harness: &mut Harness<'_, App>, label: &str) {
    let before = harness.state().search().searches_started();
    harness.get_by_label(label).click();
    step_until(harness, &format!("{label} to search again"), |harness| {
        harness.state().search().searches_started() > before
    });
    wait_for_search(harness);
}

/// The (stored name, score, mirrored) of each result, in display order.
fn shown(harness: &Harness<'_, App>) -> Vec<(String, f64, bool)> {
    harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .map(|row| {
            (
                row.file_name.clone(),
                row.score.unwrap_or(0.0),
                row.mirrored,
            )
        })
        .collect()
}

#[test]
fn the_size_and_mirror_switches_change_what_a_search_by_a_model_shows() {
    let Some(lever) = partlens_testkit::realworld::corpus_file("mesh/prusa_i3__fs-lever.stl")
    else {
        return;
    };
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let client = admin_client(&runtime, &service);
    let files = dir.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    for (name, bytes) in [
        ("lever.stl", lever.clone()),
        (
            "lever-mirrored.stl",
            moved_stl(&lever, |[x, y, z]| [-x, y, z], true),
        ),
        (
            "lever-doubled.stl",
            moved_stl(&lever, |corner| corner.map(|v| 2.0 * v), false),
        ),
    ] {
        let path = files.join(name);
        std::fs::write(&path, bytes).unwrap();
        add_database_file(&runtime, &client, &path, &format!("Parts/{name}"), &[]);
    }
    let mut harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    // No view yet: no switch.
    assert!(harness.query_by_label(SIZE_FIRST_LABEL).is_none());
    drop_files(&mut harness, &[files.join("lever.stl")]);
    step_until_label(&mut harness, SIZE_FIRST_LABEL);
    assert!(ticked(&harness, SIZE_FIRST_LABEL));
    assert!(!ticked(&harness, IGNORE_MIRRORED_LABEL));

    harness.get_by_label("Find parts").click();
    wait_for_search(&mut harness);
    let by_default = shown(&harness);
    let mirrored: Vec<&str> = by_default
        .iter()
        .filter(|(_, _, mirrored)| *mirrored)
        .map(|(name, _, _)| name.as_str())
        .collect();
    assert_eq!(mirrored, ["Parts/lever-mirrored.stl"], "{by_default:?}");
    step_until_label_contains(&mut harness, "· mirrored");
    let score = |rows: &[(String, f64, bool)], name: &str| {
        rows.iter()
            .find(|(shown, _, _)| shown == name)
            .unwrap_or_else(|| panic!("{name} not shown: {rows:?}"))
            .1
    };
    let doubled_size_first = score(&by_default, "Parts/lever-doubled.stl");

    toggle_and_search(&mut harness, IGNORE_MIRRORED_LABEL);
    assert!(harness.state().search().bar().options().ignore_mirrored);
    let without = shown(&harness);
    let names: Vec<&str> = without.iter().map(|(name, _, _)| name.as_str()).collect();
    assert!(!names.contains(&"Parts/lever-mirrored.stl"), "{names:?}");
    assert!(names.contains(&"Parts/lever.stl"), "{names:?}");

    toggle_and_search(&mut harness, SIZE_FIRST_LABEL);
    assert!(!ticked(&harness, SIZE_FIRST_LABEL));
    let shape_alone = shown(&harness);
    assert!(
        score(&shape_alone, "Parts/lever-doubled.stl") > doubled_size_first + 0.05,
        "{shape_alone:?} against {by_default:?}"
    );
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}
