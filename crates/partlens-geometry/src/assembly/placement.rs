//! Where an instance sits: an affine map from a component's coordinates to its assembly's, kept as
//! the three rows of a 3 × 4 matrix (rotation, and a uniform scale where a STEP file states one, on
//! the left; translation in millimetres on the right). Built from the frames STEP files place by
//! (`AXIS2_PLACEMENT_3D`, `CARTESIAN_TRANSFORMATION_OPERATOR_3D`) and from OpenCASCADE's locations.

use serde::{Deserialize, Serialize};

/// An affine map `p ↦ M·p + t` (millimetres): `matrix[r] = [M[r][0], M[r][1], M[r][2], t[r]]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    /// The rows of the map.
    pub matrix: [[f64; 4]; 3],
}

impl Default for Placement {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Placement {
    /// The map that leaves every point where it is.
    pub const IDENTITY: Self = Self {
        matrix: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ],
    };

    /// The map taking the unit axes to the columns `x`, `y`, `z` and the origin to `origin`.
    pub fn from_axes(origin: [f64; 3], x: [f64; 3], y: [f64; 3], z: [f64; 3]) -> Self {
        Self {
            matrix: [0, 1, 2].map(|r| [x[r], y[r], z[r], origin[r]]),
        }
    }

    /// The translation part.
    pub fn translation(&self) -> [f64; 3] {
        [0, 1, 2].map(|r| self.matrix[r][3])
    }

    /// This map applied after `inner`: `(self ∘ inner)(p) = self(inner(p))`.
    pub fn after(&self, inner: &Placement) -> Placement {
        let (a, b) = (&self.matrix, &inner.matrix);
        let mut matrix = [[0.0; 4]; 3];
        for (r, row) in matrix.iter_mut().enumerate() {
            for (c, value) in row.iter_mut().enumerate() {
                *value = (0..3).map(|k| a[r][k] * b[k][c]).sum::<f64>();
            }
            row[3] += a[r][3];
        }
        Placement { matrix }
    }

    /// The map undoing this one; `None` when it flattens space (a zero scale, parallel axes).
    pub fn inverse(&self) -> Option<Placement> {
        let m = &self.matrix;
        let cofactor = |r: usize, c: usize| {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
            let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
            m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]
        };
        let determinant: f64 = (0..3).map(|c| m[0][c] * cofactor(0, c)).sum();
        if !determinant.is_normal() {
            return None;
        }
        // The inverse of M is the transposed cofactors over the determinant.
        let mut matrix = [[0.0; 4]; 3];
        for (r, row) in matrix.iter_mut().enumerate() {
            for (c, value) in row.iter_mut().take(3).enumerate() {
                *value = cofactor(c, r) / determinant;
            }
        }
        let t = self.translation();
        for row in &mut matrix {
            row[3] = -(0..3).map(|k| row[k] * t[k]).sum::<f64>();
        }
        Some(Placement { matrix })
    }

    /// Where the map puts `point`.
    pub fn apply(&self, point: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|r| {
            let row = &self.matrix[r];
            row[0] * point[0] + row[1] * point[1] + row[2] * point[2] + row[3]
        })
    }

    /// Where the map puts a mesh corner.
    pub fn apply_f32(&self, point: [f32; 3]) -> [f32; 3] {
        self.apply(point.map(f64::from)).map(|value| value as f32)
    }

    /// True when every entry is a finite number.
    pub fn is_finite(&self) -> bool {
        self.matrix.iter().flatten().all(|value| value.is_finite())
    }

    /// True when it mirrors (its matrix has a negative determinant): the triangles it places are
    /// wound the other way round.
    pub fn mirrors(&self) -> bool {
        let m = &self.matrix;
        let determinant = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
            - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        determinant < 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-9)
    }

    #[test]
    fn placements_compose_and_invert() {
        // A quarter turn about z, then 10 mm along x.
        let turn = Placement::from_axes(
            [10.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [-1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0],
        );
        assert!(near(turn.apply([1.0, 0.0, 0.0]), [10.0, 1.0, 0.0]));
        let twice = turn.after(&turn);
        assert!(near(twice.apply([1.0, 0.0, 0.0]), [9.0, 10.0, 0.0]));
        let back = turn.inverse().unwrap();
        assert!(near(
            back.after(&turn).apply([3.0, 4.0, 5.0]),
            [3.0, 4.0, 5.0]
        ));
        assert!(near(
            turn.after(&back).apply([3.0, 4.0, 5.0]),
            [3.0, 4.0, 5.0]
        ));
        assert!(!turn.mirrors());
        let flat =
            Placement::from_axes([0.0; 3], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]);
        assert!(flat.inverse().is_none());
        let mirror =
            Placement::from_axes([0.0; 3], [-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        assert!(mirror.mirrors());
        assert_eq!(Placement::default(), Placement::IDENTITY);
    }
}
