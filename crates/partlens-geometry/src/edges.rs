//! The edges a drawing of a mesh shows: where two triangles meet at a crease (their normals differ by
//! more than [`CREASE_ANGLE_DEGREES`]) and where the surface ends (an edge with one triangle).
//! Smooth tessellation edges of curved faces are left out, so a shaded model with these edges
//! reads like a CAD view. Also each triangle's unit normal, which shading and the crease test share.

use std::collections::HashMap;

use super::Mesh;

/// Two triangles meeting at more than this angle make a crease edge.
pub const CREASE_ANGLE_DEGREES: f32 = 30.0;

/// Marks the missing second triangle of a boundary edge.
pub const NO_FACE: u32 = u32::MAX;

/// An edge to draw: its two vertices and the triangles on either side ([`NO_FACE`] for the second
/// one of a boundary edge), so a viewer can hide the edges whose triangles all face away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureEdge {
    /// The vertex indices of its ends.
    pub vertices: [u32; 2],
    /// The triangles it borders.
    pub faces: [u32; 2],
}

/// The unit normal of every triangle (right-hand rule; zero for a degenerate triangle).
pub fn face_normals(mesh: &Mesh) -> Vec<[f32; 3]> {
    mesh.triangles
        .iter()
        .map(|triangle| {
            let [a, b, c] = triangle.map(|index| mesh.vertices[index as usize]);
            let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            let ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
            let normal = [
                ab[1] * ac[2] - ab[2] * ac[1],
                ab[2] * ac[0] - ab[0] * ac[2],
                ab[0] * ac[1] - ab[1] * ac[0],
            ];
            let length =
                (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
            if length > 0.0 {
                normal.map(|value| value / length)
            } else {
                [0.0; 3]
            }
        })
        .collect()
}

/// The crease and boundary edges of `mesh`; `normals` are its [`face_normals`]. An edge shared by
/// more than two triangles (a non-manifold seam) is always drawn.
pub fn feature_edges(mesh: &Mesh, normals: &[[f32; 3]]) -> Vec<FeatureEdge> {
    let mut faces_of_edge: HashMap<(u32, u32), [u32; 3]> =
        HashMap::with_capacity(mesh.triangles.len() * 3 / 2);
    for (face, triangle) in mesh.triangles.iter().enumerate() {
        let face = face as u32;
        for (from, to) in [
            (triangle[0], triangle[1]),
            (triangle[1], triangle[2]),
            (triangle[2], triangle[0]),
        ] {
            let key = (from.min(to), from.max(to));
            let entry = faces_of_edge.entry(key).or_insert([NO_FACE; 3]);
            if let Some(slot) = entry.iter_mut().find(|slot| **slot == NO_FACE) {
                *slot = face;
            } else {
                // A fourth triangle on one edge: keep it marked as non-manifold.
                entry[2] = face;
            }
        }
    }
    let crease_cosine = CREASE_ANGLE_DEGREES.to_radians().cos();
    let mut edges: Vec<FeatureEdge> = faces_of_edge
        .into_iter()
        .filter_map(|((from, to), faces)| {
            let drawn = if faces[1] == NO_FACE || faces[2] != NO_FACE {
                true
            } else {
                let [n, m] = [normals[faces[0] as usize], normals[faces[1] as usize]];
                n[0] * m[0] + n[1] * m[1] + n[2] * m[2] < crease_cosine
            };
            drawn.then_some(FeatureEdge {
                vertices: [from, to],
                faces: if faces[2] != NO_FACE {
                    [faces[0], NO_FACE]
                } else {
                    [faces[0], faces[1]]
                },
            })
        })
        .collect();
    // Hash order is random: sorted, the same mesh always gives the same list.
    edges.sort_unstable_by_key(|edge| edge.vertices);
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit cube of 12 triangles, outward normals.
    fn cube() -> Mesh {
        let vertices = (0..8)
            .map(|i| [(i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32])
            .collect();
        let quads = [
            [0, 2, 3, 1],
            [4, 5, 7, 6],
            [0, 1, 5, 4],
            [2, 6, 7, 3],
            [0, 4, 6, 2],
            [1, 3, 7, 5],
        ];
        let triangles = quads
            .iter()
            .flat_map(|[a, b, c, d]| [[*a, *b, *c], [*a, *c, *d]])
            .collect();
        Mesh {
            vertices,
            triangles,
        }
    }

    #[test]
    fn a_cube_shows_its_twelve_edges_and_no_face_diagonals() {
        let cube = cube();
        assert!(crate::is_closed(&cube));
        let normals = face_normals(&cube);
        assert_eq!(normals[0], [0.0, 0.0, -1.0]);
        let edges = feature_edges(&cube, &normals);
        assert_eq!(edges.len(), 12);
        assert!(edges.iter().all(|edge| edge.faces[1] != NO_FACE));
    }

    #[test]
    fn an_open_surface_shows_its_boundary() {
        let mut square = cube();
        square.triangles.truncate(2);
        let edges = feature_edges(&square, &face_normals(&square));
        assert_eq!(edges.len(), 4);
        assert!(edges.iter().all(|edge| edge.faces[1] == NO_FACE));
    }
}
