//! Fewer triangles for display: vertex clustering on a uniform grid. Every vertex in one grid cell
//! becomes the cell's mean point; triangles that collapse (two corners in one cell) or repeat
//! another are dropped. Linear in the mesh size and needs no connectivity, so a model at the
//! readers' limit (4 M triangles) is reduced in well under a second; the grid is refined or coarsened
//! until the result fits the budget. Shape detail smaller than a cell is lost, which a preview
//! allows; measurements always come from the mesh as read.
//!
//! An assembly's mesh is reduced part by part ([`decimate_parts`]): each placed component within
//! its own triangles, with a share of the budget by its size and at least
//! [`MIN_PART_TRIANGLES`], so a small nut beside a large plate is still there, and still known as
//! the nut, in the reduced copy.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use super::Mesh;
use super::assembly::MeshPart;

/// The least share of the budget a part (or a stretch of triangles between parts) gets when an
/// assembly is reduced part by part, or all of its triangles when it has fewer.
pub const MIN_PART_TRIANGLES: usize = 24;

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

/// `mesh` and its `parts` with at most `max_triangles` triangles (one more a part that would
/// vanish): as they are when the mesh fits; else every part and every stretch of triangles between
/// parts reduced on its own ([`decimate`]) to its share of the budget, and the parts' ranges
/// moved to where their triangles are in the reduced copy. Without parts, or with more than the
/// budget can give [`MIN_PART_TRIANGLES`] each, the whole mesh is reduced at once and the parts
/// are dropped.
pub fn decimate_parts(
    mesh: &Mesh,
    parts: &[MeshPart],
    max_triangles: usize,
) -> (Mesh, Vec<MeshPart>) {
    if mesh.triangles.len() <= max_triangles {
        return (mesh.clone(), parts.to_vec());
    }
    let pieces = pieces(parts, mesh.triangles.len());
    let floors: Vec<usize> = pieces
        .iter()
        .map(|piece| piece.len().min(MIN_PART_TRIANGLES))
        .collect();
    let floor_total: usize = floors.iter().sum();
    if parts.is_empty() || floor_total > max_triangles {
        return (decimate(mesh, max_triangles), Vec::new());
    }
    let spare = (max_triangles - floor_total) as f64;
    let above_floors = (mesh.triangles.len() - floor_total).max(1) as f64;
    let mut reduced = Mesh::default();
    // Where each piece starts in the reduced copy, and where the last ends.
    let mut starts = Vec::with_capacity(pieces.len() + 1);
    for (piece, floor) in pieces.iter().zip(floors) {
        starts.push(reduced.triangles.len() as u32);
        let share = floor + (spare * (piece.len() - floor) as f64 / above_floors) as usize;
        let alone = sub_mesh(mesh, piece.clone());
        let mut small = decimate(&alone, share);
        if small.triangles.is_empty() {
            small = sub_mesh(&alone, 0..alone.triangles.len().min(1));
        }
        append(&mut reduced, small);
    }
    starts.push(reduced.triangles.len() as u32);
    let moved = |at: u32| {
        let piece = pieces.partition_point(|piece| piece.start < at as usize);
        starts[piece]
    };
    let parts = parts
        .iter()
        .map(|part| MeshPart {
            triangles: moved(part.triangles.start)..moved(part.triangles.end),
            ..part.clone()
        })
        .collect();
    (reduced, parts)
}

/// The mesh's triangles `0..count` cut where a part's range starts or ends: every part's own
/// triangles one piece, the stretches between parts one piece each, no piece empty.
fn pieces(parts: &[MeshPart], count: usize) -> Vec<Range<usize>> {
    let mut cuts: Vec<usize> = parts
        .iter()
        .flat_map(|part| [part.triangles.start as usize, part.triangles.end as usize])
        .filter(|&cut| cut < count)
        .chain([0, count])
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|pair| pair[0]..pair[1]).collect()
}

/// The triangles `range` of `mesh` as a mesh of their own (only the vertices they use).
fn sub_mesh(mesh: &Mesh, range: Range<usize>) -> Mesh {
    let mut index: HashMap<u32, u32> = HashMap::new();
    let mut vertices = Vec::new();
    let triangles = mesh.triangles[range]
        .iter()
        .map(|triangle| {
            triangle.map(|corner| {
                *index.entry(corner).or_insert_with(|| {
                    vertices.push(mesh.vertices[corner as usize]);
                    (vertices.len() - 1) as u32
                })
            })
        })
        .collect();
    Mesh {
        vertices,
        triangles,
    }
}

/// Adds `more` after the triangles of `mesh`.
fn append(mesh: &mut Mesh, more: Mesh) {
    let offset = mesh.vertices.len() as u32;
    mesh.vertices.extend(more.vertices);
    mesh.triangles.extend(
        more.triangles
            .into_iter()
            .map(|triangle| triangle.map(|corner| corner + offset)),
    );
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

    #[test]
    fn an_assembly_is_reduced_part_by_part_and_a_small_part_stays() {
        // A large sphere and a tiny one placed far off, each a part, with a stretch of no part
        // between them.
        let large = sphere(200, 200);
        let mut tiny = sphere(10, 10);
        for vertex in &mut tiny.vertices {
            *vertex = vertex.map(|value| value * 0.01 + 50.0);
        }
        let mut mesh = large.clone();
        append(&mut mesh, sphere(20, 20));
        append(&mut mesh, tiny.clone());
        let large_end = large.triangles.len() as u32;
        let tiny_start = large_end + 800;
        let parts = vec![
            MeshPart {
                name: "PLATE".into(),
                parent: None,
                triangles: 0..large_end,
            },
            MeshPart {
                name: "NUT".into(),
                parent: None,
                triangles: tiny_start..mesh.triangles.len() as u32,
            },
        ];
        let budget = 5_000;
        let (reduced, kept) = decimate_parts(&mesh, &parts, budget);
        assert!(
            reduced.triangles.len() <= budget,
            "{}",
            reduced.triangles.len()
        );
        assert_eq!(
            crate::assembly::check_mesh_parts(&kept, reduced.triangles.len()),
            Ok(())
        );
        assert_eq!(kept[1].triangles.end as usize, reduced.triangles.len());
        assert!(kept[1].triangles.len() >= MIN_PART_TRIANGLES.min(tiny.triangles.len()));
        assert!(kept[0].triangles.len() > 1_000);
        // The nut's triangles in the reduced copy are the nut's, near where it was.
        let nut = sub_mesh(
            &reduced,
            kept[1].triangles.start as usize..reduced.triangles.len(),
        );
        let [low, _] = nut.bounds().unwrap();
        assert!(
            low.iter().all(|&value| (value - 50.0).abs() < 1.0),
            "{low:?}"
        );
        // Within the budget: kept as it is.
        assert_eq!(decimate_parts(&mesh, &parts, usize::MAX), (mesh, parts));
    }
}
