//! A sketch turned into the picture the service searches by: a PNG made in memory, drawn so the
//! engine reads it like the sample line drawings it was tuned on.
//!
//! - **Contrast.** Black ink on a white page, grey only at anti-aliased edges (the engine measures ink
//!   as distance from the border colour, so a white border and black strokes give full-strength ink).
//! - **Framing.** The strokes are centred and scaled so their extent fills [`CONTENT_SHARE`] of a
//!   [`PICTURE_SIDE`]-pixel square, like the sample pictures (a part fills about two thirds of its
//!   512-pixel picture). Where the user drew on the pad and how large does not matter.
//! - **Stroke width.** Widths scale with the drawing but stay within [`LINE_WIDTH_PX`]: a tiny
//!   sketch blown up does not become blobs, and a hairline does not vanish when the engine scales
//!   the picture down to 128 pixels.
//!
//! Cost: one pass over the pixels under each stroke's bounding box; at most
//! [`super::strokes::MAX_STROKES`] strokes of at most [`super::strokes::MAX_POINTS_PER_STROKE`]
//! points, on a 512² canvas. The PNG is at least [`partlens_api::limits::MIN_UPLOAD_SIZE`] bytes (a
//! sparse sketch that compresses below that is stored uncompressed), so the service accepts it.

use std::io::Cursor;

use egui::{Pos2, Vec2, pos2};
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use image::{GrayImage, ImageEncoder as _, Luma};

use super::strokes::{Shape, Stroke};

/// Side of the square picture, in pixels.
pub const PICTURE_SIDE: u32 = 512;

/// Share of the picture's side the sketch's larger extent fills.
pub const CONTENT_SHARE: f32 = 0.66;

/// Narrowest and widest line in the picture, in pixels. Thin lines read best: two concentric circles
/// drawn 2.5 px wide score 0.87 against the washer picture (3 px lines), 9 px wide 0.83.
pub const LINE_WIDTH_PX: std::ops::RangeInclusive<f32> = 2.5..=6.0;

/// A sketch smaller than this (pad points) is framed as if it were this large.
const MIN_EXTENT: f32 = 8.0;

/// Draws the strokes black on white, framed (see the module documentation); `None` when there are
/// none.
pub fn render(strokes: &[Stroke]) -> Option<GrayImage> {
    let bounds = strokes
        .iter()
        .map(|stroke| stroke.shape.bounds())
        .reduce(|all, one| all.union(one))?;
    let side = PICTURE_SIDE as f32;
    let extent = bounds.width().max(bounds.height()).max(MIN_EXTENT);
    let scale = CONTENT_SHARE * side / extent;
    let centre = bounds.center();
    let picture_from_pad = |point: Pos2| -> Pos2 {
        pos2(
            (point.x - centre.x) * scale + side / 2.0,
            (point.y - centre.y) * scale + side / 2.0,
        )
    };
    let mut ink = Canvas::new(PICTURE_SIDE as usize);
    for stroke in strokes {
        let half_width =
            (stroke.width * scale).clamp(*LINE_WIDTH_PX.start(), *LINE_WIDTH_PX.end()) / 2.0;
        match &stroke.shape {
            Shape::Freehand(points) => {
                let points: Vec<Pos2> = points
                    .iter()
                    .map(|point| picture_from_pad(*point))
                    .collect();
                if let [only] = points.as_slice() {
                    ink.segment(*only, *only, half_width);
                }
                for pair in points.windows(2) {
                    ink.segment(pair[0], pair[1], half_width);
                }
            }
            Shape::Line { from, to } => {
                ink.segment(picture_from_pad(*from), picture_from_pad(*to), half_width);
            }
            Shape::Circle { centre, radius } => {
                ink.ring(picture_from_pad(*centre), radius * scale, half_width);
            }
        }
    }
    Some(ink.into_image())
}

/// The picture as PNG bytes, never fewer than the service's minimum upload size.
pub fn encode_png(image: &GrayImage) -> Result<Vec<u8>, image::ImageError> {
    let encode = |compression| -> Result<Vec<u8>, image::ImageError> {
        let mut bytes = Cursor::new(Vec::new());
        PngEncoder::new_with_quality(&mut bytes, compression, FilterType::Adaptive).write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::L8,
        )?;
        Ok(bytes.into_inner())
    };
    let compressed = encode(CompressionType::Default)?;
    if compressed.len() as u64 >= partlens_api::limits::MIN_UPLOAD_SIZE {
        return Ok(compressed);
    }
    encode(CompressionType::Uncompressed)
}

/// Ink coverage per pixel (0 paper, 1 ink), the strongest stroke winning where strokes cross.
struct Canvas {
    side: usize,
    coverage: Vec<f32>,
}

impl Canvas {
    fn new(side: usize) -> Self {
        Self {
            side,
            coverage: vec![0.0; side * side],
        }
    }

    /// Inks every pixel whose centre lies within `half_width` of what `distance` measures, inside
    /// `area` (min and max corners); edges are anti-aliased over one pixel.
    fn paint(&mut self, min: Pos2, max: Pos2, half_width: f32, distance: impl Fn(Pos2) -> f32) {
        let reach = half_width + 1.0;
        let last = self.side as f32 - 1.0;
        let x0 = (min.x - reach).floor().clamp(0.0, last) as usize;
        let y0 = (min.y - reach).floor().clamp(0.0, last) as usize;
        let x1 = (max.x + reach).ceil().clamp(0.0, last) as usize;
        let y1 = (max.y + reach).ceil().clamp(0.0, last) as usize;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let centre = pos2(x as f32 + 0.5, y as f32 + 0.5);
                let coverage = (half_width + 0.5 - distance(centre)).clamp(0.0, 1.0);
                let pixel = &mut self.coverage[y * self.side + x];
                *pixel = pixel.max(coverage);
            }
        }
    }

    /// A straight segment with round ends (a dot when both ends are one point).
    fn segment(&mut self, from: Pos2, to: Pos2, half_width: f32) {
        let along: Vec2 = to - from;
        let length_squared = along.length_sq();
        self.paint(from.min(to), from.max(to), half_width, |point| {
            let t = if length_squared > 0.0 {
                ((point - from).dot(along) / length_squared).clamp(0.0, 1.0)
            } else {
                0.0
            };
            point.distance(from + along * t)
        });
    }

    /// A circle line.
    fn ring(&mut self, centre: Pos2, radius: f32, half_width: f32) {
        let corner = Vec2::splat(radius);
        self.paint(centre - corner, centre + corner, half_width, |point| {
            (point.distance(centre) - radius).abs()
        });
    }

    fn into_image(self) -> GrayImage {
        let side = self.side as u32;
        let mut image = GrayImage::from_pixel(side, side, Luma([255]));
        for (pixel, coverage) in image.pixels_mut().zip(self.coverage) {
            pixel.0[0] = (255.0 * (1.0 - coverage)).round() as u8;
        }
        image
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle(x: f32, y: f32, radius: f32, width: f32) -> Stroke {
        Stroke {
            shape: Shape::Circle {
                centre: pos2(x, y),
                radius,
            },
            width,
        }
    }

    fn dark(image: &GrayImage, x: u32, y: u32) -> bool {
        image.get_pixel(x, y).0[0] < 64
    }

    #[test]
    fn a_sketch_is_framed_in_the_middle_whatever_its_place_and_size_on_the_pad() {
        for (x, y, radius) in [(60.0, 50.0, 20.0), (300.0, 200.0, 90.0)] {
            let image = render(&[circle(x, y, radius, 3.0)]).unwrap();
            assert_eq!(image.dimensions(), (PICTURE_SIDE, PICTURE_SIDE));
            // The circle's diameter fills the content share of the side, centred.
            let middle = PICTURE_SIDE / 2;
            let half = (CONTENT_SHARE * PICTURE_SIDE as f32 / 2.0).round() as u32;
            assert!(dark(&image, middle - half, middle), "left edge");
            assert!(dark(&image, middle + half - 1, middle), "right edge");
            assert!(dark(&image, middle, middle - half), "top edge");
            assert!(!dark(&image, middle, middle), "the centre is paper");
            assert!(!dark(&image, 2, 2), "the border is paper");
        }
        assert!(render(&[]).is_none());
    }

    #[test]
    fn line_widths_stay_within_their_range() {
        let ink_across = |image: &GrayImage| {
            let middle = PICTURE_SIDE / 2;
            (0..middle).filter(|&x| dark(image, x, middle)).count() as f32
        };
        // A tiny circle drawn with a wide stroke, blown up: capped.
        let thick = ink_across(&render(&[circle(10.0, 10.0, 5.0, 12.0)]).unwrap());
        assert!(thick <= *LINE_WIDTH_PX.end() + 1.0, "{thick}");
        // A large circle drawn with a hairline: still visible at the narrowest width.
        let thin = ink_across(&render(&[circle(200.0, 200.0, 190.0, 1.0)]).unwrap());
        assert!(thin >= LINE_WIDTH_PX.start().floor(), "{thin}");
    }

    #[test]
    fn the_png_decodes_and_is_never_below_the_minimum_upload_size() {
        let dot = Stroke {
            shape: Shape::Freehand(vec![pos2(5.0, 5.0)]),
            width: 1.0,
        };
        for strokes in [vec![dot], vec![circle(100.0, 100.0, 80.0, 3.0)]] {
            let image = render(&strokes).unwrap();
            let png = encode_png(&image).unwrap();
            assert!(png.len() as u64 >= partlens_api::limits::MIN_UPLOAD_SIZE);
            let decoded = image::load_from_memory(&png).unwrap().to_luma8();
            assert_eq!(decoded, image);
        }
    }
}
