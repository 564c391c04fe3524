//! Today's view descriptor: what a photograph of a part, a shaded rendering of its model and a
//! drawing of it have in common, whatever the background colour, tint, grain, blur, in-plane
//! rotation, scale and shift. It looks at a view framed by `framing.rs` (silhouette and luminance,
//! framed on the silhouette's circle) through blocks that are all unchanged by a rotation or mirror
//! image of the view:
//!
//! | block | what it sees |
//! |---|---|
//! | silhouette Zernike | Zernike moment magnitudes (order ≤ 10) of the silhouette |
//! | silhouette Fourier | generic Fourier descriptor of the silhouette |
//! | edge Zernike | Zernike moment magnitudes of the edge map |
//! | edge Fourier | generic Fourier descriptor of the edge map |
//! | radial edges | edge orientation relative to the direction from the centre, in rings |
//!
//! The edge map is the silhouette's outline plus the luminance edges inside the part (creases,
//! holes, steps), with the part's luminance normalised first, so tint and exposure do not count.

use super::blocks::{
    FourierShape, Gradients, ZERNIKE_LEN, downsample_half, generic_fourier, radial_edges,
    zernike_magnitudes,
};
use super::experiment;
use super::framing::{FRAMED_SIDE, FramedView};

/// Side of the maps the blocks are computed on.
const SIDE: usize = FRAMED_SIDE / 2;

fn fourier_shape() -> FourierShape {
    FourierShape {
        rings: experiment::number("gfd_rings", 16.0) as usize,
        angles: 64,
        radial: experiment::number("gfd_radial", 4.0) as usize,
        angular: experiment::number("gfd_angular", 13.0) as usize,
        high_angular: experiment::number("gfd_high", 32.0) as usize,
    }
}

fn radial_shape() -> (usize, usize) {
    (
        experiment::number("re_rings", 4.0) as usize,
        experiment::number("re_bins", 8.0) as usize,
    )
}

/// Default weights of the blocks, in order.
pub(super) const BLOCKS: [(usize, f32); 5] = [
    (ZERNIKE_LEN, 0.2),
    (71, 0.2),
    (ZERNIKE_LEN, 0.2),
    (71, 0.2),
    (32, 0.2),
];

/// Length and weight of each block, in order; the weights sum to 1.
pub(super) fn weighted_blocks() -> Vec<(usize, f32)> {
    let (rings, bins) = radial_shape();
    let gfd = fourier_shape().len();
    let keys = ["w_mz", "w_mg", "w_ez", "w_eg", "w_re"];
    let lens = [ZERNIKE_LEN, gfd, ZERNIKE_LEN, gfd, rings * bins];
    let weights: Vec<f32> = keys
        .iter()
        .zip(BLOCKS)
        .map(|(key, (_, weight))| experiment::number(key, weight))
        .collect();
    let total: f32 = weights.iter().sum();
    lens.iter()
        .zip(weights)
        .map(|(&len, weight)| (len, weight / total))
        .collect()
}

/// The edge map of a framed view (see the module comment), as gradients for the orientation blocks.
fn edges(silhouette: &[f32], luminance: &[f32]) -> Gradients {
    let inside_weight = experiment::number("inside", 1.5);
    let outline = Gradients::of(silhouette, SIDE);
    // Luminance statistics over the part.
    let (mut mass, mut sum, mut squares) = (0.0_f32, 0.0_f32, 0.0_f32);
    for (&weight, &value) in silhouette.iter().zip(luminance) {
        mass += weight;
        sum += weight * value;
        squares += weight * value * value;
    }
    let mean = if mass > 0.0 { sum / mass } else { 0.0 };
    let spread = if mass > 0.0 {
        (squares / mass - mean * mean).max(0.0).sqrt().max(0.04)
    } else {
        1.0
    };
    let normalised: Vec<f32> = silhouette
        .iter()
        .zip(luminance)
        .map(|(&weight, &value)| weight * (value - mean) / spread)
        .collect();
    let inner = Gradients::of(&normalised, SIDE);
    // Inside only: a pixel counts as inside as far as its whole 3×3 neighbourhood is part.
    let mut magnitude = outline.magnitude.clone();
    let mut orientation = outline.orientation.clone();
    for y in 1..SIDE - 1 {
        for x in 1..SIDE - 1 {
            let at = y * SIDE + x;
            let mut core = 1.0_f32;
            for dy in 0..3 {
                for dx in 0..3 {
                    core = core.min(silhouette[(y + dy - 1) * SIDE + x + dx - 1]);
                }
            }
            let inside = inside_weight * core * inner.magnitude[at];
            if inside > magnitude[at] {
                orientation[at] = inner.orientation[at];
            }
            magnitude[at] += inside;
        }
    }
    Gradients {
        side: SIDE,
        magnitude,
        orientation,
    }
}

/// The descriptor's raw blocks, in [`weighted_blocks`] order.
pub(super) fn describe(view: &FramedView) -> Vec<Vec<f32>> {
    let silhouette = downsample_half(&view.silhouette, FRAMED_SIDE);
    let luminance = downsample_half(&view.luminance, FRAMED_SIDE);
    let edge_map = edges(&silhouette, &luminance);
    let (rings, bins) = radial_shape();
    vec![
        zernike_magnitudes(&silhouette, SIDE),
        generic_fourier(&silhouette, SIDE, fourier_shape()),
        zernike_magnitudes(&edge_map.magnitude, SIDE),
        generic_fourier(&edge_map.magnitude, SIDE, fourier_shape()),
        radial_edges(&edge_map, rings, bins),
    ]
}
