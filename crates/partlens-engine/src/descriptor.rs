//! The visual descriptor of one view, its similarity score and its stored form.
//!
//! Today's descriptor (`photo_descriptor.rs`) describes what a photograph, a rendered view of a model
//! and a drawing have in common whatever the background, tint, rotation, scale and shift: the
//! silhouette and the edges of a view framed by `framing.rs`. The descriptor of the engine before
//! photo search (`legacy_descriptor.rs`) is kept for the quality benchmark; a descriptor knows its
//! [`Generation`] and only descriptors of one generation are compared.
//!
//! Each float block is power-normalised, centred (so that unrelated views score near 0, not near the
//! shared mean of all histograms) and L2-normalised, then scaled by the square root of its weight and
//! concatenated: the weighted sum of per-block cosines is one dot product, which is what makes
//! [`super::VisualIndex`] a tight loop. Weights sum to 1, so identical views score 1.
//!
//! Stored form: the magic `PLV`, a version byte (5 a view, 8 a view of a mesh with its D2
//! distribution), the features as little-endian `i16`, the D2 distribution, and an FNV-1a checksum.
//! Versions 1 and 2 are the legacy descriptor, 3 and 4 today's descriptor before its orientation-pair
//! and outline-profile blocks (same length, other blocks), 6 a mesh's view rendered in parallel
//! projection before views of models were rendered in perspective (`mesh/render.rs`), 7 a mesh's
//! view when models were seen from 92 directions instead of 162 (`mesh/mod.rs`): they are read
//! as [`EngineError::OutdatedDescriptor`], so the service indexes such a file again instead of
//! comparing descriptors of different meaning.

use super::EngineError;
use super::framing::frame;
use super::legacy_descriptor::{self, HASH_BITS, WEIGHT_HASH};
use super::mesh::ShapeDistribution;
use super::normalise::normalise;
use super::photo_descriptor;

pub(super) use super::legacy_descriptor::HASH_WORDS;

/// Features are stored as 16-bit integers: `value × FEATURE_SCALE`, rounded. Every block is a
/// vector of length √weight ≤ 1, so values fit, the rounding error (≈1e-5 on a score) is far below
/// anything visible, memory and bandwidth are half of `f32`, and the integer dot product is exact:
/// the index and the brute-force path agree to the bit whatever order they add in. By
/// Cauchy–Schwarz any partial dot product of two valid descriptors is at most `FEATURE_SCALE²`
/// (≈1.0e9), inside `i32`.
const FEATURE_SCALE: f32 = 32_000.0;

/// Length of today's feature vector (blocks plus zero padding to a multiple of 16).
pub const FEATURE_LEN: usize = padded(block_len(&photo_descriptor::BLOCKS));
/// Length of the legacy feature vector.
const LEGACY_FEATURE_LEN: usize = padded(block_len(&legacy_descriptor::BLOCKS));

const fn block_len(blocks: &[(usize, f32)]) -> usize {
    let mut total = 0;
    let mut at = 0;
    while at < blocks.len() {
        total += blocks[at].0;
        at += 1;
    }
    total
}

const fn padded(len: usize) -> usize {
    len.div_ceil(16) * 16
}

/// First bytes of a stored descriptor.
const STORED_MAGIC: &[u8; 3] = b"PLV";
/// Stored versions of the legacy descriptor: a picture's view, a mesh's view with its D2.
const LEGACY_VERSION: u8 = 1;
const LEGACY_VERSION_WITH_SHAPE: u8 = 2;
/// Stored versions of today's descriptor before its blocks changed (issue 9's single-photograph
/// goal): read as outdated.
const EARLIER_VERSION: u8 = 3;
const EARLIER_VERSION_WITH_SHAPE: u8 = 4;
/// Stored version of a mesh's view seen in parallel projection, before a model's views were
/// rendered in perspective as a camera sees the part: read as outdated.
const PARALLEL_VERSION_WITH_SHAPE: u8 = 6;
/// Stored version of a mesh's view when a model was seen from 92 directions, before 162: a model
/// searched by pairs its views with a database model's by direction, so those must be indexed
/// again: read as outdated.
const NINETY_TWO_DIRECTIONS_VERSION_WITH_SHAPE: u8 = 7;
/// Stored versions of today's descriptor.
const STORED_VERSION: u8 = 5;
const STORED_VERSION_WITH_SHAPE: u8 = 8;
/// Stored length of today's descriptor: magic, version, features, checksum.
const STORED_LEN: usize = STORED_MAGIC.len() + 1 + FEATURE_LEN * 2 + 4;
/// Stored length of a mesh's view: the D2 distribution sits before the checksum.
const STORED_LEN_WITH_SHAPE: usize = STORED_LEN + ShapeDistribution::STORED_LEN;

/// Which descriptor a view has: only descriptors of one generation can be compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Generation {
    /// Today's descriptor (`photo_descriptor.rs`).
    Current,
    /// The descriptor before photo search, for the quality benchmark only.
    Legacy,
}

/// The visual descriptor of one view (an image, or one rendered view of a model).
#[derive(Clone, Debug, PartialEq)]
pub struct ViewDescriptor {
    /// Which descriptor this is.
    generation: Generation,
    /// The weighted, normalised blocks, scaled by [`FEATURE_SCALE`] and padded to a multiple of 16.
    features: Vec<i16>,
    /// The legacy descriptor's perceptual hash (all zero for today's, which has none).
    hash: [u64; HASH_WORDS],
    /// The D2 shape distribution of the mesh this is a view of (`None` for pictures).
    shape: Option<ShapeDistribution>,
}

/// Finishes raw blocks with their weights and concatenates them.
fn finished(blocks: Vec<Vec<f32>>, layout: &[(usize, f32)], uncentred: Option<usize>) -> Vec<f32> {
    let mut features = Vec::with_capacity(block_len(layout));
    for (index, (mut block, &(len, weight))) in blocks.into_iter().zip(layout).enumerate() {
        debug_assert_eq!(block.len(), len);
        finish_block(&mut block, weight, uncentred != Some(index));
        features.extend_from_slice(&block);
    }
    features
}

impl ViewDescriptor {
    /// Describes a decoded image with today's descriptor.
    pub fn of_image(image: &image::DynamicImage) -> Self {
        Self::of_framed(&frame(image))
    }

    /// Describes a view already framed (a model's rendering framed as it was drawn).
    pub(super) fn of_framed(view: &super::framing::FramedView) -> Self {
        let blocks = photo_descriptor::describe(view);
        let layout = photo_descriptor::BLOCKS;
        Self {
            generation: Generation::Current,
            features: quantise(&finished(blocks, &layout, None), FEATURE_LEN),
            hash: [0; HASH_WORDS],
            shape: None,
        }
    }

    /// Describes a decoded image with the descriptor of the engine before photo search.
    pub fn of_image_legacy(image: &image::DynamicImage) -> Self {
        let (blocks, hash) = legacy_descriptor::describe(&normalise(image));
        // The colour block is a histogram of what is there, not centred.
        let features = finished(blocks, &legacy_descriptor::BLOCKS, Some(4));
        Self {
            generation: Generation::Legacy,
            features: quantise(&features, LEGACY_FEATURE_LEN),
            hash,
            shape: None,
        }
    }

    /// Which descriptor this is.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// The descriptor as bytes, for storage: a magic and version byte, the features little-endian
    /// (the legacy descriptor its hash too), the D2 distribution of a mesh's view, and a checksum so
    /// that damage is detected rather than silently mis-ranked.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(STORED_LEN_WITH_SHAPE);
        bytes.extend_from_slice(STORED_MAGIC);
        bytes.push(match (self.generation, &self.shape) {
            (Generation::Current, None) => STORED_VERSION,
            (Generation::Current, Some(_)) => STORED_VERSION_WITH_SHAPE,
            (Generation::Legacy, None) => LEGACY_VERSION,
            (Generation::Legacy, Some(_)) => LEGACY_VERSION_WITH_SHAPE,
        });
        for value in &self.features {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        if self.generation == Generation::Legacy {
            for word in &self.hash {
                bytes.extend_from_slice(&word.to_le_bytes());
            }
        }
        if let Some(shape) = &self.shape {
            bytes.extend_from_slice(&shape.to_bytes());
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a descriptor stored with [`ViewDescriptor::to_bytes`]. A legacy descriptor, or one of
    /// today's stored before its blocks last changed, is [`EngineError::OutdatedDescriptor`] (the
    /// file must be indexed again); anything else that is
    /// not today's descriptor (another version, a wrong length, a bad checksum, values out of range)
    /// is [`EngineError::DamagedDescriptor`].
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
            version @ (LEGACY_VERSION
            | LEGACY_VERSION_WITH_SHAPE
            | EARLIER_VERSION
            | EARLIER_VERSION_WITH_SHAPE
            | PARALLEL_VERSION_WITH_SHAPE
            | NINETY_TWO_DIRECTIONS_VERSION_WITH_SHAPE) => {
                return Err(EngineError::OutdatedDescriptor { version });
            }
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
        let (feature_bytes, shape_bytes) = body[STORED_MAGIC.len() + 1..].split_at(FEATURE_LEN * 2);
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
        for (len, weight) in photo_descriptor::BLOCKS {
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
        Ok(Self {
            generation: Generation::Current,
            features,
            hash: [0; HASH_WORDS],
            shape,
        })
    }

    /// Similarity of two views in 0..1 (1 = identical); 0 between descriptors of different
    /// generations.
    pub fn similarity(&self, other: &Self) -> f32 {
        if self.generation != other.generation {
            return 0.0;
        }
        view_similarity(
            self.generation,
            &self.features,
            &self.hash,
            &other.features,
            &other.hash,
        )
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
    pub fn features(&self) -> &[i16] {
        &self.features
    }

    /// The perceptual hash (for the index's contiguous storage).
    pub fn hash(&self) -> &[u64; HASH_WORDS] {
        &self.hash
    }

    /// A descriptor nudged by `noise` (−1..1 values, cycled) of relative size `amount`, renormalised
    /// block by block, with `flipped_bits` hash bits inverted (legacy descriptors). For benchmarks
    /// that need many realistic, distinct descriptors without analysing as many images. The padding
    /// after the blocks stays zero, so the result is stored and read back like an analysed one.
    pub fn perturbed(&self, noise: &[f32], amount: f32, flipped_bits: &[usize]) -> Self {
        let layout = self.layout();
        let mut features = self.unscaled_blocks(&layout);
        if !noise.is_empty() {
            for (index, value) in features.iter_mut().enumerate() {
                *value += amount * noise[index % noise.len()] * value.abs().max(0.02);
            }
        }
        renormalise_blocks(&mut features, &layout);
        let mut hash = self.hash;
        if self.generation == Generation::Legacy {
            for &bit in flipped_bits {
                let bit = bit % (HASH_WORDS * 64);
                hash[bit / 64] ^= 1 << (bit % 64);
            }
        }
        let len = self.features.len();
        Self {
            features: quantise(&features, len),
            hash,
            ..self.clone()
        }
    }

    /// The weighted mean of this view and `others` (weights relative, any scale), renormalised block
    /// by block: a view "between" real views, such as an intermediate viewpoint of one part. Views
    /// of another generation or length are left out; the hash and D2 distribution are this view's.
    /// For benchmarks that need libraries whose views vary continuously (see
    /// `samples::synthetic_views`).
    pub fn blended(&self, weight: f32, others: &[(&Self, f32)]) -> Self {
        let layout = self.layout();
        let mut features: Vec<f32> = self
            .unscaled_blocks(&layout)
            .into_iter()
            .map(|value| value * weight)
            .collect();
        for (other, other_weight) in others {
            if other.generation != self.generation || other.features.len() != self.features.len() {
                continue;
            }
            for (value, other_value) in features.iter_mut().zip(other.unscaled_blocks(&layout)) {
                *value += other_weight * other_value;
            }
        }
        renormalise_blocks(&mut features, &layout);
        let len = self.features.len();
        Self {
            features: quantise(&features, len),
            ..self.clone()
        }
    }

    /// The block layout of this view's generation.
    fn layout(&self) -> Vec<(usize, f32)> {
        match self.generation {
            Generation::Current => photo_descriptor::BLOCKS.to_vec(),
            Generation::Legacy => legacy_descriptor::BLOCKS.to_vec(),
        }
    }

    /// The blocks' values as floats (without the padding).
    fn unscaled_blocks(&self, layout: &[(usize, f32)]) -> Vec<f32> {
        let blocks_len: usize = layout.iter().map(|(len, _)| len).sum();
        self.features[..blocks_len.min(self.features.len())]
            .iter()
            .map(|&value| f32::from(value) / FEATURE_SCALE)
            .collect()
    }
}

/// Scales every block of `features` (laid out as `layout`) back to the length its weight gives it.
fn renormalise_blocks(features: &mut [f32], layout: &[(usize, f32)]) {
    let mut start = 0;
    for &(len, weight) in layout {
        let block = &mut features[start..start + len];
        let norm = block.iter().map(|value| value * value).sum::<f32>().sqrt();
        if norm > f32::EPSILON {
            let scale = weight.sqrt() / norm;
            block.iter_mut().for_each(|value| *value *= scale);
        }
        start += len;
    }
}

/// The similarity of two current-generation views from the dot product of their features (as
/// stored, `value × FEATURE_SCALE`), computed elsewhere (the approximate index's own vectors).
pub fn similarity_from_feature_dot(dot: f32) -> f32 {
    (dot / (FEATURE_SCALE * FEATURE_SCALE)).clamp(0.0, 1.0)
}

/// The similarity of two views of one generation from their parts: the one formula both the index
/// and [`ViewDescriptor::similarity`] use, so that they agree to the last bit.
pub(crate) fn view_similarity(
    generation: Generation,
    features: &[i16],
    hash: &[u64; HASH_WORDS],
    other_features: &[i16],
    other_hash: &[u64; HASH_WORDS],
) -> f32 {
    if features.len() != other_features.len() {
        return 0.0;
    }
    let features_agreement = dot(features, other_features) as f32 / (FEATURE_SCALE * FEATURE_SCALE);
    let hash_term = match generation {
        Generation::Current => 0.0,
        Generation::Legacy => {
            let differing: u32 = hash
                .iter()
                .zip(other_hash)
                .map(|(a, b)| (a ^ b).count_ones())
                .sum();
            WEIGHT_HASH * (1.0 - 2.0 * differing as f32 / HASH_BITS)
        }
    };
    (features_agreement + hash_term).clamp(0.0, 1.0)
}

/// Integer dot product. Exact, so the result does not depend on the order of additions; wrapping
/// only matters for descriptors `from_bytes` would have refused. Written as one plain reduction,
/// which the compiler's loop vectoriser turns into SIMD multiply-add (`pmaddwd`). Sixteen lanes
/// written out by hand relied on its SLP vectoriser instead, which left scalar multiplies where
/// the function was inlined into the service's search (a release build of the service, 29 Nov
/// 2026): the similarities then took most of a search by a model.
pub(crate) fn dot(a: &[i16], b: &[i16]) -> i32 {
    a.iter().zip(b).fold(0_i32, |sum, (&x, &y)| {
        sum.wrapping_add(i32::from(x) * i32::from(y))
    })
}

/// Scales unit-weighted float features to the stored integers, padded with zeros to `len`.
fn quantise(features: &[f32], len: usize) -> Vec<i16> {
    let mut stored: Vec<i16> = features
        .iter()
        .map(|&value| (value * FEATURE_SCALE).round().clamp(-32_767.0, 32_767.0) as i16)
        .collect();
    stored.resize(len, 0);
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

/// FNV-1a, 32 bits: a checksum for stored descriptors (damage detection, not security).
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, &byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dot_product_is_exact_at_any_length() {
        // A small linear congruential generator: the same vectors every run.
        let mut seed = 0x9e37_79b9_u64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 33) as i64 % 65_535 - 32_767) as i16
        };
        for len in (0..=70).chain([FEATURE_LEN, LEGACY_FEATURE_LEN]) {
            let a: Vec<i16> = (0..len).map(|_| next()).collect();
            let b: Vec<i16> = (0..len).map(|_| next()).collect();
            let exact: i64 = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| i64::from(x) * i64::from(y))
                .sum();
            // Sums past i32 wrap, as they always did (valid descriptors never get there).
            assert_eq!(dot(&a, &b), exact as i32, "length {len}");
        }
        let extreme = vec![i16::MIN; FEATURE_LEN];
        assert_eq!(
            dot(&extreme, &extreme),
            (FEATURE_LEN as i64 * (1 << 30)) as i32
        );
    }
}
