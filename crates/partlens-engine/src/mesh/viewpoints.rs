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

/// `count` viewpoints evenly around the part: 20 (a dodecahedron's vertices) or `10·f² + 2` for a
/// geodesic sphere of frequency `f` (12, 42, 92, 162); any other count gives 42.
pub fn around_the_sphere(count: usize) -> Vec<Viewpoint> {
    let directions = match count {
        20 => dodecahedron(),
        12 => geodesic(1),
        92 => geodesic(3),
        162 => geodesic(4),
        _ => geodesic(2),
    };
    directions
        .into_iter()
        .map(|direction| looking_from("sphere", direction))
        .collect()
}

/// The viewpoints of [`around_the_sphere`]`(92)` that are also an icosahedron's vertices (12) or
/// the centres of its faces (20): 32 directions spread evenly, each exactly one of the 92 a model
/// is indexed from, so a search input seen from them matches the same views of the same part.
pub fn sphere_subset_of_92() -> Vec<Viewpoint> {
    let wanted: Vec<[f32; 3]> = geodesic(1).into_iter().chain(face_centres()).collect();
    geodesic(3)
        .into_iter()
        .filter(|direction| wanted.iter().any(|known| dot(*known, *direction) > 0.9999))
        .map(|direction| looking_from("sphere", direction))
        .collect()
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
        // Any direction is within 21° of one of the 42, within 14° of one of the 92.
        for (count, degrees) in [(42, 21_f32), (92, 14.0)] {
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

    #[test]
    fn the_search_input_directions_are_32_of_the_92_indexed_ones() {
        let indexed = around_the_sphere(92);
        let searched = sphere_subset_of_92();
        assert_eq!(searched.len(), crate::mesh::SEARCH_INPUT_DIRECTIONS);
        for view in &searched {
            assert!(
                indexed
                    .iter()
                    .any(|known| known.right == view.right && known.up == view.up),
                "{view:?} is not one of the 92"
            );
        }
        // Spread around the whole sphere: no direction is more than 33° from one of them.
        assert_every_direction_within(&searched, 33.0);
    }
}
