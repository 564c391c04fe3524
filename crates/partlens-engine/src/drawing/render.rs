//! Rasterising a scene onto its page: black strokes two pixels wide on white, filled outlines, and
//! texts in real glyphs (see `glyphs.rs`); texts too small to read, or every text when the font
//! cannot be read, are "greeked" (a grey bar a word, from baseline to x-height).

use image::{Rgb, RgbImage};
use imageproc::drawing::{draw_line_segment_mut, draw_polygon_mut};
use imageproc::point::Point;

use super::glyphs::{GlyphOutlines, fill_even_odd};
use super::page::Page;
use super::scene::{PlacedText, Point2, Scene};

/// Capital height in page pixels below which a text is greeked instead of written.
const SMALLEST_LEGIBLE_PX: f64 = 5.0;
/// Most stroke length drawn, in page pixels: a hostile drawing of millions of page-long segments
/// stops being drawn there (it is still read).
const MAX_STROKE_PIXELS: f64 = 100_000_000.0;
/// Most text box area drawn, in pages: text beyond it is read but not drawn.
const MAX_TEXT_PAGES: u64 = 64;

const INK: Rgb<u8> = Rgb([0, 0, 0]);
const TEXT_INK: Rgb<u8> = Rgb([110, 110, 110]);

/// The page as an RGB image on white.
pub fn render(scene: &Scene, page: &Page) -> RgbImage {
    let mut image = RgbImage::from_pixel(page.width, page.height, Rgb([255, 255, 255]));
    let mut stroke_pixels = 0.0;
    'strokes: for stroke in &scene.strokes {
        let pixels: Vec<Point2> = stroke.iter().map(|point| page.page_point(*point)).collect();
        for pair in pixels.windows(2) {
            let length = (pair[1][0] - pair[0][0]).hypot(pair[1][1] - pair[0][1]);
            // Clipped to the page, a segment costs at most the page's diagonal.
            stroke_pixels += length.min(f64::from(page.width + page.height));
            if stroke_pixels > MAX_STROKE_PIXELS {
                break 'strokes;
            }
            thick_line(&mut image, pair[0], pair[1], INK);
        }
    }
    for outline in &scene.fills {
        let pixels: Vec<Point2> = outline
            .iter()
            .map(|point| page.page_point(*point))
            .collect();
        fill(&mut image, &pixels, INK);
    }
    let mut glyphs = GlyphOutlines::bundled();
    let page_area = u64::from(page.width) * u64::from(page.height);
    let mut text_area = 0;
    for text in scene.texts.iter().filter(|text| text.visible) {
        let [left, top, right, bottom] = page.box_in_page(&text.corners());
        text_area += u64::try_from((right - left) * (bottom - top)).unwrap_or(0);
        if text_area > MAX_TEXT_PAGES * page_area {
            break;
        }
        let [bottom_left, _, _, top_left] = text.corners();
        let [x0, y0] = page.page_point(bottom_left);
        let [x1, y1] = page.page_point(top_left);
        let height_px = (x1 - x0).hypot(y1 - y0);
        match glyphs.as_mut() {
            Some(glyphs) if height_px >= SMALLEST_LEGIBLE_PX => {
                write(&mut image, text, page, glyphs);
            }
            _ => {
                for word in text.word_shapes() {
                    let pixels: Vec<Point2> =
                        word.iter().map(|point| page.page_point(*point)).collect();
                    fill(&mut image, &pixels, TEXT_INK);
                }
            }
        }
    }
    image
}

/// Writes a text in glyphs, one character a cell of its character width.
fn write(image: &mut RgbImage, text: &PlacedText, page: &Page, glyphs: &mut GlyphOutlines) {
    for (row, line) in text.text.lines().enumerate() {
        let baseline = -(row as f64) * text.line_pitch;
        for (column, character) in line.chars().enumerate() {
            let left = column as f64 * text.char_width;
            let contours: Vec<Vec<Point2>> = glyphs
                .contours(character)
                .iter()
                .map(|contour| {
                    contour
                        .iter()
                        .map(|[x, y]| {
                            let local = [left + x * text.char_width, baseline + y * text.height];
                            page.page_point(text.frame.apply(local))
                        })
                        .collect()
                })
                .collect();
            if !contours.is_empty() {
                fill_even_odd(image, &contours, INK);
            }
        }
    }
}

fn thick_line(image: &mut RgbImage, from: Point2, to: Point2, colour: Rgb<u8>) {
    let start = (from[0] as f32, from[1] as f32);
    let end = (to[0] as f32, to[1] as f32);
    draw_line_segment_mut(image, start, end, colour);
    // The second pixel goes across the line's main direction.
    let (dx, dy) = if (to[0] - from[0]).abs() > (to[1] - from[1]).abs() {
        (0.0, 1.0)
    } else {
        (1.0, 0.0)
    };
    draw_line_segment_mut(
        image,
        (start.0 + dx, start.1 + dy),
        (end.0 + dx, end.1 + dy),
        colour,
    );
}

/// Fills a polygon given in page pixels; one too thin to have an area is drawn as its outline.
fn fill(image: &mut RgbImage, pixels: &[Point2], colour: Rgb<u8>) {
    let limit = f64::from(image.width().max(image.height())) * 4.0;
    let mut points: Vec<Point<i32>> = Vec::with_capacity(pixels.len());
    for [x, y] in pixels {
        let point = Point::new(
            x.round().clamp(-limit, limit) as i32,
            y.round().clamp(-limit, limit) as i32,
        );
        if points.last() != Some(&point) {
            points.push(point);
        }
    }
    while points.len() > 1 && points.first() == points.last() {
        points.pop();
    }
    let doubled_area: i64 = (0..points.len())
        .map(|index| {
            let a = points[index];
            let b = points[(index + 1) % points.len()];
            i64::from(a.x) * i64::from(b.y) - i64::from(b.x) * i64::from(a.y)
        })
        .sum();
    if points.len() >= 3 && doubled_area != 0 {
        draw_polygon_mut(image, &points, colour);
    } else {
        for pair in pixels.windows(2) {
            thick_line(image, pair[0], pair[1], colour);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawing::PmiItemKind;
    use crate::drawing::scene::{PlacedText, Transform};

    #[test]
    fn strokes_and_texts_are_drawn_on_white() {
        let scene = Scene {
            strokes: vec![vec![[0.0, 0.0], [100.0, 0.0], [100.0, 50.0]]],
            fills: vec![vec![[0.0, 40.0], [10.0, 40.0], [10.0, 50.0]]],
            texts: vec![PlacedText {
                text: "NOTE".into(),
                kind: PmiItemKind::Note,
                tag: None,
                frame: Transform::translate(40.0, 20.0),
                height: 5.0,
                char_width: 3.0,
                line_pitch: 8.0,
                visible: true,
            }],
            off_page_texts: Vec::new(),
        };
        let (min, max) = scene.extents().unwrap();
        let page = Page::fitting(min, max);
        let image = render(&scene, &page);
        assert_eq!((image.width(), image.height()), (page.width, page.height));
        let [x, y] = page.page_point([50.0, 0.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &INK);
        // The text is written in glyphs: ink inside its box, none left of it.
        let [left, top] = page.page_point([40.0, 25.0]);
        let [right, bottom] = page.page_point([52.0, 20.0]);
        let inked = (top as u32..bottom as u32)
            .flat_map(|y| (left as u32..right as u32).map(move |x| (x, y)))
            .filter(|&(x, y)| image.get_pixel(x, y) == &INK)
            .count();
        assert!(inked > 20, "{inked}");
        let [x, y] = page.page_point([38.0, 22.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &Rgb([255, 255, 255]));
        let [x, y] = page.page_point([50.0, 45.0]);
        assert_eq!(image.get_pixel(x as u32, y as u32), &Rgb([255, 255, 255]));
    }
}
