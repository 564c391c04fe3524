//! Putting a mesh in a standard pose before it is rendered and described: centred on its surface
//! centroid, turned onto its principal axes (largest spread along x, smallest along z, signs chosen
//! by the surface's skew so that a rotated or mirrored copy lands in the same pose), and scaled so
//! that its farthest point is at distance 1. Views of two copies of a part in different poses or
//! units are then the same pictures.

use super::Mesh;

/// Surface area, centroid and second-moment (covariance) matrix about the centroid, exact for the
/// triangles as area-weighted surfaces.
fn triangle_moments(mesh: &Mesh) -> (f64, [f64; 3], [[f64; 3]; 3]) {
    let mut area_total = 0.0;
    let mut first = [0.0; 3];
    for triangle in &mesh.triangles {
        let (area, centre) = area_and_centre(mesh, triangle);
        area_total += area;
        for axis in 0..3 {
            first[axis] += area * centre[axis];
        }
    }
    let centroid = if area_total > 0.0 {
        first.map(|value| value / area_total)
    } else {
        [0.0; 3]
    };
    let mut covariance = [[0.0; 3]; 3];
    for triangle in &mesh.triangles {
        let corners = triangle.map(|index| mesh.vertices[index as usize].map(f64::from));
        let (area, _) = area_and_centre(mesh, triangle);
        // Second moment of a triangle about the centroid: (Σ cᵢcᵢᵀ + (Σ cᵢ)(Σ cᵢ)ᵀ) / 12 · area.
        let relative = corners.map(|corner| {
            [
                corner[0] - centroid[0],
                corner[1] - centroid[1],
                corner[2] - centroid[2],
            ]
        });
        let sum = [0, 1, 2].map(|axis| relative.iter().map(|corner| corner[axis]).sum::<f64>());
        for (row, covariance_row) in covariance.iter_mut().enumerate() {
            for (column, value) in covariance_row.iter_mut().enumerate() {
                let corners_term: f64 = relative
                    .iter()
                    .map(|corner| corner[row] * corner[column])
                    .sum();
                *value += area * (corners_term + sum[row] * sum[column]) / 12.0;
            }
        }
    }
    (area_total, centroid, covariance)
}

fn area_and_centre(mesh: &Mesh, triangle: &[u32; 3]) -> (f64, [f64; 3]) {
    let [a, b, c] = triangle.map(|index| mesh.vertices[index as usize].map(f64::from));
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let area = 0.5 * length(cross(ab, ac));
    let centre = [0, 1, 2].map(|axis| (a[axis] + b[axis] + c[axis]) / 3.0);
    (area, centre)
}

/// Cross product.
pub(super) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Euclidean length.
pub(super) fn length(a: [f64; 3]) -> f64 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

/// Eigenvectors of a symmetric 3×3 matrix (Jacobi rotations), as rows, by decreasing eigenvalue.
fn principal_axes(matrix: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let mut a = matrix;
    let mut vectors = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for _sweep in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off < 1e-15 * (a[0][0].abs() + a[1][1].abs() + a[2][2].abs() + 1e-300) {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q].abs() < 1e-300 {
                continue;
            }
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let t = if theta == 0.0 { 1.0 } else { t };
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A ← Jᵀ A J with the rotation J in the (p, q) plane.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            for k in 0..3 {
                a[p][k] = c * row_p[k] - s * row_q[k];
                a[q][k] = s * row_p[k] + c * row_q[k];
            }
            for vector in &mut vectors {
                let (vp, vq) = (vector[p], vector[q]);
                vector[p] = c * vp - s * vq;
                vector[q] = s * vp + c * vq;
            }
        }
    }
    // Column k of `vectors` is the eigenvector of eigenvalue a[k][k].
    let mut order = [0, 1, 2];
    order.sort_by(|&i, &j| a[j][j].total_cmp(&a[i][i]));
    order.map(|k| [vectors[0][k], vectors[1][k], vectors[2][k]])
}

/// The mesh in its standard pose (see the module comment). A mesh with no area is returned centred
/// only.
pub fn standard_pose(mesh: &Mesh) -> Mesh {
    let (area, centroid, covariance) = triangle_moments(mesh);
    let mut axes = if area > 0.0 {
        principal_axes(covariance)
    } else {
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    };
    // Signs: each axis points towards the side where the surface reaches farther in cubed distance
    // (the third moment), so a mirrored copy is turned the same way.
    for axis in &mut axes[..2] {
        let skew: f64 = mesh
            .triangles
            .iter()
            .map(|triangle| {
                let (area, centre) = area_and_centre(mesh, triangle);
                let along: f64 = (0..3).map(|k| (centre[k] - centroid[k]) * axis[k]).sum();
                area * along * along * along
            })
            .sum();
        if skew < 0.0 {
            *axis = axis.map(|value| -value);
        }
    }
    // A right-handed frame: z follows from x and y.
    axes[2] = cross(axes[0], axes[1]);
    let turned: Vec<[f64; 3]> = mesh
        .vertices
        .iter()
        .map(|vertex| {
            let relative = [0, 1, 2].map(|k| f64::from(vertex[k]) - centroid[k]);
            axes.map(|axis| (0..3).map(|k| relative[k] * axis[k]).sum::<f64>())
        })
        .collect();
    let radius = turned
        .iter()
        .map(|point| length(*point))
        .fold(0.0_f64, f64::max);
    let scale = if radius > 0.0 { 1.0 / radius } else { 1.0 };
    Mesh {
        vertices: turned
            .into_iter()
            .map(|point| point.map(|value| (value * scale) as f32))
            .collect(),
        triangles: mesh.triangles.clone(),
    }
}

/// A posed part is flat when its extent along z (its thinnest principal axis) is under this share
/// of its extent along y (its middle one): a washer, a retaining ring, a tab washer, a plate, a
/// servo's round horn, a flat bracket. A rod or a screw (thin along two axes) is not.
pub const FLAT_BELOW: f32 = 0.3;

/// Whether a mesh in its [`standard_pose`] is flat (see [`FLAT_BELOW`]): the extents along y and z
/// of the box around its triangles ([`Mesh::bounds`]). A mesh with no triangles is not flat.
pub fn is_flat(posed: &Mesh) -> bool {
    let Some([low, high]) = posed.bounds() else {
        return false;
    };
    let [middle, thinnest] = [1, 2].map(|axis| high[axis] - low[axis]);
    middle > 0.0 && thinnest < FLAT_BELOW * middle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn principal_axes_follow_the_spread() {
        let axes = principal_axes([[1.0, 0.0, 0.0], [0.0, 9.0, 0.0], [0.0, 0.0, 4.0]]);
        assert!((axes[0][1].abs() - 1.0).abs() < 1e-9);
        assert!((axes[1][2].abs() - 1.0).abs() < 1e-9);
        assert!((axes[2][0].abs() - 1.0).abs() < 1e-9);
        let turned = principal_axes([[5.0, 4.0, 0.0], [4.0, 5.0, 0.0], [0.0, 0.0, 1.0]]);
        assert!((turned[0][0].abs() - 0.5_f64.sqrt()).abs() < 1e-9);
        assert!((turned[0][1].abs() - 0.5_f64.sqrt()).abs() < 1e-9);
    }
}
