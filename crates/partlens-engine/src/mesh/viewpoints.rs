//! Viewpoints spread evenly around a mesh: the vertices of an icosahedron, of a dodecahedron, or of
//! an icosahedron whose edges are halved (42). A photograph may be taken from anywhere around a part,
//! and the part's standard pose does not say which side is its top, so the whole sphere is covered.

use super::render::Viewpoint;

/// The viewpoint looking at the part from `direction` (towards the viewer, any length). The
/// picture's up is the part's z where that is not seen end-on, else its y; which way is up does not
/// matter to a descriptor that ignores in-plane rotation, but it is fixed so that views repeat.
pub fn looking_from(name: &'static str, direction: [f32; 3]) -> Viewpoint {
    let towards = normalised(direction);
    let reference = if towards[2].abs() < 0.95 {
        [0.0, 0.0, 1.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    // up = reference without its part along the view, right = up × towards.
    let along = dot(reference, towards);
    let up = normalised([
        reference[0] - along * towards[0],
        reference[1] - along * towards[1],
        reference[2] - along * towards[2],
    ]);
    let right = cross(up, towards);
    Viewpoint { name, right, up }
}

/// The 12 vertices of an icosahedron.
fn icosahedron() -> Vec<[f32; 3]> {
    let phi = (1.0 + 5.0_f32.sqrt()) / 2.0;
    let mut vertices = Vec::with_capacity(12);
    for a in [-1.0, 1.0] {
        for b in [-phi, phi] {
            vertices.push([0.0, a, b]);
            vertices.push([a, b, 0.0]);
            vertices.push([b, 0.0, a]);
        }
    }
    vertices.into_iter().map(normalised).collect()
}

/// The 20 vertices of a dodecahedron (the face centres of an icosahedron).
fn dodecahedron() -> Vec<[f32; 3]> {
    let phi = (1.0 + 5.0_f32.sqrt()) / 2.0;
    let mut vertices = Vec::with_capacity(20);
    for x in [-1.0, 1.0] {
        for y in [-1.0, 1.0] {
            for z in [-1.0, 1.0] {
                vertices.push([x, y, z]);
            }
        }
    }
    for a in [-1.0 / phi, 1.0 / phi] {
        for b in [-phi, phi] {
            vertices.push([0.0, a, b]);
            vertices.push([a, b, 0.0]);
            vertices.push([b, 0.0, a]);
        }
    }
    vertices.into_iter().map(normalised).collect()
}

/// The vertices of a geodesic sphere: each icosahedron face cut into `frequency`² triangles, the
/// grid points pushed out onto the unit sphere; `10·frequency² + 2` directions (42 for frequency 2:
/// the corners and the edge midpoints).
fn geodesic(frequency: usize) -> Vec<[f32; 3]> {
    let corners = icosahedron();
    // Neighbouring corners are the closest pairs (their directions 63° apart).
    let neighbours = |a: usize, b: usize| dot(corners[a], corners[b]) > 0.4;
    let mut directions: Vec<[f32; 3]> = Vec::new();
    let mut add = |direction: [f32; 3]| {
        let direction = normalised(direction);
        if directions
            .iter()
            .all(|known| dot(*known, direction) < 0.9999)
        {
            directions.push(direction);
        }
    };
    for a in 0..corners.len() {
        for b in a + 1..corners.len() {
            for c in b + 1..corners.len() {
                if !(neighbours(a, b) && neighbours(b, c) && neighbours(a, c)) {
                    continue;
                }
                for i in 0..=frequency {
                    for j in 0..=frequency - i {
                        let k = frequency - i - j;
                        let [wa, wb, wc] = [i, j, k].map(|w| w as f32 / frequency as f32);
                        add([0, 1, 2].map(|axis| {
                            wa * corners[a][axis] + wb * corners[b][axis] + wc * corners[c][axis]
                        }));
                    }
                }
            }
        }
    }
    directions
}

/// The directions of [`around_the_sphere`]`(count)`, unit vectors from the part towards the viewer.
fn sphere_directions(count: usize) -> Vec<[f32; 3]> {
    match count {
        20 => dodecahedron(),
        12 => geodesic(1),
        92 => geodesic(3),
        162 => geodesic(4),
        _ => geodesic(2),
    }
}

/// `count` viewpoints evenly around the part: 20 (a dodecahedron's vertices) or `10·f² + 2` for a
/// geodesic sphere of frequency `f` (12, 42, 92, 162); any other count gives 42.
pub fn around_the_sphere(count: usize) -> Vec<Viewpoint> {
    sphere_directions(count)
        .into_iter()
        .map(|direction| looking_from("sphere", direction))
        .collect()
}

/// 32 of the viewpoints of [`around_the_sphere`]`(count)`, in their order, spread evenly: those
/// that are an icosahedron's vertices (12, on every geodesic sphere) and, for each of its 20 faces,
/// the one closest to the face's centre (the centre itself on the 92; on the 162 the first of the
/// three around it, 7.8° away). Each is exactly one of the directions a model is indexed from, so
/// a search input seen from them matches the same views of the same part.
pub fn search_input_subset(count: usize) -> Vec<Viewpoint> {
    let directions = sphere_directions(count);
    search_input_positions(count)
        .into_iter()
        .filter_map(|at| directions.get(at).copied())
        .map(|direction| looking_from("sphere", direction))
        .collect()
}

/// Where the directions of [`search_input_subset`]`(count)` lie among those of
/// [`around_the_sphere`]`(count)`: their positions, in order.
pub fn search_input_positions(count: usize) -> Vec<usize> {
    let directions = sphere_directions(count);
    let mut chosen = vec![false; directions.len()];
    for corner in geodesic(1) {
        if let Some(at) = directions
            .iter()
            .position(|direction| dot(*direction, corner) > 0.9999)
        {
            chosen[at] = true;
        }
    }
    for centre in face_centres() {
        let closest =
            directions
                .iter()
                .enumerate()
                .fold((0, f32::NEG_INFINITY), |best, (at, direction)| {
                    let near = dot(*direction, centre);
                    if near > best.1 + 1e-5 {
                        (at, near)
                    } else {
                        best
                    }
                });
        chosen[closest.0] = true;
    }
    chosen
        .into_iter()
        .enumerate()
        .filter_map(|(at, chosen)| chosen.then_some(at))
        .collect()
}

/// `wanted` of the directions of [`around_the_sphere`]`(count)` spread evenly, nested (the first
/// `n` of any longer list are the list for `n`): the [`search_input_positions`] first, so that a
/// model searched by finds its own directions among them, then one at a time the direction
/// farthest from all chosen (ties to the first in the sphere's order). From 162: any direction
/// 8.5° from the nearest of the first 92 on average, 17.7° at most (10.4° / 23.2° for 62; 6.1° /
/// 10.7° for all 162), and each of the 162 within 18.0° of one of the 92. In the order chosen;
/// all `count` when `wanted` is more.
pub fn spread_positions(count: usize, wanted: usize) -> Vec<usize> {
    let directions = sphere_directions(count);
    let mut chosen = search_input_positions(count);
    chosen.truncate(wanted);
    // The cosine of each direction to its nearest chosen one (higher is nearer).
    let mut nearest: Vec<f32> = directions
        .iter()
        .map(|direction| {
            chosen
                .iter()
                .map(|&other| dot(*direction, directions[other]))
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .collect();
    while chosen.len() < wanted.min(directions.len()) {
        let farthest = (0..directions.len())
            .filter(|at| !chosen.contains(at))
            .fold(None, |best: Option<usize>, at| match best {
                Some(best) if nearest[best] <= nearest[at] + 1e-6 => Some(best),
                _ => Some(at),
            });
        let Some(at) = farthest else { break };
        chosen.push(at);
        for (other, near) in nearest.iter_mut().enumerate() {
            *near = near.max(dot(directions[other], directions[at]));
        }
    }
    chosen
}

/// Heights above a flat part's plane (its posed x–y plane), in degrees, of the rings of extra
/// viewpoints it is also seen from, each ring on both sides of the plane: between the 92's
/// edge-on ring (0°) and their next (11.6°), and between that and the ones after (19–24°), where
/// they were measured; among the 162 they still bring a direction near the plane closer to a view
/// (4.9° on average within 20° of it, 6.0° without them).
const NEAR_EDGE_ON_DEGREES: [f32; 2] = [5.5, 16.0];

/// Viewpoints on each ring of [`NEAR_EDGE_ON_DEGREES`], evenly around it (the second ring turned
/// by half a step, between the first's).
const NEAR_EDGE_ON_AROUND: usize = 12;

/// How many viewpoints [`near_edge_on`] gives: 48.
pub const NEAR_EDGE_ON_DIRECTIONS: usize = NEAR_EDGE_ON_DEGREES.len() * 2 * NEAR_EDGE_ON_AROUND;

/// The extra viewpoints a flat part is seen from when it is indexed, all close to its plane.
/// Seen near edge-on, a flat part's picture changes fastest with the viewpoint: a retaining
/// ring's hole closes to a slit within a few degrees, while the 92 directions around the sphere
/// left 11.6° between the edge-on ring and the next. A photograph taken from between them found
/// a long thin part first (`docs/PERFORMANCE.md`, "flat parts seen near edge-on").
pub fn near_edge_on() -> Vec<Viewpoint> {
    let mut viewpoints = Vec::with_capacity(NEAR_EDGE_ON_DIRECTIONS);
    for (ring, degrees) in NEAR_EDGE_ON_DEGREES.into_iter().enumerate() {
        let turn = if ring % 2 == 1 { 0.5 } else { 0.0 };
        for side in [-1.0_f32, 1.0] {
            let height = (side * degrees).to_radians();
            for step in 0..NEAR_EDGE_ON_AROUND {
                let around =
                    (step as f32 + turn) / NEAR_EDGE_ON_AROUND as f32 * std::f32::consts::TAU;
                viewpoints.push(looking_from(
                    "near edge-on",
                    [
                        height.cos() * around.cos(),
                        height.cos() * around.sin(),
                        height.sin(),
                    ],
                ));
            }
        }
    }
    viewpoints
}

/// The directions of the centres of the icosahedron's 20 faces.
fn face_centres() -> Vec<[f32; 3]> {
    let corners = icosahedron();
    let neighbours = |a: usize, b: usize| dot(corners[a], corners[b]) > 0.4;
    let mut centres = Vec::with_capacity(20);
    for a in 0..corners.len() {
        for b in a + 1..corners.len() {
            for c in b + 1..corners.len() {
                if neighbours(a, b) && neighbours(b, c) && neighbours(a, c) {
                    centres
                        .push(normalised([0, 1, 2].map(|axis| {
                            corners[a][axis] + corners[b][axis] + corners[c][axis]
                        })));
                }
            }
        }
    }
    centres
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalised(a: [f32; 3]) -> [f32; 3] {
    let length = dot(a, a).sqrt();
    if length > 0.0 {
        a.map(|value| value / length)
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewpoints_cover_the_sphere_evenly() {
        for count in [12, 20, 42, 92, 162] {
            let views = around_the_sphere(count);
            assert_eq!(views.len(), count);
            for view in &views {
                assert!((dot(view.right, view.up)).abs() < 1e-5);
                assert!((dot(view.up, view.up) - 1.0).abs() < 1e-5);
            }
        }
        // Any direction is within 21° of one of the 42, within 14° of one of the 92, within 11°
        // of one of the 162.
        for (count, degrees) in [(42, 21_f32), (92, 14.0), (162, 11.0)] {
            assert_every_direction_within(&around_the_sphere(count), degrees);
        }
    }

    /// Asserts that 500 directions spread over the sphere are each within `degrees` of one of the
    /// `views`.
    fn assert_every_direction_within(views: &[Viewpoint], degrees: f32) {
        let towards: Vec<[f32; 3]> = views.iter().map(|v| cross(v.right, v.up)).collect();
        for step in 0..500 {
            let z = 1.0 - 2.0 * (step as f32 + 0.5) / 500.0;
            let angle = step as f32 * 2.399_963;
            let r = (1.0 - z * z).sqrt();
            let probe = [r * angle.cos(), r * angle.sin(), z];
            let closest = towards
                .iter()
                .map(|t| dot(*t, probe))
                .fold(f32::NEG_INFINITY, f32::max);
            assert!(
                closest > degrees.to_radians().cos(),
                "{}: {probe:?}",
                views.len()
            );
        }
    }

    /// The mean angle, in degrees, between each of 2,000 directions spread evenly over the band of
    /// the sphere within `band` degrees of the x–y plane and the closest of `views`.
    fn mean_distance_within_band(views: &[Viewpoint], band: f32) -> f32 {
        let towards: Vec<[f32; 3]> = views.iter().map(|v| cross(v.right, v.up)).collect();
        let limit = band.to_radians().sin();
        let probes = 2000;
        let mut total = 0.0_f32;
        for step in 0..probes {
            let z = limit * (1.0 - 2.0 * (step as f32 + 0.5) / probes as f32);
            let angle = step as f32 * 2.399_963;
            let r = (1.0 - z * z).sqrt();
            let probe = [r * angle.cos(), r * angle.sin(), z];
            let closest = towards
                .iter()
                .map(|t| dot(*t, probe).clamp(-1.0, 1.0))
                .fold(f32::NEG_INFINITY, f32::max);
            total += closest.acos().to_degrees();
        }
        total / probes as f32
    }

    #[test]
    fn a_flat_part_is_seen_from_closer_to_the_directions_near_its_plane() {
        let extra = near_edge_on();
        assert_eq!(extra.len(), NEAR_EDGE_ON_DIRECTIONS);
        for count in [92, 162] {
            let sphere = around_the_sphere(count);
            let flat: Vec<Viewpoint> = sphere
                .iter()
                .copied()
                .chain(extra.iter().copied())
                .collect();
            // Within 20° of the plane a direction is on average 8.0° from the closest of the 92
            // and 5.7° with the extra rings; 6.0° from the closest of the 162 and 4.9° with them.
            let (alone, together) = (
                mean_distance_within_band(&sphere, 20.0),
                mean_distance_within_band(&flat, 20.0),
            );
            assert!(together < alone - 1.0, "{count}: {alone} {together}");
            assert!(together < 6.2, "{count}: {together}");
            // No extra viewpoint repeats one of the sphere's or another extra one.
            let towards: Vec<[f32; 3]> = flat.iter().map(|v| cross(v.right, v.up)).collect();
            for (at, direction) in towards.iter().enumerate() {
                assert!(
                    towards[..at]
                        .iter()
                        .all(|earlier| dot(*earlier, *direction) < 0.9995),
                    "{count}: {direction:?} repeats"
                );
            }
        }
        // Every extra viewpoint is within 16° of the plane.
        for viewpoint in &extra {
            let towards = cross(viewpoint.right, viewpoint.up);
            assert!(
                towards[2].abs() <= 16.01_f32.to_radians().sin(),
                "{towards:?}"
            );
        }
    }

    #[test]
    fn the_search_input_directions_are_32_of_the_indexed_ones() {
        for count in [92, 162] {
            let indexed = around_the_sphere(count);
            let searched = search_input_subset(count);
            assert_eq!(
                searched.len(),
                crate::mesh::SEARCH_INPUT_DIRECTIONS,
                "{count}"
            );
            let mut from = 0;
            for view in &searched {
                let at = indexed[from..]
                    .iter()
                    .position(|known| known.right == view.right && known.up == view.up);
                assert!(at.is_some(), "{view:?} is not one of the {count}, in order");
                from += at.unwrap_or_default() + 1;
            }
            // Spread around the whole sphere: no direction is more than 33° (on the 92) or 36°
            // (on the 162) from one of them.
            assert_every_direction_within(&searched, if count == 92 { 33.0 } else { 36.0 });
        }
    }
}
