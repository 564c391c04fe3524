//! Descriptors of the parts of a part, from a mesh in its standard pose: what a comparison of whole
//! views cannot tell apart (issue 49). Two screws of one size and proportions, a socket head and a
//! hex head, look alike in every view (stop 44 measured the views of the ISO 4762 M4×20 screw closer
//! to an ISO 4017 hex-head screw than to its own family's M6×12 in every direction); their heads
//! differ. So an elongated model is also described by its **ends**: each end of its longest axis
//! (x), the surface within [`END_DEPTH`] of the part's width of it, in [`END_SLICES`] slices from
//! the end inwards, each by the mean and largest distance of its surface from the axis (in units of
//! the part's radius about the axis) and its share of the end's surface: a screw's head whatever
//! the screw's length. Two models compare their ends in the better of the two pairings
//! ([`PartDescriptors::ends_similarity`]); `index.rs` counts it when the model searched by is
//! elongated ([`PartDescriptors::elongation`]).
//!
//! Measured on the real-world corpus's tuning half and not kept (docs/PERFORMANCE.md, "The parts
//! of a part"): a rotational profile along a turned part's axis, the holes through the part seen
//! along each axis (size and place), and the outline of a flat part's largest face (the
//! `corpus_ranking` bench still computes the last two). The surface is sampled from a fixed seed,
//! so the same mesh always gets the same descriptors. Stored as bytes
//! ([`PartDescriptors::to_bytes`]) beside a model's views.

use super::Mesh;

/// Surface points drawn, by area.
const POINTS: usize = 20_000;
/// The seed of the point draw (not D2's: another sample of the same surface).
const SEED: u64 = 0x9a27_5e9d;
/// How deep an end reaches into the part, in units of the part's width about the axis.
pub const END_DEPTH: f32 = 0.6;
/// Slices an end is cut into.
pub const END_SLICES: usize = 8;
/// Figures a slice: mean and largest distance from the axis, share of the surface.
const SLICE_FIGURES: usize = 3;
/// Values of one end.
const END_LEN: usize = END_SLICES * SLICE_FIGURES;
/// How much of the score [`PartDescriptors::to_bytes`] keeps of a value in 0..1 (a byte).
const STORED_SCALE: f32 = 255.0;
/// Elongation is stored as thousandths in a `u16`.
const ELONGATION_SCALE: f32 = 1000.0;

/// The descriptors of the parts of a model (see the module doc).
#[derive(Clone, Debug, PartialEq)]
pub struct PartDescriptors {
    /// The posed extent along x over the extent along y (at least 1: x is the longest).
    elongation: f32,
    /// The end at −x and the end at +x.
    ends: [[f32; END_LEN]; 2],
}

impl PartDescriptors {
    /// Length of the stored form.
    pub const STORED_LEN: usize = 2 + 2 * END_LEN;

    /// The descriptors of a mesh in its standard pose; `None` when it has no area.
    pub fn of_posed(posed: &Mesh) -> Option<Self> {
        let points = super::d2::surface_points(posed, POINTS, SEED)?;
        let bounds = posed.bounds()?;
        let [x, y] = [0, 1].map(|k| bounds[1][k] - bounds[0][k]);
        let elongation = if y > 0.0 { (x / y).max(1.0) } else { f32::MAX };
        Some(Self {
            elongation: elongation.min(f32::from(u16::MAX) / ELONGATION_SCALE),
            ends: [-1.0, 1.0].map(|side| end_of(&points, bounds, side)),
        })
    }

    /// The longest posed extent over the middle one (1 for a part as long as it is wide).
    pub fn elongation(&self) -> f32 {
        self.elongation
    }

    /// How alike this model's ends are to `other`'s, in 0..1: one less the mean difference of
    /// their figures, in the better of the two pairings (−x with −x, or −x with +x).
    pub fn ends_similarity(&self, other: &Self) -> f32 {
        let end = |a: &[f32; END_LEN], b: &[f32; END_LEN]| mean_difference(a, b);
        let straight =
            (end(&self.ends[0], &other.ends[0]) + end(&self.ends[1], &other.ends[1])) / 2.0;
        let crossed =
            (end(&self.ends[0], &other.ends[1]) + end(&self.ends[1], &other.ends[0])) / 2.0;
        (1.0 - straight.min(crossed)).clamp(0.0, 1.0)
    }

    /// The stored form: the elongation in thousandths (`u16`, little-endian), then each end's
    /// figures a byte each ([`Self::STORED_LEN`] bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(Self::STORED_LEN);
        let elongation = (self.elongation * ELONGATION_SCALE)
            .round()
            .clamp(0.0, f32::from(u16::MAX)) as u16;
        bytes.extend_from_slice(&elongation.to_le_bytes());
        for end in &self.ends {
            bytes.extend(
                end.iter()
                    .map(|&value| (value * STORED_SCALE).round().clamp(0.0, STORED_SCALE) as u8),
            );
        }
        bytes
    }

    /// Reads the stored form; `None` when it has the wrong length or an elongation below 1.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if bytes.len() != Self::STORED_LEN {
            return None;
        }
        let elongation = f32::from(u16::from_le_bytes([bytes[0], bytes[1]])) / ELONGATION_SCALE;
        if elongation < 1.0 {
            return None;
        }
        let mut ends = [[0.0; END_LEN]; 2];
        for (end, stored) in ends.iter_mut().zip(bytes[2..].chunks_exact(END_LEN)) {
            for (value, &byte) in end.iter_mut().zip(stored) {
                *value = f32::from(byte) / STORED_SCALE;
            }
        }
        Some(Self { elongation, ends })
    }
}

/// Mean absolute difference of two equally long vectors (values in 0..1).
fn mean_difference(a: &[f32], b: &[f32]) -> f32 {
    if a.is_empty() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f32>() / a.len() as f32
}

/// The distance of `point` from the line along `axis` through the middle of `bounds`.
fn off_axis(point: &[f32; 3], bounds: [[f32; 3]; 2], axis: usize) -> f32 {
    let [a, b] = [(axis + 1) % 3, (axis + 2) % 3];
    let centre = |k: usize| (bounds[0][k] + bounds[1][k]) / 2.0;
    (point[a] - centre(a)).hypot(point[b] - centre(b))
}

/// Slices of the points whose place along `axis` (0 at the slice run's start, 1 at its end) is
/// `place`: each slice's mean and largest distance from the axis over `radius`, and its share of
/// the points in the run.
fn sliced(points: impl Iterator<Item = (f32, f32)>, slices: usize, radius: f32) -> Vec<f32> {
    let mut sums = vec![(0.0_f32, 0.0_f32, 0usize); slices];
    let mut total = 0usize;
    for (place, distance) in points {
        if !(0.0..1.0).contains(&place) {
            continue;
        }
        let slice = ((place * slices as f32) as usize).min(slices - 1);
        let entry = &mut sums[slice];
        entry.0 += distance;
        entry.1 = entry.1.max(distance);
        entry.2 += 1;
        total += 1;
    }
    let scale = if radius > 0.0 { 1.0 / radius } else { 0.0 };
    sums.into_iter()
        .flat_map(|(sum, largest, count)| {
            let mean = if count > 0 { sum / count as f32 } else { 0.0 };
            [
                (mean * scale).min(1.0),
                (largest * scale).min(1.0),
                count as f32 / total.max(1) as f32,
            ]
        })
        .collect()
}

/// One end of the part along x (`side` −1 or +1): see the module doc.
fn end_of(points: &[[f32; 3]], bounds: [[f32; 3]; 2], side: f32) -> [f32; END_LEN] {
    let radius = points
        .iter()
        .map(|point| off_axis(point, bounds, 0))
        .fold(0.0_f32, f32::max);
    let depth = END_DEPTH * 2.0 * radius;
    let end = if side < 0.0 {
        bounds[0][0]
    } else {
        bounds[1][0]
    };
    let mut values = [0.0; END_LEN];
    if depth > 0.0 {
        let slices = sliced(
            points
                .iter()
                .map(|point| ((point[0] - end).abs() / depth, off_axis(point, bounds, 0))),
            END_SLICES,
            radius,
        );
        values.copy_from_slice(&slices);
    }
    values
}
