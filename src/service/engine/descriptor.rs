//! The visual descriptor of one view and its similarity score.
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
//! Each float block is power-normalised, centred (so that unrelated views score near 0, not near the
//! shared mean of all histograms) and L2-normalised, then scaled by the square root of its weight and
//! concatenated: the weighted sum of per-block cosines is one dot product, which is what makes
//! [`super::VisualIndex`] a tight loop. The hash adds `weight × (1 − 2·hamming/256)`, so a hash match
//! alone can never lift a visibly different image to a high score (the findimagedupes lesson).
//! The weights were chosen on the synthetic parts of `service/samples/parts.rs` (worst-case margin between a
//! transformed part and the best other part), keeping every block in play rather than fitting them.

use std::sync::LazyLock;

use image::GrayImage;
use image_hasher::{HashAlg, Hasher, HasherConfig};

use super::EngineError;
use super::mesh::ShapeDistribution;
use super::normalise::{NORMALISED_SIDE, NormalisedView};

/// Weight of each float block and of the hash; they sum to 1 so identical views score 1.
const WEIGHT_EDGE_GRID: f32 = 0.20;
const WEIGHT_RADIAL_EDGES: f32 = 0.20;
const WEIGHT_ZERNIKE: f32 = 0.25;
const WEIGHT_LAYOUT: f32 = 0.15;
const WEIGHT_COLOUR: f32 = 0.05;
const WEIGHT_HASH: f32 = 0.15;

/// Side of the downsampled ink map the edge and moment blocks work on.
const SMALL_SIDE: usize = 64;
/// Edge-orientation grid: cells per side and orientation bins.
const GRID_CELLS: usize = 8;
const GRID_BINS: usize = 9;
/// Radial edges: rings and relative-orientation bins.
const RADIAL_RINGS: usize = 4;
const RADIAL_BINS: usize = 8;
/// Highest Zernike order.
const ZERNIKE_ORDER: usize = 10;
/// Zernike moments kept: every (n, m) with m ≤ n ≤ 10, n − m even, except Z00 (the mass, divided
/// out) and Z11 (zero about the centroid).
const ZERNIKE_LEN: usize = 34;
/// Layout grid cells per side.
const LAYOUT_CELLS: usize = 8;
/// Colour histogram: hue bins for coloured ink, grey-level bins for grey ink.
const HUE_BINS: usize = 12;
const GREY_BINS: usize = 4;

const EDGE_GRID_LEN: usize = GRID_CELLS * GRID_CELLS * GRID_BINS;
const RADIAL_LEN: usize = RADIAL_RINGS * RADIAL_BINS;
const LAYOUT_LEN: usize = LAYOUT_CELLS * LAYOUT_CELLS;
const COLOUR_LEN: usize = HUE_BINS + GREY_BINS;
/// Length of the feature part of a descriptor (blocks plus zero padding to a multiple of 16).
pub const FEATURE_LEN: usize =
    (EDGE_GRID_LEN + RADIAL_LEN + ZERNIKE_LEN + LAYOUT_LEN + COLOUR_LEN).div_ceil(16) * 16;
/// Features are stored as 16-bit integers: `value × FEATURE_SCALE`, rounded. Every block is a
/// vector of length √weight ≤ 0.5, so values fit, the rounding error (≈1e-5 on a score) is far below
/// anything visible, memory and bandwidth are half of `f32`, and the integer dot product is exact:
/// the index and the brute-force path agree to the bit whatever order they add in. By
/// Cauchy–Schwarz any partial dot product of two valid descriptors is at most `FEATURE_SCALE²`
/// (≈1.0e9), inside `i32`.
const FEATURE_SCALE: f32 = 32_000.0;
/// Side of the perceptual hash grid (bits = side²).
const HASH_SIDE: u32 = 16;
/// 64-bit words of the perceptual hash.
pub const HASH_WORDS: usize = (HASH_SIDE * HASH_SIDE / 64) as usize;
const HASH_BITS: f32 = (HASH_SIDE * HASH_SIDE) as f32;

/// Version of the stored form; bumped whenever the descriptor changes meaning.
const STORED_VERSION: u8 = 1;
/// Version of the stored form of a mesh's view: version 1 followed by the mesh's D2 distribution.
const STORED_VERSION_WITH_SHAPE: u8 = 2;
/// First bytes of a stored descriptor.
const STORED_MAGIC: &[u8; 3] = b"PLV";
/// Stored length: magic, version, features, hash, checksum.
const STORED_LEN: usize = STORED_MAGIC.len() + 1 + FEATURE_LEN * 2 + HASH_WORDS * 8 + 4;
/// Stored length of a mesh's view: the D2 distribution sits before the checksum.
const STORED_LEN_WITH_SHAPE: usize = STORED_LEN + ShapeDistribution::STORED_LEN;

/// The visual descriptor of one view (an image, or one rendered view of a model).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDescriptor {
    /// The weighted, normalised blocks, [`FEATURE_LEN`] values scaled by [`FEATURE_SCALE`].
    features: Vec<i16>,
    /// The perceptual hash.
    hash: [u64; HASH_WORDS],
    /// The D2 shape distribution of the mesh this is a view of (`None` for pictures).
    shape: Option<ShapeDistribution>,
}

impl ViewDescriptor {
    /// Describes a decoded image.
    pub fn of_image(image: &image::DynamicImage) -> Self {
        Self::of_normalised(&super::normalise::normalise(image))
    }

    /// Describes a view already normalised.
    fn of_normalised(view: &NormalisedView) -> Self {
        let turn = dominant_orientation(&Gradients::of(
            &downsample_half(&view.ink, NORMALISED_SIDE),
            SMALL_SIDE,
        ));
        let upright = rotate_map(&view.ink, NORMALISED_SIDE, -turn);
        let small = downsample_half(&upright, NORMALISED_SIDE);
        let gradients = Gradients::of(&small, SMALL_SIDE);
        let mut features = Vec::with_capacity(FEATURE_LEN);
        let mut push = |mut block: Vec<f32>, weight: f32, centred: bool| {
            finish_block(&mut block, weight, centred);
            features.extend_from_slice(&block);
        };
        push(edge_grid(&gradients), WEIGHT_EDGE_GRID, true);
        push(radial_edges(&gradients), WEIGHT_RADIAL_EDGES, true);
        push(
            zernike_magnitudes(&gradients.magnitude),
            WEIGHT_ZERNIKE,
            true,
        );
        push(layout(&small), WEIGHT_LAYOUT, true);
        push(colour_histogram(view), WEIGHT_COLOUR, false);
        Self {
            features: quantise(&features),
            hash: perceptual_hash(&upright),
            shape: None,
        }
    }

    /// The descriptor as bytes, for storage: a magic and version byte, the features and the hash
    /// little-endian, and a checksum so that damage is detected rather than silently mis-ranked.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(STORED_LEN_WITH_SHAPE);
        bytes.extend_from_slice(STORED_MAGIC);
        bytes.push(match self.shape {
            None => STORED_VERSION,
            Some(_) => STORED_VERSION_WITH_SHAPE,
        });
        for value in &self.features {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        for word in &self.hash {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        if let Some(shape) = &self.shape {
            bytes.extend_from_slice(&shape.to_bytes());
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a descriptor stored with [`ViewDescriptor::to_bytes`]; anything else (another version,
    /// a wrong length, a bad checksum, values out of range) is [`EngineError::DamagedDescriptor`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, EngineError> {
        let damaged = |why: String| Err(EngineError::DamagedDescriptor(why));
        if bytes.len() < STORED_MAGIC.len() + 1 {
            return damaged(format!("{} bytes, expected {STORED_LEN}", bytes.len()));
        }
        if &bytes[..STORED_MAGIC.len()] != STORED_MAGIC {
            return damaged("not a partlens view descriptor".to_owned());
        }
        let expected = match bytes[STORED_MAGIC.len()] {
            STORED_VERSION => STORED_LEN,
            STORED_VERSION_WITH_SHAPE => STORED_LEN_WITH_SHAPE,
            version => {
                return damaged(format!(
                    "descriptor version {version} (this engine reads {STORED_VERSION} and \
                     {STORED_VERSION_WITH_SHAPE})"
                ));
            }
        };
        if bytes.len() != expected {
            return damaged(format!("{} bytes, expected {expected}", bytes.len()));
        }
        let (body, checksum) = bytes.split_at(expected - 4);
        if checksum != fnv1a(body).to_le_bytes() {
            return damaged("checksum mismatch".to_owned());
        }
        let rest = &body[STORED_MAGIC.len() + 1..];
        let (feature_bytes, rest) = rest.split_at(FEATURE_LEN * 2);
        let (hash_bytes, shape_bytes) = rest.split_at(HASH_WORDS * 8);
        let shape = if shape_bytes.is_empty() {
            None
        } else {
            Some(
                ShapeDistribution::from_bytes(shape_bytes)
                    .ok_or_else(|| EngineError::DamagedDescriptor("bad D2 distribution".into()))?,
            )
        };
        let features: Vec<i16> = feature_bytes
            .chunks_exact(2)
            .map(|pair| i16::from_le_bytes([pair[0], pair[1]]))
            .collect();
        // Blocks longer than their weight allows would make scores meaningless (and could overflow
        // the integer dot product): a valid checksum over invalid content is still damage.
        let mut start = 0;
        for (len, weight) in BLOCKS {
            let squared: i64 = features[start..start + len]
                .iter()
                .map(|&value| i64::from(value) * i64::from(value))
                .sum();
            let allowed = f64::from(weight) * f64::from(FEATURE_SCALE).powi(2) * 1.001 + 1e4;
            if squared as f64 > allowed {
                return damaged(format!("block at {start} is too long"));
            }
            start += len;
        }
        if features[start..].iter().any(|&value| value != 0) {
            return damaged("padding is not zero".to_owned());
        }
        let mut hash = [0_u64; HASH_WORDS];
        for (word, chunk) in hash.iter_mut().zip(hash_bytes.chunks_exact(8)) {
            let mut eight = [0_u8; 8];
            eight.copy_from_slice(chunk);
            *word = u64::from_le_bytes(eight);
        }
        Ok(Self {
            features,
            hash,
            shape,
        })
    }

    /// Similarity of two views in 0..1 (1 = identical).
    pub fn similarity(&self, other: &Self) -> f32 {
        view_similarity(&self.features, &self.hash, &other.features, &other.hash)
    }

    /// The same view carrying the D2 distribution of the mesh it was rendered from.
    pub fn with_shape(mut self, shape: Option<ShapeDistribution>) -> Self {
        self.shape = shape;
        self
    }

    /// The D2 distribution of the mesh this is a view of (`None` for pictures).
    pub fn shape(&self) -> Option<&ShapeDistribution> {
        self.shape.as_ref()
    }

    /// Heap bytes this descriptor holds outside its own struct (for memory reports).
    pub fn heap_bytes(&self) -> usize {
        self.features.capacity() * size_of::<i16>()
    }

    /// The weighted, scaled blocks (for the index's contiguous storage).
    pub(crate) fn features(&self) -> &[i16] {
        &self.features
    }

    /// The perceptual hash (for the index's contiguous storage).
    pub(crate) fn hash(&self) -> &[u64; HASH_WORDS] {
        &self.hash
    }

    /// A descriptor nudged by `noise` (−1..1 values, cycled) of relative size `amount`, renormalised
    /// block by block, with `flipped_bits` hash bits inverted. For benchmarks that need many
    /// realistic, distinct descriptors without analysing as many images. The padding after the
    /// blocks stays zero, so the result is stored and read back like an analysed descriptor.
    pub fn perturbed(&self, noise: &[f32], amount: f32, flipped_bits: &[usize]) -> Self {
        let blocks_len: usize = BLOCKS.iter().map(|(len, _)| len).sum();
        let mut features: Vec<f32> = self.features[..blocks_len]
            .iter()
            .map(|&value| f32::from(value) / FEATURE_SCALE)
            .collect();
        if !noise.is_empty() {
            for (index, value) in features.iter_mut().enumerate() {
                *value += amount * noise[index % noise.len()] * value.abs().max(0.02);
            }
        }
        let mut start = 0;
        for (len, weight) in BLOCKS {
            let block = &mut features[start..start + len];
            let norm = block.iter().map(|value| value * value).sum::<f32>().sqrt();
            if norm > f32::EPSILON {
                let scale = weight.sqrt() / norm;
                block.iter_mut().for_each(|value| *value *= scale);
            }
            start += len;
        }
        let mut hash = self.hash;
        for &bit in flipped_bits {
            let bit = bit % (HASH_WORDS * 64);
            hash[bit / 64] ^= 1 << (bit % 64);
        }
        Self {
            features: quantise(&features),
            hash,
            shape: self.shape.clone(),
        }
    }
}

/// Length and weight of each float block, in storage order.
const BLOCKS: [(usize, f32); 5] = [
    (EDGE_GRID_LEN, WEIGHT_EDGE_GRID),
    (RADIAL_LEN, WEIGHT_RADIAL_EDGES),
    (ZERNIKE_LEN, WEIGHT_ZERNIKE),
    (LAYOUT_LEN, WEIGHT_LAYOUT),
    (COLOUR_LEN, WEIGHT_COLOUR),
];

/// The similarity of two views from their parts: the one formula both the index and
/// [`ViewDescriptor::similarity`] use, so that they agree to the last bit.
pub(crate) fn view_similarity(
    features: &[i16],
    hash: &[u64; HASH_WORDS],
    other_features: &[i16],
    other_hash: &[u64; HASH_WORDS],
) -> f32 {
    if features.len() != other_features.len() {
        return 0.0;
    }
    let differing: u32 = hash
        .iter()
        .zip(other_hash)
        .map(|(a, b)| (a ^ b).count_ones())
        .sum();
    let hash_agreement = 1.0 - 2.0 * differing as f32 / HASH_BITS;
    let features_agreement = dot(features, other_features) as f32 / (FEATURE_SCALE * FEATURE_SCALE);
    (features_agreement + WEIGHT_HASH * hash_agreement).clamp(0.0, 1.0)
}

/// Integer dot product in sixteen independent lanes (the compiler turns this into SIMD multiply-add).
/// Exact, so the result does not depend on the order of additions; wrapping only matters for
/// descriptors `from_bytes` would have refused.
pub(crate) fn dot(a: &[i16], b: &[i16]) -> i32 {
    let mut lanes = [0_i32; 16];
    let a_chunks = a.chunks_exact(16);
    let b_chunks = b.chunks_exact(16);
    let tail = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .fold(0_i32, |sum, (&x, &y)| {
            sum.wrapping_add(i32::from(x) * i32::from(y))
        });
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..16 {
            lanes[lane] = lanes[lane].wrapping_add(i32::from(x[lane]) * i32::from(y[lane]));
        }
    }
    lanes.iter().fold(tail, |sum, &lane| sum.wrapping_add(lane))
}

/// Scales unit-weighted float features to the stored integers, padded to [`FEATURE_LEN`].
fn quantise(features: &[f32]) -> Vec<i16> {
    let mut stored: Vec<i16> = features
        .iter()
        .map(|&value| (value * FEATURE_SCALE).round().clamp(-32_767.0, 32_767.0) as i16)
        .collect();
    stored.resize(FEATURE_LEN, 0);
    stored
}

/// Power-normalises (square root), optionally centres, L2-normalises and weights a block. A block
/// with nothing in it (a blank view) becomes the first unit vector, so two blank views still agree.
fn finish_block(block: &mut [f32], weight: f32, centred: bool) {
    for value in block.iter_mut() {
        *value = value.max(0.0).sqrt();
    }
    if centred {
        let mean = block.iter().sum::<f32>() / block.len() as f32;
        block.iter_mut().for_each(|value| *value -= mean);
    }
    let norm = block.iter().map(|value| value * value).sum::<f32>().sqrt();
    let scale = weight.sqrt();
    if norm > 1e-6 {
        block.iter_mut().for_each(|value| *value *= scale / norm);
    } else {
        block.iter_mut().for_each(|value| *value = 0.0);
        block[0] = scale;
    }
}

/// Halves the side of a square map by averaging 2×2 blocks.
fn downsample_half(map: &[f32], side: usize) -> Vec<f32> {
    let half = side / 2;
    let mut small = vec![0.0; half * half];
    for y in 0..half {
        for x in 0..half {
            let top = 2 * y * side + 2 * x;
            let bottom = top + side;
            small[y * half + x] = (map[top] + map[top + 1] + map[bottom] + map[bottom + 1]) / 4.0;
        }
    }
    small
}

/// Gradient magnitude and unsigned orientation (0..π) of every inner pixel of a square map.
struct Gradients {
    side: usize,
    magnitude: Vec<f32>,
    orientation: Vec<f32>,
}

impl Gradients {
    fn of(map: &[f32], side: usize) -> Self {
        let mut magnitude = vec![0.0; side * side];
        let mut orientation = vec![0.0; side * side];
        for y in 1..side - 1 {
            for x in 1..side - 1 {
                let at = y * side + x;
                // Sobel: smooths across the edge, so one-pixel lines give clean orientations.
                let gx = (map[at - side + 1] + 2.0 * map[at + 1] + map[at + side + 1])
                    - (map[at - side - 1] + 2.0 * map[at - 1] + map[at + side - 1]);
                let gy = (map[at + side - 1] + 2.0 * map[at + side] + map[at + side + 1])
                    - (map[at - side - 1] + 2.0 * map[at - side] + map[at - side + 1]);
                magnitude[at] = (gx * gx + gy * gy).sqrt();
                orientation[at] = gy.atan2(gx).rem_euclid(std::f32::consts::PI);
            }
        }
        Self {
            side,
            magnitude,
            orientation,
        }
    }
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

/// Splits a continuous bin position into two neighbouring bins and their weights; `wrap` for
/// circular quantities (orientation), clamping otherwise.
fn soft_bins(position: f32, bins: usize, wrap: bool) -> [(usize, f32); 2] {
    let floor = position.floor();
    let fraction = position - floor;
    let lower = floor as i64;
    let fix = |bin: i64| -> usize {
        if wrap {
            bin.rem_euclid(bins as i64) as usize
        } else {
            bin.clamp(0, bins as i64 - 1) as usize
        }
    };
    [(fix(lower), 1.0 - fraction), (fix(lower + 1), fraction)]
}

/// HOG-like grid: orientation histograms of the ink map's edges in 4×4 cells, trilinear voting.
fn edge_grid(gradients: &Gradients) -> Vec<f32> {
    let side = gradients.side;
    let cell = side as f32 / GRID_CELLS as f32;
    let bin_width = std::f32::consts::PI / GRID_BINS as f32;
    let mut histogram = vec![0.0; EDGE_GRID_LEN];
    for y in 0..side {
        for x in 0..side {
            let at = y * side + x;
            let magnitude = gradients.magnitude[at];
            if magnitude <= 0.0 {
                continue;
            }
            let bins = soft_bins(gradients.orientation[at] / bin_width - 0.5, GRID_BINS, true);
            let columns = soft_bins((x as f32 + 0.5) / cell - 0.5, GRID_CELLS, false);
            let rows = soft_bins((y as f32 + 0.5) / cell - 0.5, GRID_CELLS, false);
            for (row, row_weight) in rows {
                for (column, column_weight) in columns {
                    let base = (row * GRID_CELLS + column) * GRID_BINS;
                    for (bin, bin_weight) in bins {
                        histogram[base + bin] +=
                            magnitude * row_weight * column_weight * bin_weight;
                    }
                }
            }
        }
    }
    histogram
}

/// Edge orientation relative to the direction from the frame centre (the ink centroid), in rings:
/// unchanged by any rotation of the part.
fn radial_edges(gradients: &Gradients) -> Vec<f32> {
    let side = gradients.side;
    let centre = side as f32 / 2.0;
    let bin_width = std::f32::consts::PI / RADIAL_BINS as f32;
    let mut histogram = vec![0.0; RADIAL_LEN];
    for y in 0..side {
        for x in 0..side {
            let at = y * side + x;
            let magnitude = gradients.magnitude[at];
            if magnitude <= 0.0 {
                continue;
            }
            let dx = x as f32 + 0.5 - centre;
            let dy = y as f32 + 0.5 - centre;
            let radius = (dx * dx + dy * dy).sqrt() / centre;
            let relative =
                (gradients.orientation[at] - dy.atan2(dx)).rem_euclid(std::f32::consts::PI);
            let bins = soft_bins(relative / bin_width - 0.5, RADIAL_BINS, true);
            let rings = soft_bins(radius * RADIAL_RINGS as f32 - 0.5, RADIAL_RINGS, false);
            for (ring, ring_weight) in rings {
                for (bin, bin_weight) in bins {
                    histogram[ring * RADIAL_BINS + bin] += magnitude * ring_weight * bin_weight;
                }
            }
        }
    }
    histogram
}

/// One kept Zernike moment: order n, repetition m, and its radial polynomial as
/// (power of the radius, coefficient) terms.
struct ZernikeTerm {
    n: usize,
    m: usize,
    radial: Vec<(usize, f32)>,
}

/// Every kept Zernike moment.
static ZERNIKE_TERMS: LazyLock<Vec<ZernikeTerm>> = LazyLock::new(|| {
    let factorial = |k: usize| (1..=k).map(|i| i as f64).product::<f64>();
    let mut terms = Vec::with_capacity(ZERNIKE_LEN);
    for n in 0..=ZERNIKE_ORDER {
        for m in (n % 2..=n).step_by(2) {
            if (n, m) == (0, 0) || (n, m) == (1, 1) {
                continue;
            }
            let coefficients = (0..=(n - m) / 2)
                .map(|k| {
                    let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                    let value = sign * factorial(n - k)
                        / (factorial(k) * factorial((n + m) / 2 - k) * factorial((n - m) / 2 - k));
                    (n - 2 * k, value as f32)
                })
                .collect();
            terms.push(ZernikeTerm {
                n,
                m,
                radial: coefficients,
            });
        }
    }
    terms
});

/// Magnitudes of the Zernike moments of the ink map over the frame's inscribed disc, divided by the
/// ink mass: unchanged by rotation, and by scale and shift once the view is framed.
fn zernike_magnitudes(map: &[f32]) -> Vec<f32> {
    let side = SMALL_SIDE;
    let centre = side as f32 / 2.0;
    let terms = &*ZERNIKE_TERMS;
    let mut real = vec![0.0_f32; terms.len()];
    let mut imaginary = vec![0.0_f32; terms.len()];
    let mut mass = 0.0_f32;
    let mut powers = [0.0_f32; ZERNIKE_ORDER + 1];
    let mut cosines = [0.0_f32; ZERNIKE_ORDER + 1];
    let mut sines = [0.0_f32; ZERNIKE_ORDER + 1];
    for y in 0..side {
        for x in 0..side {
            let value = map[y * side + x];
            if value <= 0.0 {
                continue;
            }
            let dx = (x as f32 + 0.5 - centre) / centre;
            let dy = (y as f32 + 0.5 - centre) / centre;
            let radius = (dx * dx + dy * dy).sqrt();
            if radius > 1.0 {
                continue;
            }
            mass += value;
            let (cos_1, sin_1) = if radius > 0.0 {
                (dx / radius, dy / radius)
            } else {
                (1.0, 0.0)
            };
            powers[0] = 1.0;
            cosines[0] = 1.0;
            sines[0] = 0.0;
            for k in 1..=ZERNIKE_ORDER {
                powers[k] = powers[k - 1] * radius;
                cosines[k] = cosines[k - 1] * cos_1 - sines[k - 1] * sin_1;
                sines[k] = sines[k - 1] * cos_1 + cosines[k - 1] * sin_1;
            }
            for (index, term) in terms.iter().enumerate() {
                let radial: f32 = term
                    .radial
                    .iter()
                    .map(|&(power, coefficient)| coefficient * powers[power])
                    .sum();
                real[index] += value * radial * cosines[term.m];
                imaginary[index] -= value * radial * sines[term.m];
            }
        }
    }
    if mass <= 0.0 {
        return vec![0.0; ZERNIKE_LEN];
    }
    terms
        .iter()
        .enumerate()
        .map(|(index, term)| {
            let scale = (term.n as f32 + 1.0) / mass;
            (real[index] * real[index] + imaginary[index] * imaginary[index]).sqrt() * scale
        })
        .collect()
}

/// Ink density on an 8×8 grid, each pixel shared between its nearest cells (bilinear).
fn layout(map: &[f32]) -> Vec<f32> {
    let side = SMALL_SIDE;
    let cell = side as f32 / LAYOUT_CELLS as f32;
    let mut grid = vec![0.0; LAYOUT_LEN];
    for y in 0..side {
        let rows = soft_bins((y as f32 + 0.5) / cell - 0.5, LAYOUT_CELLS, false);
        for x in 0..side {
            let value = map[y * side + x];
            if value <= 0.0 {
                continue;
            }
            let columns = soft_bins((x as f32 + 0.5) / cell - 0.5, LAYOUT_CELLS, false);
            for (row, row_weight) in rows {
                for (column, column_weight) in columns {
                    grid[row * LAYOUT_CELLS + column] += value * row_weight * column_weight;
                }
            }
        }
    }
    grid
}

/// Colour of the ink: hue histogram for saturated ink, grey-level histogram for the rest, each
/// pixel weighted by its ink. The background does not count (a different paper shade is no change).
fn colour_histogram(view: &NormalisedView) -> Vec<f32> {
    let mut histogram = vec![0.0; COLOUR_LEN];
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

/// FNV-1a, 32 bits: a checksum for stored descriptors (damage detection, not security).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}
