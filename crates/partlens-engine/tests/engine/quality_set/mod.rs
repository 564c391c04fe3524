//! The photo → model quality set, made by the project: ten kinds of mechanical part × five variants
//! each as meshes (`parts.rs`, built from `solids.rs`), and photographs of them taken from viewpoints
//! the engine never renders (`camera.rs`). Deterministic: the same seed gives the same parts, shots
//! and bytes. Nothing is stored; the benchmark (`benches/photo_quality.rs`), the quick test
//! (`tests/engine/photo_to_model.rs`) and `examples/make_quality_set.rs` (which writes it to a folder to look
//! at) make it in memory.

// Each user of the set takes a different part of it; a failed step in making test data may panic.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod camera;
pub mod parts;
pub mod scene;
pub mod solids;
pub mod vector;

use std::io::Cursor;

use image::RgbImage;
use image::codecs::jpeg::JpegEncoder;
use rand::{SeedableRng, rngs::StdRng};

pub use camera::{Shot, photograph};
pub use parts::{FAMILIES, VARIANTS};
use vector::Triangles;

/// Seed of the photographs searched with (the benchmark's queries).
pub const QUERY_SEED: u64 = 9_001;
/// Seed of the photographs stored as the pictures of the parts (pictures → pictures).
pub const PICTURE_SEED: u64 = 9_002;

/// Width and height of a photograph.
pub const PHOTO_SIZE: (u32, u32) = (640, 480);

/// One part of the set.
#[derive(Clone, Debug)]
pub struct Part {
    /// Index into [`FAMILIES`].
    pub family: usize,
    /// Variant within the family, 0..[`VARIANTS`].
    pub variant: usize,
    /// `family-variant`, e.g. `spur-gear-3`.
    pub name: String,
    /// The mesh, in millimetres.
    pub triangles: Triangles,
}

impl Part {
    /// The mesh as a binary STL file.
    pub fn stl(&self) -> Vec<u8> {
        let facets: Vec<stl_io::Triangle> = self
            .triangles
            .iter()
            .map(|&[a, b, c]| {
                let normal =
                    solids::normalised(solids::cross(solids::sub(b, a), solids::sub(c, a)));
                stl_io::Triangle {
                    normal: stl_io::Normal::new(normal.map(|value| value as f32)),
                    vertices: [a, b, c].map(|point| stl_io::Vertex::new(point.map(|v| v as f32))),
                }
            })
            .collect();
        let mut bytes = Vec::new();
        stl_io::write_stl(&mut bytes, facets.iter()).expect("writing to memory does not fail");
        bytes
    }

    /// A photograph of the part, `PHOTO_SIZE` pixels.
    pub fn photograph(&self, shot: &Shot) -> RgbImage {
        photograph(&self.triangles, shot, PHOTO_SIZE.0, PHOTO_SIZE.1)
    }
}

/// Every part of the set, families in [`FAMILIES`] order, variants in order.
pub fn parts() -> Vec<Part> {
    parts_of(&(0..FAMILIES.len()).collect::<Vec<_>>())
}

/// The parts of the given families only (indices into [`FAMILIES`]).
pub fn parts_of(families: &[usize]) -> Vec<Part> {
    families
        .iter()
        .flat_map(|&family| {
            (0..VARIANTS).map(move |variant| Part {
                family,
                variant,
                name: format!("{}-{variant}", FAMILIES[family]),
                triangles: parts::build(family, variant),
            })
        })
        .collect()
}

/// `count` shots drawn from `seed`.
pub fn shots(seed: u64, count: usize) -> Vec<Shot> {
    let mut random = StdRng::seed_from_u64(seed);
    (0..count).map(|_| Shot::random(&mut random)).collect()
}

/// A photograph as the JPEG file a camera would give, at the shot's quality.
pub fn jpeg(photo: &RgbImage, quality: u8) -> Vec<u8> {
    let mut bytes = Vec::new();
    photo
        .write_with_encoder(JpegEncoder::new_with_quality(
            &mut Cursor::new(&mut bytes),
            quality,
        ))
        .expect("encoding to memory does not fail");
    bytes
}

/// The camera's blur (a Gaussian of standard deviation `sigma` pixels).
pub fn gaussian_blur(photo: &RgbImage, sigma: f32) -> RgbImage {
    imageproc::filter::gaussian_blur_f32(photo, sigma)
}
