//! A mesh as a binary STL file: the plainest content a component's mesh can be stored and
//! previewed as, where a STEP file of its own is not wanted (every reader of this crate and every
//! CAD viewer reads it back).

use crate::Mesh;

/// `mesh` as a binary STL file (80-byte header, triangle count, then per triangle its normal, its
/// three corners and a zero attribute word; little-endian), in the mesh's units (millimetres for
/// what the readers make).
pub fn binary_stl(mesh: &Mesh) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(84 + 50 * mesh.triangles.len());
    let mut header = [b' '; 80];
    let title = b"partlens component mesh, millimetres";
    header[..title.len()].copy_from_slice(title);
    bytes.extend_from_slice(&header);
    let count = u32::try_from(mesh.triangles.len()).unwrap_or(u32::MAX);
    bytes.extend_from_slice(&count.to_le_bytes());
    for triangle in mesh.triangles.iter().take(count as usize) {
        let corners = triangle.map(|index| {
            mesh.vertices
                .get(index as usize)
                .copied()
                .unwrap_or_default()
        });
        for value in normal(corners)
            .into_iter()
            .chain(corners.into_iter().flatten())
        {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&0_u16.to_le_bytes());
    }
    bytes
}

/// The unit normal of a triangle wound counter-clockwise (zero for one without area).
fn normal([a, b, c]: [[f32; 3]; 3]) -> [f32; 3] {
    let u = [0, 1, 2].map(|k| b[k] - a[k]);
    let v = [0, 1, 2].map(|k| c[k] - a[k]);
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
    if length.is_normal() {
        n.map(|value| value / length)
    } else {
        [0.0; 3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mesh_written_as_stl_reads_back_the_same() {
        let mesh = Mesh {
            vertices: vec![
                [0.0, 0.0, 0.0],
                [2.0, 0.0, 0.0],
                [0.0, 3.0, 0.0],
                [0.0, 0.0, 4.0],
            ],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        };
        let bytes = binary_stl(&mesh);
        assert_eq!(bytes.len(), 84 + 50 * 4);
        let back = crate::read_mesh(".stl", &bytes).unwrap();
        assert_eq!(back.triangles.len(), 4);
        assert_eq!(back.bounds(), mesh.bounds());
        assert!((back.surface_area() - mesh.surface_area()).abs() < 1e-4);
    }
}
