//! What a mesh measures: whether its surface is closed, the volume it then encloses, and the
//! bounding box, triangle count and surface area together as [`MeshMeasurements`]. The service's
//! engine turns these into extracted attributes; the app's 3D preview shows them.

use std::collections::HashMap;

use super::Mesh;

/// The measurements of a mesh, in file units (taken to be millimetres).
#[derive(Clone, Debug, PartialEq)]
pub struct MeshMeasurements {
    /// Lowest and highest corner of the axis-aligned bounding box.
    pub bounds: [[f32; 3]; 2],
    /// Triangles in the mesh as read.
    pub triangles: usize,
    /// Total surface area.
    pub surface_area: f64,
    /// Enclosed volume, when the surface is closed.
    pub volume: Option<f64>,
}

impl MeshMeasurements {
    /// Measures `mesh`; `None` for a mesh without triangles.
    pub fn of(mesh: &Mesh) -> Option<Self> {
        let bounds = mesh.bounds()?;
        Some(Self {
            bounds,
            triangles: mesh.triangles.len(),
            surface_area: mesh.surface_area(),
            volume: is_closed(mesh).then(|| volume(mesh)),
        })
    }

    /// Width, depth and height of the bounding box (x, y, z).
    pub fn size(&self) -> [f64; 3] {
        let [low, high] = self.bounds;
        [0, 1, 2].map(|k| f64::from(high[k] - low[k]))
    }
}

/// True when every edge is shared by exactly two triangles that run it in opposite directions:
/// a watertight, consistently oriented surface, whose enclosed volume is meaningful.
pub fn is_closed(mesh: &Mesh) -> bool {
    let mut edges: HashMap<(u32, u32), i32> = HashMap::with_capacity(mesh.triangles.len() * 3);
    for triangle in &mesh.triangles {
        for (from, to) in [
            (triangle[0], triangle[1]),
            (triangle[1], triangle[2]),
            (triangle[2], triangle[0]),
        ] {
            if from == to {
                return false;
            }
            // +1 for one direction, −1 for the other: a closed, oriented surface sums to 0 per edge.
            let (key, step) = if from < to {
                ((from, to), 1)
            } else {
                ((to, from), -1)
            };
            *edges.entry(key).or_insert(0) += step;
        }
    }
    !edges.is_empty() && edges.values().all(|&balance| balance == 0)
}

/// Enclosed volume of a closed mesh (divergence theorem: signed tetrahedra to the origin).
pub fn volume(mesh: &Mesh) -> f64 {
    let signed: f64 = mesh
        .triangles
        .iter()
        .map(|triangle| {
            let [a, b, c] = triangle.map(|index| mesh.vertices[index as usize].map(f64::from));
            (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]))
                / 6.0
        })
        .sum();
    signed.abs()
}
