//! Real glyphs for the texts of a rendered drawing: the Hack monospace font that egui already ships
//! (`epaint_default_fonts`), outlined by `skrifa` and filled even-odd into the page raster. Each
//! character fills one cell of the text's fixed character width (the same cells its PMI box is made
//! of), its capitals as tall as the text height.

use std::collections::HashMap;

use image::{Rgb, RgbImage};
use skrifa::instance::{LocationRef, Size};
use skrifa::outline::{DrawSettings, OutlinePen};
use skrifa::{FontRef, MetadataProvider};

use super::scene::Point2;

/// Segments a curve of a glyph outline is split into.
const CURVE_SEGMENTS: usize = 6;

/// Glyph outlines in cell units: x from 0 to 1 across the character's cell, y 1 at capital height.
pub struct GlyphOutlines {
    font: FontRef<'static>,
    cap_height: f32,
    advance: f32,
    cache: HashMap<char, Vec<Vec<Point2>>>,
}

impl GlyphOutlines {
    /// The bundled font, or `None` if it cannot be read (texts are then drawn as bars).
    pub fn bundled() -> Option<Self> {
        let font = FontRef::new(epaint_default_fonts::HACK_REGULAR).ok()?;
        let metrics = font.metrics(Size::unscaled(), LocationRef::default());
        let cap_height = metrics
            .cap_height
            .unwrap_or(f32::from(metrics.units_per_em) * 0.73);
        let glyph = font.charmap().map('M')?;
        let advance = font
            .glyph_metrics(Size::unscaled(), LocationRef::default())
            .advance_width(glyph)?;
        (cap_height > 0.0 && advance > 0.0).then(|| Self {
            font,
            cap_height,
            advance,
            cache: HashMap::new(),
        })
    }

    /// The closed contours of a character (empty for a space or a character the font lacks).
    pub fn contours(&mut self, character: char) -> &[Vec<Point2>] {
        let (font, cap_height, advance) = (&self.font, self.cap_height, self.advance);
        self.cache.entry(character).or_insert_with(|| {
            let Some(glyph) = font.charmap().map(character) else {
                return Vec::new();
            };
            let Some(outline) = font.outline_glyphs().get(glyph) else {
                return Vec::new();
            };
            let mut pen = FlatteningPen {
                scale: [1.0 / f64::from(advance), 1.0 / f64::from(cap_height)],
                contours: Vec::new(),
            };
            let settings = DrawSettings::unhinted(Size::unscaled(), LocationRef::default());
            if outline.draw(settings, &mut pen).is_err() {
                return Vec::new();
            }
            pen.contours.retain(|contour| contour.len() >= 3);
            pen.contours
        })
    }
}

struct FlatteningPen {
    scale: [f64; 2],
    contours: Vec<Vec<Point2>>,
}

impl FlatteningPen {
    fn point(&self, x: f32, y: f32) -> Point2 {
        [f64::from(x) * self.scale[0], f64::from(y) * self.scale[1]]
    }

    fn last(&self) -> Point2 {
        self.contours
            .last()
            .and_then(|contour| contour.last())
            .copied()
            .unwrap_or([0.0, 0.0])
    }

    fn push(&mut self, point: Point2) {
        if let Some(contour) = self.contours.last_mut() {
            contour.push(point);
        }
    }
}

impl OutlinePen for FlatteningPen {
    fn move_to(&mut self, x: f32, y: f32) {
        let start = self.point(x, y);
        self.contours.push(vec![start]);
    }

    fn line_to(&mut self, x: f32, y: f32) {
        let point = self.point(x, y);
        self.push(point);
    }

    fn quad_to(&mut self, cx0: f32, cy0: f32, x: f32, y: f32) {
        let (start, control, end) = (self.last(), self.point(cx0, cy0), self.point(x, y));
        for step in 1..=CURVE_SEGMENTS {
            let t = step as f64 / CURVE_SEGMENTS as f64;
            let u = 1.0 - t;
            self.push([
                u * u * start[0] + 2.0 * u * t * control[0] + t * t * end[0],
                u * u * start[1] + 2.0 * u * t * control[1] + t * t * end[1],
            ]);
        }
    }

    fn curve_to(&mut self, cx0: f32, cy0: f32, cx1: f32, cy1: f32, x: f32, y: f32) {
        let start = self.last();
        let (c0, c1, end) = (self.point(cx0, cy0), self.point(cx1, cy1), self.point(x, y));
        for step in 1..=CURVE_SEGMENTS {
            let t = step as f64 / CURVE_SEGMENTS as f64;
            let u = 1.0 - t;
            let w = [u * u * u, 3.0 * u * u * t, 3.0 * u * t * t, t * t * t];
            self.push([
                w[0] * start[0] + w[1] * c0[0] + w[2] * c1[0] + w[3] * end[0],
                w[0] * start[1] + w[1] * c0[1] + w[2] * c1[1] + w[3] * end[1],
            ]);
        }
    }

    fn close(&mut self) {}
}

/// Fills polygons (page pixels) with the even-odd rule, sampling each pixel row twice: the holes of
/// letters such as O and B stay open.
pub fn fill_even_odd(image: &mut RgbImage, polygons: &[Vec<Point2>], colour: Rgb<u8>) {
    let points = polygons.iter().flatten();
    let (mut top, mut bottom) = (f64::INFINITY, f64::NEG_INFINITY);
    for [_, y] in points {
        top = top.min(*y);
        bottom = bottom.max(*y);
    }
    if !(top.is_finite() && bottom.is_finite()) {
        return;
    }
    let first_row = top.floor().max(0.0) as u32;
    let last_row = bottom.ceil().min(f64::from(image.height())) as u32;
    let mut crossings: Vec<f64> = Vec::new();
    // Two samples a row: thin horizontal strokes of small text (under a pixel) still leave ink.
    for row in first_row..last_row {
        for offset in [0.3, 0.7] {
            let y = f64::from(row) + offset;
            crossings.clear();
            for polygon in polygons {
                for index in 0..polygon.len() {
                    let [x0, y0] = polygon[index];
                    let [x1, y1] = polygon[(index + 1) % polygon.len()];
                    if (y0 <= y) != (y1 <= y) {
                        crossings.push(x0 + (y - y0) / (y1 - y0) * (x1 - x0));
                    }
                }
            }
            crossings.sort_by(f64::total_cmp);
            for pair in crossings.chunks_exact(2) {
                let start = (pair[0] - 0.5).ceil().max(0.0) as u32;
                let end = (pair[1] - 0.5).floor().min(f64::from(image.width()) - 1.0);
                if end < 0.0 {
                    continue;
                }
                for column in start..=(end as u32) {
                    image.put_pixel(column, row, colour);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_have_outlines_in_cell_units_and_keep_their_holes() {
        let mut glyphs = GlyphOutlines::bundled().unwrap();
        assert!(glyphs.contours(' ').is_empty());
        let outline = glyphs.contours('O').to_vec();
        // An O is an outer and an inner contour, inside its cell and about capital height.
        assert_eq!(outline.len(), 2);
        let top = outline
            .iter()
            .flatten()
            .map(|p| p[1])
            .fold(f64::MIN, f64::max);
        assert!((0.95..1.1).contains(&top), "{top}");
        assert!(
            outline
                .iter()
                .flatten()
                .all(|p| (-0.05..=1.05).contains(&p[0]))
        );
        assert!(!glyphs.contours('Ø').is_empty());

        // Scaled to 40 px, filled: ink on the ring, paper in the hole.
        let mut image = RgbImage::from_pixel(40, 40, Rgb([255, 255, 255]));
        let pixels: Vec<Vec<Point2>> = outline
            .iter()
            .map(|contour| {
                contour
                    .iter()
                    .map(|[x, y]| [x * 40.0, 40.0 - y * 36.0])
                    .collect()
            })
            .collect();
        fill_even_odd(&mut image, &pixels, Rgb([0, 0, 0]));
        assert_eq!(image.get_pixel(20, 22).0, [255, 255, 255]);
        let inked = image.pixels().filter(|pixel| pixel.0 == [0, 0, 0]).count();
        assert!(inked > 100, "{inked}");
    }
}
