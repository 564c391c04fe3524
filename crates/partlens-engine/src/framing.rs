//! Framing a photograph (or a rendered view) of a part before it is described: the background is
//! modelled as a plane of colour fitted to the picture's border (a coloured backdrop with a soft
//! gradient is still "background"), every pixel gets a foreground weight by its distance from that
//! plane, and the view is framed on the foreground's circle around its centroid and resampled to
//! [`FRAMED_SIDE`]². What is kept is the part's silhouette (the foreground weight) and its
//! luminance, which is all a descriptor that ignores background colour and tint may look at.
//!
//! When the plane leaves much of the border unexplained (a table and the wall behind it, a table's
//! grain and the part's shadow, things lying behind the part), the part is found by `foreground.rs`
//! instead, and the silhouette is its weight ([`frame_photograph`], for uploaded pictures). A
//! picture on a plain backdrop, a drawing's page and a model's picture are framed by the plane
//! alone ([`frame`]), as before.

use image::{DynamicImage, RgbImage, imageops::FilterType};

use super::foreground::part_weight;
use super::images::flatten_on_white;
use super::normalise::content_frame;

/// Side of the framed view, in pixels.
pub const FRAMED_SIDE: usize = 128;
/// Side of the coarse copy used to model the background and find the frame.
const COARSE_SIDE: u32 = 256;

/// A view framed on its part.
#[derive(Clone, Debug)]
pub struct FramedView {
    /// Foreground weight per pixel in 0..1 (the silhouette), row-major, [`FRAMED_SIDE`]² values.
    pub silhouette: Vec<f32>,
    /// Luminance per pixel in 0..1, same layout.
    pub luminance: Vec<f32>,
}

impl FramedView {
    /// The framed view as a grey picture: the part's luminance over a white background, weighted
    /// by the silhouette ([`FRAMED_SIDE`]² pixels). What a learned network would be shown of a
    /// view (the `corpus_ranking` bench's learned-features measurement).
    pub fn to_grey(&self) -> image::GrayImage {
        let side = FRAMED_SIDE as u32;
        image::GrayImage::from_fn(side, side, |x, y| {
            let at = (y * side + x) as usize;
            let weight = self.silhouette[at];
            let value = weight * self.luminance[at] + (1.0 - weight);
            image::Luma([(value * 255.0).round().clamp(0.0, 255.0) as u8])
        })
    }
}

/// The background as a plane of colour over the picture: per channel `a + b·u + c·v`, with `u`, `v`
/// the position in −1..1 across and down.
#[derive(Clone, Copy, Debug)]
struct BackgroundPlane {
    channels: [[f32; 3]; 3],
}

impl BackgroundPlane {
    /// Fits the plane to the outer ring of pixels by least squares, twice: the second fit leaves out
    /// the border pixels the first one explains worst (a part touching the border).
    fn fit(image: &RgbImage) -> Self {
        let (width, height) = image.dimensions();
        let samples: Vec<([f32; 2], [f32; 3])> = image
            .enumerate_pixels()
            .filter(|(x, y, _)| on_border(*x, *y, width, height))
            .map(|(x, y, pixel)| (position(x, y, width, height), pixel.0.map(f32::from)))
            .collect();
        let mut plane = Self::least_squares(&samples);
        let mut residuals: Vec<f32> = samples
            .iter()
            .map(|(at, colour)| plane.distance(*at, *colour))
            .collect();
        if !residuals.is_empty() {
            let mut sorted = residuals.clone();
            let middle = sorted.len() / 2;
            let median = *sorted.select_nth_unstable_by(middle, f32::total_cmp).1;
            let limit = 3.0 * median + 6.0;
            let kept: Vec<([f32; 2], [f32; 3])> = samples
                .iter()
                .zip(residuals.drain(..))
                .filter(|(_, residual)| *residual <= limit)
                .map(|(sample, _)| *sample)
                .collect();
            if kept.len() * 2 >= samples.len() {
                plane = Self::least_squares(&kept);
            }
        }
        plane
    }

    /// Whether the plane is the background: it explains at least [`EXPLAINED_BORDER`] of the
    /// picture's border ring within [`BACKGROUND_DISTANCE`].
    fn explains_border(&self, image: &RgbImage) -> bool {
        let (width, height) = image.dimensions();
        let mut explained = 0_usize;
        let mut total = 0_usize;
        for (x, y, pixel) in image.enumerate_pixels() {
            if on_border(x, y, width, height) {
                total += 1;
                let at = position(x, y, width, height);
                if self.distance(at, pixel.0.map(f32::from)) <= BACKGROUND_DISTANCE {
                    explained += 1;
                }
            }
        }
        explained as f32 >= EXPLAINED_BORDER * total as f32
    }

    fn least_squares(samples: &[([f32; 2], [f32; 3])]) -> Self {
        // Normal equations of [1 u v] for the three channels at once.
        let mut matrix = [[0.0_f64; 3]; 3];
        let mut right = [[0.0_f64; 3]; 3];
        for ([u, v], colour) in samples {
            let row = [1.0, f64::from(*u), f64::from(*v)];
            for i in 0..3 {
                for j in 0..3 {
                    matrix[i][j] += row[i] * row[j];
                }
                for channel in 0..3 {
                    right[channel][i] += row[i] * f64::from(colour[channel]);
                }
            }
        }
        let channels = right.map(|rhs| {
            solve3(matrix, rhs).map_or_else(
                || {
                    // Degenerate (a tiny picture): the mean colour.
                    let mean = if matrix[0][0] > 0.0 {
                        rhs[0] / matrix[0][0]
                    } else {
                        255.0
                    };
                    [mean as f32, 0.0, 0.0]
                },
                |solution| solution.map(|value| value as f32),
            )
        });
        Self { channels }
    }

    fn colour(&self, [u, v]: [f32; 2]) -> [f32; 3] {
        self.channels.map(|[a, b, c]| a + b * u + c * v)
    }

    /// Largest channel difference between a colour and the background at a position.
    fn distance(&self, at: [f32; 2], colour: [f32; 3]) -> f32 {
        let background = self.colour(at);
        (0..3)
            .map(|k| (colour[k] - background[k]).abs())
            .fold(0.0, f32::max)
    }
}

/// Solves a 3×3 linear system (Cramer's rule); `None` when it is singular.
fn solve3(matrix: [[f64; 3]; 3], rhs: [f64; 3]) -> Option<[f64; 3]> {
    let determinant = |m: [[f64; 3]; 3]| {
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    };
    let whole = determinant(matrix);
    if whole.abs() < 1e-9 {
        return None;
    }
    let mut solution = [0.0; 3];
    for (column, value) in solution.iter_mut().enumerate() {
        let mut replaced = matrix;
        for row in 0..3 {
            replaced[row][column] = rhs[row];
        }
        *value = determinant(replaced) / whole;
    }
    Some(solution)
}

/// Whether a pixel is in the picture's border ring (two pixels wide), where the background is fitted.
fn on_border(x: u32, y: u32, width: u32, height: u32) -> bool {
    let ring = 2.min(width).min(height);
    x < ring || y < ring || x + ring >= width || y + ring >= height
}

/// Position of a pixel centre in −1..1 across and down.
fn position(x: u32, y: u32, width: u32, height: u32) -> [f32; 2] {
    [
        (x as f32 + 0.5) / width as f32 * 2.0 - 1.0,
        (y as f32 + 0.5) / height as f32 * 2.0 - 1.0,
    ]
}

/// Colour distance from the background (largest channel difference, 0..255) below which a pixel is
/// background (grain, JPEG noise, the backdrop's own unevenness) and above which it is wholly part.
const BACKGROUND_DISTANCE: f32 = 14.0;
const FOREGROUND_DISTANCE: f32 = 40.0;

/// Share of the border ring the plane must explain to be taken as the background (below it the
/// background is a scene: `foreground.rs`).
const EXPLAINED_BORDER: f32 = 0.85;

/// Foreground weight of a colour distance from the background.
fn foreground_weight(distance: f32) -> f32 {
    ((distance - BACKGROUND_DISTANCE) / (FOREGROUND_DISTANCE - BACKGROUND_DISTANCE)).clamp(0.0, 1.0)
}

/// A coarse map's value at a point in its pixels (bilinear; 0 outside the map).
fn sampled(map: &[f32], width: usize, height: usize, x: f32, y: f32) -> f32 {
    let (fx, fy) = (x - 0.5, y - 0.5);
    let (left, top) = (fx.floor(), fy.floor());
    let (right_share, bottom_share) = (fx - left, fy - top);
    let value = |column: f32, row: f32| {
        if column < 0.0 || row < 0.0 || column >= width as f32 || row >= height as f32 {
            0.0
        } else {
            map[row as usize * width + column as usize]
        }
    };
    (value(left, top) * (1.0 - right_share) + value(left + 1.0, top) * right_share)
        * (1.0 - bottom_share)
        + (value(left, top + 1.0) * (1.0 - right_share)
            + value(left + 1.0, top + 1.0) * right_share)
            * bottom_share
}

/// Frames and resamples a decoded image on a plain background (a drawing's page, a model's
/// picture; see the module comment).
pub fn frame(image: &DynamicImage) -> FramedView {
    framed(image, false)
}

/// Frames and resamples a photograph, whose part may stand in a scene (see the module comment).
pub fn frame_photograph(image: &DynamicImage) -> FramedView {
    framed(image, true)
}

/// Frames and resamples `image`; `scene`: the background may be a scene.
fn framed(image: &DynamicImage, scene: bool) -> FramedView {
    let coarse = flatten_on_white(&image.thumbnail(COARSE_SIDE, COARSE_SIDE));
    let (coarse_width, coarse_height) = coarse.dimensions();
    let background = BackgroundPlane::fit(&coarse);
    let scene_weight = if !scene || background.explains_border(&coarse) {
        None
    } else {
        part_weight(&coarse)
    };
    let plane_weight: Vec<f32>;
    let coarse_weight: &[f32] = match &scene_weight {
        Some(weight) => weight,
        None => {
            plane_weight = coarse
                .enumerate_pixels()
                .map(|(x, y, pixel)| {
                    let at = position(x, y, coarse_width, coarse_height);
                    foreground_weight(background.distance(at, pixel.0.map(f32::from)))
                })
                .collect();
            &plane_weight
        }
    };
    let frame = content_frame(coarse_weight, coarse_width as usize, coarse_height as usize);

    // The frame in the original image's pixels.
    let scale_x = image.width() as f32 / coarse_width as f32;
    let scale_y = image.height() as f32 / coarse_height as f32;
    let centre_x = frame.centre_x * scale_x;
    let centre_y = frame.centre_y * scale_y;
    let half = frame.half_side * (scale_x + scale_y) / 2.0;
    let side = FRAMED_SIDE as f32;
    let pixels_per_original = side / (2.0 * half);
    let left = centre_x - half;
    let top = centre_y - half;

    // The part of the image inside the frame, resampled; outside the image is background.
    let crop_left = left.floor().max(0.0) as u32;
    let crop_top = top.floor().max(0.0) as u32;
    let crop_right = ((centre_x + half).ceil().max(0.0) as u32).min(image.width());
    let crop_bottom = ((centre_y + half).ceil().max(0.0) as u32).min(image.height());
    let mut resized = None;
    if crop_right > crop_left && crop_bottom > crop_top {
        let crop_width = crop_right - crop_left;
        let crop_height = crop_bottom - crop_top;
        let target_width = ((crop_width as f32 * pixels_per_original).round() as u32).max(1);
        let target_height = ((crop_height as f32 * pixels_per_original).round() as u32).max(1);
        let crop = image.crop_imm(crop_left, crop_top, crop_width, crop_height);
        let picture = if target_width < crop_width {
            crop.thumbnail_exact(target_width, target_height)
        } else {
            crop.resize_exact(target_width, target_height, FilterType::Triangle)
        };
        let offset_x = ((crop_left as f32 - left) * pixels_per_original).round() as i64;
        let offset_y = ((crop_top as f32 - top) * pixels_per_original).round() as i64;
        resized = Some((flatten_on_white(&picture), offset_x, offset_y));
    }
    let mut silhouette = Vec::with_capacity(FRAMED_SIDE * FRAMED_SIDE);
    let mut luminance = Vec::with_capacity(FRAMED_SIDE * FRAMED_SIDE);
    for y in 0..FRAMED_SIDE {
        for x in 0..FRAMED_SIDE {
            // Where this framed pixel lies in the original image, and in the plane's −1..1.
            let original_x = left + (x as f32 + 0.5) / pixels_per_original;
            let original_y = top + (y as f32 + 0.5) / pixels_per_original;
            let at = [
                original_x / image.width() as f32 * 2.0 - 1.0,
                original_y / image.height() as f32 * 2.0 - 1.0,
            ];
            let inside = resized.as_ref().and_then(|(picture, offset_x, offset_y)| {
                let px = x as i64 - offset_x;
                let py = y as i64 - offset_y;
                (px >= 0
                    && py >= 0
                    && px < i64::from(picture.width())
                    && py < i64::from(picture.height()))
                .then(|| picture.get_pixel(px as u32, py as u32).0.map(f32::from))
            });
            let colour = inside.unwrap_or_else(|| background.colour(at));
            silhouette.push(match &scene_weight {
                Some(weight) => sampled(
                    weight,
                    coarse_width as usize,
                    coarse_height as usize,
                    original_x / scale_x,
                    original_y / scale_y,
                ),
                None => foreground_weight(background.distance(at, colour)),
            });
            luminance.push((0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]) / 255.0);
        }
    }
    FramedView {
        silhouette,
        luminance,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shaded ring (a washer seen from above) at `centre`, radius 40, over `background`.
    fn washer_on(background: impl Fn(u32, u32) -> [u8; 3]) -> DynamicImage {
        DynamicImage::ImageRgb8(RgbImage::from_fn(320, 240, |x, y| {
            let (dx, dy) = (x as f32 - 170.0, y as f32 - 110.0);
            let radius = (dx * dx + dy * dy).sqrt();
            if (14.0..=40.0).contains(&radius) {
                // Lit from the upper left: brighter where the surface faces it.
                let light = 0.55 + 0.4 * (-(dx + dy) / (radius * 1.5));
                let grey = (150.0 * light).clamp(0.0, 255.0) as u8;
                return image::Rgb([grey, grey, grey.saturating_add(12)]);
            }
            image::Rgb(background(x, y))
        }))
    }

    /// Share of pixels on which two silhouettes agree about the part (intersection over union).
    fn agreement(a: &FramedView, b: &FramedView) -> f32 {
        let (mut both, mut either) = (0, 0);
        for (x, y) in a.silhouette.iter().zip(&b.silhouette) {
            let (x, y) = (*x > 0.5, *y > 0.5);
            both += usize::from(x && y);
            either += usize::from(x || y);
        }
        both as f32 / either.max(1) as f32
    }

    #[test]
    fn a_part_on_a_grained_table_below_a_wall_with_its_shadow_is_framed_as_on_a_plain_backdrop() {
        let plain = frame_photograph(&washer_on(|_, _| [90, 140, 200]));
        let scene = frame_photograph(&washer_on(|x, y| {
            if y < 60 {
                return [215, 210, 200];
            }
            let grain = 14.0 * (x as f32 / 5.0 + y as f32 / 30.0).sin();
            // The washer's shadow on the table, down and to the right, soft at its edge.
            let (dx, dy) = (x as f32 - 185.0, y as f32 - 128.0);
            let reach = (dx * dx + dy * dy).sqrt();
            let shade = 1.0 - 0.45 * ((44.0 - reach) / 6.0).clamp(0.0, 1.0);
            [
                ((170.0 + grain) * shade) as u8,
                ((120.0 + grain) * shade) as u8,
                (80.0 * shade) as u8,
            ]
        }));
        let agreed = agreement(&plain, &scene);
        assert!(agreed > 0.9, "the silhouettes agree on {agreed:.2}");
    }
}
