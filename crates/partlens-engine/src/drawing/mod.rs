//! Drawings (DXF, PDF): the first page rendered to a picture, and the PMI read from it — texts, dimensions,
//! title-block values and tolerances with their boxes in page pixels — plus the drawing's text and
//! the attributes it states.
//!
//! Flow: a format reader (`dxf_scene.rs`, `pdf_scene.rs`) makes a [`scene::Scene`] a page in drawing
//! units; `page.rs` maps it to page pixels (a DXF's extents fitted to the large image's size; a PDF's
//! media box at 100 dpi, less for sheets over 10.24 in, so page 1 is the large image 1:1); `render.rs` draws it (texts in glyphs of egui's bundled Hack font, `glyphs.rs`); `pmi.rs` turns its texts
//! into PMI items in reading order; `title_block.rs` reads attributes; `text_clean.rs` turns stored
//! text codes into readable text; `curves.rs` approximates arcs, ellipses and splines.
//!
//! PMI pages: a DXF has one (model space, or paper space when it has content); a PDF one a page (at
//! most 100), page 1 rendered.
//!
//! PMI `type_id` numbering (the service's own; also documented on [`partlens_api::PmiItem`]):
//! 1 text note (TEXT, MTEXT), 2 dimension (DIMENSION), 3 title-block attribute (ATTRIB of an
//! INSERT), 4 tolerance / GD&T frame (TOLERANCE). PDF texts are 1 or 2 (a text that reads like a
//! dimension).

#[cfg(test)]
mod corpus_tests;
mod curves;
pub mod dimension;
mod dxf_scene;
mod dxf_tags;
mod glyphs;
#[cfg(feature = "ocr")]
mod ocr;
mod page;
mod page_image;
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

use super::{Analysis, EngineError, ExtractionLimits, TextBudget, ViewDescriptor, images};

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
    if !READS_RASTER_TEXT {
        analysis
            .extracted_attributes
            .push(text_not_read("this build of partlens has no OCR"));
        mark_as_a_drawing(analysis);
        return Ok(());
    }
    let read = read_raster_text(extension, image, analysis, limits).unwrap_or_else(|reason| {
        analysis.extracted_attributes.push(text_not_read(&reason));
        Ok(())
    });
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

#[cfg(not(feature = "ocr"))]
fn read_raster_text(
    _extension: &str,
    _image: &DynamicImage,
    _analysis: &mut Analysis,
    _limits: &ExtractionLimits,
) -> Result<Result<(), EngineError>, String> {
    Err("this build of partlens has no OCR".to_owned())
}

/// OCR of a raster drawing: `Err` with the reason when the page could not be read, `Ok(Err)` when
/// what it says is over a limit.
#[cfg(feature = "ocr")]
fn read_raster_text(
    extension: &str,
    image: &DynamicImage,
    analysis: &mut Analysis,
    limits: &ExtractionLimits,
) -> Result<Result<(), EngineError>, String> {
    let page = raster::clean_page(image);
    let started = std::time::Instant::now();
    let mut words = ocr::read_words(&page)?;
    // Text written up the page (vertical dimensions) reads across on the page turned a quarter
    // clockwise; read again that way when the first reading left time for it within the worker's
    // limit (a reading fails alone: the first one's words stay).
    if started.elapsed() < ocr::OCR_TIME_LIMIT / 3
        && let Ok(turned) = ocr::read_words(&image::imageops::rotate90(&page))
    {
        words = raster::with_turned_words(words, turned, page.height());
    }
    let (width, height) = (image.width(), image.height());
    let scale = (f64::from(super::LARGE_IMAGE_SIZE) / f64::from(width.max(height))).min(1.0);
    let large = [
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    ];
    let pmi_page = raster::pmi_page_of_words(&words, [page.width(), page.height()], large);
    let mut budget = TextBudget::new(limits);
    for item in &pmi_page.items {
        if let Err(super::OverLimit(reason)) = budget.take_item(&item.text) {
            return Ok(Err(over_limit(extension, reason)));
        }
    }
    analysis.text = pmi::unstructured_text(&pmi_page.items);
    analysis
        .extracted_attributes
        .extend(title_block::attributes_of_items(
            &pmi_page.items,
            pmi_page.image_size,
        ));
    analysis.pmi_pages = vec![pmi_page];
    Ok(Ok(()))
}

/// True when files with this extension are read as drawings.
pub fn is_drawing_extension(extension: &str) -> bool {
    DRAWING_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Analyses a drawing by its extension (`.dxf` or `.pdf`, lower-case), within `limits`: the text
/// and PMI items are counted while the reader places them.
pub fn analyze_drawing(
    extension: &str,
    bytes: &[u8],
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let mut budget = TextBudget::new(limits);
    let mut analysis = if extension == ".pdf" {
        analyze_pdf(bytes, &mut budget, limits)?
    } else {
        analyze_dxf(bytes, &mut budget)?
    };
    mark_as_a_drawing(&mut analysis);
    Ok(analysis)
}

/// Marks the views of a drawing's analysis as a drawing's, carrying the part numbers its title
/// block states: a search by a model ranks a drawing behind the models of its kind unless the
/// drawing names the model's part number (see `index.rs`).
fn mark_as_a_drawing(analysis: &mut Analysis) {
    let keys = crate::descriptor::part_number_keys(&analysis.extracted_attributes);
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

/// Analyses a DXF drawing: the rendered page becomes the view, thumbnail and large image; its texts
/// the PMI (page 1), the free text and the extracted attributes.
pub fn analyze_dxf(bytes: &[u8], budget: &mut TextBudget) -> Result<Analysis, EngineError> {
    let undecodable = undecodable(".dxf");
    let drawing = dxf_scene::parse(bytes).map_err(|error| undecodable(error.to_string()))?;
    let viewports = dxf_tags::paper_viewports(bytes);
    let scene = dxf_scene::scene_of(&drawing, &viewports, budget).map_err(|error| match error {
        dxf_scene::DxfReadError::OverLimit(reason) => over_limit(".dxf", reason.0),
        other => undecodable(other.to_string()),
    })?;
    drop(drawing);
    let (min, max) = scene
        .extents()
        .ok_or_else(|| undecodable("the drawing has nothing to draw".to_owned()))?;
    let page = page::Page::fitting(min, max);
    let mut reader = PagesRead::default();
    reader.add(&scene, &page).map_err(&undecodable)?;
    Ok(reader.finish())
}

/// Analyses a PDF drawing: one PMI page a document page, page 1 rendered for the view, thumbnail and
/// large image. A PDF with no text whose first page is mostly one picture is a scan: that picture
/// is the view and is read as a raster drawing ([`read_raster_drawing`]).
pub fn analyze_pdf(
    bytes: &[u8],
    budget: &mut TextBudget,
    limits: &ExtractionLimits,
) -> Result<Analysis, EngineError> {
    let undecodable = undecodable(".pdf");
    let pages = pdf_scene::read_pages(bytes, budget).map_err(|error| match error {
        pdf_scene::PdfReadError::OverLimit(reason) => over_limit(".pdf", reason.0),
        other => undecodable(other.to_string()),
    })?;
    let mut reader = PagesRead::default();
    for pdf_page in &pages {
        let longest = (pdf_page.max[0] - pdf_page.min[0]).max(pdf_page.max[1] - pdf_page.min[1]);
        let pixels_per_point =
            PDF_PIXELS_PER_POINT.min(f64::from(super::LARGE_IMAGE_SIZE) / longest.max(1.0));
        let page = page::Page::sheet(pdf_page.min, pdf_page.max, pixels_per_point);
        reader.add(&pdf_page.scene, &page).map_err(&undecodable)?;
    }
    let mut analysis = reader.finish();
    let scan = pages
        .first()
        .and_then(|page| page.image.as_ref())
        .filter(|image| image.coverage >= page_image::MIN_SCAN_COVERAGE)
        .filter(|_| pages.iter().all(|page| page.scene.texts.is_empty()));
    if let Some(image) = scan {
        match page_image::decode(image, limits) {
            Ok(picture) => {
                analysis.views = vec![ViewDescriptor::of_image(&picture)];
                analysis.thumbnail_jpeg = Some(
                    images::thumbnail_jpeg(&picture)
                        .map_err(|error| undecodable(error.to_string()))?,
                );
                analysis.large_png = Some(
                    images::large_png(&picture).map_err(|error| undecodable(error.to_string()))?,
                );
                read_raster_drawing(".pdf", &picture, &mut analysis, limits)?;
            }
            Err(reason) => analysis.extracted_attributes.push(text_not_read(&reason)),
        }
    }
    Ok(analysis)
}

/// What the pages of one drawing gave so far.
#[derive(Default)]
struct PagesRead {
    analysis: Analysis,
    texts: Vec<scene::PlacedText>,
    lines: Vec<String>,
    /// Title-block cells found on the pages: attribute name and value.
    cells: Vec<(&'static str, String)>,
    /// The identifier in page 1's title block, the part number when no label names one.
    identifier: Option<String>,
}

impl PagesRead {
    /// Reads one page; the first is also rendered.
    fn add(&mut self, scene: &scene::Scene, page: &page::Page) -> Result<(), String> {
        if self.analysis.pmi_pages.is_empty() {
            let picture = DynamicImage::ImageRgb8(render::render(scene, page));
            self.analysis.views = vec![ViewDescriptor::of_image(&picture)];
            self.analysis.thumbnail_jpeg =
                Some(images::thumbnail_jpeg(&picture).map_err(|error| error.to_string())?);
            self.analysis.large_png =
                Some(images::large_png(&picture).map_err(|error| error.to_string())?);
        }
        let mut items = pmi::page_items(scene, page);
        // Title-block cells are typed as such (a PDF's texts carry no kind: they were notes).
        for (name, value, label, value_index) in title_block::title_block_items(&items) {
            for index in [label, value_index] {
                items[index].type_id = PmiItemKind::TitleBlockAttribute.type_id();
                items[index].dimension = None;
            }
            self.cells.push((name, value));
        }
        if self.analysis.pmi_pages.is_empty() {
            self.identifier = title_block::identifier_in_title_block(
                &items,
                [i64::from(page.width), i64::from(page.height)],
            );
        }
        let text = pmi::unstructured_text(&items);
        if !text.is_empty() {
            self.lines.push(text);
        }
        for off_page in &scene.off_page_texts {
            self.lines
                .push(off_page.text.lines().collect::<Vec<_>>().join(" "));
        }
        let number = i64::try_from(self.analysis.pmi_pages.len() + 1).unwrap_or(i64::MAX);
        self.analysis
            .pmi_pages
            .push(pmi::pmi_page(number, page, items));
        let mut texts = scene.texts.clone();
        // Attributes follow reading order too (top to bottom, left to right in drawing units).
        texts.sort_by(|a, b| {
            let [ax, ay] = a.frame.apply([0.0, 0.0]);
            let [bx, by] = b.frame.apply([0.0, 0.0]);
            by.total_cmp(&ay).then(ax.total_cmp(&bx))
        });
        self.texts.extend(texts);
        self.texts.extend(scene.off_page_texts.iter().cloned());
        Ok(())
    }

    fn finish(mut self) -> Analysis {
        let texts: Vec<&scene::PlacedText> = self.texts.iter().collect();
        let mut attributes = title_block::extracted_attributes(&texts, &self.cells);
        let numbered = attributes.iter().any(|attribute| {
            attribute.starts_with("part_number=") || attribute.starts_with("drawing_number=")
        });
        if let (false, Some(identifier)) = (numbered, self.identifier.take()) {
            attributes.push(format!(
                "part_number={}",
                title_block::sanitise_value(&identifier)
            ));
        }
        self.analysis.extracted_attributes = attributes;
        self.analysis.text = self.lines.join("\n");
        self.analysis
    }
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
        let analysis = analyze_dxf(&sample_drawing_dxf(sample).unwrap(), &mut budget()).unwrap();
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
                    analyze_dxf(bytes, &mut budget()),
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
