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
//! Every view also carries what is known of its file ([`FileFacts`]): a mesh's D2 distribution and
//! the descriptors of its parts (`mesh/parts.rs`), whether it is a drawing, and the keys of the
//! part numbers the file states (so a search by a model can tell a drawing of the same part from
//! one that merely has a similar outline).
//!
//! Stored form: the magic `PLV`, a version byte (9 a picture's or a drawing's view, 11 a view of a
//! mesh), the features as little-endian `i16`, a mesh's D2 distribution, a flags byte (whether the
//! descriptors of the mesh's parts follow; whether the file is a drawing), the parts'
//! descriptors, a mesh's handedness (one byte, `mesh/handedness.rs`), the count of part-number
//! keys and the keys (`u64`), and an FNV-1a checksum.
//! Versions 1 and 2 are the legacy descriptor, 3 and 4 today's descriptor before its orientation-pair
//! and outline-profile blocks (same length, other blocks), 6 a mesh's view rendered in parallel
//! projection before views of models were rendered in perspective (`mesh/render.rs`), 7 a mesh's
//! view when models were seen from 92 directions instead of 162 (`mesh/mod.rs`), 5 and 8 a
//! picture's and a mesh's view before views carried their file's facts (a drawing was not told
//! from a picture, a mesh had no parts), 10 a mesh's view before it carried its handedness, 9 a
//! picture's view before a photograph's part was found in a scene (`foreground.rs`; today's is 12;
//! a drawing's view of version 9 is today's): they are read as
//! [`EngineError::OutdatedDescriptor`], so
//! the service indexes such a file again instead of comparing descriptors of different meaning.

use super::EngineError;
use super::framing::{frame, frame_photograph};
use super::legacy_descriptor::{self, HASH_BITS, WEIGHT_HASH};
use super::mesh::{Handedness, PartDescriptors, ShapeDistribution};
use super::normalise::normalise;
use super::part_numbers::MOST_PART_NUMBERS;
use super::photo_descriptor;

pub(super) use super::legacy_descriptor::HASH_WORDS;

/// Features are stored as 16-bit integers: `value × FEATURE_SCALE`, rounded to an integer that half
/// precision (`f16`) holds exactly ([`half_exact`]: every integer up to 2,048, then every 2nd, 4th,
/// … up to every 16th past 16,384; 11 significant bits, a relative error of at most 2⁻¹¹), the one
/// that keeps each block's length ([`half_exact_features`]). Every block is a vector of length
/// √weight ≤ 1, so values fit, the rounding error (≈1e-4 on a score at most) is far below anything
/// visible, memory and bandwidth are half of `f32`, and the integer dot product is exact: the index
/// and the brute-force path agree to the bit whatever order they add in. Holding exactly in `f16`
/// is what lets a search graph's half-precision vectors be the features themselves, so the graph
/// scores its candidates exactly without reading them from the store (partlens-visual). By
/// Cauchy–Schwarz any partial dot product of two valid descriptors is at most about
/// `FEATURE_SCALE²` (≈1.0e9; a block may be up to 0.5 % longer), inside `i32`.
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
/// Stored versions of a picture's and a mesh's view before views carried their file's facts:
/// read as outdated.
const WITHOUT_FACTS_VERSION: u8 = 5;
const WITHOUT_FACTS_VERSION_WITH_SHAPE: u8 = 8;
/// Stored version of a mesh's view before it carried the mesh's handedness (a mirror image was
/// not told from the part): read as outdated.
const WITHOUT_HANDEDNESS_VERSION_WITH_SHAPE: u8 = 10;
/// Stored version of a picture's or a drawing's view before a photograph's part was found in a
/// scene (a table, its grain, a shadow, things behind: `foreground.rs`): a picture's is read as
/// outdated, a drawing's (framed as before) is read as today's.
const BEFORE_SCENES_VERSION: u8 = 9;
/// Stored versions of today's descriptor: a picture's or a drawing's view, a mesh's view.
const STORED_VERSION: u8 = 12;
const STORED_VERSION_WITH_SHAPE: u8 = 11;
/// Stored length of today's descriptor before its facts: magic, version, features.
const STORED_HEAD_LEN: usize = STORED_MAGIC.len() + 1 + FEATURE_LEN * 2;
/// The flags byte: the mesh's part descriptors follow.
const FLAG_PARTS: u8 = 1;
/// The flags byte: the file is a drawing.
const FLAG_DRAWING: u8 = 2;

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
    /// What is known of the file this is a view of.
    facts: FileFacts,
}

/// What every view of one file carries about the file (the same for all its views): what
/// `index.rs` scores beside the views.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileFacts {
    /// The D2 shape distribution of the mesh this is a view of (`None` for pictures and drawings).
    shape: Option<ShapeDistribution>,
    /// The descriptors of the mesh's parts (`None` for pictures and drawings).
    parts: Option<PartDescriptors>,
    /// The mesh's handedness (not handed for pictures and drawings).
    handedness: Handedness,
    /// The file is a drawing (DXF, PDF, a scanned drawing), not a photograph or a rendering.
    drawing: bool,
    /// Keys of the part numbers the file states ([`crate::part_number_keys`]), sorted, at most
    /// [`MOST_PART_NUMBERS`].
    part_numbers: Vec<u64>,
}

impl FileFacts {
    /// The D2 distribution of the mesh (`None` for pictures and drawings).
    pub fn shape(&self) -> Option<&ShapeDistribution> {
        self.shape.as_ref()
    }

    /// The descriptors of the mesh's parts.
    pub fn parts(&self) -> Option<&PartDescriptors> {
        self.parts.as_ref()
    }

    /// The mesh's handedness (not handed for pictures and drawings): whether another model is
    /// its mirror image ([`Self::mirrors`]).
    pub fn handedness(&self) -> Handedness {
        self.handedness
    }

    /// Whether this file and `other` are both meshes, clearly handed and of opposite hands: if
    /// their shapes match, one is the other's mirror image (see `mesh/handedness.rs`).
    pub fn mirrors(&self, other: &Self) -> bool {
        self.shape.is_some() && other.shape.is_some() && self.handedness.mirrors(&other.handedness)
    }

    /// Whether the file is a drawing.
    pub fn is_drawing(&self) -> bool {
        self.drawing
    }

    /// Whether both files state a part number in common (a drawing of the part, say).
    pub fn share_a_part_number(&self, other: &Self) -> bool {
        self.part_numbers
            .iter()
            .any(|key| other.part_numbers.binary_search(key).is_ok())
    }
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
    /// Describes a decoded image with today's descriptor (a page of a drawing, a model's picture:
    /// framed on a plain background).
    pub fn of_image(image: &image::DynamicImage) -> Self {
        Self::of_framed(&frame(image))
    }

    /// Describes an uploaded picture with today's descriptor: a photograph may show its part in a
    /// scene (a table, a shadow, things behind it), found by `foreground.rs`.
    pub fn of_picture(image: &image::DynamicImage) -> Self {
        Self::of_framed(&frame_photograph(image))
    }

    /// Describes a view already framed (a model's rendering framed as it was drawn).
    pub(super) fn of_framed(view: &super::framing::FramedView) -> Self {
        let blocks = photo_descriptor::describe(view);
        let layout = photo_descriptor::BLOCKS;
        Self {
            generation: Generation::Current,
            features: quantise(&finished(blocks, &layout, None), &layout, FEATURE_LEN),
            hash: [0; HASH_WORDS],
            facts: FileFacts::default(),
        }
    }

    /// Describes a decoded image with the descriptor of the engine before photo search.
    pub fn of_image_legacy(image: &image::DynamicImage) -> Self {
        let (blocks, hash) = legacy_descriptor::describe(&normalise(image));
        // The colour block is a histogram of what is there, not centred.
        let features = finished(blocks, &legacy_descriptor::BLOCKS, Some(4));
        Self {
            generation: Generation::Legacy,
            features: quantise(&features, &legacy_descriptor::BLOCKS, LEGACY_FEATURE_LEN),
            hash,
            facts: FileFacts::default(),
        }
    }

    /// Which descriptor this is.
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// The descriptor as bytes, for storage: a magic and version byte, the features little-endian
    /// (the legacy descriptor its hash too), the file's facts (today's descriptor: a mesh's D2
    /// distribution, the flags, the parts' descriptors, the part-number keys), and a checksum so
    /// that damage is detected rather than silently mis-ranked.
    pub fn to_bytes(&self) -> Vec<u8> {
        let shape = &self.facts.shape;
        let mut bytes = Vec::with_capacity(STORED_HEAD_LEN + 160);
        bytes.extend_from_slice(STORED_MAGIC);
        bytes.push(match (self.generation, shape) {
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
        if let Some(shape) = shape {
            bytes.extend_from_slice(&shape.to_bytes());
        }
        if self.generation == Generation::Current {
            self.facts.write_after_shape(&mut bytes);
        }
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        bytes
    }

    /// Reads a descriptor stored with [`ViewDescriptor::to_bytes`]. A legacy descriptor, or one of
    /// today's stored before its blocks or its facts last changed, is
    /// [`EngineError::OutdatedDescriptor`] (the file must be indexed again); anything else that is
    /// not today's descriptor (another version, a wrong length, a bad checksum, values out of range)
    /// is [`EngineError::DamagedDescriptor`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, EngineError> {
        let damaged = |why: String| Err(EngineError::DamagedDescriptor(why));
        if bytes.len() < STORED_MAGIC.len() + 1 {
            return damaged(format!(
                "{} bytes, expected {STORED_HEAD_LEN} or more",
                bytes.len()
            ));
        }
        if &bytes[..STORED_MAGIC.len()] != STORED_MAGIC {
            return damaged("not a partlens view descriptor".to_owned());
        }
        let version = bytes[STORED_MAGIC.len()];
        let with_shape = match version {
            STORED_VERSION | BEFORE_SCENES_VERSION => false,
            STORED_VERSION_WITH_SHAPE => true,
            version @ (LEGACY_VERSION
            | LEGACY_VERSION_WITH_SHAPE
            | EARLIER_VERSION
            | EARLIER_VERSION_WITH_SHAPE
            | WITHOUT_FACTS_VERSION
            | PARALLEL_VERSION_WITH_SHAPE
            | NINETY_TWO_DIRECTIONS_VERSION_WITH_SHAPE
            | WITHOUT_FACTS_VERSION_WITH_SHAPE
            | WITHOUT_HANDEDNESS_VERSION_WITH_SHAPE) => {
                return Err(EngineError::OutdatedDescriptor { version });
            }
            version => {
                return damaged(format!(
                    "descriptor version {version} (this engine reads {STORED_VERSION} and \
                     {STORED_VERSION_WITH_SHAPE})"
                ));
            }
        };
        if bytes.len() < STORED_HEAD_LEN + 4 {
            return damaged(format!(
                "{} bytes, expected {STORED_HEAD_LEN} or more",
                bytes.len()
            ));
        }
        let (body, checksum) = bytes.split_at(bytes.len() - 4);
        if checksum != fnv1a(body).to_le_bytes() {
            return damaged("checksum mismatch".to_owned());
        }
        let features = read_features(&body[STORED_MAGIC.len() + 1..STORED_HEAD_LEN])?;
        let facts = FileFacts::read(&body[STORED_HEAD_LEN..], with_shape)?;
        if version == BEFORE_SCENES_VERSION && !facts.drawing {
            return Err(EngineError::OutdatedDescriptor { version });
        }
        Ok(Self {
            generation: Generation::Current,
            features,
            hash: [0; HASH_WORDS],
            facts,
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

    /// The same view carrying the D2 distribution of the mesh it was rendered from (`None`: a
    /// picture's view, which then carries no parts' descriptors either).
    pub fn with_shape(mut self, shape: Option<ShapeDistribution>) -> Self {
        if shape.is_none() {
            self.facts.parts = None;
            self.facts.handedness = Handedness::default();
        }
        self.facts.shape = shape;
        self
    }

    /// The same view of a mesh carrying the descriptors of the mesh's parts (kept only beside a
    /// D2 distribution: a picture has no parts).
    pub fn with_parts(mut self, parts: Option<PartDescriptors>) -> Self {
        self.facts.parts = parts.filter(|_| self.facts.shape.is_some());
        self
    }

    /// The same view of a mesh carrying the mesh's handedness (kept only beside a D2
    /// distribution: a picture is not handed).
    pub fn with_handedness(mut self, handedness: Handedness) -> Self {
        if self.facts.shape.is_some() {
            self.facts.handedness = handedness;
        }
        self
    }

    /// The same view marked as a view of a drawing (or not).
    pub fn as_drawing(mut self, drawing: bool) -> Self {
        self.facts.drawing = drawing;
        self
    }

    /// The same view carrying the keys of its file's part numbers ([`crate::part_number_keys`]).
    pub fn with_part_numbers(mut self, mut keys: Vec<u64>) -> Self {
        keys.sort_unstable();
        keys.dedup();
        keys.truncate(MOST_PART_NUMBERS);
        self.facts.part_numbers = keys;
        self
    }

    /// The D2 distribution of the mesh this is a view of (`None` for pictures).
    pub fn shape(&self) -> Option<&ShapeDistribution> {
        self.facts.shape.as_ref()
    }

    /// What the view carries of its file.
    pub fn facts(&self) -> &FileFacts {
        &self.facts
    }

    /// Heap bytes this descriptor holds outside its own struct (for memory reports).
    pub fn heap_bytes(&self) -> usize {
        self.features.capacity() * size_of::<i16>()
            + self.facts.part_numbers.capacity() * size_of::<u64>()
    }

    /// The weighted, scaled blocks (for the index's contiguous storage).
    pub fn features(&self) -> &[i16] {
        &self.features
    }

    /// Another view of the same file: `features` (as many as this view's, as [`Self::features`]
    /// gives them) with this view's generation, hash and file facts. A search graph that holds a
    /// file's views' features and one view of it gives back any of its views this way (the hash
    /// is the legacy descriptor's only, so every view of today's descriptor shares it: zero).
    /// `None` when the length differs.
    pub fn with_features(&self, features: Vec<i16>) -> Option<Self> {
        (features.len() == self.features.len()).then(|| Self {
            generation: self.generation,
            features,
            hash: self.hash,
            facts: self.facts.clone(),
        })
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
            features: quantise(&features, &layout, len),
            hash,
            ..self.clone()
        }
    }

    /// The weighted mean of this view and `others` (weights relative, any scale), renormalised block
    /// by block: a view "between" real views, such as an intermediate viewpoint of one part. Views
    /// of another generation or length are left out; the hash and the file's facts are this view's.
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
            features: quantise(&features, &layout, len),
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

impl FileFacts {
    /// Appends the facts after a mesh's D2 distribution (see the module doc's stored form).
    fn write_after_shape(&self, bytes: &mut Vec<u8>) {
        let mut flags = 0;
        if self.parts.is_some() {
            flags |= FLAG_PARTS;
        }
        if self.drawing {
            flags |= FLAG_DRAWING;
        }
        bytes.push(flags);
        if let Some(parts) = &self.parts {
            bytes.extend_from_slice(&parts.to_bytes());
        }
        if self.shape.is_some() {
            bytes.push(self.handedness.to_byte());
        }
        bytes.push(self.part_numbers.len() as u8);
        for key in &self.part_numbers {
            bytes.extend_from_slice(&key.to_le_bytes());
        }
    }

    /// Reads what [`Self::write_after_shape`] wrote, after the features (`with_shape`: a mesh's
    /// view, whose D2 distribution comes first); every byte must be accounted for.
    fn read(bytes: &[u8], with_shape: bool) -> Result<Self, EngineError> {
        let damaged = |why: &str| EngineError::DamagedDescriptor(why.to_owned());
        let mut rest = bytes;
        let mut take = |len: usize| -> Result<&[u8], EngineError> {
            if rest.len() < len {
                return Err(damaged("the stored view ends early"));
            }
            let (taken, left) = rest.split_at(len);
            rest = left;
            Ok(taken)
        };
        let shape = if with_shape {
            Some(
                ShapeDistribution::from_bytes(take(ShapeDistribution::STORED_LEN)?)
                    .ok_or_else(|| damaged("bad D2 distribution"))?,
            )
        } else {
            None
        };
        let flags = take(1)?[0];
        if flags & !(FLAG_PARTS | FLAG_DRAWING) != 0 || (flags & FLAG_PARTS != 0 && !with_shape) {
            return Err(damaged("unknown flags"));
        }
        let parts = if flags & FLAG_PARTS != 0 {
            Some(
                PartDescriptors::from_bytes(take(PartDescriptors::STORED_LEN)?)
                    .ok_or_else(|| damaged("bad part descriptors"))?,
            )
        } else {
            None
        };
        let handedness = if with_shape {
            Handedness::from_byte(take(1)?[0]).ok_or_else(|| damaged("bad handedness"))?
        } else {
            Handedness::default()
        };
        let count = usize::from(take(1)?[0]);
        if count > MOST_PART_NUMBERS {
            return Err(damaged("too many part numbers"));
        }
        let part_numbers: Vec<u64> = take(count * 8)?
            .chunks_exact(8)
            .map(|key| u64::from_le_bytes(key.try_into().unwrap_or_default()))
            .collect();
        if !rest.is_empty() || !part_numbers.is_sorted() {
            return Err(damaged("the stored view has bytes it cannot place"));
        }
        Ok(Self {
            shape,
            parts,
            handedness,
            drawing: flags & FLAG_DRAWING != 0,
            part_numbers,
        })
    }
}

/// Today's features from their stored bytes, checked: blocks longer than their weight allows would
/// make scores meaningless (and could overflow the integer dot product), so a valid checksum over
/// invalid content is still damage.
fn read_features(feature_bytes: &[u8]) -> Result<Vec<i16>, EngineError> {
    let damaged = |why: String| Err(EngineError::DamagedDescriptor(why));
    // Descriptors stored before features were rounded to what half precision holds are rounded as
    // they are read, so that every descriptor in memory is (see `FEATURE_SCALE`); rounding one
    // that is already changes nothing.
    let stored: Vec<f32> = feature_bytes
        .chunks_exact(2)
        .map(|pair| f32::from(i16::from_le_bytes([pair[0], pair[1]])))
        .collect();
    let features = half_exact_blocks(&stored, &photo_descriptor::BLOCKS);
    let mut start = 0;
    for (len, weight) in photo_descriptor::BLOCKS {
        let squared: i64 = features[start..start + len]
            .iter()
            .map(|&value| i64::from(value) * i64::from(value))
            .sum();
        // A block's length is √weight, up to the rounding: to integers that half precision holds,
        // never shorter (see `half_exact_features`), which takes one step of a block that is one
        // value (a blank view's) past 16,384 up to 0.2 % longer.
        let allowed = f64::from(weight) * f64::from(FEATURE_SCALE).powi(2) * 1.005 + 1e4;
        if squared as f64 > allowed {
            return damaged(format!("block at {start} is too long"));
        }
        start += len;
    }
    if features[start..].iter().any(|&value| value != 0) {
        return damaged("padding is not zero".to_owned());
    }
    Ok(features)
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
    agreement_from_feature_dot(dot).clamp(0.0, 1.0)
}

/// [`similarity_from_feature_dot`] before it is clamped to 0..1: which of two views agrees more
/// with a third even where both similarities are 0.
pub fn agreement_from_feature_dot(dot: f32) -> f32 {
    dot / (FEATURE_SCALE * FEATURE_SCALE)
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
fn quantise(features: &[f32], layout: &[(usize, f32)], len: usize) -> Vec<i16> {
    let scaled: Vec<f32> = features
        .iter()
        .map(|&value| value * FEATURE_SCALE)
        .collect();
    let mut stored = half_exact_blocks(&scaled, layout);
    stored.resize(len, 0);
    stored
}

/// [`half_exact_features`] block by block (`layout`; the values after the blocks, the padding, as
/// one more),
/// so that each block keeps its length, which its weight gives it.
fn half_exact_blocks(scaled: &[f32], layout: &[(usize, f32)]) -> Vec<i16> {
    let mut rounded = Vec::with_capacity(scaled.len());
    let mut start = 0;
    for &(len, _) in layout {
        let end = (start + len).min(scaled.len());
        rounded.extend(half_exact_features(&scaled[start..end]));
        start = end;
    }
    rounded.extend(half_exact_features(&scaled[start..]));
    rounded
}

/// Scaled feature values rounded to integers that half precision holds ([`half_exact`]), keeping
/// the vector's squared length as near to the values' as the steps allow: each value goes to its
/// nearest such integer, then, largest first (their steps move the length most), to the one on
/// its other side where that brings the length nearer. Rounded to the nearest alone, a view's
/// similarity to itself moved by up to about 2e-4; a file's best view is a maximum over such noise,
/// so a file of several copies of a view then outscored the model they were rendered from. Kept,
/// it moves by about as little as the integer rounding before (below 1e-5).
fn half_exact_features(scaled: &[f32]) -> Vec<i16> {
    let mut rounded: Vec<i16> = scaled
        .iter()
        .map(|&value| half_exact(value.round().clamp(-32_767.0, 32_767.0) as i16))
        .collect();
    let squared = |value: f64| value * value;
    let wanted: f64 = scaled.iter().map(|&value| squared(f64::from(value))).sum();
    let mut excess = rounded
        .iter()
        .map(|&value| squared(f64::from(value)))
        .sum::<f64>()
        - wanted;
    // Up to 2,048 every integer is held: the nearest is within half a unit, as before.
    let mut coarse: Vec<usize> = (0..rounded.len())
        .filter(|&at| rounded[at].unsigned_abs() > 2_048)
        .collect();
    coarse.sort_unstable_by_key(|&at| std::cmp::Reverse(rounded[at].unsigned_abs()));
    for at in coarse {
        let Some(other) = other_half_exact(rounded[at], scaled[at]) else {
            continue;
        };
        let change = squared(f64::from(other)) - squared(f64::from(rounded[at]));
        if (excess + change).abs() < excess.abs() {
            rounded[at] = other;
            excess += change;
        }
    }
    // Never shorter than the values: a view's similarity to itself then reaches 1, where it is
    // clamped, as it did before, so that copies of one view tie exactly rather than by noise. Each
    // value may take one step away from zero: the least that makes up the shortfall, or, while
    // none does, the most.
    let mut stepped = vec![false; rounded.len()];
    while excess < 0.0 {
        let step = |at: usize| -> Option<(i16, f64)> {
            let value = rounded[at];
            let away = if value == 0 {
                if scaled[at] < 0.0 { -1 } else { 1 }
            } else {
                other_half_exact(value, f32::from(value) * 2.0)?
            };
            Some((away, squared(f64::from(away)) - squared(f64::from(value))))
        };
        let steps: Vec<(usize, i16, f64)> = (0..rounded.len())
            .filter(|&at| !stepped[at])
            .filter_map(|at| step(at).map(|(value, change)| (at, value, change)))
            .collect();
        let enough = steps
            .iter()
            .filter(|(_, _, change)| excess + change >= 0.0)
            .min_by(|a, b| a.2.total_cmp(&b.2));
        let Some(&(at, value, change)) =
            enough.or_else(|| steps.iter().max_by(|a, b| a.2.total_cmp(&b.2)))
        else {
            break;
        };
        rounded[at] = value;
        stepped[at] = true;
        excess += change;
    }
    rounded
}

/// The integer half precision holds next to `held` (one it holds) on the other side of `value`
/// from it; `None` past `i16`'s range.
fn other_half_exact(held: i16, value: f32) -> Option<i16> {
    let bits = half::f16::from_f32(f32::from(held)).to_bits();
    // Away from zero is one more in the magnitude's bits, toward zero one less (both signs).
    let away = value.abs() > f32::from(held).abs();
    let neighbour_bits = if away {
        bits.checked_add(1)?
    } else {
        bits.checked_sub(1)?
    };
    let neighbour = half::f16::from_bits(neighbour_bits).to_f32();
    let within = (f32::from(i16::MIN)..=f32::from(LARGEST_HALF_EXACT)).contains(&neighbour);
    (neighbour.fract() == 0.0 && within).then_some(neighbour as i16)
}

/// The largest integer below 32,768 that half precision holds (past 16,384 it holds every 16th).
const LARGEST_HALF_EXACT: i16 = 32_752;

/// The integer nearest `value` that half precision (`f16`) holds exactly (ties to the even
/// significand, as a conversion to `f16` rounds), kept within `i16`: see [`FEATURE_SCALE`].
pub fn half_exact(value: i16) -> i16 {
    let rounded = half::f16::from_f32(f32::from(value)).to_f32();
    if rounded > f32::from(LARGEST_HALF_EXACT) {
        LARGEST_HALF_EXACT
    } else {
        // In −32,768..=32,752 and an integer: the cast is exact.
        rounded as i16
    }
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
    use crate::part_numbers::part_number_keys;

    #[test]
    fn a_views_facts_survive_storage_and_bad_facts_are_damage() {
        let picture = ViewDescriptor::of_image(&image::DynamicImage::ImageRgb8(
            image::RgbImage::from_fn(48, 48, |x, y| {
                image::Rgb(if (x / 8 + y / 8) % 2 == 0 {
                    [0; 3]
                } else {
                    [255; 3]
                })
            }),
        ));
        let drawing = picture
            .clone()
            .as_drawing(true)
            .with_part_numbers(part_number_keys(&["part_number=AB-1234".to_owned()]));
        for view in [&picture, &drawing] {
            assert_eq!(&ViewDescriptor::from_bytes(&view.to_bytes()).unwrap(), view);
        }
        // A view of a picture has no parts: the flag that says they follow is damage there.
        let mut bytes = picture.to_bytes();
        bytes[STORED_HEAD_LEN] = FLAG_PARTS;
        let at = bytes.len() - 4;
        let checksum = fnv1a(&bytes[..at]);
        bytes[at..].copy_from_slice(&checksum.to_le_bytes());
        assert!(matches!(
            ViewDescriptor::from_bytes(&bytes),
            Err(EngineError::DamagedDescriptor(_))
        ));
        // Before views carried their file's facts: outdated, indexed again.
        for earlier in [
            WITHOUT_FACTS_VERSION,
            WITHOUT_FACTS_VERSION_WITH_SHAPE,
            WITHOUT_HANDEDNESS_VERSION_WITH_SHAPE,
        ] {
            let mut bytes = picture.to_bytes();
            bytes[STORED_MAGIC.len()] = earlier;
            assert!(matches!(
                ViewDescriptor::from_bytes(&bytes),
                Err(EngineError::OutdatedDescriptor { version }) if version == earlier
            ));
        }
        // Before a photograph's part was found in a scene: a picture's view is indexed again, a
        // drawing's (framed as before) is read as today's.
        let stored_as_before = |view: &ViewDescriptor| {
            let mut bytes = view.to_bytes();
            bytes[STORED_MAGIC.len()] = BEFORE_SCENES_VERSION;
            let at = bytes.len() - 4;
            let checksum = fnv1a(&bytes[..at]);
            bytes[at..].copy_from_slice(&checksum.to_le_bytes());
            ViewDescriptor::from_bytes(&bytes)
        };
        assert!(matches!(
            stored_as_before(&picture),
            Err(EngineError::OutdatedDescriptor { version }) if version == BEFORE_SCENES_VERSION
        ));
        assert_eq!(stored_as_before(&drawing).unwrap(), drawing);
    }

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

    #[test]
    fn features_are_integers_half_precision_holds_and_stored_ones_are_rounded_as_read() {
        let held_exactly =
            |value: i16| half::f16::from_f32(f32::from(value)).to_f32() == f32::from(value);
        for value in i16::MIN..=i16::MAX {
            let rounded = half_exact(value);
            assert!(held_exactly(rounded), "{value} → {rounded}");
            assert_eq!(half_exact(rounded), rounded);
            // At most half a step of the 16 between neighbours past 16,384 (the clamp at the top).
            assert!(
                (i32::from(rounded) - i32::from(value)).abs() <= 15,
                "{value} → {rounded}"
            );
        }
        assert_eq!(half_exact(2_049), 2_048);
        assert_eq!(half_exact(2_051), 2_052);
        assert_eq!(half_exact(32_767), LARGEST_HALF_EXACT);
        let picture = ViewDescriptor::of_image(&image::DynamicImage::ImageRgb8(
            image::RgbImage::from_fn(48, 48, |x, y| {
                image::Rgb([(x * 5) as u8, (y * 5) as u8, 90])
            }),
        ));
        assert!(picture.features().iter().all(|&value| held_exactly(value)));
        assert!(picture.features().iter().any(|&value| value.abs() > 2_048));
        // A descriptor stored before the rounding: one feature moved off what f16 holds. It is
        // read back rounded, so the exact scan and a graph's f16 vectors see the same features.
        let at = picture
            .features()
            .iter()
            .position(|&value| value.abs() > 2_048)
            .unwrap();
        let mut unrounded = picture.features().to_vec();
        unrounded[at] += 1;
        let stored = picture.with_features(unrounded.clone()).unwrap();
        assert_eq!(stored.features()[at], unrounded[at]);
        let read = ViewDescriptor::from_bytes(&stored.to_bytes()).unwrap();
        assert!(held_exactly(read.features()[at]));
        assert_ne!(read.features()[at], unrounded[at]);
        assert!((i32::from(read.features()[at]) - i32::from(unrounded[at])).abs() <= 16);
        assert_eq!(
            ViewDescriptor::from_bytes(&picture.to_bytes()).unwrap(),
            picture,
            "rounding what is rounded changes nothing"
        );
        assert!(picture.with_features(vec![0; 3]).is_none());
    }

    #[test]
    fn rounding_to_half_precision_keeps_a_vectors_length() {
        // A small linear congruential generator: the same vectors every run.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) as f32 / (1_u64 << 31) as f32 * 2.0 - 1.0
        };
        let mut worst_nearest = 0.0_f64;
        for _ in 0..200 {
            // Unit vectors of 256 values, a few of them large (as a block with little in it).
            let mut values: Vec<f32> = (0..256).map(|_| next() * next().abs().powi(3)).collect();
            let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
            values
                .iter_mut()
                .for_each(|value| *value *= FEATURE_SCALE / norm);
            let length = |features: &[i16]| -> f64 {
                features
                    .iter()
                    .map(|&v| f64::from(v) * f64::from(v))
                    .sum::<f64>()
            };
            let wanted: f64 = values.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
            let rounded = half_exact_features(&values);
            let nearest: Vec<i16> = values
                .iter()
                .map(|&v| half_exact(v.round() as i16))
                .collect();
            let error = (length(&rounded) - wanted) / wanted;
            assert!(
                (0.0..1e-5).contains(&error),
                "relative error of the squared length {error}"
            );
            worst_nearest = worst_nearest.max((length(&nearest) - wanted).abs() / wanted);
            for (&value, &feature) in values.iter().zip(&rounded) {
                assert_eq!(half_exact(feature), feature);
                // Within one step of the value: 16 past 16,384.
                assert!(
                    (value - f32::from(feature)).abs() <= 16.0,
                    "{value} → {feature}"
                );
            }
            assert_eq!(
                half_exact_features(&rounded.iter().map(|&v| f32::from(v)).collect::<Vec<_>>()),
                rounded
            );
        }
        // The nearest values alone move it by far more.
        assert!(worst_nearest > 2e-5, "{worst_nearest}");
    }
}
