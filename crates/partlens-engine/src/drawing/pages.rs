//! The pages of one drawing read in turn ([`PagesRead`]): each page's PMI items from its scene,
//! its picture (rendered from the scene, or a scanned page's own picture) while the file's picture
//! budget lasts, one view a pictured page, and at the end the text and title-block attributes of
//! all pages together.
//!
//! The budget is the whole file's ([`PictureBudget`], `max_pictured_pixels`): page 1 is always
//! pictured, a later page only while its pixels fit; a page past it keeps its PMI and text, and the
//! analysis gets the attribute [`PAGES_NOT_PICTURED_ATTRIBUTE`] naming those pages. A scanned page
//! is read by OCR (feature `ocr`) within one OCR time for the whole file
//! ([`super::OCR_TIME_OF_A_FILE`]).

use image::DynamicImage;
use partlens_api::PmiPage;

use super::{PmiItemKind, page, pmi, scene, title_block};
use crate::limits::{PictureBudget, TextBudget};
use crate::{
    Analysis, DrawingPage, ExtractionLimits, PAGES_NOT_PICTURED_ATTRIBUTE, ViewDescriptor, images,
};

/// What a page's picture is made from.
#[derive(Clone, Copy)]
pub enum PagePicture<'a> {
    /// Rendered from the page's scene.
    Rendered,
    /// A scanned page's own picture (decoded from the PDF), read by OCR.
    Scanned(&'a DynamicImage),
}

/// What the pages of one drawing gave so far.
pub struct PagesRead {
    analysis: Analysis,
    texts: Vec<scene::PlacedText>,
    lines: Vec<String>,
    /// Title-block cells found on the pages: attribute name and value.
    cells: Vec<(&'static str, String)>,
    /// Attributes read by OCR from scanned pages.
    read_attributes: Vec<String>,
    /// The identifier in page 1's title block, the part number when no label names one.
    identifier: Option<String>,
    pictures: PictureBudget,
    not_pictured: Vec<u32>,
    /// Pages whose text OCR could not read, with the reason.
    text_not_read: Vec<(u32, String)>,
    ocr: super::OcrClock,
    limits: ExtractionLimits,
    /// Pages are pictured (false for a text-only read: no picture, view or OCR at all).
    pictured: bool,
}

impl PagesRead {
    /// Nothing read yet, within `limits`.
    pub fn new(limits: &ExtractionLimits) -> Self {
        Self {
            analysis: Analysis::default(),
            texts: Vec::new(),
            lines: Vec::new(),
            cells: Vec::new(),
            read_attributes: Vec::new(),
            identifier: None,
            pictures: PictureBudget::new(limits),
            not_pictured: Vec::new(),
            text_not_read: Vec::new(),
            ocr: super::OcrClock::default(),
            limits: *limits,
            pictured: true,
        }
    }

    /// Nothing read yet, within `limits`, for a text-only read: the pages' PMI, text and
    /// attributes, never a picture (so no view, thumbnail, large image or OCR).
    pub fn text_only(limits: &ExtractionLimits) -> Self {
        Self {
            pictured: false,
            ..Self::new(limits)
        }
    }

    /// The extraction limits the pages are read within.
    pub fn limits(&self) -> &ExtractionLimits {
        &self.limits
    }

    /// True when pages are pictured (false for a text-only read).
    pub fn pictures_pages(&self) -> bool {
        self.pictured
    }

    /// Reads the next page: `scene` placed on `page`, named `name` (a DXF's layout), pictured from
    /// `picture` while the budget lasts; what OCR reads of a scanned page is counted in `budget`.
    /// `Err` when a picture cannot be encoded, or OCR read more than a cap allows (the reason).
    pub fn add(
        &mut self,
        scene: &scene::Scene,
        page: &page::Page,
        name: Option<String>,
        picture: PagePicture<'_>,
        budget: &mut TextBudget,
    ) -> Result<(), PageError> {
        let number = u32::try_from(self.analysis.pmi_pages.len() + 1).unwrap_or(u32::MAX);
        let mut drawing_page = DrawingPage {
            number,
            name,
            size_px: [page.width, page.height],
            ..DrawingPage::default()
        };
        match picture {
            _ if !self.pictured => {}
            PagePicture::Rendered => {
                let pixels = u64::from(page.width) * u64::from(page.height);
                if self.pictures.take(pixels) {
                    let rendered = DynamicImage::ImageRgb8(super::render::render(scene, page));
                    self.picture(&mut drawing_page, &rendered)
                        .map_err(PageError::Unencodable)?;
                }
            }
            PagePicture::Scanned(scan) => {
                let pixels = u64::from(scan.width()) * u64::from(scan.height());
                if self.pictures.take(pixels) {
                    self.picture(&mut drawing_page, scan)
                        .map_err(PageError::Unencodable)?;
                    drawing_page.size_px = large_size(scan);
                }
            }
        }
        if self.pictured && !drawing_page.is_pictured() {
            self.not_pictured.push(number);
        }
        self.read_page(scene, page, number);
        if let (PagePicture::Scanned(scan), true) = (picture, drawing_page.is_pictured()) {
            // A scan's PMI boxes are in its picture's pixels, whatever the sheet's size.
            if let Some(pmi_page) = self.analysis.pmi_pages.last_mut() {
                pmi_page.image_size = drawing_page.size_px.map(i64::from);
            }
            self.read_scan(scan, number, budget)
                .map_err(PageError::OverLimit)?;
        }
        self.analysis.pages.push(drawing_page);
        Ok(())
    }

    /// Makes the page's view, thumbnail and large image from `picture`; page 1's are also the
    /// analysis' own.
    fn picture(&mut self, page: &mut DrawingPage, picture: &DynamicImage) -> Result<(), String> {
        let first_view = self.analysis.views.len();
        self.analysis.views.push(ViewDescriptor::of_image(picture));
        page.views = first_view..self.analysis.views.len();
        page.thumbnail_jpeg =
            Some(images::thumbnail_jpeg(picture).map_err(|error| error.to_string())?);
        page.large_png = Some(images::large_png(picture).map_err(|error| error.to_string())?);
        page.size_px = [picture.width(), picture.height()];
        if page.number == 1 {
            self.analysis.thumbnail_jpeg = page.thumbnail_jpeg.clone();
            self.analysis.large_png = page.large_png.clone();
        }
        Ok(())
    }

    /// The page's PMI items, title-block cells, text and attributes' texts.
    fn read_page(&mut self, scene: &scene::Scene, page: &page::Page, number: u32) {
        let mut items = pmi::page_items(scene, page);
        // Title-block cells are typed as such (a PDF's texts carry no kind: they were notes).
        for (name, value, label, value_index) in title_block::title_block_items(&items) {
            for index in [label, value_index] {
                items[index].type_id = PmiItemKind::TitleBlockAttribute.type_id();
                items[index].dimension = None;
            }
            self.cells.push((name, value));
        }
        if number == 1 {
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
        self.analysis
            .pmi_pages
            .push(pmi::pmi_page(i64::from(number), page, items));
        let mut texts = scene.texts.clone();
        // Attributes follow reading order too (top to bottom, left to right in drawing units).
        texts.sort_by(|a, b| {
            let [ax, ay] = a.frame.apply([0.0, 0.0]);
            let [bx, by] = b.frame.apply([0.0, 0.0]);
            by.total_cmp(&ay).then(ax.total_cmp(&bx))
        });
        self.texts.extend(texts);
        self.texts.extend(scene.off_page_texts.iter().cloned());
    }

    /// A scanned page that looks like a drawing, read by OCR: its words become the page's PMI (in
    /// its large image's pixels), its text and title-block attributes join the file's.
    fn read_scan(
        &mut self,
        scan: &DynamicImage,
        number: u32,
        budget: &mut TextBudget,
    ) -> Result<(), String> {
        if !super::raster::looks_like_a_drawing(scan) {
            return Ok(());
        }
        match super::read_raster_page(scan, budget, &mut self.ocr) {
            Ok(Ok(reading)) => {
                self.lines.push(reading.text);
                self.read_attributes.extend(reading.attributes);
                let mut pmi_page: PmiPage = reading.pmi_page;
                pmi_page.page = i64::from(number);
                if let Some(slot) = self.analysis.pmi_pages.last_mut() {
                    *slot = pmi_page;
                }
                Ok(())
            }
            Ok(Err(over)) => Err(over.0),
            Err(reason) => {
                self.text_not_read.push((number, reason));
                Ok(())
            }
        }
    }

    /// The analysis of all pages read: text, attributes (title blocks, OCR, what was not done).
    pub fn finish(mut self) -> Analysis {
        let texts: Vec<&scene::PlacedText> = self.texts.iter().collect();
        let mut attributes = title_block::extracted_attributes(&texts, &self.cells);
        attributes.append(&mut self.read_attributes);
        let numbered = attributes.iter().any(|attribute| {
            attribute.starts_with("part_number=") || attribute.starts_with("drawing_number=")
        });
        if let (false, Some(identifier)) = (numbered, self.identifier.take()) {
            attributes.push(format!(
                "part_number={}",
                title_block::sanitise_value(&identifier)
            ));
        }
        let pages = self.analysis.pages.len();
        if !self.not_pictured.is_empty() {
            attributes.push(format!(
                "{PAGES_NOT_PICTURED_ATTRIBUTE}={} of {pages} (over the picture budget of {} pixels a file)",
                page_list(&self.not_pictured),
                self.limits.max_pictured_pixels
            ));
        }
        if let Some(reason) = text_not_read(&self.text_not_read, pages) {
            attributes.push(super::text_not_read(&reason));
        }
        self.analysis.extracted_attributes = attributes;
        self.analysis.text = self.lines.join("\n");
        self.analysis
    }
}

/// Why a page could not be read.
#[derive(Debug)]
pub enum PageError {
    /// Its picture could not be encoded (the encoder's words).
    Unencodable(String),
    /// What OCR read of it is over a cap of the extraction limits.
    OverLimit(String),
}

/// The size of the large image made of `picture`.
fn large_size(picture: &DynamicImage) -> [u32; 2] {
    let (width, height) = (picture.width(), picture.height());
    let scale = (f64::from(crate::LARGE_IMAGE_SIZE) / f64::from(width.max(height))).min(1.0);
    [
        ((f64::from(width) * scale).round() as u32).max(1),
        ((f64::from(height) * scale).round() as u32).max(1),
    ]
}

/// Page numbers as runs: `3–5, 9`.
fn page_list(numbers: &[u32]) -> String {
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for &number in numbers {
        match runs.last_mut() {
            Some((_, last)) if *last + 1 == number => *last = number,
            _ => runs.push((number, number)),
        }
    }
    runs.iter()
        .map(|(first, last)| {
            if first == last {
                first.to_string()
            } else {
                format!("{first}–{last}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why text was not read, for the file: the reason alone for a file of one page, else each reason
/// with the pages it applies to.
fn text_not_read(pages_not_read: &[(u32, String)], pages: usize) -> Option<String> {
    if pages_not_read.is_empty() {
        return None;
    }
    if pages <= 1 {
        return pages_not_read.first().map(|(_, reason)| reason.clone());
    }
    let mut reasons: Vec<(&str, Vec<u32>)> = Vec::new();
    for (number, reason) in pages_not_read {
        match reasons.iter_mut().find(|(known, _)| known == reason) {
            Some((_, numbers)) => numbers.push(*number),
            None => reasons.push((reason, vec![*number])),
        }
    }
    Some(
        reasons
            .iter()
            .map(|(reason, numbers)| format!("on page {}: {reason}", page_list(numbers)))
            .collect::<Vec<_>>()
            .join("; "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_are_said_as_runs() {
        assert_eq!(page_list(&[3, 4, 5, 9]), "3–5, 9");
        assert_eq!(page_list(&[1]), "1");
        assert_eq!(
            text_not_read(&[(1, "a".into()), (2, "a".into()), (4, "b".into())], 4).as_deref(),
            Some("on page 1–2: a; on page 4: b")
        );
        assert_eq!(text_not_read(&[(1, "a".into())], 1).as_deref(), Some("a"));
    }
}
