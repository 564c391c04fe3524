//! Drawings read page by page, on real files of the corpus (`../shared/realworld` beside the
//! repository, or `PARTLENS_REALWORLD_DIR`): three real PDF drawings joined into one three-page PDF
//! by poppler's `pdfunite` at test time, and a real DXF with model space and a paper-space layout.
//! Without the corpus or `pdfunite` a test says so and passes, except under CI (`CI` set).

use std::path::PathBuf;
use std::process::Command;

use crate::{Analysis, ExtractionLimits, PAGES_NOT_PICTURED_ATTRIBUTE};

/// The three drawings joined, in this order.
const JOINED: [&str; 3] = [
    "pdf/voron0__Bottom_Panel.pdf",
    "pdf/voron0__Hotend_Mount_Dimensions.pdf",
    "pdf/voron2__VORON_2.4_Build_Plate_300mm.pdf",
];

fn corpus_dir() -> PathBuf {
    std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    )
}

/// Says why a test cannot run here; under CI that is a failure.
fn skipped(reason: &str) -> Option<Vec<u8>> {
    assert!(
        std::env::var_os("CI").is_none(),
        "{reason} (needed under CI)"
    );
    eprintln!("skipped: {reason}");
    None
}

/// The three drawings of [`JOINED`] as one PDF made by `pdfunite` in a temporary folder.
fn joined_pdf() -> Option<Vec<u8>> {
    let sources: Vec<PathBuf> = JOINED.iter().map(|name| corpus_dir().join(name)).collect();
    if let Some(missing) = sources.iter().find(|path| !path.is_file()) {
        return skipped(&format!(
            "the corpus file {} is not there",
            missing.display()
        ));
    }
    let folder = tempfile::tempdir().unwrap();
    let joined = folder.path().join("three-pages.pdf");
    match Command::new("pdfunite")
        .args(&sources)
        .arg(&joined)
        .status()
    {
        Ok(status) if status.success() => Some(std::fs::read(&joined).unwrap()),
        Ok(status) => panic!("pdfunite failed: {status}"),
        Err(error) => skipped(&format!(
            "poppler's pdfunite could not run ({error}); install poppler-utils"
        )),
    }
}

fn analysed(extension: &str, bytes: &[u8], limits: &ExtractionLimits) -> Analysis {
    super::analyze_drawing(extension, bytes, limits).unwrap()
}

/// Every page pictured, numbered in order, with its own one view, and page 1's pictures the
/// analysis' own.
fn assert_each_page_pictured(analysis: &Analysis, pages: usize) {
    assert_eq!(analysis.pages.len(), pages);
    assert_eq!(analysis.pmi_pages.len(), pages);
    assert_eq!(analysis.views.len(), pages);
    for (index, page) in analysis.pages.iter().enumerate() {
        let number = u32::try_from(index + 1).unwrap();
        assert_eq!(page.number, number);
        assert_eq!(page.views, index..index + 1, "page {number}");
        assert_eq!(analysis.page_of_view(index), Some(number));
        let large = image::load_from_memory(page.large_png.as_deref().unwrap()).unwrap();
        assert_eq!(
            [large.width(), large.height()],
            page.size_px,
            "page {number}"
        );
        let pmi_size = analysis.pmi_pages[index].image_size;
        assert_eq!(pmi_size, page.size_px.map(i64::from), "page {number}");
        let thumbnail = image::load_from_memory(page.thumbnail_jpeg.as_deref().unwrap()).unwrap();
        assert_eq!(
            thumbnail.width().max(thumbnail.height()),
            crate::THUMBNAIL_SIZE
        );
    }
    assert_eq!(analysis.thumbnail_jpeg, analysis.pages[0].thumbnail_jpeg);
    assert_eq!(analysis.large_png, analysis.pages[0].large_png);
}

#[test]
fn three_real_drawings_joined_are_three_pages_each_pictured_as_on_its_own() {
    let Some(joined) = joined_pdf() else { return };
    let limits = ExtractionLimits::default();
    let analysis = analysed(".pdf", &joined, &limits);
    assert_each_page_pictured(&analysis, 3);
    // Each page is the picture of its drawing read on its own, and no two pages look alike.
    for (index, name) in JOINED.iter().enumerate() {
        let alone = analysed(
            ".pdf",
            &std::fs::read(corpus_dir().join(name)).unwrap(),
            &limits,
        );
        assert_eq!(alone.pages.len(), 1, "{name}");
        assert_eq!(
            analysis.pages[index].large_png,
            alone.large_png,
            "page {} is {name}",
            index + 1
        );
        assert_eq!(
            analysis.pmi_pages[index].items,
            alone.pmi_pages[0].items,
            "page {}'s PMI is {name}'s",
            index + 1
        );
    }
    assert_ne!(analysis.pages[1].large_png, analysis.pages[0].large_png);
    assert_ne!(analysis.pages[2].large_png, analysis.pages[1].large_png);
    assert!(crate::match_views(&analysis.views[..1], &analysis.views[1..2]) < 0.99);
    assert!(
        !analysis
            .extracted_attributes
            .iter()
            .any(|attribute| attribute.starts_with(PAGES_NOT_PICTURED_ATTRIBUTE)),
        "{:?}",
        analysis.extracted_attributes
    );
}

#[test]
fn pages_past_the_picture_budget_keep_their_pmi_without_a_picture() {
    let Some(joined) = joined_pdf() else { return };
    // Room for page 1 and page 2 (each a sheet of at most 1024 × 1024), not for page 3.
    let limits = ExtractionLimits {
        max_pictured_pixels: 2 * 1024 * 1024 - 1,
        ..ExtractionLimits::default()
    };
    let analysis = analysed(".pdf", &joined, &limits);
    let full = analysed(".pdf", &joined, &ExtractionLimits::default());
    let pictured: Vec<bool> = analysis
        .pages
        .iter()
        .map(|page| page.is_pictured())
        .collect();
    let pixels = |index: usize| {
        let [width, height] = full.pages[index].size_px;
        u64::from(width) * u64::from(height)
    };
    let fits_two = pixels(0) + pixels(1) <= limits.max_pictured_pixels;
    let fits_three = fits_two && pixels(0) + pixels(1) + pixels(2) <= limits.max_pictured_pixels;
    assert_eq!(pictured, [true, fits_two, fits_three]);
    let limits = ExtractionLimits {
        max_pictured_pixels: 1,
        ..ExtractionLimits::default()
    };
    let analysis = analysed(".pdf", &joined, &limits);
    // Page 1 is always pictured; the others are read without a picture, and the file says so.
    assert_eq!(analysis.views.len(), 1);
    assert!(analysis.pages[0].is_pictured());
    for page in &analysis.pages[1..] {
        assert!(!page.is_pictured() && page.large_png.is_none() && page.views.is_empty());
    }
    assert_eq!(analysis.pmi_pages, full.pmi_pages);
    assert_eq!(analysis.text, full.text);
    assert!(
        analysis
            .extracted_attributes
            .iter()
            .any(|attribute| attribute
                .starts_with(&format!("{PAGES_NOT_PICTURED_ATTRIBUTE}=2–3 of 3 "))),
        "{:?}",
        analysis.extracted_attributes
    );
}

#[test]
fn a_search_input_s_pages_have_no_large_image() {
    let Some(joined) = joined_pdf() else { return };
    let analysis = crate::analyze_for(
        crate::Purpose::SearchInput,
        ".pdf",
        &joined,
        &ExtractionLimits::default(),
    )
    .unwrap();
    assert_eq!(analysis.pages.len(), 3);
    assert!(analysis.pages.iter().all(|page| page.large_png.is_none()));
    assert!(
        analysis
            .pages
            .iter()
            .all(|page| page.thumbnail_jpeg.is_some())
    );
}

#[test]
fn a_real_dxf_with_a_layout_is_model_space_then_the_layout() {
    let path = corpus_dir().join("dxf/ezdxf__VP4.dxf");
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(error) => {
            skipped(&format!(
                "the corpus file {} is not there ({error})",
                path.display()
            ));
            return;
        }
    };
    let analysis = analysed(".dxf", &bytes, &ExtractionLimits::default());
    assert_each_page_pictured(&analysis, 2);
    let names: Vec<Option<&str>> = analysis
        .pages
        .iter()
        .map(|page| page.name.as_deref())
        .collect();
    assert_eq!(names, [Some("Model"), Some("Layout1")]);
    assert_ne!(analysis.pages[1].large_png, analysis.pages[0].large_png);
}
