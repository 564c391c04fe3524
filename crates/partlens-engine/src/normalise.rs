//! Normalising a picture before the legacy descriptor (`legacy_descriptor.rs`) describes it, so that
//! what is drawn counts and how it was captured does not (today's descriptor frames views with
//! `framing.rs`, which shares `content_frame` with this): the background colour is estimated from
//! the border and every pixel gets an "ink" weight (how far it is from the background, whatever the
//! polarity or shade); the view is then framed on the content's enclosing circle around its ink
//! centroid (crop to content, pad square) and resampled to a fixed size. Framing on a circle rather
//! than a bounding box keeps the scale and centre of a part unchanged when the part is rotated.

use image::{DynamicImage, RgbImage, imageops::FilterType};

use super::images::flatten_on_white;

/// Side of the normalised view, in pixels.
pub const NORMALISED_SIDE: usize = 128;
/// Side of the coarse copy used to find the background and the content's frame.
const COARSE_SIDE: u32 = 256;
/// Colour distance from the background (0..255, largest channel) below which a pixel is no ink:
/// light noise, JPEG ringing and paper shading stay under it.
const INK_FLOOR: f32 = 28.0;
/// Colour distance from the background at which a pixel is full ink.
const INK_FULL: f32 = 84.0;
/// Share of the ink mass the content circle must enclose: the rest is stray specks.
const ENCLOSED_INK: f32 = 0.997;
/// Margin around the content circle, as a fraction of its radius.
const FRAME_MARGIN: f32 = 0.06;

/// A view framed on its content and resampled to [`NORMALISED_SIDE`]².
#[derive(Clone, Debug)]
pub struct NormalisedView {
    /// Ink weight per pixel in 0..1, row-major, [`NORMALISED_SIDE`]² values.
    pub ink: Vec<f32>,
    /// The same frame in colour (for the colour histogram).
    pub colour: RgbImage,
}

/// Frames and resamples a decoded image (see the module comment).
pub fn normalise(image: &DynamicImage) -> NormalisedView {
    let coarse = flatten_on_white(&image.thumbnail(COARSE_SIDE, COARSE_SIDE));
    let background = border_colour(&coarse);
    let coarse_ink = ink_map(&coarse, background);
    let frame = content_frame(
        &coarse_ink,
        coarse.width() as usize,
        coarse.height() as usize,
    );

    // The frame in the original image's pixels.
    let scale_x = image.width() as f32 / coarse.width() as f32;
    let scale_y = image.height() as f32 / coarse.height() as f32;
    let centre_x = frame.centre_x * scale_x;
    let centre_y = frame.centre_y * scale_y;
    let half = frame.half_side * (scale_x + scale_y) / 2.0;
    let side = NORMALISED_SIDE as f32;
    let pixels_per_original = side / (2.0 * half);
    let left = centre_x - half;
    let top = centre_y - half;

    let mut canvas = RgbImage::from_pixel(
        NORMALISED_SIDE as u32,
        NORMALISED_SIDE as u32,
        image::Rgb(background),
    );
    let crop_left = left.floor().max(0.0) as u32;
    let crop_top = top.floor().max(0.0) as u32;
    let crop_right = ((centre_x + half).ceil().max(0.0) as u32).min(image.width());
    let crop_bottom = ((centre_y + half).ceil().max(0.0) as u32).min(image.height());
    if crop_right > crop_left && crop_bottom > crop_top {
        let crop_width = crop_right - crop_left;
        let crop_height = crop_bottom - crop_top;
        let target_width = ((crop_width as f32 * pixels_per_original).round() as u32).max(1);
        let target_height = ((crop_height as f32 * pixels_per_original).round() as u32).max(1);
        let crop = image.crop_imm(crop_left, crop_top, crop_width, crop_height);
        let resized = if target_width < crop_width {
            // Area averaging: thin lines fade instead of vanishing between samples.
            crop.thumbnail_exact(target_width, target_height)
        } else {
            crop.resize_exact(target_width, target_height, FilterType::Triangle)
        };
        let resized = flatten_on_white(&resized);
        let offset_x = ((crop_left as f32 - left) * pixels_per_original).round() as i64;
        let offset_y = ((crop_top as f32 - top) * pixels_per_original).round() as i64;
        image::imageops::overlay(&mut canvas, &resized, offset_x, offset_y);
    }
    let ink = ink_map(&canvas, background);
    NormalisedView {
        ink,
        colour: canvas,
    }
}

/// The background colour: the per-channel median of the image's outer ring of pixels.
fn border_colour(image: &RgbImage) -> [u8; 3] {
    let (width, height) = image.dimensions();
    let ring = 2.min(width).min(height);
    let side_columns: Vec<u32> = (0..width)
        .filter(|&x| x < ring || x + ring >= width)
        .collect();
    let all_columns: Vec<u32> = (0..width).collect();
    let mut channels: [Vec<u8>; 3] = Default::default();
    for y in 0..height {
        let columns = if y < ring || y + ring >= height {
            &all_columns
        } else {
            &side_columns
        };
        for &x in columns {
            for (values, value) in channels.iter_mut().zip(image.get_pixel(x, y).0) {
                values.push(value);
            }
        }
    }
    channels.map(|mut values| {
        if values.is_empty() {
            return u8::MAX;
        }
        let middle = values.len() / 2;
        *values.select_nth_unstable(middle).1
    })
}

/// Ink weight of every pixel: its largest channel distance from the background, mapped to 0..1.
fn ink_map(image: &RgbImage, background: [u8; 3]) -> Vec<f32> {
    // One entry per possible distance, so the per-pixel work is three subtractions and a lookup.
    let ink_of_distance: Vec<f32> = (0..=255_u8)
        .map(|distance| {
            ((f32::from(distance) - INK_FLOOR) / (INK_FULL - INK_FLOOR)).clamp(0.0, 1.0)
        })
        .collect();
    let [red, green, blue] = background;
    image
        .as_raw()
        .chunks_exact(3)
        .map(|pixel| {
            let distance = pixel[0]
                .abs_diff(red)
                .max(pixel[1].abs_diff(green))
                .max(pixel[2].abs_diff(blue));
            ink_of_distance[usize::from(distance)]
        })
        .collect()
}

/// A square frame in coarse pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Frame {
    pub(super) centre_x: f32,
    pub(super) centre_y: f32,
    pub(super) half_side: f32,
}

/// The square framing the content: centred on the ink centroid, half its side the radius enclosing
/// [`ENCLOSED_INK`] of the ink plus a margin. An image without ink is framed whole.
pub(super) fn content_frame(ink: &[f32], width: usize, height: usize) -> Frame {
    let mut mass = 0.0_f64;
    let mut sum_x = 0.0_f64;
    let mut sum_y = 0.0_f64;
    for (index, &value) in ink.iter().enumerate() {
        if value > 0.0 {
            let value = f64::from(value);
            mass += value;
            sum_x += value * ((index % width) as f64 + 0.5);
            sum_y += value * ((index / width) as f64 + 0.5);
        }
    }
    if mass < 1.0 {
        return Frame {
            centre_x: width as f32 / 2.0,
            centre_y: height as f32 / 2.0,
            half_side: width.max(height) as f32 / 2.0,
        };
    }
    let centre_x = (sum_x / mass) as f32;
    let centre_y = (sum_y / mass) as f32;

    // Ink mass by distance from the centroid, in half-pixel rings.
    let rings = (width + height) * 2 + 2;
    let mut by_distance = vec![0.0_f64; rings];
    for (index, &value) in ink.iter().enumerate() {
        if value > 0.0 {
            let dx = (index % width) as f32 + 0.5 - centre_x;
            let dy = (index / width) as f32 + 0.5 - centre_y;
            let ring = ((dx * dx + dy * dy).sqrt() * 2.0) as usize;
            by_distance[ring.min(rings - 1)] += f64::from(value);
        }
    }
    let wanted = mass * f64::from(ENCLOSED_INK);
    let mut enclosed = 0.0;
    let mut radius = rings as f32 / 2.0;
    for (ring, ring_mass) in by_distance.iter().enumerate() {
        enclosed += ring_mass;
        if enclosed >= wanted {
            radius = (ring + 1) as f32 / 2.0;
            break;
        }
    }
    Frame {
        centre_x,
        centre_y,
        half_side: radius * (1.0 + FRAME_MARGIN) + 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square_on(background: u8, ink: u8, at: (u32, u32), size: u32) -> DynamicImage {
        DynamicImage::ImageRgb8(RgbImage::from_fn(300, 200, |x, y| {
            let inside = x >= at.0 && x < at.0 + size && y >= at.1 && y < at.1 + size;
            image::Rgb([if inside { ink } else { background }; 3])
        }))
    }

    #[test]
    fn the_content_fills_the_frame_wherever_it_sits_and_whatever_its_size() {
        let small = normalise(&square_on(255, 0, (20, 30), 40));
        let large = normalise(&square_on(255, 0, (120, 40), 120));
        let difference: f32 = small
            .ink
            .iter()
            .zip(&large.ink)
            .map(|(a, b)| (a - b).abs())
            .sum::<f32>()
            / small.ink.iter().sum::<f32>();
        assert!(difference < 0.1, "relative difference {difference}");
        let centre = NORMALISED_SIDE / 2 * NORMALISED_SIDE + NORMALISED_SIDE / 2;
        assert!(small.ink[centre] > 0.9);
        assert!(small.ink[0] < 0.01);
    }

    #[test]
    fn background_shade_and_polarity_do_not_change_the_ink() {
        let dark_on_white = normalise(&square_on(255, 0, (100, 50), 80));
        let dark_on_grey = normalise(&square_on(200, 20, (100, 50), 80));
        let light_on_black = normalise(&square_on(0, 255, (100, 50), 80));
        for other in [&dark_on_grey, &light_on_black] {
            let difference: f32 = dark_on_white
                .ink
                .iter()
                .zip(&other.ink)
                .map(|(a, b)| (a - b).abs())
                .sum::<f32>()
                / dark_on_white.ink.iter().sum::<f32>();
            // Only the anti-aliased rim differs: a weaker contrast gives its pixels less ink.
            assert!(difference < 0.03, "relative difference {difference}");
        }
    }

    #[test]
    fn a_blank_image_has_no_ink() {
        let blank = normalise(&DynamicImage::ImageRgb8(RgbImage::from_pixel(
            50,
            80,
            image::Rgb([240, 240, 240]),
        )));
        assert!(blank.ink.iter().all(|&value| value == 0.0));
    }
}
