//! The triangle mesh every model reader produces: corner positions and triangles as indices into
//! them, with the measures the readers and the engine need (area, bounds).

/// A triangle mesh: corner positions and triangles as three indices into them.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mesh {
    /// Vertex positions.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles, three vertex indices each (every index is below `vertices.len()`).
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Area of one triangle.
    pub fn triangle_area(&self, triangle: &[u32; 3]) -> f32 {
        let [a, b, c] = triangle.map(|index| self.vertices[index as usize].map(f64::from));
        let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let ac = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let normal = [
            ab[1] * ac[2] - ab[2] * ac[1],
            ab[2] * ac[0] - ab[0] * ac[2],
            ab[0] * ac[1] - ab[1] * ac[0],
        ];
        (0.5 * (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt())
            as f32
    }

    /// Total surface area.
    pub fn surface_area(&self) -> f64 {
        self.triangles
            .iter()
            .map(|triangle| f64::from(self.triangle_area(triangle)))
            .sum()
    }

    /// Lowest and highest corner of the axis-aligned box around the triangles' vertices.
    pub fn bounds(&self) -> Option<[[f32; 3]; 2]> {
        let mut corners = self
            .triangles
            .iter()
            .flatten()
            .map(|&index| self.vertices[index as usize]);
        let first = corners.next()?;
        Some(corners.fold([first, first], |[low, high], point| {
            [
                [0, 1, 2].map(|k| low[k].min(point[k])),
                [0, 1, 2].map(|k| high[k].max(point[k])),
            ]
        }))
    }
}
