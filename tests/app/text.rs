//! Text that reads, driven with egui_kittest against a real service on 127.0.0.1: the detail of
//! the real AS1 assembly (`../shared/realworld/step/pythonocc_core__as1_pe_203.stp`), whose
//! extracted `part_number` lists every part name without a space (`PLATE|L-BRACKET|BOLT|…`), wraps
//! that value at its separators and never spreads it letter by letter, at every window size; its
//! values can be selected and copied. A real part whose file name is long and has no space (a
//! FreeCAD-library screw) shows its record's name and stored path whole, wrapped, at every size, and
//! so does the comparison of the screw's STEP and STL.

use egui_kittest::Harness;
use egui_kittest::kittest::Queryable as _;
use partlens::ui::App;
use partlens::ui::search_place::SearchPage;

use crate::support::*;

/// What a test of real files holds: the runtime, the folder it all lives in, the company service
/// and the app logged in to it.
type AppOnCorpusFiles = (
    tokio::runtime::Runtime,
    tempfile::TempDir,
    partlens_service::RunningService,
    Harness<'static, App>,
);

/// An app on a company service holding the corpus files `files` (each `(relative, stored
/// path)`); `None` without the corpus.
fn app_on_corpus_files(files: &[(&str, &str)]) -> Option<AppOnCorpusFiles> {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let admin = admin_client(&runtime, &service);
    for (relative, stored_path) in files {
        let bytes = partlens_testkit::realworld::corpus_file(relative)?;
        let path = dir.path().join(stored_path.rsplit('/').next().unwrap());
        std::fs::write(&path, bytes).unwrap();
        add_database_file(&runtime, &admin, &path, stored_path, &[]);
    }
    let harness = app_as_alice(&runtime, &dir.path().join("app"), &service);
    Some((runtime, dir, service, harness))
}

/// The detail of the corpus file `relative`, stored as `stored_path` and opened from a search for
/// `words`; `None` without the corpus.
fn detail_of_corpus_file(
    relative: &str,
    stored_path: &str,
    words: &str,
) -> Option<AppOnCorpusFiles> {
    let (runtime, dir, service, mut harness) = app_on_corpus_files(&[(relative, stored_path)])?;
    open_result(&mut harness, words, stored_path.rsplit('/').next().unwrap());
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
    Some((runtime, dir, service, harness))
}

/// At each window size, brings the node labelled `shown` on screen, checks the frame's layout and
/// runs `check`.
fn at_every_size(
    harness: &mut Harness<'static, App>,
    shown: &str,
    place: &str,
    check: impl Fn(&Harness<'static, App>, (f32, f32)),
) {
    for size in WINDOW_SIZES {
        harness.set_size(egui::vec2(size.0, size.1));
        harness.run_steps(3);
        harness.get_by_label(shown).scroll_to_me();
        harness.run_steps(2);
        assert_laid_out(harness, place, size);
        check(harness, size);
    }
}

/// Fails unless each of `texts` is painted whole (wrapped maybe, not cut short) and visible.
fn assert_painted_whole(harness: &Harness<'_, App>, texts: &[&str], size: (f32, f32)) {
    let painted = painted_texts(harness);
    for whole in texts {
        assert!(
            painted
                .iter()
                .any(|text| text.is_visible() && text.text == *whole && !text.elided),
            "{whole} is not painted whole at {size:?}"
        );
    }
}

#[test]
fn the_assembly_detail_wraps_its_long_part_list_and_never_spreads_it() {
    let Some((runtime, _dir, _service, mut harness)) = detail_of_corpus_file(
        "step/pythonocc_core__as1_pe_203.stp",
        "Assemblies/as1_pe_203.stp",
        "as1",
    ) else {
        return;
    };
    let record = harness.state().search().detail().record().unwrap().clone();
    let long = record
        .extracted_attributes
        .iter()
        .find(|text| text.len() > 40 && !text.contains(' '))
        .unwrap_or_else(|| {
            panic!(
                "no long value without spaces in {:?}",
                record.extracted_attributes
            )
        })
        .clone();
    at_every_size(
        &mut harness,
        &long,
        "Detail of the AS1 assembly",
        |harness, size| {
            // Painted whole (wrapped, not cut short), as one text.
            let painted = painted_texts(harness);
            let value = painted
                .iter()
                .find(|text| text.text == long)
                .unwrap_or_else(|| panic!("{long} is not painted whole at {size:?}"));
            assert!(
                value.rect.width() <= size.0,
                "{long} is {} wide at {size:?}",
                value.rect.width()
            );
        },
    );
    close_app(&runtime, harness);
}

#[test]
fn a_long_file_name_without_spaces_is_shown_whole_in_the_record_at_every_size() {
    let name = "freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.step";
    let stored = format!("Purchased_parts/Fasteners/ISO4762/{name}");
    let Some((runtime, _dir, _service, mut harness)) =
        detail_of_corpus_file(&format!("step/{name}"), &stored, "ISO4762")
    else {
        return;
    };
    at_every_size(
        &mut harness,
        &stored,
        "Detail of a part with a long name",
        |harness, size| assert_painted_whole(harness, &[name, &stored], size),
    );
    close_app(&runtime, harness);
}

#[test]
fn a_comparison_of_two_long_named_files_reads_whole_at_every_size() {
    let name = "freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10";
    let step = format!("Purchased_parts/Fasteners/ISO4762/{name}.step");
    let stl = format!("Purchased_parts/Fasteners/ISO4762/{name}.stl");
    let Some((runtime, _dir, _service, mut harness)) = app_on_corpus_files(&[
        (&format!("step/{name}.step"), &step),
        (&format!("mesh/{name}.stl"), &stl),
    ]) else {
        return;
    };
    type_into(&mut harness, "Search text", "ISO4762");
    search_with_enter(&mut harness);
    let names: Vec<String> = harness
        .state()
        .search()
        .results()
        .ordered_rows()
        .map(|row| row.name.clone())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    compare_results(&mut harness, &names);
    at_every_size(
        &mut harness,
        &step,
        "Comparison of two long-named files",
        |harness, size| assert_painted_whole(harness, &[&step, &stl], size),
    );
    close_app(&runtime, harness);
}
