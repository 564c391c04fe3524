//! Building a [`Mesh`] from triangles and polygons within limits, welding corners that have exactly
//! the same coordinates: every reader (STL, OBJ, PLY, STEP, OpenCASCADE) fills one, so every model
//! meets the same limits ([`MAX_TRIANGLES`], [`MAX_VERTICES`]) and has shared corners, which the
//! engine's closedness and volume need.

use std::collections::HashMap;

use super::{GeometryError, Mesh};

/// Largest model file the readers take, in bytes.
pub const MAX_MODEL_BYTES: usize = 256 * 1024 * 1024;
/// Most triangles a mesh may have (after polygons are split into triangles).
pub const MAX_TRIANGLES: usize = 4_000_000;
/// Most vertices a mesh may declare.
pub const MAX_VERTICES: usize = 6_000_000;

/// Collects triangles, welding vertices that have exactly the same coordinates (STL stores each
/// triangle's corners separately; closedness and volume need them shared).
#[derive(Default)]
pub(super) struct MeshBuilder {
    mesh: Mesh,
    welded: HashMap<[u32; 3], u32>,
}

impl MeshBuilder {
    /// The index of a corner, added unless a corner with the same coordinates is there.
    pub(super) fn vertex(&mut self, point: [f32; 3]) -> Result<u32, GeometryError> {
        if point.iter().any(|value| !value.is_finite()) {
            return Err(malformed("a vertex is not a finite number"));
        }
        // +0.0 and −0.0 are the same point.
        let key = point.map(|value| (value + 0.0).to_bits());
        if let Some(&index) = self.welded.get(&key) {
            return Ok(index);
        }
        if self.mesh.vertices.len() >= MAX_VERTICES {
            return Err(GeometryError::OverLimit(format!(
                "more than {MAX_VERTICES} vertices"
            )));
        }
        let index = u32::try_from(self.mesh.vertices.len()).map_err(malformed)?;
        self.mesh.vertices.push(point);
        self.welded.insert(key, index);
        Ok(index)
    }

    /// Adds a triangle given by its corner positions.
    pub(super) fn triangle(&mut self, corners: [[f32; 3]; 3]) -> Result<(), GeometryError> {
        let indices = [
            self.vertex(corners[0])?,
            self.vertex(corners[1])?,
            self.vertex(corners[2])?,
        ];
        self.push(indices)
    }

    /// Adds a triangle given by corner indices from [`MeshBuilder::vertex`].
    pub(super) fn push(&mut self, indices: [u32; 3]) -> Result<(), GeometryError> {
        if self.mesh.triangles.len() >= MAX_TRIANGLES {
            return Err(GeometryError::OverLimit(format!(
                "more than {MAX_TRIANGLES} triangles"
            )));
        }
        self.mesh.triangles.push(indices);
        Ok(())
    }

    /// Adds a polygon given by corner positions as a fan of triangles.
    pub(super) fn polygon(&mut self, corners: &[[f32; 3]]) -> Result<(), GeometryError> {
        for pair in corners.windows(2).skip(1) {
            self.triangle([corners[0], pair[0], pair[1]])?;
        }
        Ok(())
    }

    /// The mesh built so far.
    pub(super) fn finish(self) -> Mesh {
        self.mesh
    }

    /// Triangles so far.
    pub(super) fn triangle_count(&self) -> usize {
        self.mesh.triangles.len()
    }
}

/// A reader's complaint as a [`GeometryError::Malformed`].
pub(super) fn malformed(reason: impl std::fmt::Display) -> GeometryError {
    GeometryError::Malformed(reason.to_string())
}
