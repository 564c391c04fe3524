//! An assembly drawn whole, driven with egui_kittest against the in-process local workspace: the
//! real AS1 assembly (`../shared/realworld/step/pythonocc_core__as1_pe_203.stp`, CAx-IF: a plate,
//! two L-bracket sets of an L-bracket and three nut-and-bolt sets, a rod set of a rod and two nuts)
//! uploaded as a company-database file and opened: the 3D preview the task layer hands the
//! viewport is every component placed, the whole product's size and triangles, not the plate, one
//! bracket and the rod that issue 50's walkthrough saw.

use std::collections::BTreeMap;
use std::path::PathBuf;

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::search_place::SearchPage;
use partlens_geometry::ProductTree;
use partlens_tasks::{Command, JobPhase, JobRole, UploadSpec};

use crate::support::*;

/// AS1 assembled, in millimetres (it is drawn in inches: 200 × 87 × 150 in).
const AS1_SIZE: [f64; 3] = [5080.0, 2209.8, 3810.0];

/// The parts of AS1 as the file states its tree, each with how often it is placed.
const AS1_PARTS: [(&str, usize); 5] = [
    ("BOLT", 6),
    ("L-BRACKET", 2),
    ("NUT", 8),
    ("PLATE", 1),
    ("ROD", 1),
];

/// How often each leaf part is placed in `tree`, by its key.
fn placed_parts(tree: &ProductTree) -> BTreeMap<String, usize> {
    let mut placed = BTreeMap::new();
    for occurrence in &tree.occurrences {
        let product = &tree.products[occurrence.product];
        if !product.is_assembly {
            *placed.entry(product.key.clone()).or_insert(0) += 1;
        }
    }
    placed
}

/// The triangles of every placed part: what the whole product assembled holds.
fn triangles_of_every_part(tree: &ProductTree) -> usize {
    tree.occurrences
        .iter()
        .map(|occurrence| &tree.products[occurrence.product])
        .filter(|product| !product.is_assembly)
        .map(|product| product.own_mesh.triangles.len())
        .sum()
}

/// Uploads AS1 from `path` as `Assemblies/as1_pe_203.stp` through the task layer (with its
/// components when `index_components`) and steps until the job is done.
fn upload_as1(harness: &mut Harness<'_, App>, path: PathBuf, index_components: bool) {
    harness
        .state()
        .backend()
        .send(Command::Upload(vec![UploadSpec {
            path,
            role: JobRole::Database {
                stored_path: "Assemblies/as1_pe_203.stp".into(),
                attributes: Vec::new(),
                category_id: None,
                index_components,
            },
            index_async: false,
        }]));
    step_until(harness, "AS1 stored and indexed", |harness| {
        let jobs = harness.state().jobs();
        if let Some(JobPhase::Failed { reason }) = jobs.first().map(|job| &job.phase) {
            panic!("AS1 was not indexed: {reason}");
        }
        jobs.first()
            .is_some_and(|job| matches!(job.phase, JobPhase::Done { .. }))
    });
}

#[test]
fn the_as1_assembly_is_previewed_whole_with_every_component_placed() {
    let Some(as1) = partlens_testkit::realworld::corpus_file("step/pythonocc_core__as1_pe_203.stp")
    else {
        return;
    };
    // What the whole product is, from the file's own tree, read here by the model reader.
    let tree = partlens_geometry::read_model(".stp", &as1)
        .assembly
        .expect("AS1 reads as a product tree");
    let expected_parts: BTreeMap<String, usize> = AS1_PARTS
        .iter()
        .map(|(key, count)| ((*key).to_owned(), *count))
        .collect();
    assert_eq!(placed_parts(&tree), expected_parts);
    let whole_triangles = triangles_of_every_part(&tree);

    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as1_pe_203.stp");
    std::fs::write(&path, &as1).unwrap();
    let data = dir.path().join("app");
    let parts = AppParts::new(&data, empty_workspace(&data, 1));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    upload_as1(&mut harness, path, false);

    open_result(&mut harness, "as1", "as1_pe_203.stp");
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    wait_for_detail_model(&mut harness);
    harness.run_steps(2);
    harness.get_by_label("3D view of as1_pe_203.stp");
    let preview = harness
        .state()
        .search()
        .detail()
        .model()
        .and_then(|model| model.ready().cloned())
        .unwrap();

    // Every part placed: all their triangles, the whole product's size.
    assert_eq!(
        preview.measurements.triangles, whole_triangles,
        "the preview holds {} triangles, every placed part of AS1 {whole_triangles}",
        preview.measurements.triangles
    );
    let near = |size: [f64; 3]| {
        size.iter()
            .zip(AS1_SIZE)
            .all(|(got, want)| (got - want).abs() <= want * 0.005)
    };
    let measured = preview.measurements.size();
    assert!(
        near(measured),
        "AS1 measures {measured:?}, not {AS1_SIZE:?}"
    );
    // The mesh the viewport draws (reduced for display) spans the whole product too.
    let [low, high] = preview.mesh.bounds().unwrap();
    let drawn = [0, 1, 2].map(|axis| f64::from(high[axis] - low[axis]));
    assert!(near(drawn), "the viewport draws {drawn:?} of {AS1_SIZE:?}");
    close_app(&runtime, harness);
}

/// How many triangles the detail's 3D view has lit, and how many of its preview show the nut.
fn lit_and_nut_triangles(harness: &Harness<'_, App>) -> (Option<usize>, usize) {
    let model = harness.state().search().detail().model().unwrap();
    let preview = model.ready().unwrap();
    let nut: usize = preview
        .component_triangles("NUT")
        .iter()
        .map(|range| range.len())
        .sum();
    (model.view().lit_component().map(|lit| lit.count), nut)
}

/// Presses the nut's *3D* toggle (the first row of the nut: every nut is lit).
fn press_the_nut_toggle(harness: &mut Harness<'_, App>) {
    harness
        .get_all_by_label("Show NUT in 3D")
        .next()
        .expect("the nut's 3D toggle")
        .scroll_to_me();
    harness.run_steps(3);
    harness
        .get_all_by_label("Show NUT in 3D")
        .next()
        .expect("the nut's 3D toggle")
        .click();
    harness.run_steps(2);
}

/// The nut chosen in the tree lights its eight instances in the 3D view; Escape, and the toggle
/// pressed again, clear it (Escape without leaving the detail).
fn nut_lit_in_3d_and_cleared(harness: &mut Harness<'_, App>) {
    wait_for_detail_model(harness);
    harness.run_steps(2);
    let nuts = {
        let model = harness.state().search().detail().model().unwrap();
        let preview = model.ready().unwrap();
        preview
            .parts
            .iter()
            .filter(|part| part.name == "NUT")
            .count()
    };
    assert_eq!(nuts, 8, "the nut is placed eight times");
    press_the_nut_toggle(harness);
    let (lit, nut) = lit_and_nut_triangles(harness);
    assert!(nut > 0, "the preview draws the nut");
    assert_eq!(lit, Some(nut), "every nut and only the nuts lit");
    harness.key_press(egui::Key::Escape);
    harness.run_steps(2);
    assert_eq!(lit_and_nut_triangles(harness).0, None, "Escape clears it");
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    press_the_nut_toggle(harness);
    assert_eq!(lit_and_nut_triangles(harness).0, Some(nut));
    press_the_nut_toggle(harness);
    assert_eq!(
        lit_and_nut_triangles(harness).0,
        None,
        "pressed again: cleared"
    );
}

/// AS1 uploaded with *Index the components*: its detail shows the components as a tree (three
/// direct components, 18 parts in all); the nut's *3D* toggle lights its eight instances in the
/// preview, and Escape clears them; and the nut opened from the tree says where it is used:
/// the nut-and-bolt set and the rod set, under AS1 at the top.
#[test]
fn the_as1_components_are_a_tree_and_the_nut_says_where_it_is_used() {
    let Some(as1) = partlens_testkit::realworld::corpus_file("step/pythonocc_core__as1_pe_203.stp")
    else {
        return;
    };
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as1_pe_203.stp");
    std::fs::write(&path, &as1).unwrap();
    let data = dir.path().join("app");
    let parts = AppParts::new(&data, empty_workspace(&data, 1));
    let mut harness = app_harness(&runtime, &parts);
    wait_logged_in(&mut harness);
    upload_as1(&mut harness, path, true);
    open_result(&mut harness, "as1", "as1_pe_203.stp");
    // The record's three direct components at once; the whole tree once the walk answers.
    step_until_label(&mut harness, "Assembly of 3 components (18 parts in all)");
    harness
        .get_all_by_label("× 2")
        .next()
        .expect("two L-bracket sets");
    harness
        .get_all_by_label("× 3")
        .next()
        .expect("three nut-and-bolt sets");
    nut_lit_in_3d_and_cleared(&mut harness);
    // The nut's record is `Assemblies/as1_pe_203/NUT.stp` (the product's name).
    let nut = harness
        .get_all_by_label("NUT.stp")
        .next()
        .expect("the nut in the tree");
    // Below the record's fields: scrolled into view first (a click is a pointer click).
    nut.scroll_to_me();
    harness.run_steps(3);
    harness
        .get_all_by_label("NUT.stp")
        .next()
        .expect("the nut in the tree")
        .click();
    step_until_label(&mut harness, "Used in 2 assemblies");
    step_until_label(&mut harness, "Top assembly:");
    close_app(&runtime, harness);
}
