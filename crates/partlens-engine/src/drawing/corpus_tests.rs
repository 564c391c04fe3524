//! The drawings of the real-world corpus (`../shared/realworld/{pdf,dxf}` beside the repository, or
//! `PARTLENS_REALWORLD_DIR`): one test a cause of lost text, each on a file that shows it. Without
//! the corpus a test says so and passes, except under CI (`CI` set), where the corpus must be there.

use std::path::PathBuf;

use crate::{Analysis, ExtractionLimits};

pub(crate) fn corpus_file(relative: &str) -> Option<Vec<u8>> {
    let dir = std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    );
    match std::fs::read(dir.join(relative)) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "the corpus file {relative} is missing under CI: {error}"
            );
            eprintln!("skipped: the corpus file {relative} is not there ({error})");
            None
        }
    }
}

fn analysed(relative: &str) -> Option<Analysis> {
    let bytes = corpus_file(relative)?;
    let extension = if relative.ends_with(".pdf") {
        ".pdf"
    } else {
        ".dxf"
    };
    Some(super::analyze_drawing(extension, &bytes, &ExtractionLimits::default()).unwrap())
}

fn item_texts(analysis: &Analysis) -> Vec<&str> {
    analysis
        .pmi_pages
        .iter()
        .flat_map(|page| page.items.iter().map(|item| item.text.as_str()))
        .collect()
}

#[test]
fn an_autocad_to_unicode_map_with_stray_tokens_gives_the_numbers() {
    // Its fonts are Identity-H with a ToUnicode map lopdf refuses: the text was `)UDPH’HSWK`.
    let Some(analysis) = analysed("pdf/voron2__Bottom_Panel.pdf") else {
        return;
    };
    let texts = item_texts(&analysis);
    for expected in [
        "24.6",
        "120",
        "26.6",
        "(Frame Depth -41)",
        "(Frame Width -41)",
    ] {
        assert!(texts.contains(&expected), "{expected} in {texts:?}");
    }
}

#[test]
fn glyph_widths_keep_kerned_pieces_of_a_word_together() {
    // SolidWorks writes each kerned piece separately; with a fixed advance `89.5` read `89. 5` and
    // `7.0 TYP` split into `7. 0 T` + `YP`.
    let Some(analysis) =
        analysed("pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf")
    else {
        return;
    };
    let texts = item_texts(&analysis);
    for expected in ["89.5", "7.0 TYP", "(75.0)", "(37.5)", "8/12/2021"] {
        assert!(texts.contains(&expected), "{expected} in {texts:?}");
    }
    assert!(
        texts.contains(
            &"MATERIAL TO BE CAST ALUMINUM TOOLING PLATE (MIC-6, ATP-5, ALCA 5, OR EQUIVALENT)."
        ),
        "{texts:?}"
    );
}

#[test]
fn model_space_texts_behind_a_paper_space_layout_are_placed_through_its_viewports() {
    // The layout has the frame; the texts are in model space, seen through four viewports at
    // different scales (the `dxf` crate reads no VIEWPORT entity: they are read from the tags).
    let Some(analysis) = analysed("dxf/ezdxf__VP4.dxf") else {
        return;
    };
    for expected in ["T0", "T1", "T2", "T3"] {
        assert!(
            analysis.text.lines().any(|line| line == expected),
            "{expected} in {:?}",
            analysis.text
        );
    }
    // On the sheet: PMI items wherever a viewport shows a text, inside the page.
    let texts = item_texts(&analysis);
    assert!(
        ["T0", "T1", "T2", "T3"]
            .iter()
            .filter(|text| texts.contains(text))
            .count()
            >= 2,
        "{texts:?}"
    );
    for page in &analysis.pmi_pages {
        let [width, height] = page.image_size;
        for item in &page.items {
            let [left, top, right, bottom] = item.box_in_page;
            assert!(
                0 <= left
                    && left < right
                    && right <= width
                    && 0 <= top
                    && top < bottom
                    && bottom <= height,
                "{item:?} on a page of {width} x {height}"
            );
        }
    }
}

#[test]
fn a_dxf_file_with_stray_tags_and_repeated_sections_is_recovered() {
    // Header variables between a dozen ENTITIES sections, no HEADER: the `dxf` crate refuses it,
    // ezdxf's `recover` reads it (London Engineers' title block with its dates and sheet numbers).
    let Some(analysis) = analysed("dxf/ezdxf__recover01.dxf") else {
        return;
    };
    let texts = item_texts(&analysis);
    assert!(
        texts
            .iter()
            .any(|text| text.contains("London Engineers Limited")),
        "{texts:?}"
    );
    assert!(!analysis.views.is_empty());
}

/// A corpus PDF's page 1 rendered by the engine at `dpi`, turned by `degrees` and sprinkled with
/// noise, as a scanner would give it: PNG bytes.
fn scanned(relative: &str, dpi: f64, degrees: f32) -> Option<Vec<u8>> {
    use rand::{RngExt, SeedableRng};
    let bytes = corpus_file(relative)?;
    let mut budget = crate::TextBudget::new(&ExtractionLimits::default());
    let pages = super::pdf_scene::read_pages(&bytes, &mut budget).unwrap();
    let first = &pages[0];
    let page = super::page::Page::sheet_up_to(first.min, first.max, dpi / 72.0, 8_000);
    let rendered =
        image::DynamicImage::ImageRgb8(super::render::render(&first.scene, &page)).to_luma8();
    let mut turned = imageproc::geometric_transformations::rotate_about_center(
        &rendered,
        degrees.to_radians(),
        imageproc::geometric_transformations::Interpolation::Bilinear,
        imageproc::geometric_transformations::Border::Constant(image::Luma([255])),
    );
    let mut noise = rand::rngs::StdRng::seed_from_u64(24);
    for pixel in turned.pixels_mut() {
        let jitter: i16 = noise.random_range(-25..=25);
        pixel.0[0] = (i16::from(pixel.0[0]) + jitter).clamp(0, 255) as u8;
    }
    let mut png = Vec::new();
    turned
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    Some(png)
}

#[test]
fn a_scanned_drawing_is_a_drawing_and_a_photo_is_not() {
    let Some(png) = scanned(
        "pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf",
        100.0,
        1.0,
    ) else {
        return;
    };
    let picture = image::load_from_memory(&png).unwrap();
    assert!(super::raster::looks_like_a_drawing(&picture));
    let analysis = crate::analyze(".png", &png).unwrap();
    if super::READS_RASTER_TEXT {
        assert!(!analysis.pmi_pages.is_empty());
    } else {
        // Without OCR the record says the text was not read.
        assert_text_not_read(&analysis);
        assert!(analysis.pmi_pages.is_empty());
    }
}

#[cfg(feature = "ocr")]
#[test]
fn a_scanned_drawing_gives_its_part_number_by_ocr() {
    let Some(png) = scanned(
        "pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf",
        200.0,
        1.0,
    ) else {
        return;
    };
    if let Some(out) = std::env::var_os("PARTLENS_SCAN_OUT") {
        std::fs::write(out, &png).unwrap();
    }
    let analysis = crate::analyze(".png", &png).unwrap();
    assert!(
        analysis
            .extracted_attributes
            .iter()
            .any(|attribute| attribute == "part_number=VRN-BP-VT-250"),
        "{:?}\n{}",
        analysis.extracted_attributes,
        analysis.text
    );
    let texts = item_texts(&analysis);
    assert!(texts.iter().any(|text| text.contains("254.0")), "{texts:?}");
    // Every OCR'd item carries Tesseract's confidence, and it reaches the service's PMIData: the
    // `confidence` field of the item in the twice-parsed PMI string (an extension of the spec's
    // box, type_id and text).
    let items: Vec<_> = analysis
        .pmi_pages
        .iter()
        .flat_map(|page| &page.items)
        .collect();
    assert!(items.iter().all(|item| {
        item.confidence
            .is_some_and(|confidence| (0.0..=100.0).contains(&confidence))
    }));
    let wire = partlens_api::model::PmiDataWire::from_pages(
        &analysis.pmi_pages,
        analysis.text.clone(),
        analysis.extracted_attributes.clone(),
    );
    let inner: serde_json::Value = serde_json::from_str(wire.pmi.as_str().unwrap()).unwrap();
    assert!(inner[0]["PMI"][0]["confidence"].is_number(), "{inner}");
    assert_eq!(wire.parse().unwrap().pages, analysis.pmi_pages);
    // The vector reader's items are certain: no confidence.
    let Some(vector) =
        corpus_file("pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf")
    else {
        return;
    };
    let vector = crate::analyze(".pdf", &vector).unwrap();
    assert!(
        vector
            .pmi_pages
            .iter()
            .flat_map(|page| &page.items)
            .all(|item| item.confidence.is_none())
    );
}

/// Without OCR, a scanned drawing's record says its text was not read.
fn assert_text_not_read(analysis: &Analysis) {
    assert!(
        analysis
            .extracted_attributes
            .iter()
            .any(|attribute| attribute.starts_with("drawing_text=not read")),
        "{:?}",
        analysis.extracted_attributes
    );
}

/// A PDF whose one page is only `jpeg` (a scanner's "save as PDF"): an image XObject with
/// `DCTDecode` drawn over the whole A3 landscape page, no text.
fn image_only_pdf(jpeg: Vec<u8>, width: u32, height: u32) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut document = Document::with_version("1.5");
    let pages_id = document.new_object_id();
    let image_id = document.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image", "Width" => i64::from(width),
            "Height" => i64::from(height), "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        jpeg,
    ));
    let content = document.add_object(Stream::new(
        dictionary! {},
        b"q 1190 0 0 842 0 0 cm /Im1 Do Q".to_vec(),
    ));
    let page_id = document.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content,
        "MediaBox" => vec![0.into(), 0.into(), 1190.into(), 842.into()],
        "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image_id } },
    });
    document.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
        }),
    );
    let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    document.trailer.set("Root", catalog);
    let mut bytes = Vec::new();
    document.save_to(&mut bytes).unwrap();
    bytes
}

#[test]
fn an_image_only_pdf_page_is_read_as_a_scanned_drawing() {
    let Some(png) = scanned(
        "pdf/trident__VRN-BP-VT-250-R0_-_VORON_Trident_Build_Plate_250mm.pdf",
        200.0,
        1.0,
    ) else {
        return;
    };
    let page = image::load_from_memory(&png).unwrap().to_luma8();
    let mut jpeg = Vec::new();
    page.write_to(
        &mut std::io::Cursor::new(&mut jpeg),
        image::ImageFormat::Jpeg,
    )
    .unwrap();
    let pdf = image_only_pdf(jpeg, page.width(), page.height());
    let analysis = crate::analyze(".pdf", &pdf).unwrap();
    // The scan is the view (not the blank page the vector reader sees).
    let view_of_scan = crate::analyze(".png", &png).unwrap().views;
    assert_eq!(analysis.views.len(), 1);
    assert!(
        crate::match_views(&analysis.views, &view_of_scan) > 0.9,
        "the PDF's view is its page picture"
    );
    if super::READS_RASTER_TEXT {
        assert!(
            analysis
                .extracted_attributes
                .iter()
                .any(|attribute| attribute == "part_number=VRN-BP-VT-250"),
            "{:?}",
            analysis.extracted_attributes
        );
    } else {
        assert_text_not_read(&analysis);
    }
}
