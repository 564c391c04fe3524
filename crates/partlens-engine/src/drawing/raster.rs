//! Raster drawings: a picture that is a drawing (a scan, an image-only page) told apart from a
//! photo of a part, cleaned for reading (grey, deskewed, binarised), and its words read by OCR
//! (`ocr.rs`, the `ocr` feature) into PMI items, free text and title-block attributes.
//!
//! A drawing is mostly white paper with thin dark lines and text: on a small grey copy, at least
//! [`MIN_PAPER_SHARE`] of the pixels are near white, ink (dark) covers at most [`MAX_INK_SHARE`]
//! (a sparse sheet's thin grey lines may leave no dark pixel on the small copy at all), and few
//! pixels are mid-tones (a photo's shading, backgrounds and highlights
//! are mostly mid-tones) — and it carries text: many character-sized ink blobs, which an outline
//! or a sketch of a part does not. Limits: the page read is at most [`MAX_OCR_SIDE`] pixels on its longest
//! side (larger pages are scaled down), the skew searched is ±[`MAX_SKEW_DEGREES`].

use image::{DynamicImage, GrayImage, imageops::FilterType};
use partlens_api::{PmiItem, PmiPage};

/// Share of near-white pixels a drawing has at least.
pub const MIN_PAPER_SHARE: f64 = 0.75;
/// Share of dark pixels a drawing has at most.
pub const MAX_INK_SHARE: f64 = 0.20;
/// Share of mid-tone pixels a drawing has at most.
pub const MAX_MIDTONE_SHARE: f64 = 0.10;
/// Longest side of the page given to OCR, in pixels (an A3 page at 300 dpi is 4,961).
pub const MAX_OCR_SIDE: u32 = 5_000;
/// Largest skew corrected, in degrees.
pub const MAX_SKEW_DEGREES: f32 = 5.0;
/// Side of the grey copy the classification and the skew search look at.
const PROBE_SIDE: u32 = 800;

/// What the tones of a picture say about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tones {
    /// Share of near-white pixels (grey ≥ 200).
    pub paper: f64,
    /// Share of dark pixels (grey < 110).
    pub ink: f64,
    /// Share of the rest.
    pub midtones: f64,
}

impl Tones {
    /// The tones of a picture, measured on a small grey copy.
    pub fn of(image: &DynamicImage) -> Self {
        let grey = image
            .resize(PROBE_SIDE, PROBE_SIDE, FilterType::Triangle)
            .to_luma8();
        let total = f64::from(grey.width() * grey.height()).max(1.0);
        let (mut paper, mut ink) = (0u32, 0u32);
        for pixel in grey.pixels() {
            match pixel.0[0] {
                200.. => paper += 1,
                0..110 => ink += 1,
                _ => {}
            }
        }
        let paper = f64::from(paper) / total;
        let ink = f64::from(ink) / total;
        Self {
            paper,
            ink,
            midtones: (1.0 - paper - ink).max(0.0),
        }
    }

    /// True for a drawing's tones: mostly paper, little ink, few mid-tones.
    pub fn are_a_drawings(&self) -> bool {
        self.paper >= MIN_PAPER_SHARE
            && self.ink <= MAX_INK_SHARE
            && self.midtones <= MAX_MIDTONE_SHARE
    }
}

/// True when a picture is a drawing (a scan or a raster page), not a photo of a part nor a line
/// picture of one (a sketch, an outline): drawing tones and at least [`MIN_CHARACTER_BLOBS`]
/// character-sized ink blobs (a drawing page carries text; an outline does not).
pub fn looks_like_a_drawing(image: &DynamicImage) -> bool {
    Tones::of(image).are_a_drawings() && character_blobs(image) >= MIN_CHARACTER_BLOBS
}

/// Fewest character-sized blobs a drawing page has (an empty page has none). The corpus's
/// sparsest sheets scanned at 150–300 dpi have 33–67 (a panel with six dimensions), the sample
/// library's pictures of parts at most 8.
pub const MIN_CHARACTER_BLOBS: usize = 20;
/// Side of the copy the character blobs are counted on.
const BLOB_PROBE_SIDE: u32 = 1600;

/// How many separate ink blobs of a character's size (2–40 px high, at most 3 times as wide as
/// high, on a copy at most [`BLOB_PROBE_SIDE`] on its longest side) the picture holds.
pub fn character_blobs(image: &DynamicImage) -> usize {
    let grey = if image.width().max(image.height()) > BLOB_PROBE_SIDE {
        image.resize(BLOB_PROBE_SIDE, BLOB_PROBE_SIDE, FilterType::Triangle)
    } else {
        image.clone()
    }
    .to_luma8();
    let ink = imageproc::contrast::threshold(
        &grey,
        imageproc::contrast::otsu_level(&grey),
        imageproc::contrast::ThresholdType::BinaryInverted,
    );
    blob_boxes(&ink, image::Luma([0u8]))
        .iter()
        .filter(|[left, top, right, bottom]| {
            let (width, height) = (right - left + 1, bottom - top + 1);
            (2..=40).contains(&height) && width <= 3 * height
        })
        .count()
}

/// The page made ready for OCR: grey, at most [`MAX_OCR_SIDE`], turned straight when it is skewed
/// by up to [`MAX_SKEW_DEGREES`] and binarised (Otsu's level): black ink on white. A page whose
/// text is small ([`ocr_scale`]: a drawing scanned at 150 dpi) is enlarged first (Catmull-Rom, then
/// binarised again) and rid of its long straight lines ([`remove_long_lines`]: borders, the title
/// block's grid, dimension lines), which at that size run into the characters they touch.
pub fn clean_page(image: &DynamicImage) -> GrayImage {
    let image = if image.width().max(image.height()) > MAX_OCR_SIDE {
        image.resize(MAX_OCR_SIDE, MAX_OCR_SIDE, FilterType::Triangle)
    } else {
        image.clone()
    };
    let grey = image.to_luma8();
    let skew = skew_degrees(&grey);
    let straight = if skew.abs() >= 0.1 {
        imageproc::geometric_transformations::rotate_about_center(
            &grey,
            -skew.to_radians(),
            imageproc::geometric_transformations::Interpolation::Bilinear,
            imageproc::geometric_transformations::Border::Constant(image::Luma([255])),
        )
    } else {
        grey
    };
    let binary = binarised(&straight);
    let Some(height) = text_height(&binary) else {
        return binary;
    };
    let scale = ocr_scale(height, straight.dimensions());
    if scale <= 1.0 {
        return binary;
    }
    let size = |side: u32| ((side as f32 * scale).round() as u32).max(1);
    let large = image::imageops::resize(
        &straight,
        size(straight.width()),
        size(straight.height()),
        FilterType::CatmullRom,
    );
    let mut binary = binarised(&large);
    remove_long_lines(&mut binary, size(height) * LINE_RUN_IN_TEXT_HEIGHTS);
    binary
}

fn binarised(grey: &GrayImage) -> GrayImage {
    let level = imageproc::contrast::otsu_level(grey);
    imageproc::contrast::threshold(grey, level, imageproc::contrast::ThresholdType::Binary)
}

/// Text whose median character blob is lower than this, in pixels, is small for Tesseract (a
/// drawing's 2.5 mm text scanned at 150 dpi is about 15 px high): the page is enlarged.
pub const SMALL_TEXT_HEIGHT: u32 = 18;
/// Height small text is enlarged to, in pixels.
pub const OCR_TEXT_HEIGHT: u32 = 30;
/// Most a page is enlarged for OCR.
pub const MAX_OCR_SCALE: f32 = 2.0;

/// How much a page whose text is `text_height` pixels high (the median character blob) is
/// enlarged for OCR: 1 unless the text is under [`SMALL_TEXT_HEIGHT`], else up to
/// [`OCR_TEXT_HEIGHT`], at most [`MAX_OCR_SCALE`] and never past [`MAX_OCR_SIDE`]. Enlarging text
/// that is already readable (20 px and more) made Tesseract read less of it on the bench.
pub fn ocr_scale(text_height: u32, page: (u32, u32)) -> f32 {
    if text_height >= SMALL_TEXT_HEIGHT {
        return 1.0;
    }
    let wanted = OCR_TEXT_HEIGHT as f32 / text_height.max(1) as f32;
    let room = MAX_OCR_SIDE as f32 / page.0.max(page.1).max(1) as f32;
    wanted.min(MAX_OCR_SCALE).min(room).max(1.0)
}

/// The box of each 8-connected blob of pixels other than `background`: min x, min y, max x, max y.
fn blob_boxes(image: &GrayImage, background: image::Luma<u8>) -> Vec<[u32; 4]> {
    let labels = imageproc::region_labelling::connected_components(
        image,
        imageproc::region_labelling::Connectivity::Eight,
        background,
    );
    let mut boxes: std::collections::HashMap<u32, [u32; 4]> = std::collections::HashMap::new();
    for (x, y, label) in labels.enumerate_pixels() {
        let label = label.0[0];
        if label == 0 {
            continue;
        }
        let bounds = boxes.entry(label).or_insert([x, y, x, y]);
        bounds[0] = bounds[0].min(x);
        bounds[1] = bounds[1].min(y);
        bounds[2] = bounds[2].max(x);
        bounds[3] = bounds[3].max(y);
    }
    boxes.into_values().collect()
}

/// The median height of the character-sized blobs (6–120 px high, at most twice as wide as high)
/// of a binarised page, black ink on white; `None` without any.
pub fn text_height(binary: &GrayImage) -> Option<u32> {
    let mut heights: Vec<u32> = blob_boxes(binary, image::Luma([255u8]))
        .iter()
        .map(|[left, top, right, bottom]| (right - left + 1, bottom - top + 1))
        .filter(|&(width, height)| (6..=120).contains(&height) && width <= 2 * height)
        .map(|(_, height)| height)
        .collect();
    if heights.is_empty() {
        return None;
    }
    let middle = heights.len() / 2;
    Some(*heights.select_nth_unstable(middle).1)
}

/// A straight run of ink at least this many text heights long is a line, not text.
pub const LINE_RUN_IN_TEXT_HEIGHTS: u32 = 5;

/// Whitens the horizontal and vertical runs of ink at least `min_run` pixels long (and the ink
/// right above and below, or left and right of them: a line a few pixels thick whose rows break
/// where the page's last skew steps) on a binarised page, black ink on white. Text is made of
/// strokes shorter than that; what is left of a character a line crossed stays.
pub fn remove_long_lines(binary: &mut GrayImage, min_run: u32) {
    let (width, height) = binary.dimensions();
    let (w, h) = (width as usize, height as usize);
    let min_run = min_run.max(2) as usize;
    let ink: Vec<bool> = binary.pixels().map(|pixel| pixel.0[0] < 128).collect();
    let mut line = vec![false; ink.len()];
    // Rows, then columns: (start, step between pixels of a run, runs, pixels a run, step between
    // runs).
    for (runs, length, run_step, pixel_step) in [(h, w, w, 1), (w, h, 1, w)] {
        for run in 0..runs {
            let start = run * run_step;
            let mut begin = None;
            for i in 0..=length {
                let dark = i < length && ink[start + i * pixel_step];
                match (dark, begin) {
                    (true, None) => begin = Some(i),
                    (false, Some(first)) => {
                        if i - first >= min_run {
                            for j in first..i {
                                line[start + j * pixel_step] = true;
                            }
                        }
                        begin = None;
                    }
                    _ => {}
                }
            }
        }
    }
    // The ink next to a line (across it) goes with it: one pixel either way.
    let mut gone = line.clone();
    for y in 0..h {
        for x in 0..w {
            if !line[y * w + x] {
                continue;
            }
            for (dx, dy) in [(0i64, -1i64), (0, 1), (-1, 0), (1, 0)] {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx >= 0 && ny >= 0 && (nx as usize) < w && (ny as usize) < h {
                    let index = ny as usize * w + nx as usize;
                    if ink[index] {
                        gone[index] = true;
                    }
                }
            }
        }
    }
    for (pixel, gone) in binary.pixels_mut().zip(gone) {
        if gone {
            pixel.0[0] = 255;
        }
    }
}

/// The page's skew in degrees (counter-clockwise positive): the angle whose horizontal projection
/// of the ink is the sharpest (text lines and the title block's rules line up with the rows).
pub fn skew_degrees(grey: &GrayImage) -> f32 {
    let probe = image::imageops::resize(
        grey,
        PROBE_SIDE.min(grey.width()),
        PROBE_SIDE.min(grey.height()),
        FilterType::Triangle,
    );
    let ink: Vec<(f32, f32)> = probe
        .enumerate_pixels()
        .filter(|(_, _, pixel)| pixel.0[0] < 128)
        .map(|(x, y, _)| (x as f32, y as f32))
        .collect();
    if ink.is_empty() {
        return 0.0;
    }
    let rows = probe.height() as usize * 2 + 8;
    let sharpness = |degrees: f32| -> f64 {
        let (sin, cos) = degrees.to_radians().sin_cos();
        let mut counts = vec![0u32; rows];
        for &(x, y) in &ink {
            // The row a point lands on when the page is turned back by `degrees`.
            let row = (y * cos - x * sin) as isize + probe.height() as isize / 2 + 4;
            if let Some(count) = usize::try_from(row).ok().and_then(|r| counts.get_mut(r)) {
                *count += 1;
            }
        }
        counts.iter().map(|&c| f64::from(c) * f64::from(c)).sum()
    };
    let mut best = (0.0, sharpness(0.0));
    let steps = (MAX_SKEW_DEGREES / 0.25) as i32;
    for step in -steps..=steps {
        let degrees = step as f32 * 0.25;
        let score = sharpness(degrees);
        if score > best.1 {
            best = (degrees, score);
        }
    }
    best.0
}

/// One word read from the page, its box in the cleaned page's pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadWord {
    /// The word.
    pub text: String,
    /// Left, top, right, bottom.
    pub box_in_page: [i64; 4],
    /// The reader's confidence, 0–100.
    pub confidence: f32,
    /// Which line of the page the word is on (words of one line share it).
    pub line: LineKey,
}

/// A line of a read page: block, paragraph and line numbers.
pub type LineKey = (u32, u32, u32);

/// The PMI page of a read raster page: one item a line of words, its box scaled from the cleaned
/// page (`page_size`) to the large image (`image_size`), its confidence its least sure word's,
/// in reading order.
pub fn pmi_page_of_words(words: &[ReadWord], page_size: [u32; 2], image_size: [u32; 2]) -> PmiPage {
    let scale = f64::from(image_size[0]) / f64::from(page_size[0].max(1));
    let mut lines: Vec<(LineKey, Vec<&ReadWord>)> = Vec::new();
    for word in words {
        match lines.iter_mut().find(|(line, _)| *line == word.line) {
            Some((_, members)) => members.push(word),
            None => lines.push((word.line, vec![word])),
        }
    }
    let items = lines
        .into_iter()
        .map(|(_, members)| {
            let text = members
                .iter()
                .map(|word| word.text.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            let mut bounds = [i64::MAX, i64::MAX, i64::MIN, i64::MIN];
            for word in &members {
                bounds[0] = bounds[0].min(word.box_in_page[0]);
                bounds[1] = bounds[1].min(word.box_in_page[1]);
                bounds[2] = bounds[2].max(word.box_in_page[2]);
                bounds[3] = bounds[3].max(word.box_in_page[3]);
            }
            let scaled = bounds.map(|v| (v as f64 * scale).round() as i64);
            let type_id = super::pdf_scene::text_kind(&text).type_id();
            PmiItem {
                box_in_page: [
                    scaled[0].clamp(0, i64::from(image_size[0]) - 1),
                    scaled[1].clamp(0, i64::from(image_size[1]) - 1),
                    scaled[2].clamp(1, i64::from(image_size[0])),
                    scaled[3].clamp(1, i64::from(image_size[1])),
                ],
                type_id,
                dimension: super::dimension::dimension_of(type_id, &text),
                text,
                confidence: Some(line_confidence(&members)),
            }
        })
        .collect();
    PmiPage {
        page: 1,
        image_size: [i64::from(image_size[0]), i64::from(image_size[1])],
        items: super::pmi::in_reading_order(items),
    }
}

/// The confidence of a line of words: its least sure word's (one misread word makes the line
/// worth a look), to a tenth.
fn line_confidence(words: &[&ReadWord]) -> f32 {
    let least = words
        .iter()
        .map(|word| word.confidence)
        .fold(100.0_f32, f32::min)
        .clamp(0.0, 100.0);
    (least * 10.0).round() / 10.0
}

/// Fewest confidence a word read on the page turned a quarter must have to be kept (text that runs
/// across the page reads as short, unsure fragments that way).
pub const MIN_TURNED_CONFIDENCE: f32 = 70.0;

/// Adds to the words read on the page (`page_height` pixels high) the words read on it turned a
/// quarter clockwise (`turned`: text written up the page, as vertical dimensions are, reads
/// across there), with their boxes turned back onto the page and their lines kept apart. A
/// turned word must have [`MIN_TURNED_CONFIDENCE`] and run across the turned page (at least 1.5
/// times as wide as high there); where it overlaps words of the first reading, it replaces them
/// only when they lie inside its box and are less sure (the same text read across), else it is
/// left out.
pub fn with_turned_words(
    mut words: Vec<ReadWord>,
    turned: Vec<ReadWord>,
    page_height: u32,
) -> Vec<ReadWord> {
    let bottom = i64::from(page_height);
    let overlaps =
        |a: &[i64; 4], b: &[i64; 4]| a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
    for word in turned {
        // Text that runs across the turned page (up the page itself) is wider than high there;
        // a word of the page's own rows, read sideways, is not.
        let [left, top, right, low] = word.box_in_page;
        if word.confidence < MIN_TURNED_CONFIDENCE || (right - left) * 2 < (low - top) * 3 {
            continue;
        }
        // Turned clockwise, the page's (x, y) is at (height - y, x): a box [l, t, r, b] there is
        // [t, height - r, b, height - l] on the page.
        let on_page = [top, bottom - right, low, bottom - left];
        // A first reading inside the turned word's box is that word read across (fragments);
        // one that reaches out of it is other text, which stays, and the turned word goes.
        let margin = (on_page[2] - on_page[0]).min(on_page[3] - on_page[1]) / 2;
        let inside = |first: &[i64; 4]| {
            first[0] >= on_page[0] - margin
                && first[1] >= on_page[1] - margin
                && first[2] <= on_page[2] + margin
                && first[3] <= on_page[3] + margin
        };
        if words.iter().any(|first| {
            overlaps(&first.box_in_page, &on_page)
                && (first.confidence >= word.confidence || !inside(&first.box_in_page))
        }) {
            continue;
        }
        words.retain(|first| !overlaps(&first.box_in_page, &on_page));
        let (block, paragraph, line) = word.line;
        words.push(ReadWord {
            box_in_page: on_page,
            line: (block + TURNED_BLOCKS, paragraph, line),
            ..word
        });
    }
    words
}

/// Added to the block numbers of the turned reading, so that its lines never join the first's.
const TURNED_BLOCKS: u32 = 1_000_000;

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Rgb, RgbImage};

    fn word(text: &str, box_in_page: [i64; 4], confidence: f32, line: LineKey) -> ReadWord {
        ReadWord {
            text: text.to_owned(),
            box_in_page,
            confidence,
            line,
        }
    }

    #[test]
    fn words_read_on_the_turned_page_are_turned_back_and_the_surer_reading_stays() {
        // A page 1000 high: "213.00" written up the page at x 100–120, y 400–500, read as junk the
        // first time and read well on the page turned clockwise (at x 500–600, y 100–120 there).
        let first = vec![
            word("TITLE", [600, 900, 700, 920], 95.0, (1, 1, 1)),
            word("~:", [100, 430, 120, 470], 35.0, (2, 1, 1)),
            word("VRN-BP-VT-250", [600, 760, 900, 780], 60.0, (3, 1, 1)),
        ];
        let turned = vec![
            word("213.00", [500, 100, 600, 120], 91.0, (1, 1, 1)),
            // Across-the-page text read sideways: unsure, left out.
            word("lI", [300, 300, 320, 400], 40.0, (1, 1, 2)),
            // A row of the page read sideways: sure, but higher than wide there: left out.
            word("VRN", [700, 300, 720, 400], 90.0, (1, 1, 3)),
            // Overlapping a surer first reading: left out.
            word("TlTLE", [80, 600, 100, 700], 80.0, (1, 2, 1)),
            // Crossing a longer, less sure line of the first reading: that line stays.
            word("|||", [150, 640, 250, 660], 95.0, (1, 3, 1)),
        ];
        let words = with_turned_words(first, turned, 1000);
        let texts: Vec<(&str, [i64; 4])> = words
            .iter()
            .map(|word| (word.text.as_str(), word.box_in_page))
            .collect();
        assert_eq!(
            texts,
            [
                ("TITLE", [600, 900, 700, 920]),
                ("VRN-BP-VT-250", [600, 760, 900, 780]),
                ("213.00", [100, 400, 120, 500]),
            ]
        );
        assert_ne!(words[2].line, (1, 1, 1));
    }

    /// A white page with a frame and rows of short dark strokes (text-like), like a drawing.
    fn drawing_like(width: u32, height: u32) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let frame = x < 3 || y < 3 || x >= width - 3 || y >= height - 3;
            let text = y % 40 < 8 && x % 12 < 6 && (100..600).contains(&x);
            if frame || text {
                Rgb([20, 20, 20])
            } else {
                Rgb([250, 250, 250])
            }
        })
    }

    #[test]
    fn a_drawing_is_told_from_a_photo() {
        let drawing = DynamicImage::ImageRgb8(drawing_like(800, 600));
        assert!(looks_like_a_drawing(&drawing), "{:?}", Tones::of(&drawing));
        // A photo: a shaded part on a grey table.
        let photo = DynamicImage::ImageRgb8(RgbImage::from_fn(800, 600, |x, y| {
            let inside = (x as i32 - 400).pow(2) + (y as i32 - 300).pow(2) < 200 * 200;
            let shade = if inside {
                90 + (x / 8) as u8
            } else {
                160 + (y / 20) as u8
            };
            Rgb([shade, shade, shade.saturating_add(10)])
        }));
        assert!(!looks_like_a_drawing(&photo), "{:?}", Tones::of(&photo));
        let blank = DynamicImage::ImageRgb8(RgbImage::from_pixel(400, 300, Rgb([255, 255, 255])));
        assert!(!looks_like_a_drawing(&blank));
        // A line picture of a part (an outline, a sketch): drawing tones but no text.
        let outline = DynamicImage::ImageRgb8(RgbImage::from_fn(512, 512, |x, y| {
            let r = ((x as f64 - 256.0).powi(2) + (y as f64 - 256.0).powi(2)).sqrt();
            if (r - 150.0).abs() < 2.0 || (r - 60.0).abs() < 2.0 {
                Rgb([0, 0, 0])
            } else {
                Rgb([255, 255, 255])
            }
        }));
        assert!(Tones::of(&outline).are_a_drawings());
        assert!(!looks_like_a_drawing(&outline));
    }

    #[test]
    fn no_sample_picture_or_photo_of_a_part_is_taken_for_a_drawing() {
        // The sample library's pictures and its photographed views: outlines and photos of parts.
        let samples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/samples");
        let mut seen = 0;
        for folder in [samples.clone(), samples.join("views")] {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                let Ok(picture) = image::open(&path) else {
                    continue;
                };
                seen += 1;
                assert!(!looks_like_a_drawing(&picture), "{}", path.display());
            }
        }
        assert!(seen >= 20, "{seen} pictures");
    }

    #[test]
    fn a_skewed_page_is_measured_and_turned_straight() {
        let straight = DynamicImage::ImageRgb8(drawing_like(800, 600)).to_luma8();
        assert!(skew_degrees(&straight).abs() < 0.3);
        let turned = imageproc::geometric_transformations::rotate_about_center(
            &straight,
            2.0_f32.to_radians(),
            imageproc::geometric_transformations::Interpolation::Bilinear,
            imageproc::geometric_transformations::Border::Constant(image::Luma([250])),
        );
        let measured = skew_degrees(&turned);
        assert!((measured - 2.0).abs() <= 0.5, "{measured}");
        let cleaned = clean_page(&DynamicImage::ImageLuma8(turned));
        assert!(skew_degrees(&cleaned).abs() <= 0.5);
        assert!(cleaned.pixels().all(|p| p.0[0] == 0 || p.0[0] == 255));
    }

    #[test]
    fn small_text_is_enlarged_within_the_largest_page() {
        // 2.5 mm text scanned at 150 dpi: doubled (an A3 sheet), or up to MAX_OCR_SIDE (ANSI B);
        // at 200 dpi and more: as it is.
        assert_eq!(ocr_scale(15, (2481, 1754)), 2.0);
        assert_eq!(ocr_scale(15, (2550, 1650)), 5000.0 / 2550.0);
        assert_eq!(ocr_scale(17, (3308, 2339)), 5000.0 / 3308.0);
        assert_eq!(ocr_scale(20, (3400, 2200)), 1.0);
        assert_eq!(ocr_scale(40, (5100, 3300)), 1.0);
        // An A2 sheet at 150 dpi grows only up to MAX_OCR_SIDE; one at the limit not at all.
        assert_eq!(ocr_scale(11, (3508, 2481)), 5000.0 / 3508.0);
        assert_eq!(ocr_scale(10, (5000, 3000)), 1.0);
        // The drawing-like page's strokes are 8 px high.
        let page = DynamicImage::ImageRgb8(drawing_like(800, 600)).to_luma8();
        assert_eq!(text_height(&binarised(&page)), Some(8));
        let blank = GrayImage::from_pixel(100, 100, image::Luma([255]));
        assert_eq!(text_height(&blank), None);
    }

    #[test]
    fn long_straight_lines_go_and_characters_stay() {
        let mut page = GrayImage::from_fn(400, 300, |x, y| {
            let rule = (100..102).contains(&y) && (20..380).contains(&x);
            let border = (10..12).contains(&x) && (5..295).contains(&y);
            // A character standing on the rule, and one apart.
            let touching = (200..210).contains(&x) && (86..100).contains(&y);
            let apart = (300..310).contains(&x) && (200..214).contains(&y);
            image::Luma([if rule || border || touching || apart {
                0
            } else {
                255
            }])
        });
        remove_long_lines(&mut page, 70);
        let ink = |x: u32, y: u32| page.get_pixel(x, y).0[0] == 0;
        assert!(!ink(50, 100) && !ink(50, 101) && !ink(11, 150));
        // The characters stay; the one on the rule loses only the row next to it.
        assert!((200..210).all(|x| (86..99).all(|y| ink(x, y))));
        assert!((300..310).all(|x| (200..214).all(|y| ink(x, y))));
    }

    #[test]
    fn words_become_one_item_a_line_scaled_to_the_large_image() {
        let word = |text: &str, left: i64, line: u32| ReadWord {
            text: text.into(),
            box_in_page: [
                left,
                100 * i64::from(line),
                left + 80,
                100 * i64::from(line) + 30,
            ],
            confidence: 90.0,
            line: (1, 1, line),
        };
        let mut words = [word("PART", 0, 1), word("NO:", 100, 1), word("25", 400, 2)];
        words[1].confidence = 41.26;
        let page = pmi_page_of_words(&words, [2000, 1000], [1000, 500]);
        assert_eq!(page.image_size, [1000, 500]);
        assert_eq!(page.items[0].text, "PART NO:");
        assert_eq!(page.items[0].box_in_page, [0, 50, 90, 65]);
        assert_eq!(page.items[1].text, "25");
        assert_eq!(page.items[1].type_id, 2);
        // Each item carries its least sure word's confidence, for the viewer's review marks.
        assert_eq!(page.items[0].confidence, Some(41.3));
        assert_eq!(page.items[1].confidence, Some(90.0));
    }
}
