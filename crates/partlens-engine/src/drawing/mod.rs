//! Drawings (DXF, PDF): each page rendered to a picture, and the PMI read from it — texts, dimensions,
//! title-block values and tolerances with their boxes in page pixels — plus the drawing's text and
//! the attributes it states.
//!
//! Flow: a format reader (`dxf_scene.rs` with `dxf_layouts.rs`, `pdf_scene.rs`) makes a
//! [`scene::Scene`] a page in drawing units; `page.rs` maps it to page pixels (a DXF's extents
//! fitted to the large image's size; a PDF's media box at 100 dpi, less for sheets over 10.24 in,
//! so a page is its large image 1:1); `pages.rs` reads the pages in turn: `render.rs` draws each
//! (texts in glyphs of egui's bundled Hack font, `glyphs.rs`) while the file's picture budget
//! lasts, `pmi.rs` turns its texts into PMI items in reading order; `title_block.rs` reads
//! attributes; `text_clean.rs` turns stored text codes into readable text; `curves.rs`
//! approximates arcs, ellipses and splines.
//!
//! Pages ([`crate::DrawingPage`], one PMI page each, numbered from 1): a PDF's pages in order (at
//! most [`MAX_PDF_PAGES`]); a DXF's model space when it has entities, then each paper-space layout
//! that has entities, in tab order. Each page is pictured (one view, a thumbnail and a large
//! image) while the pixels of the file's pictures stay within `max_pictured_pixels` (page 1
//! always); the analysis' own thumbnail and large image are page 1's. A PDF page with no text
//! whose picture covers at least half of it is a scan: its picture is that image, read by OCR
//! with the `ocr` feature (all scanned pages of a file within [`OCR_TIME_OF_A_FILE`]).
//!
//! PMI `type_id` numbering (the service's own; also documented on [`partlens_api::PmiItem`]):
//! 1 text note (TEXT, MTEXT), 2 dimension (DIMENSION), 3 title-block attribute (ATTRIB of an
//! INSERT), 4 tolerance / GD&T frame (TOLERANCE). PDF texts are 1 or 2 (a text that reads like a
//! dimension).

#[cfg(test)]
pub(crate) mod corpus_tests;
mod curves;
pub mod dimension;
mod dxf_layouts;
mod dxf_scene;
mod dxf_tags;
mod glyphs;
#[cfg(feature = "ocr")]
mod ocr;
mod page;
mod page_image;
mod pages;
#[cfg(test)]
mod pages_tests;
mod pdf_scene;
mod pdf_widths;
mod pmi;
pub mod raster;
mod render;
mod scene;
mod text_clean;
mod title_block;
mod to_unicode;

use image::DynamicImage;

use partlens_api::PmiPage;

use super::{Analysis, EngineError, ExtractionLimits, TextBudget};
use pages::{PageError, PagePicture, PagesRead};

pub use dxf_scene::{MAX_BLOCK_DEPTH, MAX_DXF_BYTES, MAX_ENTITIES, MAX_POINTS};
pub use pdf_scene::{MAX_PDF_BYTES, MAX_PDF_PAGES};

/// Drawing formats the engine reads (lower-case extensions with the dot).
pub const DRAWING_EXTENSIONS: &[&str] = &[".dxf", ".pdf"];
/// Resolution of PDF pages in page pixels: 100 dpi (PDF units are 1/72 in).
const PDF_PIXELS_PER_POINT: f64 = 100.0 / 72.0;

/// What a PMI item is; its number is the wire's `type_id`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PmiItemKind {
    /// 1: a text note (TEXT, MTEXT).
    Note,
    /// 2: a dimension's text (measured value or override).
    Dimension,
    /// 3: a title-block value (an ATTRIB of an INSERT).
    TitleBlockAttribute,
    /// 4: a tolerance or GD&T feature control frame.
    Tolerance,
}

impl PmiItemKind {
    /// The wire's `type_id`.
    pub fn type_id(self) -> i64 {
        match self {
            Self::Note => 1,
            Self::Dimension => 2,
            Self::TitleBlockAttribute => 3,
            Self::Tolerance => 4,
        }
    }
}

/// True when this build reads the text of raster drawings (scans, image-only pages) by OCR: the
/// `ocr` feature. Without it a raster drawing is searched by how it looks and its record says that
/// its text was not read.
pub const READS_RASTER_TEXT: bool = cfg!(feature = "ocr");

/// The attribute a picture that is a drawing gets when its text is not read, and why.
pub const TEXT_NOT_READ_ATTRIBUTE: &str = "drawing_text";

/// Longest the OCR of one file's scanned pages may take together: a page is read only while less
/// than this has been spent on the pages before it (one page's run is also stopped at
/// `ocr::OCR_TIME_LIMIT`), so a scanned PDF of many pages stays within the reader's 60 s.
pub const OCR_TIME_OF_A_FILE: std::time::Duration = std::time::Duration::from_secs(40);

/// The OCR time spent on one file so far.
#[derive(Default)]
pub struct OcrClock {
    // Read only by the OCR of the `ocr` feature.
    #[cfg_attr(not(feature = "ocr"), allow(dead_code))]
    spent: std::time::Duration,
}

/// What OCR read on one raster page: its PMI page (page 1, boxes in its large image's pixels), its
/// text and the title-block attributes it states.
pub struct RasterReading {
    /// The page's words as PMI items, one a line.
    pub pmi_page: PmiPage,
    /// The page's text.
    pub text: String,
    /// Attributes its title block states, `name=value`.
    pub attributes: Vec<String>,
}

/// Adds to a picture's analysis what it says when it is a drawing (see `raster.rs`): with OCR its
/// words as PMI items (one a line, boxes in the large image's pixels), its text and title-block
/// attributes; without OCR, or when OCR fails, the attribute `drawing_text=not read: …`. A photo
/// of a part is left as it is and never given to OCR.
pub fn read_raster_drawing(
    extension: &str,
    image: &DynamicImage,
    analysis: &mut Analysis,
    limits: &ExtractionLimits,
) -> Result<(), EngineError> {
    if !raster::looks_like_a_drawing(image) {
        return Ok(());
    }
    let mut budget = TextBudget::new(limits);
    let read = match read_raster_page(image, &mut budget, &mut OcrClock::default()) {
        Ok(Ok(reading)) => {
            analysis.text = reading.text;
            analysis.extracted_attributes.extend(reading.attributes);
            analysis.pmi_pages = vec![reading.pmi_page];
            Ok(())
        }
        Ok(Err(super::OverLimit(reason))) => Err(over_limit(extension, reason)),
        Err(reason) => {
            analysis.extracted_attributes.push(text_not_read(&reason));
            Ok(())
        }
    };
    mark_as_a_drawing(analysis);
    read
}

/// The attribute that says a drawing's text was not read, and why.
fn text_not_read(reason: &str) -> String {
    format!(
        "{TEXT_NOT_READ_ATTRIBUTE}={}",
        title_block::sanitise_value(&format!("not read: {reason}"))
    )
}

/// OCR of a raster page that looks like a drawing: `Err` with the reason when it could not be read
/// (no OCR in this build, the file's OCR time spent, the program failed), `Ok(Err)` when what it
/// says is over a cap of `budget`.
#[cfg(not(feature = "ocr"))]
pub fn read_raster_page(
    _image: &DynamicImage,
    _budget: &mut TextBudget,
    _clock: &mut OcrClock,
) -> Result<Result<RasterReading, super::OverLimit>, String> {
    Err("this build of partlens has no OCR".to_owned())
}

/// OCR of a raster page that looks like a drawing: `Err` with the reason when it could not be read
/// (the file's OCR time spent, the program failed), `Ok(Err)` when what it says is over a cap of
/// `budget`.
#[cfg(feature = "ocr")]
pub fn read_raster_page(
    image: &DynamicImage,
    budget: &mut TextBudget,
    clock: &mut OcrClock,
) -> Result<Result<RasterReading, super::OverLimit>, String> {
    if clock.spent >= OCR_TIME_OF_A_FILE {
        return Err(format!(
            "the OCR time of one file ({} s) was spent on the pages before it",
            OCR_TIME_OF_A_FILE.as_secs()
        ));
    }
    let page = raster::clean_page(image);
    let started = std::time::Instant::now();
    let words = ocr::read_words(&page);
    let mut words = match words {
        Ok(words) => words,
        Err(reason) => {
            clock.spent += started.elapsed();
            return Err(reason);
        }
    };
    // Text written up the page (vertical dimensions) reads across on the page turned a quarter
    // clockwise; read again that way when the first reading left time for it within the worker's
    // limit (a reading fails alone: the first one's words stay).
    if started.elapsed() < ocr::OCR_TIME_LIMIT / 3
        && let Ok(turned) = ocr::read_words(&image::imageops::rotate90(&page))
    {
        words = raster::with_turned_words(words, turned, page.height());
    }
    clock.spent += started.elapsed();
    let (width, height) = (image.width(), image.height());
    let scale = (f64::from(super::LARGE_IMAGE_SIZE) / f64::from(width.max(height))).min(1.0);
    let large = [
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    ];
    let pmi_page = raster::pmi_page_of_words(&words, [page.width(), page.height()], large);
    for item in &pmi_page.items {
        if let Err(over) = budget.take_item(&item.text) {
            return Ok(Err(over));
        }
    }
    Ok(Ok(RasterReading {
        text: pmi::unstructured_text(&pmi_page.items),
        attributes: title_block::attributes_of_items(&pmi_page.items, pmi_page.image_size),
        pmi_page,
    }))
}

/// True when files with this extension are read as drawings.
pub fn is_drawing_extension(extension: &str) -> bool {
    DRAWING_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Analyses a drawing by its extension (`.dxf` or `.pdf`, lower-case), within `limits`: the text
/// and PMI items are counted while the reader places them, the pages' pictures within the file's
/// picture budget.
pub fn analyze_drawing(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let mut budget = TextBudget::new(limits);
    let mut analysis = if extension == ".pdf" {
        analyze_pdf(bytes, &mut budget, limits)?
    } else {
        analyze_dxf(bytes, &mut budget, limits)?
    };
    mark_as_a_drawing(&mut analysis);
    Ok(analysis)
}

/// Reads a drawing's words only (`textOnly` uploads): each page's PMI, the text and the
/// title-block attributes, as [`analyze_drawing`] reads them, but no page is pictured (no view,
/// thumbnail, large image or OCR).
pub fn read_drawing_text(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let mut budget = TextBudget::new(limits);
    let reader = PagesRead::text_only(limits);
    if extension == ".pdf" {
        read_pdf(bytes, &mut budget, reader)
    } else {
        read_dxf(bytes, &mut budget, reader)
    }
}

/// Marks the views of a drawing's analysis as a drawing's, carrying the part numbers its title
/// block states: a search by a model ranks a drawing behind the models of its kind unless the
/// drawing names the model's part number (see `index.rs`).
fn mark_as_a_drawing(analysis: &mut Analysis) {
    let keys = crate::part_numbers::part_number_keys(&analysis.extracted_attributes);
    analysis.views = std::mem::take(&mut analysis.views)
        .into_iter()
        .map(|view| view.as_drawing(true).with_part_numbers(keys.clone()))
        .collect();
}

fn undecodable(extension: &str) -> impl Fn(String) -> EngineError + '_ {
    move |reason| EngineError::Undecodable {
        extension: extension.to_owned(),
        reason,
    }
}

fn over_limit(extension: &str, reason: String) -> EngineError {
    EngineError::OverLimit {
        extension: extension.to_owned(),
        reason,
    }
}

/// A page that could not be read, as the engine's error for a file of `extension`.
fn page_error(extension: &str) -> impl Fn(PageError) -> EngineError + '_ {
    move |error| match error {
        PageError::Unencodable(reason) => undecodable(extension)(reason),
        PageError::OverLimit(reason) => over_limit(extension, reason),
    }
}

/// Analyses a DXF drawing: its pages (model space, then the layouts with entities in tab order)
/// each rendered for its view, thumbnail and large image within the picture budget of `limits`;
/// their texts the PMI, the free text and the extracted attributes.
pub fn analyze_dxf(
    bytes: &[u8],
    budget: &mut TextBudget,
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    read_dxf(bytes, budget, PagesRead::new(limits))
}

/// Reads a DXF drawing's pages into `reader` (which pictures them or not).
fn read_dxf(
    bytes: &[u8],
    budget: &mut TextBudget,
    mut reader: PagesRead,
) -> Result<Analysis, EngineError> {
    let undecodable = undecodable(".dxf");
    let drawing = dxf_scene::parse(bytes).map_err(|error| undecodable(error.to_string()))?;
    let layouts = dxf_layouts::paper_layouts(&drawing, bytes);
    let pages =
        dxf_scene::page_scenes(&drawing, &layouts, budget).map_err(|error| match error {
            dxf_scene::DxfReadError::OverLimit(reason) => over_limit(".dxf", reason.0),
            other => undecodable(other.to_string()),
        })?;
    drop(drawing);
    for dxf_page in &pages {
        let (min, max) = dxf_page
            .scene
            .extents()
            .ok_or_else(|| undecodable("the drawing has nothing to draw".to_owned()))?;
        let page = page::Page::fitting(min, max);
        reader
            .add(
                &dxf_page.scene,
                &page,
                Some(dxf_page.name.clone()),
                PagePicture::Rendered,
                budget,
            )
            .map_err(page_error(".dxf"))?;
    }
    Ok(reader.finish())
}

/// Analyses a PDF drawing: one page a document page (at most [`MAX_PDF_PAGES`]), each rendered for
/// its view, thumbnail and large image within the picture budget of `limits`. A page with no text
/// that is mostly one picture is a scan: that picture is its view, read as a raster drawing (OCR
/// with the `ocr` feature); a scan whose picture cannot be decoded is rendered as it is drawn.
pub fn analyze_pdf(
    bytes: &[u8],
    budget: &mut TextBudget,
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    read_pdf(bytes, budget, PagesRead::new(limits))
}

/// Reads a PDF drawing's pages into `reader` (which pictures them or not: a text-only reader
/// decodes no scan).
fn read_pdf(
    bytes: &[u8],
    budget: &mut TextBudget,
    mut reader: PagesRead,
) -> Result<Analysis, EngineError> {
    let undecodable = undecodable(".pdf");
    let pages = pdf_scene::read_pages(bytes, budget).map_err(|error| match error {
        pdf_scene::PdfReadError::OverLimit(reason) => over_limit(".pdf", reason.0),
        other => undecodable(other.to_string()),
    })?;
    let limits = *reader.limits();
    let limits = &limits;
    let mut scans_not_decoded = Vec::new();
    for pdf_page in &pages {
        let longest = (pdf_page.max[0] - pdf_page.min[0]).max(pdf_page.max[1] - pdf_page.min[1]);
        let pixels_per_point =
            PDF_PIXELS_PER_POINT.min(f64::from(super::LARGE_IMAGE_SIZE) / longest.max(1.0));
        let page = page::Page::sheet(pdf_page.min, pdf_page.max, pixels_per_point);
        let scan = pdf_page
            .image
            .as_ref()
            .filter(|image| image.coverage >= page_image::MIN_SCAN_COVERAGE)
            .filter(|_| pdf_page.scene.texts.is_empty() && reader.pictures_pages())
            .map(|image| page_image::decode(image, limits));
        let picture = match &scan {
            Some(Ok(picture)) => PagePicture::Scanned(picture),
            Some(Err(reason)) => {
                scans_not_decoded.push(reason.clone());
                PagePicture::Rendered
            }
            None => PagePicture::Rendered,
        };
        reader
            .add(&pdf_page.scene, &page, None, picture, budget)
            .map_err(page_error(".pdf"))?;
    }
    let mut analysis = reader.finish();
    if let Some(reason) = scans_not_decoded.first() {
        analysis.extracted_attributes.push(text_not_read(reason));
    }
    Ok(analysis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::drawings::{
        SAMPLE_DRAWINGS, SAMPLE_PDF_DRAWING, sample_drawing_dxf, sample_drawing_pdf,
    };

    fn budget() -> TextBudget {
        TextBudget::new(&ExtractionLimits::default())
    }

    /// Every PMI box is a real box inside the page's image.
    fn assert_boxes_inside_the_page(page: &partlens_api::PmiPage) {
        for item in &page.items {
            let [left, top, right, bottom] = item.box_in_page;
            assert!(
                0 <= left && left < right && right <= page.image_size[0],
                "{item:?}"
            );
            assert!(
                0 <= top && top < bottom && bottom <= page.image_size[1],
                "{item:?}"
            );
        }
    }

    #[test]
    fn the_flange_drawing_gives_a_page_its_pmi_text_and_attributes() {
        let sample = &SAMPLE_DRAWINGS[0];
        let analysis = analyze_dxf(
            &sample_drawing_dxf(sample).unwrap(),
            &mut budget(),
            &ExtractionLimits::default(),
        )
        .unwrap();
        assert_eq!(analysis.views.len(), 1);
        let large = image::load_from_memory(analysis.large_png.as_deref().unwrap()).unwrap();
        let page = &analysis.pmi_pages[0];
        assert_eq!(page.page, 1);
        assert_eq!(
            page.image_size,
            [i64::from(large.width()), i64::from(large.height())]
        );
        assert_eq!(
            large.width().max(large.height()),
            super::super::LARGE_IMAGE_SIZE
        );
        let dimensions: Vec<&str> = page
            .items
            .iter()
            .filter(|item| item.type_id == 2)
            .map(|item| item.text.as_str())
            .collect();
        assert!(dimensions.contains(&"Ø160"), "{dimensions:?}");
        assert!(dimensions.contains(&"Ø60 H7 ±0.015"), "{dimensions:?}");
        assert!(dimensions.contains(&"20"), "{dimensions:?}");
        // Each dimension item carries what it states, for the PMIData's `dimension` extension.
        let bore = page
            .items
            .iter()
            .find(|item| item.text == "Ø60 H7 ±0.015")
            .and_then(|item| item.dimension.clone())
            .unwrap();
        assert_eq!((bore.kind.as_str(), bore.value), ("diameter", 60.0));
        assert_eq!(bore.fit.as_deref(), Some("H7"));
        let tolerance = bore.tolerance.unwrap();
        assert_eq!(
            (tolerance.kind.as_str(), tolerance.upper, tolerance.lower),
            ("symmetric", 0.015, -0.015)
        );
        assert!(
            page.items
                .iter()
                .filter(|item| item.type_id != 2)
                .all(|item| item.dimension.is_none())
        );
        assert_boxes_inside_the_page(page);
        assert!(
            page.items
                .iter()
                .any(|item| item.type_id == 3 && item.text == "PL-1002"),
            "{:?}",
            page.items
        );
        assert!(analysis.text.contains("DEBURR BOLT HOLES"));
        // The notes stay notes (title-block cells are found by their labels only).
        assert!(
            page.items
                .iter()
                .any(|item| item.type_id == 1 && item.text.contains("DEBURR BOLT HOLES")),
            "{:?}",
            page.items
        );
        assert!(analysis.text.contains("8X Ø14 EQ SP ON Ø120 PCD"));
        // The note reads top to bottom.
        let notes = analysis.text.find("NOTES:").unwrap();
        assert!(notes < analysis.text.find("BREAK ALL").unwrap());
        for expected in [
            "part_number=PL-1002",
            "material=STAINLESS STEEL 1.4301",
            "drawing_number=DWG-1002",
            "revision=B",
            "scale=1:2",
        ] {
            assert!(
                analysis
                    .extracted_attributes
                    .iter()
                    .any(|found| found == expected),
                "{expected} in {:?}",
                analysis.extracted_attributes
            );
        }
    }

    #[test]
    fn the_shaft_drawing_has_its_toleranced_diameter() {
        let analysis = analyze_dxf(
            &sample_drawing_dxf(&SAMPLE_DRAWINGS[1]).unwrap(),
            &mut budget(),
            &ExtractionLimits::default(),
        )
        .unwrap();
        let texts: Vec<&str> = analysis.pmi_pages[0]
            .items
            .iter()
            .map(|item| item.text.as_str())
            .collect();
        assert!(texts.contains(&"Ø50 h6 ±0.008"), "{texts:?}");
        assert!(texts.contains(&"320"), "{texts:?}");
        assert!(analysis.text.contains("CHAMFER ALL ENDS 1 X 45°"));
    }

    #[test]
    fn the_pdf_drawing_gives_its_page_dimensions_note_and_title_block() {
        let bytes = sample_drawing_pdf(&SAMPLE_PDF_DRAWING).unwrap();
        let analysis = analyze_drawing(".pdf", &bytes, &ExtractionLimits::default()).unwrap();
        let page = &analysis.pmi_pages[0];
        // A4 landscape (842 × 595 pt) at 100 dpi is 1169 px wide: scaled to the large image's 1024.
        assert_eq!(page.image_size, [1024, 724]);
        let large = image::load_from_memory(analysis.large_png.as_deref().unwrap()).unwrap();
        assert_eq!(
            [i64::from(large.width()), i64::from(large.height())],
            page.image_size
        );
        assert_eq!(analysis.views.len(), 1);
        let dimensions: Vec<&str> = page
            .items
            .iter()
            .filter(|item| item.type_id == 2)
            .map(|item| item.text.as_str())
            .collect();
        assert_eq!(dimensions, ["R4", "80", "2X Ø8 H7 ±0.015", "60"]);
        assert_boxes_inside_the_page(page);
        // The "60" under the side view: its box is where the text was written (x 160 pt, y 168 pt).
        let sixty = page.items.iter().find(|item| item.text == "60").unwrap();
        let scale = 1024.0 / 842.0;
        assert!(
            (sixty.box_in_page[0] as f64 - 160.0 * scale).abs() <= 1.0,
            "{sixty:?}"
        );
        assert!(
            (sixty.box_in_page[3] as f64 - (595.0 - 168.0) * scale).abs() <= 4.0,
            "{sixty:?}"
        );
        assert!(analysis.text.contains("1. ANODISE BLACK AFTER MACHINING"));
        for expected in [
            "part_number=PL-1003",
            "material=ALUMINIUM 6061-T6",
            "drawing_number=DWG-1003",
            "revision=C",
            "title=L BRACKET",
        ] {
            assert!(
                analysis
                    .extracted_attributes
                    .iter()
                    .any(|found| found == expected),
                "{expected} in {:?}",
                analysis.extracted_attributes
            );
        }
        // The white background is paper: the page corner is white, an outline is ink.
        let large = large.to_rgb8();
        assert_eq!(large.get_pixel(2, 2).0, [255, 255, 255]);
        let [x, y] = [(100.0 * scale) as u32, ((595.0 - 200.0) * scale) as u32];
        let dark = (y.saturating_sub(2)..y + 2)
            .flat_map(|row| (x.saturating_sub(2)..x + 2).map(move |column| (column, row)))
            .any(|(column, row)| large.get_pixel(column, row).0[0] < 128);
        assert!(dark);
    }

    #[test]
    fn hostile_dxf_content_is_undecodable() {
        for bytes in [
            &b"not a drawing at all"[..],
            b"",
            b"0\nSECTION\n2\nENTITIES\n0\nENDSEC\n0\nEOF\n",
            b"0\nSECTION\n2\nENTITIES\n0\nLINE\n10\nnot-a-number\n",
        ] {
            assert!(
                matches!(
                    analyze_dxf(bytes, &mut budget(), &ExtractionLimits::default()),
                    Err(EngineError::Undecodable { .. })
                ),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
            assert!(
                matches!(
                    analyze_drawing(".pdf", bytes, &ExtractionLimits::default()),
                    Err(EngineError::Undecodable { .. })
                ),
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
}
