//! The descriptor of the engine before photo search (issue 9), kept so that the quality benchmark can
//! measure it next to today's in the same run (`Pipeline::Legacy`); nothing is indexed with it.
//!
//! A view is normalised first (see `normalise.rs`: ink map framed on the content's circle), then
//! turned upright by its dominant edge direction modulo 90° (drawings are mostly horizontal and
//! vertical edges, so a moderate rotation is undone), then described by blocks that each catch
//! something different and fail differently:
//!
//! | block | what it sees | tolerates |
//! |---|---|---|
//! | edge-orientation grid | HOG on the ink map: 8×8 cells × 9 orientations | line weight, fills, noise |
//! | radial edges | edge orientation *relative to the centre*, in 4 rings | any rotation |
//! | Zernike | magnitudes of Zernike moments (order ≤ 10) of the edge map | any rotation, fills |
//! | layout | an 8×8 grid of ink density | line weight, noise |
//! | colour | hue and grey-level histogram of the ink | shape changes |
//! | perceptual hash | 256-bit gradient hash of the upright view | near-duplicates only |
//!
//! The hash adds `WEIGHT_HASH × (1 − 2·hamming/256)` to the blocks' weighted cosines.

use std::sync::LazyLock;

use image::GrayImage;
use image_hasher::{HashAlg, Hasher, HasherConfig};

use super::blocks::{
    Gradients, ZERNIKE_LEN, downsample_half, edge_grid, layout, radial_edges, soft_bins,
    zernike_magnitudes,
};
use super::normalise::{NORMALISED_SIDE, NormalisedView};

/// Weight of each float block and of the hash; they sum to 1 so identical views score 1.
const WEIGHT_EDGE_GRID: f32 = 0.20;
const WEIGHT_RADIAL_EDGES: f32 = 0.20;
const WEIGHT_ZERNIKE: f32 = 0.25;
const WEIGHT_LAYOUT: f32 = 0.15;
const WEIGHT_COLOUR: f32 = 0.05;
/// Weight of the perceptual hash's agreement.
pub(super) const WEIGHT_HASH: f32 = 0.15;

/// Side of the downsampled ink map the edge and moment blocks work on.
const SMALL_SIDE: usize = 64;
/// Edge-orientation grid: cells per side and orientation bins.
const GRID_CELLS: usize = 8;
const GRID_BINS: usize = 9;
/// Radial edges: rings and relative-orientation bins.
const RADIAL_RINGS: usize = 4;
const RADIAL_BINS: usize = 8;
/// Layout grid cells per side.
const LAYOUT_CELLS: usize = 8;
/// Colour histogram: hue bins for coloured ink, grey-level bins for grey ink.
const HUE_BINS: usize = 12;
const GREY_BINS: usize = 4;

/// Length and weight of each float block, in order.
pub(super) const BLOCKS: [(usize, f32); 5] = [
    (GRID_CELLS * GRID_CELLS * GRID_BINS, WEIGHT_EDGE_GRID),
    (RADIAL_RINGS * RADIAL_BINS, WEIGHT_RADIAL_EDGES),
    (ZERNIKE_LEN, WEIGHT_ZERNIKE),
    (LAYOUT_CELLS * LAYOUT_CELLS, WEIGHT_LAYOUT),
    (HUE_BINS + GREY_BINS, WEIGHT_COLOUR),
];

/// Side of the perceptual hash grid (bits = side²).
const HASH_SIDE: u32 = 16;
/// 64-bit words of the perceptual hash.
pub(super) const HASH_WORDS: usize = (HASH_SIDE * HASH_SIDE / 64) as usize;
/// Bits of the perceptual hash.
pub(super) const HASH_BITS: f32 = (HASH_SIDE * HASH_SIDE) as f32;

/// The legacy descriptor of a normalised view: its raw blocks in [`BLOCKS`] order (each still to be
/// finished with its weight; the colour block is not centred) and its perceptual hash.
pub(super) fn describe(view: &NormalisedView) -> (Vec<Vec<f32>>, [u64; HASH_WORDS]) {
    let turn = dominant_orientation(&Gradients::of(
        &downsample_half(&view.ink, NORMALISED_SIDE),
        SMALL_SIDE,
    ));
    let upright = rotate_map(&view.ink, NORMALISED_SIDE, -turn);
    let small = downsample_half(&upright, NORMALISED_SIDE);
    let gradients = Gradients::of(&small, SMALL_SIDE);
    let blocks = vec![
        edge_grid(&gradients, GRID_CELLS, GRID_BINS),
        radial_edges(&gradients, RADIAL_RINGS, RADIAL_BINS),
        zernike_magnitudes(&gradients.magnitude, SMALL_SIDE),
        layout(&small, SMALL_SIDE, LAYOUT_CELLS),
        colour_histogram(view),
    ];
    (blocks, perceptual_hash(&upright))
}

/// The view's dominant edge direction modulo 90°, in radians (−π/4..π/4): the magnitude-weighted
/// circular mean of four times each edge angle. Drawings are mostly horizontal and vertical edges,
/// so turning the view back by this angle undoes a moderate rotation before the rotation-sensitive
/// blocks (edge grid, layout, hash) are computed. The mean moves exactly with a rotation of the view,
/// without the jumps of a histogram peak. A part whose main edges lie near 45° can land a quarter
/// turn off; round parts have no dominant direction, but they look the same turned anyway.
fn dominant_orientation(gradients: &Gradients) -> f32 {
    let mut cosine = 0.0_f32;
    let mut sine = 0.0_f32;
    for (&magnitude, &orientation) in gradients.magnitude.iter().zip(&gradients.orientation) {
        if magnitude > 0.0 {
            let (sin, cos) = (4.0 * orientation).sin_cos();
            cosine += magnitude * cos;
            sine += magnitude * sin;
        }
    }
    if cosine.abs() + sine.abs() <= f32::EPSILON {
        return 0.0;
    }
    sine.atan2(cosine) / 4.0
}

/// A square map turned by `angle` radians about its centre (bilinear; outside is no ink).
fn rotate_map(map: &[f32], side: usize, angle: f32) -> Vec<f32> {
    if angle.abs() < 1e-4 {
        return map.to_vec();
    }
    let centre = side as f32 / 2.0;
    let (sin, cos) = angle.sin_cos();
    let at = |x: isize, y: isize| -> f32 {
        if x < 0 || y < 0 || x >= side as isize || y >= side as isize {
            0.0
        } else {
            map[y as usize * side + x as usize]
        }
    };
    let mut turned = vec![0.0; side * side];
    for y in 0..side {
        for x in 0..side {
            // Where this output pixel comes from: the inverse rotation.
            let dx = x as f32 + 0.5 - centre;
            let dy = y as f32 + 0.5 - centre;
            let source_x = cos * dx + sin * dy + centre - 0.5;
            let source_y = -sin * dx + cos * dy + centre - 0.5;
            let left = source_x.floor();
            let top = source_y.floor();
            let (fx, fy) = (source_x - left, source_y - top);
            let (left, top) = (left as isize, top as isize);
            turned[y * side + x] = (at(left, top) * (1.0 - fx) + at(left + 1, top) * fx)
                * (1.0 - fy)
                + (at(left, top + 1) * (1.0 - fx) + at(left + 1, top + 1) * fx) * fy;
        }
    }
    turned
}

/// Colour of the ink: hue histogram for saturated ink, grey-level histogram for the rest, each
/// pixel weighted by its ink. The background does not count (a different paper shade is no change).
fn colour_histogram(view: &NormalisedView) -> Vec<f32> {
    let mut histogram = vec![0.0; HUE_BINS + GREY_BINS];
    for (pixel, &ink) in view.colour.pixels().zip(&view.ink) {
        if ink <= 0.0 {
            continue;
        }
        let [r, g, b] = pixel.0.map(|channel| f32::from(channel) / 255.0);
        let max = r.max(g).max(b);
        let min = r.min(g).min(b);
        let chroma = max - min;
        let saturation = if max > 0.0 { chroma / max } else { 0.0 };
        let colourful = ((saturation - 0.15) / 0.25).clamp(0.0, 1.0) * (max / 0.2).min(1.0);
        if colourful > 0.0 && chroma > 0.0 {
            let hue = if max == r {
                ((g - b) / chroma).rem_euclid(6.0)
            } else if max == g {
                (b - r) / chroma + 2.0
            } else {
                (r - g) / chroma + 4.0
            } / 6.0;
            for (bin, weight) in soft_bins(hue * HUE_BINS as f32 - 0.5, HUE_BINS, true) {
                histogram[bin] += ink * colourful * weight;
            }
        }
        let grey = 1.0 - colourful;
        if grey > 0.0 {
            let level = (r + g + b) / 3.0;
            for (bin, weight) in soft_bins(level * GREY_BINS as f32 - 0.5, GREY_BINS, false) {
                histogram[HUE_BINS + bin] += ink * grey * weight;
            }
        }
    }
    histogram
}

/// The perceptual hasher: gradient hash on a 16×16 grid (256 bits).
static HASHER: LazyLock<Hasher> = LazyLock::new(|| {
    HasherConfig::new()
        .hash_alg(HashAlg::Gradient)
        .hash_size(HASH_SIDE, HASH_SIDE)
        .to_hasher()
});

/// Perceptual hash of the normalised ink map (ink dark on white, whatever the original colours).
fn perceptual_hash(ink: &[f32]) -> [u64; HASH_WORDS] {
    let side = NORMALISED_SIDE as u32;
    let picture = GrayImage::from_fn(side, side, |x, y| {
        let value = ink[(y * side + x) as usize];
        image::Luma([255 - (value * 255.0).round() as u8])
    });
    let hash = HASHER.hash_image(&picture);
    let mut words = [0_u64; HASH_WORDS];
    for (index, byte) in hash.as_bytes().iter().enumerate().take(HASH_WORDS * 8) {
        words[index / 8] |= u64::from(*byte) << (8 * (index % 8));
    }
    words
}
