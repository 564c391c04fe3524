//! Geometry: the triangle [`Mesh`] and every reader that turns a model file into one, with its
//! limits. A leaf module: it depends on nothing else in the crate (no service, no egui), so the
//! service's engine and the app alike can read models.
//!
//! Readers: STL (ascii and binary), OBJ and PLY (ascii and binary) in `mesh_formats.rs`. Each refuses
//! content over its limits ([`MAX_MODEL_BYTES`], [`MAX_TRIANGLES`], [`MAX_VERTICES`]) before it can
//! exhaust memory, and says why a file cannot be read with a [`GeometryError`].

mod error;
mod mesh;
mod mesh_formats;

pub use error::GeometryError;
pub use mesh::Mesh;
pub use mesh_formats::{MAX_MODEL_BYTES, MAX_TRIANGLES, MAX_VERTICES};

/// Model formats the readers here understand (lower-case extensions with the dot).
pub const MODEL_EXTENSIONS: &[&str] = &[".stl", ".obj", ".ply"];

/// True when files with this extension are read as models (any case).
pub fn is_model_extension(extension: &str) -> bool {
    MODEL_EXTENSIONS.contains(&extension.to_ascii_lowercase().as_str())
}

/// Reads `bytes` as the model format `extension` names (lower-case with the dot, one of
/// [`MODEL_EXTENSIONS`]) into a mesh with a surface.
pub fn read_mesh(extension: &str, bytes: &[u8]) -> Result<Mesh, GeometryError> {
    mesh_formats::read_mesh_file(extension, bytes)
}
