//! The D2 shape distribution (Osada, Funkhouser, Chazelle, Dobkin 2002): the histogram of distances
//! between random pairs of points on a mesh's surface. It does not change when the mesh is moved,
//! turned, mirrored or re-tessellated, and distances are divided by their mean so it does not change
//! with scale (or units) either. Points are drawn from a fixed seed, area-weighted, so the same mesh
//! always gets the same histogram. It compares models with models; pictures have no D2.

use rand::{RngExt, SeedableRng, rngs::StdRng};

use super::Mesh;

/// Histogram bins.
pub const D2_BINS: usize = 32;
/// Point pairs drawn.
const PAIRS: usize = 16_384;
/// Distances are binned over `0..MAX_RATIO × mean distance` (longer ones go in the last bin).
const MAX_RATIO: f32 = 2.5;
/// The seed of the point draw.
const SEED: u64 = 0x5eed_d2d2;
/// Stored form: one `u16` per bin, the share of pairs × this.
const STORED_SCALE: f32 = 65_535.0;

/// `count` points on a mesh's surface, drawn by area from `seed` (the same mesh and seed, the same
/// points); `None` when the mesh has no area. The part descriptors (`parts.rs`) draw theirs so too.
pub(super) fn surface_points(mesh: &Mesh, count: usize, seed: u64) -> Option<Vec<[f32; 3]>> {
    let mut cumulative = Vec::with_capacity(mesh.triangles.len());
    let mut total = 0.0_f64;
    for triangle in &mesh.triangles {
        total += f64::from(mesh.triangle_area(triangle));
        cumulative.push(total);
    }
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let mut random = StdRng::seed_from_u64(seed);
    let mut point = || {
        let pick = random.random_range(0.0..total);
        let at = cumulative
            .partition_point(|&sum| sum <= pick)
            .min(mesh.triangles.len() - 1);
        let [a, b, c] = mesh.triangles[at].map(|index| mesh.vertices[index as usize]);
        // Uniform on the triangle: √r₁ spreads the points evenly from the corner a.
        let r1 = random.random_range(0.0_f32..1.0).sqrt();
        let r2 = random.random_range(0.0_f32..1.0);
        let (wa, wb, wc) = (1.0 - r1, r1 * (1.0 - r2), r1 * r2);
        [0, 1, 2].map(|k| wa * a[k] + wb * b[k] + wc * c[k])
    };
    Some((0..count).map(|_| point()).collect())
}

/// A D2 histogram: the share of point pairs per distance bin (sums to 1).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeDistribution {
    bins: [f32; D2_BINS],
}

impl ShapeDistribution {
    /// The D2 distribution of a mesh's surface; `None` when the mesh has no area.
    pub fn of_mesh(mesh: &Mesh) -> Option<Self> {
        let points = surface_points(mesh, 2 * PAIRS, SEED)?;
        let distances: Vec<f32> = points
            .chunks_exact(2)
            .map(|pair| {
                let (p, q) = (pair[0], pair[1]);
                ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt()
            })
            .collect();
        let mean = distances.iter().map(|&d| f64::from(d)).sum::<f64>() / PAIRS as f64;
        if mean.is_nan() || mean <= 0.0 {
            return None;
        }
        let mut bins = [0.0_f32; D2_BINS];
        let width = MAX_RATIO / D2_BINS as f32;
        for distance in distances {
            let ratio = (f64::from(distance) / mean) as f32;
            let bin = ((ratio / width) as usize).min(D2_BINS - 1);
            bins[bin] += 1.0;
        }
        for bin in &mut bins {
            *bin /= PAIRS as f32;
        }
        Some(Self { bins })
    }

    /// Similarity in 0..1: one minus half the L1 distance between the histograms (1 = same
    /// distribution, 0 = no overlap).
    pub fn similarity(&self, other: &Self) -> f32 {
        let distance: f32 = self
            .bins
            .iter()
            .zip(&other.bins)
            .map(|(a, b)| (a - b).abs())
            .sum();
        (1.0 - distance / 2.0).clamp(0.0, 1.0)
    }

    /// The share of pairs per bin.
    pub fn bins(&self) -> &[f32; D2_BINS] {
        &self.bins
    }

    /// Length of the stored form.
    pub const STORED_LEN: usize = D2_BINS * 2;

    /// The stored form: [`Self::STORED_LEN`] bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.bins
            .iter()
            .flat_map(|&share| {
                ((share * STORED_SCALE).round().clamp(0.0, STORED_SCALE) as u16).to_le_bytes()
            })
            .collect()
    }

    /// Reads the stored form; `None` when it has the wrong length or does not sum to about 1.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != Self::STORED_LEN {
            return None;
        }
        let mut bins = [0.0_f32; D2_BINS];
        for (bin, pair) in bins.iter_mut().zip(bytes.chunks_exact(2)) {
            *bin = f32::from(u16::from_le_bytes([pair[0], pair[1]])) / STORED_SCALE;
        }
        let sum: f32 = bins.iter().sum();
        ((sum - 1.0).abs() < 0.01).then_some(Self { bins })
    }
}
