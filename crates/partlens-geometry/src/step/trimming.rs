//! Telling a face truck trimmed from one it meshed over its untrimmed surface.
//!
//! truck meshes a face by dividing its boundary into polylines and triangulating the surface inside
//! them, so the corners of a trimmed face's triangles include its boundary's points. When the
//! trimming fails it meshes a stretch of the surface that has nothing to do with the boundary:
//! whole tori where a thread's fillet should be (`occt__screw.step` read 126 mm wide instead of 20),
//! a cone filling a nut's bore, a plate's face 100 m long. Such a face has few of its boundary's
//! points among its corners and reaches past the box of its boundary; a face that bulges past
//! its boundary legitimately (a spherical cap past its circle) has its boundary among its corners.

use truck_meshalgo::prelude::PolygonMesh;
use truck_stepio::r#in::alias::Point3;

/// Below this share of its boundary's points among its corners, a face's trimming failed (when it
/// also reaches past its boundary). Trimmed faces measured on the real-world corpus: 0.8 and more.
const TRIMMED_SHARE: f64 = 0.5;
/// How close a corner must be to a boundary point to be it, in meshing tolerances.
const SAME_POINT: f64 = 0.01;
/// How far past the box of its boundary a face may reach before its reach counts, in meshing
/// tolerances (its boundary's polylines cut inside their curves by up to one tolerance).
const REACH: f64 = 2.0;

/// True when `mesh`, made by truck for a face bounded by the polylines whose points are
/// `boundary`, was meshed over the untrimmed surface (see the module doc). A face without boundary
/// points is not judged (false).
pub fn trimming_failed(boundary: &[Point3], mesh: &PolygonMesh, tolerance: f64) -> bool {
    if boundary.is_empty() {
        return false;
    }
    let corners = mesh.positions();
    reaches_past(boundary, corners, REACH * tolerance)
        && share_among(boundary, corners, SAME_POINT * tolerance) < TRIMMED_SHARE
}

/// True when some corner is farther than `margin` outside the box of `boundary`.
fn reaches_past(boundary: &[Point3], corners: &[Point3], margin: f64) -> bool {
    let mut low = [f64::INFINITY; 3];
    let mut high = [f64::NEG_INFINITY; 3];
    for point in boundary {
        for (k, value) in [point.x, point.y, point.z].into_iter().enumerate() {
            low[k] = low[k].min(value);
            high[k] = high[k].max(value);
        }
    }
    corners.iter().any(|corner| {
        [corner.x, corner.y, corner.z]
            .into_iter()
            .enumerate()
            .any(|(k, value)| value < low[k] - margin || value > high[k] + margin)
    })
}

/// The share of `boundary`'s points that have a corner within `distance` on every axis.
fn share_among(boundary: &[Point3], corners: &[Point3], distance: f64) -> f64 {
    let mut by_x: Vec<&Point3> = corners.iter().collect();
    by_x.sort_by(|a, b| a.x.total_cmp(&b.x));
    let found = boundary
        .iter()
        .filter(|point| {
            let first = by_x.partition_point(|corner| corner.x < point.x - distance);
            by_x[first..]
                .iter()
                .take_while(|corner| corner.x <= point.x + distance)
                .any(|corner| {
                    (corner.y - point.y).abs() <= distance && (corner.z - point.z).abs() <= distance
                })
        })
        .count();
    found as f64 / boundary.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A square of side `size` at height `z`, two triangles.
    fn square(size: f64, z: f64) -> PolygonMesh {
        let positions = vec![
            Point3::new(0.0, 0.0, z),
            Point3::new(size, 0.0, z),
            Point3::new(size, size, z),
            Point3::new(0.0, size, z),
        ];
        crate::step::tessellate::mesh_of_positions(
            positions,
            vec![vec![0, 1, 2], vec![0, 2, 3]].into_iter(),
        )
    }

    fn outline(size: f64) -> Vec<Point3> {
        vec![
            Point3::new(0.0, 0.0, 0.0),
            Point3::new(size, 0.0, 0.0),
            Point3::new(size, size, 0.0),
            Point3::new(0.0, size, 0.0),
        ]
    }

    #[test]
    fn a_face_meshed_inside_its_boundary_is_trimmed() {
        assert!(!trimming_failed(&outline(1.0), &square(1.0, 0.0), 0.01));
    }

    #[test]
    fn a_face_meshed_elsewhere_past_its_boundary_is_not() {
        // The boundary is a unit square; the mesh a square ten times as large, sharing one corner.
        assert!(trimming_failed(&outline(1.0), &square(10.0, 0.0), 0.01));
        // Off the boundary's plane by more than the reach.
        assert!(trimming_failed(&outline(1.0), &square(0.5, 0.5), 0.01));
    }

    #[test]
    fn a_face_that_bulges_past_its_boundary_with_its_boundary_among_its_corners_is_trimmed() {
        // A cap: the boundary's four points are corners, and the mesh reaches up past them.
        let mut cap = outline(1.0);
        cap.push(Point3::new(0.5, 0.5, 0.5));
        let mesh = crate::step::tessellate::mesh_of_positions(
            cap,
            vec![vec![0, 1, 4], vec![1, 2, 4], vec![2, 3, 4], vec![3, 0, 4]].into_iter(),
        );
        assert!(!trimming_failed(&outline(1.0), &mesh, 0.01));
    }

    #[test]
    fn a_face_without_a_boundary_is_not_judged() {
        assert!(!trimming_failed(&[], &square(10.0, 0.0), 0.01));
    }
}
