//! Text that reads, driven with egui_kittest against a real service on 127.0.0.1: the detail of
//! the real AS1 assembly (`../shared/realworld/step/pythonocc_core__as1_pe_203.stp`), whose
//! extracted `part_number` lists every part name without a space (`PLATE|L-BRACKET|BOLT|…`), wraps
//! that value at its separators and never spreads it letter by letter, at every window size; its
//! values can be selected and copied.

use egui_kittest::kittest::Queryable as _;
use partlens::ui::search_place::SearchPage;

use crate::support::*;

#[test]
fn the_assembly_detail_wraps_its_long_part_list_and_never_spreads_it() {
    let Some(as1) = partlens_testkit::realworld::corpus_file("step/pythonocc_core__as1_pe_203.stp")
    else {
        return;
    };
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &dir.path().join("service"));
    let admin = admin_client(&runtime, &service);
    let path = dir.path().join("as1_pe_203.stp");
    std::fs::write(&path, as1).unwrap();
    add_database_file(&runtime, &admin, &path, "Assemblies/as1_pe_203.stp", &[]);
    let mut harness = app_on(
        &runtime,
        &dir.path().join("app"),
        &service,
        "alice",
        "alice password",
    );
    open_result(&mut harness, "as1", "as1_pe_203.stp");
    assert_eq!(harness.state().search().page(), SearchPage::Detail);
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
    for size in WINDOW_SIZES {
        harness.set_size(egui::vec2(size.0, size.1));
        harness.run_steps(3);
        harness.get_by_label(&long).scroll_to_me();
        harness.run_steps(2);
        assert_laid_out(&harness, "Detail of the AS1 assembly", size);
        // Painted whole (wrapped, not cut short), as one text.
        let painted = painted_texts(&harness);
        let value = painted
            .iter()
            .find(|text| text.text == long)
            .unwrap_or_else(|| panic!("{long} is not painted whole at {size:?}"));
        assert!(
            value.rect.width() <= size.0,
            "{long} is {} wide at {size:?}",
            value.rect.width()
        );
    }
    close_app(&runtime, harness);
}
