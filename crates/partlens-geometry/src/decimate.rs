//! Fewer triangles for display: vertex clustering on a uniform grid. Every vertex in one grid cell
//! becomes the cell's mean point; triangles that collapse (two corners in one cell) or repeat
//! another are dropped. Linear in the mesh size and needs no connectivity, so a model at the
//! readers' limit (4 M triangles) is reduced in well under a second; the grid is refined or coarsened
//! until the result fits the budget. Shape detail smaller than a cell is lost, which a preview
//! allows; measurements always come from the mesh as read.

use std::collections::{HashMap, HashSet};

use super::Mesh;

/// How many times the grid is resized to meet the budget before the last try is kept.
const MAX_PASSES: usize = 8;

/// The mesh with at most `max_triangles` triangles: the mesh itself when it already fits, else a
/// vertex-clustered copy. Never empty for a mesh with a surface when `max_triangles` ≥ 4.
pub fn decimate(mesh: &Mesh, max_triangles: usize) -> Mesh {
    if mesh.triangles.len() <= max_triangles {
        return mesh.clone();
    }
    let Some([low, high]) = mesh.bounds() else {
        return Mesh::default();
    };
    let extent = [0, 1, 2].map(|k| f64::from(high[k] - low[k]));
    let longest = extent
        .iter()
        .cloned()
        .fold(0.0_f64, f64::max)
        .max(f64::MIN_POSITIVE);
    // A closed surface clustered at n cells along its longest side keeps roughly 2·n² triangles per
    // face of its box; start there and correct by the measured count.
    let mut cells_along_longest = ((max_triangles as f64 / 12.0).sqrt()).max(2.0);
    let mut best: Option<Mesh> = None;
    for _ in 0..MAX_PASSES {
        let cell = longest / cells_along_longest;
        let clustered = cluster(mesh, low, cell);
        let count = clustered.triangles.len();
        if count <= max_triangles {
            let better = best
                .as_ref()
                .is_none_or(|kept| kept.triangles.len() < count);
            if better {
                best = Some(clustered);
            }
            // Close enough to the budget: keep it.
            if count as f64 >= max_triangles as f64 * 0.8 {
                break;
            }
        }
        let ratio = (max_triangles as f64 / count.max(1) as f64).sqrt();
        cells_along_longest = (cells_along_longest * ratio * 0.97).max(1.0);
    }
    best.unwrap_or_else(|| cluster(mesh, low, longest))
}

/// Clusters the vertices of `mesh` into cubic cells of side `cell` starting at `origin`.
fn cluster(mesh: &Mesh, origin: [f32; 3], cell: f64) -> Mesh {
    let cell_of = |point: [f32; 3]| -> [i64; 3] {
        [0, 1, 2].map(|k| ((f64::from(point[k]) - f64::from(origin[k])) / cell).floor() as i64)
    };
    let mut cell_index: HashMap<[i64; 3], u32> = HashMap::new();
    let mut sums: Vec<[f64; 4]> = Vec::new();
    let mut remap: Vec<u32> = Vec::with_capacity(mesh.vertices.len());
    for &point in &mesh.vertices {
        let next = sums.len() as u32;
        let index = *cell_index.entry(cell_of(point)).or_insert(next);
        if index == next {
            sums.push([0.0; 4]);
        }
        let sum = &mut sums[index as usize];
        for k in 0..3 {
            sum[k] += f64::from(point[k]);
        }
        sum[3] += 1.0;
        remap.push(index);
    }
    let mut seen: HashSet<[u32; 3]> = HashSet::new();
    let mut triangles = Vec::new();
    let mut used = vec![false; sums.len()];
    for triangle in &mesh.triangles {
        let [a, b, c] = triangle.map(|index| remap[index as usize]);
        if a == b || b == c || a == c {
            continue;
        }
        let mut key = [a, b, c];
        key.sort_unstable();
        if seen.insert(key) {
            triangles.push([a, b, c]);
            used[a as usize] = true;
            used[b as usize] = true;
            used[c as usize] = true;
        }
    }
    // Only the vertices some triangle still uses are kept.
    let mut compact = vec![u32::MAX; sums.len()];
    let mut vertices = Vec::new();
    for (index, sum) in sums.iter().enumerate() {
        if used[index] {
            compact[index] = vertices.len() as u32;
            vertices.push([0, 1, 2].map(|k| (sum[k] / sum[3]) as f32));
        }
    }
    for triangle in &mut triangles {
        *triangle = triangle.map(|index| compact[index as usize]);
    }
    Mesh {
        vertices,
        triangles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sphere-like surface: a grid in latitude and longitude with `rings` × `segments` quads.
    fn sphere(rings: u32, segments: u32) -> Mesh {
        let mut mesh = Mesh::default();
        for ring in 0..=rings {
            let theta = std::f32::consts::PI * ring as f32 / rings as f32;
            for segment in 0..segments {
                let phi = std::f32::consts::TAU * segment as f32 / segments as f32;
                mesh.vertices.push([
                    10.0 * theta.sin() * phi.cos(),
                    10.0 * theta.sin() * phi.sin(),
                    10.0 * theta.cos(),
                ]);
            }
        }
        for ring in 0..rings {
            for segment in 0..segments {
                let next = (segment + 1) % segments;
                let a = ring * segments + segment;
                let b = ring * segments + next;
                let c = (ring + 1) * segments + segment;
                let d = (ring + 1) * segments + next;
                mesh.triangles.push([a, c, b]);
                mesh.triangles.push([b, c, d]);
            }
        }
        mesh
    }

    #[test]
    fn a_mesh_within_the_budget_is_kept_as_it_is() {
        let mesh = sphere(8, 8);
        assert_eq!(decimate(&mesh, mesh.triangles.len()), mesh);
    }

    #[test]
    fn a_large_mesh_is_reduced_to_the_budget_keeping_its_size() {
        let mesh = sphere(400, 400);
        assert_eq!(mesh.triangles.len(), 320_000);
        for budget in [1_000, 20_000, 100_000] {
            let reduced = decimate(&mesh, budget);
            let count = reduced.triangles.len();
            assert!(count <= budget, "{count} > {budget}");
            assert!(count >= budget / 4, "only {count} of {budget}");
            let [low, high] = reduced.bounds().unwrap();
            for k in 0..3 {
                assert!((high[k] - low[k] - 20.0).abs() < 2.0, "{low:?} {high:?}");
            }
            assert!(
                reduced
                    .triangles
                    .iter()
                    .flatten()
                    .all(|&i| (i as usize) < reduced.vertices.len())
            );
        }
    }
}
