//! A drawing of three pages in the PMI viewer (issue 48): three real drawings of the corpus joined
//! by poppler's `pdfunite`, uploaded to the in-process service, found, opened in the drawing data
//! view and taken to page 2, whose picture is loaded through the record of page 2
//! (`lgFileNumber=2`). Without the corpus or `pdfunite` the test says so and passes, except under
//! CI (`CI` set).

use crate::support as app_support;

use egui_kittest::kittest::Queryable as _;
use partlens::ui::load_state::LoadState;
use partlens::ui::search_place::SearchPage;
use partlens_testkit::realworld::joined_drawings_pdf;

use app_support::search::*;
use app_support::*;

#[test]
fn the_pmi_viewer_goes_to_page_two_of_a_three_page_drawing_and_shows_its_picture() {
    let Some(pdf) = joined_drawings_pdf() else {
        return;
    };
    let runtime = runtime();
    let data = tempfile::tempdir().unwrap();
    let service = company_service(&runtime, &data.path().join("service"));
    let boss = admin_client(&runtime, &service);
    let file = data.path().join("three-pages.pdf");
    std::fs::write(&file, pdf).unwrap();
    let uid = add_database_file(&runtime, &boss, &file, "Drawings/three-pages.pdf", &[]);
    let mut harness = app_as_alice(&runtime, data.path(), &service);

    open_result(&mut harness, "three", "three-pages.pdf");
    harness.get_by_label("Drawing data (PMI)").click();
    harness.step();
    assert_eq!(harness.state().search().page(), SearchPage::Pmi);
    step_until(&mut harness, "the drawing data", |harness| {
        matches!(harness.state().search().pmi().status(), LoadState::Ready(_))
    });
    harness.step();
    let pages = harness.state().search().pmi().data().unwrap().pages.len();
    assert_eq!(pages, 3);

    harness.get_by_label("Page").click();
    step_until(&mut harness, "the page list", |harness| {
        harness.query_by_label("Page 2").is_some()
    });
    harness.get_by_label("Page 2").click();
    harness.step();
    assert_eq!(harness.state().search().pmi().page(), 1);
    let page_two = format!("page:{}:2", uid.as_str());
    step_until(&mut harness, "page 2's picture", |harness| {
        harness.state().search().textures().is_loaded(&page_two)
    });
    harness.step();
    assert!(
        harness
            .query_by_label_contains("could not be shown")
            .is_none()
    );
    close_app(&runtime, harness);
    runtime.block_on(service.shutdown());
}
