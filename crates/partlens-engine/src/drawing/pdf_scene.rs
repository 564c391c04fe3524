//! Reading a PDF drawing (the `lopdf` crate) into one [`Scene`] a page, in PDF points (y up), within
//! limits: bytes, pages, decompressed content, operators, points and form nesting, and the text and
//! texts of the whole document counted as they are placed (a [`TextBudget`]: many pages may share
//! one compressed content stream, so a small file can place the same long text a hundred times).
//!
//! The content stream is interpreted as far as a drawing needs: the graphics state (`q`/`Q`/`cm`,
//! fill and stroke colours), paths (`m l c v y re h` painted by `S s f F f* B B* b b*`, `n` discards;
//! white paint is skipped so page backgrounds stay paper), text (`BT ET Tf Tm Td TD T* TL Tc Tw Tz Ts
//! Tj TJ ' "`, decoded with the font's encoding or ToUnicode map), form XObjects (`Do`) and, of
//! image XObjects, the one that covers most of the page (a scanned page's picture). Glyph
//! widths are the font's (`pdf_widths.rs`; 0.55 em a character when it states none). Runs on one baseline that touch are joined
//! into one text.
//!
//! PDF texts carry no kind, so it is guessed: a text that reads like a dimension (`Ø60 H7 ±0.015`,
//! `R5`, `25`, `45°`) is a dimension; anything else a note.

use std::collections::{BTreeMap, HashMap};

use lopdf::content::Content;
use lopdf::{Dictionary, Document, Encoding, Object, ObjectId};

use super::super::limits::{OverLimit, TextBudget};
use super::PmiItemKind;
use super::pdf_widths::FontWidths;
use super::scene::{PlacedText, Point2, Scene, Transform};
use super::to_unicode::UnicodeMap;

/// Largest PDF file read, in bytes.
pub const MAX_PDF_BYTES: usize = 64 * 1024 * 1024;
/// Most pages read.
pub const MAX_PDF_PAGES: usize = 100;
/// Most bytes one content stream (page or form) may decompress to.
const MAX_CONTENT_BYTES: usize = 16 * 1024 * 1024;
/// Most operators interpreted in the whole document.
const MAX_OPERATIONS: usize = 2_000_000;
/// Most points in all scenes.
const MAX_POINTS: usize = 4_000_000;
/// Most bytes a page's image may decompress to (a 300 dpi A0 grey scan is about 140 MB raw).
const MAX_IMAGE_BYTES: usize = 256 * 1024 * 1024;
/// Deepest form XObject nesting followed.
const MAX_FORM_DEPTH: usize = 8;
/// Advance of one character, in em, for fonts that state no glyph widths.
const CHAR_ADVANCE: f64 = 0.55;
/// Capital height, in em.
const CAP_HEIGHT: f64 = 0.7;
/// Segments a Bézier curve is split into.
const CURVE_SEGMENTS: usize = 12;

/// Why a PDF was not read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PdfReadError {
    /// Larger than [`MAX_PDF_BYTES`].
    #[error("the file is larger than {MAX_PDF_BYTES} bytes")]
    TooLarge,
    /// `lopdf` refused it (or gave up).
    #[error("not a PDF document: {0}")]
    Malformed(String),
    /// Too many operators or points.
    #[error("the document is too complex: {0}")]
    TooComplex(&'static str),
    /// No pages.
    #[error("the document has no pages")]
    NoPages,
    /// More text or texts than the budget of one file allows.
    #[error("{0}")]
    OverLimit(OverLimit),
}

impl From<OverLimit> for PdfReadError {
    fn from(error: OverLimit) -> Self {
        Self::OverLimit(error)
    }
}

/// One page: its media box (points) and its scene.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfPage {
    /// Lower-left corner of the media box.
    pub min: Point2,
    /// Upper-right corner of the media box.
    pub max: Point2,
    /// What is drawn and written on it.
    pub scene: Scene,
    /// The largest image drawn on it, if any (a scanned page's picture).
    pub image: Option<PageImage>,
}

/// An image drawn on a page, as stored: enough to decode it (`page_image.rs`) when the page is a
/// scan.
#[derive(Debug, Clone, PartialEq)]
pub struct PageImage {
    /// The share of the page's media box its placement covers (0–1).
    pub coverage: f64,
    /// Its last filter (`DCTDecode`, `FlateDecode`, `CCITTFaxDecode`…), empty when it has none.
    pub filter: String,
    /// Samples across.
    pub width: u32,
    /// Samples down.
    pub height: u32,
    /// Bits a sample component.
    pub bits_per_component: u8,
    /// Colour components a sample: 1 grey, 3 RGB, 4 CMYK, 0 another colour space.
    pub components: u8,
    /// The stream's bytes: decompressed when it was only Flate-compressed, else as stored.
    pub data: Vec<u8>,
}

/// Reads the pages of a PDF (at most [`MAX_PDF_PAGES`]), counting the placed texts in `text_budget`.
pub fn read_pages(
    bytes: &[u8],
    text_budget: &mut TextBudget,
) -> Result<Vec<PdfPage>, PdfReadError> {
    if bytes.len() > MAX_PDF_BYTES {
        return Err(PdfReadError::TooLarge);
    }
    let options = lopdf::LoadOptions {
        max_decompressed_size: Some(MAX_CONTENT_BYTES),
        ..lopdf::LoadOptions::default()
    };
    // The parser must fail the upload, never the indexing worker.
    let document = std::panic::catch_unwind(|| Document::load_mem_with_options(bytes, options))
        .map_err(|_| PdfReadError::Malformed("the parser gave up on malformed content".into()))?
        .map_err(|error| PdfReadError::Malformed(error.to_string()))?;
    let pages = document.get_pages();
    if pages.is_empty() {
        return Err(PdfReadError::NoPages);
    }
    let mut budget = Budget::default();
    let mut read = Vec::new();
    for page_id in pages.values().take(MAX_PDF_PAGES) {
        let (min, max) = media_box(&document, *page_id);
        let page_area = (max[0] - min[0]) * (max[1] - min[1]);
        let (scene, image) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            page_scene(&document, *page_id, page_area, &mut budget, text_budget)
        }))
        .map_err(|_| PdfReadError::Malformed("a page could not be interpreted".into()))??;
        read.push(PdfPage {
            min,
            max,
            scene,
            image,
        });
    }
    Ok(read)
}

#[derive(Default)]
struct Budget {
    operations: usize,
    points: usize,
}

fn number(object: &Object) -> Option<f64> {
    match object {
        Object::Integer(value) => Some(*value as f64),
        Object::Real(value) => Some(f64::from(*value)),
        _ => None,
    }
    .filter(|value| value.is_finite())
}

fn numbers(operands: &[Object]) -> Vec<f64> {
    operands.iter().filter_map(number).collect()
}

/// The page's media box, inherited from its parents; US Letter when it has none.
fn media_box(document: &Document, page_id: ObjectId) -> (Point2, Point2) {
    let mut current = document.get_dictionary(page_id).ok();
    for _ in 0..32 {
        let Some(dictionary) = current else { break };
        if let Ok(array) = dictionary
            .get(b"MediaBox")
            .and_then(|object| document.dereference(object))
            .and_then(|(_, object)| object.as_array())
        {
            let values: Vec<f64> = array.iter().filter_map(number).collect();
            if let [x0, y0, x1, y1] = values[..] {
                let min = [x0.min(x1), y0.min(y1)];
                let max = [x0.max(x1), y0.max(y1)];
                if max[0] > min[0] && max[1] > min[1] {
                    return (min, max);
                }
            }
        }
        current = dictionary
            .get(b"Parent")
            .and_then(Object::as_reference)
            .and_then(|id| document.get_dictionary(id))
            .ok();
    }
    ([0.0, 0.0], [612.0, 792.0])
}

fn page_scene(
    document: &Document,
    page_id: ObjectId,
    page_area: f64,
    budget: &mut Budget,
    text_budget: &mut TextBudget,
) -> Result<(Scene, Option<PageImage>), PdfReadError> {
    let content = document
        .get_page_content_with_limit(page_id, MAX_CONTENT_BYTES)
        .map_err(|error| PdfReadError::Malformed(error.to_string()))?;
    let fonts = document.get_page_fonts(page_id).unwrap_or_default();
    // The page's own resources, or the nearest inherited ones.
    let resources = document
        .get_page_resources(page_id)
        .ok()
        .and_then(|(direct, inherited)| {
            direct.or_else(|| {
                inherited
                    .iter()
                    .find_map(|id| document.get_dictionary(*id).ok())
            })
        });
    let mut interpreter = Interpreter {
        document,
        budget,
        text_budget,
        scene: Scene::default(),
        encodings: HashMap::new(),
        unicode_maps: HashMap::new(),
        widths: HashMap::new(),
        page_area,
        largest_image: None,
    };
    interpreter.run(&content, &fonts, resources, Transform::IDENTITY, 0)?;
    let image = interpreter
        .largest_image
        .and_then(|(coverage, stream)| page_image(stream, coverage));
    Ok((interpreter.scene, image))
}

/// What is needed to decode an image XObject later.
fn page_image(stream: &lopdf::Stream, coverage: f64) -> Option<PageImage> {
    let dict = &stream.dict;
    let integer = |key: &[u8]| dict.get(key).ok().and_then(|object| object.as_i64().ok());
    let filters: Vec<String> = match dict.get(b"Filter").ok()? {
        Object::Name(name) => vec![String::from_utf8_lossy(name).into_owned()],
        Object::Array(names) => names
            .iter()
            .filter_map(|name| name.as_name().ok())
            .map(|name| String::from_utf8_lossy(name).into_owned())
            .collect(),
        _ => Vec::new(),
    };
    let components = match dict.get(b"ColorSpace").and_then(Object::as_name) {
        Ok(b"DeviceGray") => 1,
        Ok(b"DeviceRGB") => 3,
        Ok(b"DeviceCMYK") => 4,
        _ => 0,
    };
    let (filter, data) = match filters.as_slice() {
        [only] if only == "FlateDecode" => (
            String::new(),
            stream
                .decompressed_content_with_limit(MAX_IMAGE_BYTES)
                .ok()?,
        ),
        [.., last] => (last.clone(), stream.content.clone()),
        [] => (String::new(), stream.content.clone()),
    };
    Some(PageImage {
        coverage,
        filter,
        width: u32::try_from(integer(b"Width")?).ok()?,
        height: u32::try_from(integer(b"Height")?).ok()?,
        bits_per_component: u8::try_from(integer(b"BitsPerComponent").unwrap_or(8)).ok()?,
        components,
        data,
    })
}

#[derive(Clone, Copy)]
struct GraphicsState {
    ctm: Transform,
    fill_ink: bool,
    stroke_ink: bool,
}

struct TextState {
    font: Vec<u8>,
    size: f64,
    leading: f64,
    char_spacing: f64,
    word_spacing: f64,
    horizontal_scale: f64,
    rise: f64,
    matrix: Transform,
    line_matrix: Transform,
}

impl Default for TextState {
    fn default() -> Self {
        Self {
            font: Vec::new(),
            size: 1.0,
            leading: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            horizontal_scale: 1.0,
            rise: 0.0,
            matrix: Transform::IDENTITY,
            line_matrix: Transform::IDENTITY,
        }
    }
}

/// Whether paint of this colour shows on white paper (light paint is taken for a background).
fn shows(components: &[f64], operator: &str) -> bool {
    let luminance = match (operator, components) {
        (_, [gray]) => *gray,
        ("k" | "K", [c, m, y, k]) => (1.0 - (0.3 * c + 0.59 * m + 0.11 * y + k)).max(0.0),
        (_, [r, g, b]) => 0.3 * r + 0.59 * g + 0.11 * b,
        (_, [c, m, y, k]) => (1.0 - (0.3 * c + 0.59 * m + 0.11 * y + k)).max(0.0),
        _ => 0.0,
    };
    luminance < 0.8
}

/// A graphics state operator (save, restore, transform, paint colour); false when `operator` is not
/// one (or its operands do not fit it). At most 256 states are saved.
fn graphics_state_operator(
    state: &mut GraphicsState,
    stack: &mut Vec<GraphicsState>,
    operator: &str,
    values: &[f64],
) -> bool {
    match (operator, values) {
        ("q", _) if stack.len() < 256 => stack.push(*state),
        ("Q", _) => *state = stack.pop().unwrap_or(*state),
        ("cm", &[a, b, c, d, e, f]) => {
            state.ctm = state.ctm.then_inner(&Transform::new(a, b, c, d, e, f));
        }
        ("g" | "rg" | "k" | "sc" | "scn", components) if !components.is_empty() => {
            state.fill_ink = shows(components, operator);
        }
        ("G" | "RG" | "K" | "SC" | "SCN", components) if !components.is_empty() => {
            state.stroke_ink = shows(components, operator);
        }
        _ => return false,
    }
    true
}

struct Interpreter<'a, 'b> {
    document: &'a Document,
    budget: &'b mut Budget,
    text_budget: &'b mut TextBudget,
    scene: Scene,
    encodings: HashMap<Vec<u8>, Option<Encoding<'a>>>,
    /// Fonts' ToUnicode maps as read leniently (`to_unicode.rs`); preferred over `encodings`.
    unicode_maps: HashMap<Vec<u8>, Option<UnicodeMap>>,
    /// Fonts' glyph widths (`pdf_widths.rs`).
    widths: HashMap<Vec<u8>, Option<FontWidths>>,
    /// The page's media box area, square points.
    page_area: f64,
    /// The image XObject that covers most of the page so far, and its share of the page.
    largest_image: Option<(f64, &'a lopdf::Stream)>,
}

impl<'a> Interpreter<'a, '_> {
    /// Interprets one content stream: each operator counted against [`MAX_OPERATIONS`], then handled
    /// by the step for its group (graphics state, paths, text) or, for `Do`, the form it draws.
    fn run(
        &mut self,
        content: &[u8],
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        resources: Option<&'a Dictionary>,
        base: Transform,
        depth: usize,
    ) -> Result<(), PdfReadError> {
        let operations = Content::decode(content)
            .map_err(|error| PdfReadError::Malformed(error.to_string()))?
            .operations;
        let mut state = GraphicsState {
            ctm: base,
            fill_ink: true,
            stroke_ink: true,
        };
        let mut stack: Vec<GraphicsState> = Vec::new();
        let mut text = TextState::default();
        let mut path: Vec<Vec<Point2>> = Vec::new();
        for operation in &operations {
            self.budget.operations += 1;
            if self.budget.operations > MAX_OPERATIONS {
                return Err(PdfReadError::TooComplex("too many operators"));
            }
            let operator = operation.operator.as_str();
            let operands = &operation.operands;
            let values = numbers(operands);
            if graphics_state_operator(&mut state, &mut stack, operator, &values)
                || self.path_operator(&mut path, &state, operator, &values)?
                || self.text_operator(&state, &mut text, fonts, operator, operands, &values)?
            {
                continue;
            }
            if operator == "Do"
                && let Some(Object::Name(name)) = operands.first()
            {
                self.form(name, resources, fonts, &state, depth)?;
            }
        }
        Ok(())
    }

    /// A path construction or painting operator, in device space as the path is built; false when
    /// `operator` is not one (or its operands do not fit it).
    fn path_operator(
        &mut self,
        path: &mut Vec<Vec<Point2>>,
        state: &GraphicsState,
        operator: &str,
        values: &[f64],
    ) -> Result<bool, PdfReadError> {
        match (operator, values) {
            ("m", &[x, y]) => path.push(vec![state.ctm.apply([x, y])]),
            ("l", &[x, y]) => {
                if let Some(subpath) = path.last_mut() {
                    subpath.push(state.ctm.apply([x, y]));
                }
            }
            ("c", &[x1, y1, x2, y2, x3, y3]) => {
                self.curve(path, state, [x1, y1], [x2, y2], [x3, y3])
            }
            ("v", &[x2, y2, x3, y3]) => {
                if let Some(first) = current_point(path, state) {
                    self.curve(path, state, first, [x2, y2], [x3, y3]);
                }
            }
            ("y", &[x1, y1, x3, y3]) => self.curve(path, state, [x1, y1], [x3, y3], [x3, y3]),
            ("re", &[x, y, w, h]) => path.push(
                [[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x, y]]
                    .into_iter()
                    .map(|point| state.ctm.apply(point))
                    .collect(),
            ),
            ("h", _) => close(path),
            ("S", _) => self.paint(path, false, state.stroke_ink)?,
            ("s", _) => {
                close(path);
                self.paint(path, false, state.stroke_ink)?;
            }
            ("f" | "F" | "f*", _) => self.paint(path, state.fill_ink, false)?,
            ("B" | "B*", _) => self.paint(path, state.fill_ink, state.stroke_ink)?,
            ("b" | "b*", _) => {
                close(path);
                self.paint(path, state.fill_ink, state.stroke_ink)?;
            }
            ("n", _) => path.clear(),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// A text object, text state, positioning or showing operator; false when `operator` is not
    /// one (or its operands do not fit it).
    fn text_operator(
        &mut self,
        state: &GraphicsState,
        text: &mut TextState,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        operator: &str,
        operands: &[Object],
        values: &[f64],
    ) -> Result<bool, PdfReadError> {
        match (operator, values) {
            ("BT", _) => {
                text.matrix = Transform::IDENTITY;
                text.line_matrix = Transform::IDENTITY;
            }
            ("Tf", _) => {
                if let Some(Object::Name(name)) = operands.first() {
                    text.font = name.clone();
                }
                if let Some(size) = operands.get(1).and_then(number) {
                    text.size = size;
                }
            }
            ("TL", &[leading]) => text.leading = leading,
            ("Tc", &[spacing]) => text.char_spacing = spacing,
            ("Tw", &[spacing]) => text.word_spacing = spacing,
            ("Tz", &[scale]) => text.horizontal_scale = scale / 100.0,
            ("Ts", &[rise]) => text.rise = rise,
            ("Tm", &[a, b, c, d, e, f]) => {
                text.matrix = Transform::new(a, b, c, d, e, f);
                text.line_matrix = text.matrix;
            }
            ("Td", &[x, y]) => next_line(text, x, y),
            ("TD", &[x, y]) => {
                text.leading = -y;
                next_line(text, x, y);
            }
            ("T*", _) => {
                let leading = text.leading;
                next_line(text, 0.0, -leading);
            }
            ("Tj", _) => self.show(state, text, fonts, operands.first())?,
            ("'", _) => {
                let leading = text.leading;
                next_line(text, 0.0, -leading);
                self.show(state, text, fonts, operands.first())?;
            }
            ("\"", _) => {
                if let (Some(word), Some(character)) = (
                    operands.first().and_then(number),
                    operands.get(1).and_then(number),
                ) {
                    text.word_spacing = word;
                    text.char_spacing = character;
                }
                let leading = text.leading;
                next_line(text, 0.0, -leading);
                self.show(state, text, fonts, operands.get(2))?;
            }
            ("TJ", _) => {
                if let Some(Object::Array(parts)) = operands.first() {
                    self.show_array(state, text, fonts, parts)?;
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn curve(
        &mut self,
        path: &mut [Vec<Point2>],
        state: &GraphicsState,
        control_1: Point2,
        control_2: Point2,
        end: Point2,
    ) {
        let Some(start) = path.last().and_then(|subpath| subpath.last()).copied() else {
            return;
        };
        let [c1, c2, e] = [control_1, control_2, end].map(|point| state.ctm.apply(point));
        if let Some(subpath) = path.last_mut() {
            for step in 1..=CURVE_SEGMENTS {
                let t = step as f64 / CURVE_SEGMENTS as f64;
                let u = 1.0 - t;
                let weights = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
                subpath.push([
                    weights[0] * start[0]
                        + weights[1] * c1[0]
                        + weights[2] * c2[0]
                        + weights[3] * e[0],
                    weights[0] * start[1]
                        + weights[1] * c1[1]
                        + weights[2] * c2[1]
                        + weights[3] * e[1],
                ]);
            }
        }
    }

    fn paint(
        &mut self,
        path: &mut Vec<Vec<Point2>>,
        fill: bool,
        stroke: bool,
    ) -> Result<(), PdfReadError> {
        for subpath in path.drain(..) {
            if !subpath.iter().all(|[x, y]| x.is_finite() && y.is_finite()) {
                continue;
            }
            self.budget.points += subpath.len();
            if self.budget.points > MAX_POINTS {
                return Err(PdfReadError::TooComplex("too many points"));
            }
            if fill && subpath.len() >= 3 {
                self.scene.fills.push(subpath.clone());
            }
            if stroke && subpath.len() >= 2 {
                self.scene.strokes.push(subpath);
            }
        }
        Ok(())
    }

    fn decode(
        &mut self,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        font: &[u8],
        bytes: &[u8],
    ) -> String {
        let document = self.document;
        let unicode_map = self.unicode_maps.entry(font.to_vec()).or_insert_with(|| {
            let stream = fonts
                .get(font)?
                .get_deref(b"ToUnicode", document)
                .ok()?
                .as_stream()
                .ok()?;
            let content = stream
                .decompressed_content_with_limit(MAX_CONTENT_BYTES)
                .ok()
                .or_else(|| {
                    stream
                        .dict
                        .get(b"Filter")
                        .is_err()
                        .then(|| stream.content.clone())
                })?;
            UnicodeMap::parse(&content)
        });
        if let Some(map) = unicode_map {
            return map.decode(bytes);
        }
        let encoding = self.encodings.entry(font.to_vec()).or_insert_with(|| {
            fonts.get(font).and_then(|dictionary| {
                dictionary
                    .get_font_encoding_with_limit(document, MAX_CONTENT_BYTES)
                    .ok()
            })
        });
        encoding
            .as_ref()
            .and_then(|encoding| Document::decode_text(encoding, bytes).ok())
            // Without an encoding, bytes are read as Latin-1 (close to WinAnsi for letters and digits).
            .unwrap_or_else(|| bytes.iter().map(|&byte| char::from(byte)).collect())
    }

    fn show(
        &mut self,
        state: &GraphicsState,
        text: &mut TextState,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        operand: Option<&Object>,
    ) -> Result<(), PdfReadError> {
        if let Some(Object::String(bytes, _)) = operand {
            let font = text.font.clone();
            let decoded = self.decode(fonts, &font, bytes);
            let measured = self.measure(fonts, &font, bytes);
            self.place(state, text, &decoded, 0.0, measured)?;
        }
        Ok(())
    }

    fn show_array(
        &mut self,
        state: &GraphicsState,
        text: &mut TextState,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        parts: &[Object],
    ) -> Result<(), PdfReadError> {
        let font = text.font.clone();
        let mut joined = String::new();
        let mut adjustment = 0.0;
        let mut measured = Some((0.0, 0));
        for part in parts {
            match part {
                Object::String(bytes, _) => {
                    joined.push_str(&self.decode(fonts, &font, bytes));
                    measured = measured
                        .zip(self.measure(fonts, &font, bytes))
                        .map(|((ems, codes), (more, more_codes))| (ems + more, codes + more_codes));
                }
                other => {
                    if let Some(thousandths) = number(other) {
                        adjustment += thousandths;
                        // A large backwards kern is how many writers put a space.
                        if thousandths < -250.0 && !joined.ends_with(' ') {
                            joined.push(' ');
                        }
                    }
                }
            }
        }
        self.place(state, text, &joined, adjustment, measured)
    }

    /// A shown string's glyph advance in ems and its number of codes, from the font's widths;
    /// `None` when the font states no widths.
    fn measure(
        &mut self,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        font: &[u8],
        bytes: &[u8],
    ) -> Option<(f64, usize)> {
        let document = self.document;
        self.widths
            .entry(font.to_vec())
            .or_insert_with(|| FontWidths::of(fonts.get(font)?, document))
            .as_ref()
            .map(|widths| widths.advance(bytes))
    }

    /// Places a shown string and advances the text matrix past it. `adjustment` is the TJ kerning
    /// total in thousandths of an em (positive moves left); `measured` the glyphs' advance in ems
    /// and their number of codes, from the font's widths (else each character advances
    /// [`CHAR_ADVANCE`]). The text is counted in the budget.
    fn place(
        &mut self,
        state: &GraphicsState,
        text: &mut TextState,
        shown: &str,
        adjustment: f64,
        measured: Option<(f64, usize)>,
    ) -> Result<(), PdfReadError> {
        let size = text.size;
        let scale = text.horizontal_scale;
        let frame = state
            .ctm
            .then_inner(&text.matrix)
            .then_inner(&Transform::translate(0.0, text.rise))
            .then_inner(&Transform::scale(size * scale, size));
        let characters = shown.chars().count() as f64;
        let spaces = shown.chars().filter(|c| *c == ' ').count() as f64;
        let (glyph_ems, codes) = measured
            .map_or((characters * CHAR_ADVANCE, characters), |(ems, codes)| {
                (ems, codes as f64)
            });
        let advance = (glyph_ems * size + codes * text.char_spacing + spaces * text.word_spacing
            - adjustment / 1000.0 * size)
            * scale;
        // The run's width in its own frame's units (one em), for its box.
        let run_width = if size * scale == 0.0 {
            0.0
        } else {
            (advance / (size * scale)).max(0.0)
        };
        text.matrix = text.matrix.then_inner(&Transform::translate(advance, 0.0));
        let cleaned: String = shown.chars().filter(|c| !c.is_control()).collect();
        if cleaned.trim().is_empty() || size == 0.0 {
            return Ok(());
        }
        // A run that starts where the previous one on the same baseline ended continues it.
        if let Some(previous) = self.scene.texts.last_mut() {
            let end = previous.frame.apply([previous.width(), 0.0]);
            let start = frame.apply([0.0, 0.0]);
            let em = (frame.apply([0.0, 1.0])[1] - start[1])
                .hypot(frame.apply([0.0, 1.0])[0] - start[0]);
            let same_direction = {
                let a = previous.frame.apply([1.0, 0.0]);
                let b = previous.frame.apply([0.0, 0.0]);
                let c = frame.apply([1.0, 0.0]);
                let angle_previous = (a[1] - b[1]).atan2(a[0] - b[0]);
                let angle = (c[1] - start[1]).atan2(c[0] - start[0]);
                (angle_previous - angle).abs() < 0.01
            };
            let gap = (start[0] - end[0]).hypot(start[1] - end[1]);
            if same_direction && em > 0.0 && gap < 0.6 * em && !previous.text.contains('\n') {
                self.text_budget.take_text(&cleaned)?;
                if gap > 0.2 * em && !previous.text.ends_with(' ') && !cleaned.starts_with(' ') {
                    previous.text.push(' ');
                }
                previous.text.push_str(&cleaned);
                previous.text = previous.text.trim().to_owned();
                // The joined text's box reaches the end of this run.
                let origin = previous.frame.apply([0.0, 0.0]);
                let unit = previous.frame.apply([1.0, 0.0]);
                let unit = (unit[0] - origin[0]).hypot(unit[1] - origin[1]);
                let end = frame.apply([run_width, 0.0]);
                let count = previous.text.chars().count();
                if unit > 0.0 && count > 0 {
                    previous.char_width =
                        (end[0] - origin[0]).hypot(end[1] - origin[1]) / unit / count as f64;
                }
                previous.kind = text_kind(&previous.text);
                return Ok(());
            }
        }
        let trimmed = cleaned.trim().to_owned();
        self.text_budget.take_item(&trimmed)?;
        let char_width = match cleaned.chars().count() {
            0 => CHAR_ADVANCE,
            count => run_width / count as f64,
        };
        self.scene.texts.push(PlacedText {
            kind: text_kind(&trimmed),
            text: trimmed,
            tag: None,
            frame,
            height: CAP_HEIGHT,
            char_width,
            line_pitch: 1.2,
            visible: true,
        });
        Ok(())
    }

    fn form(
        &mut self,
        name: &[u8],
        resources: Option<&'a Dictionary>,
        fonts: &BTreeMap<Vec<u8>, &'a Dictionary>,
        state: &GraphicsState,
        depth: usize,
    ) -> Result<(), PdfReadError> {
        if depth >= MAX_FORM_DEPTH {
            return Ok(());
        }
        let document = self.document;
        let Some(stream) = resources
            .and_then(|resources| resources.get_deref(b"XObject", document).ok())
            .and_then(|objects| objects.as_dict().ok())
            .and_then(|objects| objects.get_deref(name, document).ok())
            .and_then(|object| object.as_stream().ok())
        else {
            return Ok(());
        };
        let subtype = stream.dict.get(b"Subtype").and_then(Object::as_name).ok();
        if subtype == Some(b"Image".as_slice()) {
            // The unit square of image space, placed by the current transform.
            let corners = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
                .map(|corner| state.ctm.apply(corner));
            let span = |axis: usize| {
                let values = corners.map(|corner| corner[axis]);
                values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                    - values.iter().copied().fold(f64::INFINITY, f64::min)
            };
            let coverage = (span(0) * span(1) / self.page_area).clamp(0.0, 1.0);
            if coverage.is_finite()
                && self
                    .largest_image
                    .is_none_or(|(largest, _)| coverage > largest)
            {
                self.largest_image = Some((coverage, stream));
            }
            return Ok(());
        }
        if subtype != Some(b"Form".as_slice()) {
            return Ok(());
        }
        let Ok(content) = stream
            .decompressed_content_with_limit(MAX_CONTENT_BYTES)
            .or_else(|_| {
                if stream.dict.get(b"Filter").is_err() {
                    Ok(stream.content.clone())
                } else {
                    Err(())
                }
            })
        else {
            return Ok(());
        };
        let matrix = stream
            .dict
            .get(b"Matrix")
            .and_then(Object::as_array)
            .map(|array| numbers(array))
            .ok()
            .and_then(|values| match values[..] {
                [a, b, c, d, e, f] => Some(Transform::new(a, b, c, d, e, f)),
                _ => None,
            })
            .unwrap_or(Transform::IDENTITY);
        let form_resources = stream
            .dict
            .get_deref(b"Resources", document)
            .ok()
            .and_then(|object| object.as_dict().ok())
            .or(resources);
        let mut form_fonts = fonts.clone();
        if let Some(own) = form_resources
            .and_then(|resources| resources.get_deref(b"Font", document).ok())
            .and_then(|object| object.as_dict().ok())
        {
            for (font_name, value) in own.iter() {
                if let Ok(font) = document
                    .dereference(value)
                    .and_then(|(_, object)| object.as_dict())
                {
                    form_fonts.insert(font_name.clone(), font);
                }
            }
        }
        let base = state.ctm.then_inner(&matrix);
        self.run(&content, &form_fonts, form_resources, base, depth + 1)
    }
}

fn current_point(path: &[Vec<Point2>], state: &GraphicsState) -> Option<Point2> {
    // The current point is in device space; `curve` wants user space for its controls, so `v`
    // maps it back only when the CTM is invertible (it nearly always is).
    let point = *path.last()?.last()?;
    invert(&state.ctm).map(|inverse| inverse.apply(point))
}

fn invert(map: &Transform) -> Option<Transform> {
    let origin = map.apply([0.0, 0.0]);
    let x = map.apply([1.0, 0.0]);
    let y = map.apply([0.0, 1.0]);
    let (a, b) = (x[0] - origin[0], x[1] - origin[1]);
    let (c, d) = (y[0] - origin[0], y[1] - origin[1]);
    let determinant = a * d - b * c;
    if determinant.abs() < 1e-12 {
        return None;
    }
    let inverse = Transform::new(
        d / determinant,
        -b / determinant,
        -c / determinant,
        a / determinant,
        0.0,
        0.0,
    );
    let moved = inverse.apply(origin);
    Some(Transform::translate(-moved[0], -moved[1]).then_inner(&inverse))
}

fn close(path: &mut [Vec<Point2>]) {
    if let Some(subpath) = path.last_mut()
        && let (Some(first), Some(last)) = (subpath.first().copied(), subpath.last().copied())
        && first != last
    {
        subpath.push(first);
    }
}

fn next_line(text: &mut TextState, x: f64, y: f64) {
    text.line_matrix = text.line_matrix.then_inner(&Transform::translate(x, y));
    text.matrix = text.line_matrix;
}

/// A dimension when the text reads like one: an optional Ø/⌀/R/M, a number, optional tolerance
/// (`±0.1`, `+0.1/-0.2`, `H7`) or degree sign; otherwise a note.
pub fn text_kind(text: &str) -> PmiItemKind {
    let mut rest = text.trim();
    for prefix in ["Ø", "⌀", "∅", "R", "M"] {
        if let Some(stripped) = rest.strip_prefix(prefix) {
            rest = stripped.trim_start();
            break;
        }
    }
    let digits = rest
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.' || *c == ',')
        .last()
        .map(|(index, c)| index + c.len_utf8());
    let Some(end) = digits.filter(|end| rest[..*end].chars().any(|c| c.is_ascii_digit())) else {
        return PmiItemKind::Note;
    };
    let tail = rest[end..].trim();
    let tolerance_like = tail.is_empty()
        || tail.starts_with('±')
        || tail.starts_with('°')
        || tail.starts_with('+')
        || tail.starts_with('-')
        || tail.starts_with('x')
        || tail.starts_with('X')
        || tail.split_whitespace().next().is_some_and(|word| {
            word.len() <= 3
                && word.chars().next().is_some_and(char::is_alphabetic)
                && word.chars().skip(1).all(|c| c.is_ascii_digit())
        });
    if tolerance_like && tail.chars().count() <= 24 {
        PmiItemKind::Dimension
    } else {
        PmiItemKind::Note
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ExtractionLimits;

    fn read(bytes: &[u8]) -> Result<Vec<PdfPage>, PdfReadError> {
        read_pages(bytes, &mut TextBudget::new(&ExtractionLimits::default()))
    }

    #[test]
    fn texts_that_read_like_dimensions_are_dimensions() {
        for dimension in [
            "25",
            "Ø60 H7 ±0.015",
            "R5",
            "12.5",
            "45°",
            "Ø20 +0.1/-0.2",
            "M12",
        ] {
            assert_eq!(text_kind(dimension), PmiItemKind::Dimension, "{dimension}");
        }
        for note in [
            "NOTES:",
            "1. BREAK ALL SHARP EDGES",
            "PART NO: PL-1003",
            "SCALE 1:2",
            "",
        ] {
            assert_eq!(text_kind(note), PmiItemKind::Note, "{note}");
        }
    }

    #[test]
    fn transforms_invert() {
        let map = Transform::new(2.0, 0.0, 0.0, 3.0, 10.0, 20.0);
        let inverse = invert(&map).unwrap();
        let [x, y] = inverse.apply(map.apply([4.0, 5.0]));
        assert!((x - 4.0).abs() < 1e-9 && (y - 5.0).abs() < 1e-9);
        assert!(invert(&Transform::scale(0.0, 1.0)).is_none());
    }

    /// A PDF whose pages have these content streams; `form` (if any) is a form XObject `/Fm1` with
    /// its own font `/F2`, available to every page.
    fn pdf(pages: &[&str], form: Option<&str>) -> Vec<u8> {
        use lopdf::{Stream, dictionary};
        let mut document = Document::with_version("1.5");
        let pages_id = document.new_object_id();
        let font = document.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "Encoding" => "WinAnsiEncoding",
        });
        let mut resources = dictionary! { "Font" => dictionary! { "F1" => font } };
        if let Some(form) = form {
            let form_id = document.add_object(Stream::new(
                dictionary! {
                    "Type" => "XObject", "Subtype" => "Form",
                    "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
                    "Matrix" => vec![1.into(), 0.into(), 0.into(), 1.into(), 300.into(), 0.into()],
                    "Resources" => dictionary! { "Font" => dictionary! { "F2" => font } },
                },
                form.as_bytes().to_vec(),
            ));
            resources.set("XObject", dictionary! { "Fm1" => form_id });
        }
        let resources_id = document.add_object(resources);
        let kids: Vec<Object> = pages
            .iter()
            .map(|content| {
                let content_id =
                    document.add_object(Stream::new(dictionary! {}, content.as_bytes().to_vec()));
                document
                    .add_object(dictionary! {
                        "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
                    })
                    .into()
            })
            .collect();
        let count = i64::try_from(kids.len()).unwrap();
        document.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => kids, "Count" => count,
                "Resources" => resources_id,
                "MediaBox" => vec![0.into(), 0.into(), 400.into(), 200.into()],
            }),
        );
        let catalog = document.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        document.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        document.save_to(&mut bytes).unwrap();
        bytes
    }

    #[test]
    fn paths_are_drawn_with_the_ctm_and_white_paint_is_paper() {
        let pages = read(&pdf(
            &["1 g 0 0 400 200 re f 0 G 0 g 2 0 0 2 10 10 cm 0 0 m 10 0 l S 0 0 m 5 5 5 0 v h f"],
            None,
        ))
        .unwrap();
        let scene = &pages[0].scene;
        assert_eq!((pages[0].min, pages[0].max), ([0.0, 0.0], [400.0, 200.0]));
        assert_eq!(scene.strokes, vec![vec![[10.0, 10.0], [30.0, 10.0]]]);
        // The white background is not ink; the curve ends at (5, 0) → (20, 10) and closes.
        assert_eq!(scene.fills.len(), 1);
        let fill = &scene.fills[0];
        assert!(
            fill.iter()
                .any(|[x, y]| (x - 20.0).abs() < 1e-6 && (y - 10.0).abs() < 1e-6)
        );
        assert_eq!(fill.first(), fill.last());
    }

    #[test]
    fn texts_are_placed_joined_and_decoded_across_pages_and_forms() {
        let pages = read(&pdf(
            &[
                // Two runs on one baseline become one text; TJ's big kern is a space.
                "BT /F1 10 Tf 50 100 Td (NOTE:) Tj ( SEE) Tj ET \
                 BT /F1 10 Tf 50 60 Td [(PART) -300 (NO) 20 (:) ( PL-9)] TJ ET \
                 BT /F1 12 Tf 0 1 -1 0 200 20 Tm (\\330 25) Tj ET",
                "BT /F1 10 Tf 10 10 Td (SECOND PAGE) Tj ET /Fm1 Do",
            ],
            Some("BT /F2 8 Tf 5 5 Td (IN FORM) Tj ET"),
        ))
        .unwrap();
        assert_eq!(pages.len(), 2);
        let texts: Vec<(&str, PmiItemKind)> = pages[0]
            .scene
            .texts
            .iter()
            .map(|text| (text.text.as_str(), text.kind))
            .collect();
        assert_eq!(
            texts,
            [
                ("NOTE: SEE", PmiItemKind::Note),
                ("PART NO: PL-9", PmiItemKind::Note),
                ("Ø 25", PmiItemKind::Dimension),
            ]
        );
        // The turned text runs up the page from its origin.
        let turned = &pages[0].scene.texts[2];
        let [x, y] = turned.frame.apply([1.0, 0.0]);
        assert!((x - 200.0).abs() < 1e-6 && y > 20.0, "{x} {y}");
        // The form's text is placed by the form's matrix.
        let second: Vec<&str> = pages[1]
            .scene
            .texts
            .iter()
            .map(|text| text.text.as_str())
            .collect();
        assert_eq!(second, ["SECOND PAGE", "IN FORM"]);
        let origin = pages[1].scene.texts[1].frame.apply([0.0, 0.0]);
        assert_eq!(origin, [305.0, 5.0]);
    }

    #[test]
    fn pages_that_repeat_a_long_text_stop_at_the_text_cap() {
        let long = format!("BT /F1 10 Tf 10 10 Td ({}) Tj ET", "W".repeat(5_000));
        let bytes = pdf(&vec![long.as_str(); 100], None);
        assert_eq!(read(&bytes).unwrap().len(), 100);
        let limits = ExtractionLimits {
            max_text_bytes: 100_000,
            ..ExtractionLimits::default()
        };
        let refused = read_pages(&bytes, &mut TextBudget::new(&limits)).unwrap_err();
        assert!(matches!(refused, PdfReadError::OverLimit(_)), "{refused:?}");
        let limits = ExtractionLimits {
            max_pmi_items: 99,
            ..ExtractionLimits::default()
        };
        let refused = read_pages(&bytes, &mut TextBudget::new(&limits)).unwrap_err();
        assert!(refused.to_string().contains("99 texts"), "{refused}");
    }

    #[test]
    fn hostile_pdfs_are_refused() {
        assert!(matches!(
            read(b"%PDF-1.4 nothing else"),
            Err(PdfReadError::Malformed(_) | PdfReadError::NoPages)
        ));
        assert!(matches!(
            read(b"not a pdf"),
            Err(PdfReadError::Malformed(_) | PdfReadError::NoPages)
        ));
        assert_eq!(
            read(&vec![0; MAX_PDF_BYTES + 1]),
            Err(PdfReadError::TooLarge)
        );
    }
}
