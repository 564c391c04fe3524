//! Tests of the mesh pipeline on tiny meshes built here: every format parses, hostile input is an
//! error and never a panic, rendering and D2 are deterministic and pose-independent.

use super::*;
use partlens_geometry::read_mesh;

/// A closed tetrahedron, outward-facing, as STL facets.
fn tetrahedron() -> Vec<stl_io::Triangle> {
    let corners = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
        .iter()
        .map(|face| stl_io::Triangle {
            normal: stl_io::Normal::new([0.0, 0.0, 0.0]),
            vertices: face.map(|index: usize| stl_io::Vertex::new(corners[index])),
        })
        .collect()
}

fn binary_stl(facets: &[stl_io::Triangle]) -> Vec<u8> {
    let mut bytes = Vec::new();
    stl_io::write_stl(&mut bytes, facets.iter()).unwrap();
    bytes
}

/// A box with the given sides, centred on the origin, turned by `turn` (a rotation matrix).
fn cuboid(sides: [f32; 3], turn: [[f32; 3]; 3]) -> Mesh {
    let mut vertices = Vec::new();
    for corner in 0..8 {
        let local = [0, 1, 2].map(|k| {
            let sign = if corner & (1 << k) == 0 { -0.5 } else { 0.5 };
            sign * sides[k]
        });
        vertices.push(turn.map(|row| row[0] * local[0] + row[1] * local[1] + row[2] * local[2]));
    }
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let mut triangles = Vec::new();
    for [a, b, c, d] in quads {
        triangles.push([a, b, c]);
        triangles.push([a, c, d]);
    }
    Mesh {
        vertices,
        triangles,
    }
}

const IDENTITY: [[f32; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// A rotation by 40° about z, then 25° about x.
fn turned() -> [[f32; 3]; 3] {
    let (a, b) = (40_f32.to_radians(), 25_f32.to_radians());
    let about_z = [
        [a.cos(), -a.sin(), 0.0],
        [a.sin(), a.cos(), 0.0],
        [0.0, 0.0, 1.0],
    ];
    let about_x = [
        [1.0, 0.0, 0.0],
        [0.0, b.cos(), -b.sin()],
        [0.0, b.sin(), b.cos()],
    ];
    let mut product = [[0.0; 3]; 3];
    for (i, row) in product.iter_mut().enumerate() {
        for (j, value) in row.iter_mut().enumerate() {
            *value = (0..3).map(|k| about_x[i][k] * about_z[k][j]).sum();
        }
    }
    product
}

fn as_stl(mesh: &Mesh) -> Vec<u8> {
    let facets: Vec<stl_io::Triangle> = mesh
        .triangles
        .iter()
        .map(|triangle| stl_io::Triangle {
            normal: stl_io::Normal::new([0.0, 0.0, 0.0]),
            vertices: triangle.map(|index| stl_io::Vertex::new(mesh.vertices[index as usize])),
        })
        .collect();
    binary_stl(&facets)
}

fn undecodable(extension: &str, bytes: &[u8]) -> bool {
    matches!(
        crate::analyze(extension, bytes),
        Err(EngineError::Undecodable { .. })
    )
}

#[test]
fn binary_and_ascii_stl_parse_into_the_same_closed_mesh() {
    let binary = read_mesh(".stl", &binary_stl(&tetrahedron())).unwrap();
    let ascii = read_mesh(
        ".stl",
        b"solid tetra
  facet normal 0 0 -1
    outer loop
      vertex 0 0 0
      vertex 0 1 0
      vertex 1 0 0
    endloop
  endfacet
  facet normal 0 -1 0
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 0 1
    endloop
  endfacet
  facet normal -1 0 0
    outer loop
      vertex 0 0 0
      vertex 0 0 1
      vertex 0 1 0
    endloop
  endfacet
  facet normal 1 1 1
    outer loop
      vertex 1 0 0
      vertex 0 1 0
      vertex 0 0 1
    endloop
  endfacet
endsolid tetra
",
    )
    .unwrap();
    assert_eq!(binary, ascii);
    assert_eq!(binary.triangles.len(), 4);
    assert_eq!(binary.vertices.len(), 4, "corners are welded");
    assert!(is_closed(&binary));
    assert!((volume(&binary) - 1.0 / 6.0).abs() < 1e-6);
    let attributes = mesh_attributes(&binary);
    assert_eq!(
        attributes,
        [
            "bounding_box(mm)=1×1×1",
            "triangles=4",
            "surface_area(mm2)=2.366",
            "volume(mm3)=0.1667"
        ]
    );
}

#[test]
fn obj_polygons_and_relative_indices_parse() {
    let obj = b"# a unit square pyramid
o pyramid
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0.5 0.5 1
f 1 4 3 2
f 1 2 5
f 2 3 5
f -3 -2 -1
f 4 1 5
";
    let mesh = read_mesh(".obj", obj).unwrap();
    assert_eq!(mesh.triangles.len(), 6, "the square base is split in two");
    assert!(is_closed(&mesh));
    assert!((volume(&mesh) - 1.0 / 3.0).abs() < 1e-6);
    // Materials name a file an upload does not have: ignored, not an error.
    let with_material = [b"mtllib parts.mtl\n".as_slice(), obj].concat();
    assert_eq!(read_mesh(".obj", &with_material).unwrap(), mesh);
    // The engine dispatches OBJ (any case) to the mesh pipeline.
    let analysis = crate::analyze(".OBJ", obj).unwrap();
    assert_eq!(analysis.views.len(), super::VIEWS_PER_MODEL);
}

#[test]
fn ascii_and_binary_ply_parse() {
    let ascii = b"ply
format ascii 1.0
element vertex 4
property float x
property float y
property float z
element face 2
property list uchar int vertex_indices
end_header
0 0 0
1 0 0
1 1 0
0 1 0
4 0 1 2 3
3 0 2 3
";
    let mesh = read_mesh(".ply", ascii).unwrap();
    assert_eq!(mesh.vertices.len(), 4);
    assert_eq!(mesh.triangles.len(), 3);
    let mut binary = b"ply
format binary_little_endian 1.0
element vertex 3
property double x
property double y
property double z
element face 1
property list uchar uint vertex_indices
end_header
"
    .to_vec();
    for value in [0.0_f64, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 2.0, 0.0] {
        binary.extend_from_slice(&value.to_le_bytes());
    }
    binary.push(3);
    for index in [0_u32, 1, 2] {
        binary.extend_from_slice(&index.to_le_bytes());
    }
    let mesh = read_mesh(".ply", &binary).unwrap();
    assert_eq!(mesh.triangles, [[0, 1, 2]]);
    assert!(
        crate::analyze(".ply", &binary)
            .unwrap()
            .thumbnail_jpeg
            .is_some()
    );
    assert!((mesh.surface_area() - 2.0).abs() < 1e-9);
}

#[test]
fn broken_and_hostile_meshes_are_undecodable_not_panics() {
    for extension in [".stl", ".obj", ".ply"] {
        assert!(undecodable(extension, b""), "{extension} empty");
        assert!(undecodable(extension, b"\x00\xff garbage"), "{extension}");
    }
    // A binary STL claiming a billion triangles but holding one.
    let mut claim = binary_stl(&tetrahedron()[..1]);
    claim[80..84].copy_from_slice(&1_000_000_000_u32.to_le_bytes());
    assert!(undecodable(".stl", &claim));
    // Truncated in the middle of a triangle.
    let whole = binary_stl(&tetrahedron());
    assert!(undecodable(".stl", &whole[..whole.len() - 7]));
    // Not a number, and no surface at all.
    let mut not_finite = tetrahedron();
    not_finite[0].vertices[0] = stl_io::Vertex::new([f32::NAN, 0.0, 0.0]);
    assert!(undecodable(".stl", &binary_stl(&not_finite)));
    let mut flat = tetrahedron();
    for facet in &mut flat {
        facet.vertices = [stl_io::Vertex::new([1.0, 1.0, 1.0]); 3];
    }
    assert!(undecodable(".stl", &binary_stl(&flat)));
    // Faces naming vertices that do not exist.
    assert!(undecodable(".obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"));
    assert!(undecodable(
        ".ply",
        b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n3 0 1 2\n"
    ));
    // A header claiming four billion vertices is refused before anything is read.
    assert!(undecodable(
        ".ply",
        b"ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
    ));
}

#[test]
fn a_mesh_gets_views_pictures_and_attributes_and_rendering_is_deterministic() {
    let stl = as_stl(&cuboid([40.0, 20.0, 10.0], IDENTITY));
    let analysis = crate::analyze(".STL", &stl).unwrap();
    assert_eq!(analysis.views.len(), super::VIEWS_PER_MODEL);
    assert!(analysis.views.iter().all(|view| view.shape().is_some()));
    let thumbnail = image::load_from_memory(analysis.thumbnail_jpeg.as_deref().unwrap()).unwrap();
    assert_eq!(
        thumbnail.width().max(thumbnail.height()),
        crate::THUMBNAIL_SIZE
    );
    let large = image::load_from_memory(analysis.large_png.as_deref().unwrap()).unwrap();
    assert_eq!(large.width(), VIEW_SIDE);
    assert!(
        analysis
            .extracted_attributes
            .contains(&"bounding_box(mm)=40×20×10".to_owned())
    );
    assert!(
        analysis
            .extracted_attributes
            .contains(&"volume(mm3)=8000".to_owned())
    );
    assert_eq!(crate::analyze(".stl", &stl).unwrap(), analysis);

    // The picture has paper, light surfaces and dark lines.
    let picture = render(
        &standard_pose(&read_mesh(".stl", &stl).unwrap()),
        &VIEWPOINTS[PICTURE_VIEW],
        128,
    );
    let greys: Vec<u8> = picture.pixels().map(|pixel| pixel.0[0]).collect();
    assert_eq!(greys[0], 255);
    assert!(greys.iter().any(|&grey| grey < 60));
    assert!(greys.iter().any(|&grey| (200..255).contains(&grey)));
}

#[test]
fn a_turned_scaled_copy_is_posed_and_drawn_like_the_original() {
    let original = cuboid([4.0, 2.0, 1.0], IDENTITY);
    let mut copy = cuboid([40.0, 20.0, 10.0], turned());
    for vertex in &mut copy.vertices {
        vertex[0] += 100.0;
    }
    let original = crate::analyze(".stl", &as_stl(&original)).unwrap();
    let copy = crate::analyze(".stl", &as_stl(&copy)).unwrap();
    let score = crate::match_views(&original.views, &copy.views);
    assert!(score > 0.95, "{score}");
}

#[test]
fn d2_ignores_pose_and_scale_and_tells_shapes_apart() {
    let cube = ShapeDistribution::of_mesh(&cuboid([1.0, 1.0, 1.0], IDENTITY)).unwrap();
    let cube_again = ShapeDistribution::of_mesh(&cuboid([7.0, 7.0, 7.0], turned())).unwrap();
    let plate = ShapeDistribution::of_mesh(&cuboid([1.0, 1.0, 0.05], IDENTITY)).unwrap();
    let rod = ShapeDistribution::of_mesh(&cuboid([1.0, 0.08, 0.08], turned())).unwrap();
    assert!((cube.bins().iter().sum::<f32>() - 1.0).abs() < 1e-4);
    let same = cube.similarity(&cube_again);
    assert!(same > 0.97, "{same}");
    for other in [&plate, &rod] {
        let different = cube.similarity(other);
        assert!(different < same - 0.15, "{different} vs {same}");
    }
    assert!(plate.similarity(&rod) < 0.85);
    // Deterministic, and the stored form reads back.
    assert_eq!(
        ShapeDistribution::of_mesh(&cuboid([1.0, 1.0, 1.0], IDENTITY)).unwrap(),
        cube
    );
    let stored = ShapeDistribution::from_bytes(&cube.to_bytes()).unwrap();
    assert!(stored.similarity(&cube) > 0.999);
    assert!(ShapeDistribution::from_bytes(&[0; 3]).is_none());
    assert!(ShapeDistribution::from_bytes(&[0; ShapeDistribution::STORED_LEN]).is_none());
    assert!(ShapeDistribution::of_mesh(&Mesh::default()).is_none());
}

#[test]
fn views_of_a_mesh_keep_their_shape_in_storage_and_pictures_have_none() {
    let analysis = crate::analyze(".stl", &as_stl(&cuboid([3.0, 2.0, 1.0], IDENTITY))).unwrap();
    let view = &analysis.views[0];
    let stored = ViewDescriptor::from_bytes(&view.to_bytes()).unwrap();
    assert_eq!(stored.similarity(view), view.similarity(view));
    assert!(stored.shape().unwrap().similarity(view.shape().unwrap()) > 0.999);
    let picture = view.clone().with_shape(None);
    let picture_bytes = picture.to_bytes();
    assert!(picture_bytes.len() < view.to_bytes().len());
    assert_eq!(ViewDescriptor::from_bytes(&picture_bytes).unwrap(), picture);
    let mut damaged = view.to_bytes();
    let at = damaged.len() - 10;
    damaged[at] ^= 0x40;
    assert!(ViewDescriptor::from_bytes(&damaged).is_err());
}

/// The views of a brick model and of a turned rod model.
fn brick_and_rod() -> (Vec<ViewDescriptor>, Vec<ViewDescriptor>) {
    let views = |mesh: &Mesh| crate::analyze(".stl", &as_stl(mesh)).unwrap().views;
    (
        views(&cuboid([4.0, 2.0, 1.0], IDENTITY)),
        views(&cuboid([6.0, 0.5, 0.5], turned())),
    )
}

#[test]
fn the_index_scores_meshes_and_pictures_as_match_views_does() {
    use crate::{VisualIndex, match_views, rank_by_matching_every_file};
    let (brick, rod) = brick_and_rod();
    // Pictures: the brick's own renderings without a shape, one and three of them.
    let pictures: Vec<ViewDescriptor> = brick
        .iter()
        .map(|view| view.clone().with_shape(None))
        .collect();
    let drawing: Vec<ViewDescriptor> = pictures[1..2]
        .iter()
        .map(|view| view.clone().as_drawing(true))
        .collect();
    let files = vec![
        ("brick".to_owned(), brick.clone()),
        ("rod".to_owned(), rod.clone()),
        ("front".to_owned(), pictures[1..2].to_vec()),
        ("three".to_owned(), pictures[..3].to_vec()),
        ("drawing".to_owned(), drawing),
    ];
    let mut index = VisualIndex::new();
    for (key, views) in &files {
        index.insert(key.clone(), views.clone());
    }
    for query in [
        &brick,
        &rod,
        &pictures[..2].to_vec(),
        &pictures[3..4].to_vec(),
    ] {
        let expected = rank_by_matching_every_file(&files, query, |_| true, 10);
        assert_eq!(index.rank(query, |_| true, 10), expected);
    }
    // A mesh finds itself; a mesh query scores a picture by the picture's best view of it; the
    // same picture twice matches the mesh fully (a mesh's views are alternatives).
    assert_eq!(index.rank(&brick, |_| true, 1)[0].0, "brick");
    assert!((match_views(&brick, &pictures[1..2]) - 1.0).abs() < 1e-4);
    let twice = [pictures[1].clone(), pictures[1].clone()];
    assert!((match_views(&twice, &brick) - 1.0).abs() < 1e-4);
    assert!(match_views(&brick, &rod) < match_views(&brick, &brick) - 0.1);
}

#[test]
fn a_models_score_for_pictures_comes_from_the_views_they_match_best() {
    use crate::{match_views, match_views_on_deciding_views};
    let (brick, rod) = brick_and_rod();
    // Two pictures of the rod searched against the brick model.
    let query: Vec<ViewDescriptor> = [3, 9]
        .iter()
        .map(|&at| rod[at].clone().with_shape(None))
        .collect();
    let best_of = |query_view: &ViewDescriptor| {
        (0..brick.len())
            .max_by(|&a, &b| {
                query_view
                    .similarity(&brick[a])
                    .total_cmp(&query_view.similarity(&brick[b]))
            })
            .unwrap()
    };
    let deciding: Vec<ViewDescriptor> = [best_of(&query[1]), best_of(&query[0]), 0]
        .iter()
        .map(|&at| brick[at].clone())
        .collect();
    let whole = match_views(&query, &brick);
    assert_eq!(
        match_views_on_deciding_views(&query, &deciding).to_bits(),
        whole.to_bits()
    );
    // Without the views that decide it (the first picture's best and any as good), it is lower.
    let best = query[0].similarity(&brick[best_of(&query[0])]);
    let others: Vec<ViewDescriptor> = brick
        .iter()
        .filter(|view| query[0].similarity(view) < best)
        .cloned()
        .collect();
    assert!(match_views_on_deciding_views(&query, &others) < whole);
}

#[test]
fn a_drawing_loses_against_a_model_searched_by_unless_it_names_the_models_part_number() {
    use crate::{DRAWING_PENALTY, match_views};
    let brick = crate::analyze(".stl", &as_stl(&cuboid([4.0, 2.0, 1.0], IDENTITY)))
        .unwrap()
        .views;
    let picture = vec![brick[1].clone().with_shape(None)];
    let drawing = vec![picture[0].clone().as_drawing(true)];
    let as_picture = match_views(&brick, &picture);
    // The same view as a drawing's: less by the penalty, for a model searched by only.
    assert!((match_views(&brick, &drawing) - (as_picture - DRAWING_PENALTY)).abs() < 1e-6);
    assert_eq!(
        match_views(&picture, &drawing),
        match_views(&picture, &picture)
    );
    // A drawing that states the model's part number is not a drawing of something else.
    let keys = crate::part_number_keys(&["part_number=PN 10-2234".to_owned()]);
    let numbered: Vec<ViewDescriptor> = brick
        .iter()
        .map(|view| view.clone().with_part_numbers(keys.clone()))
        .collect();
    let named = vec![
        drawing[0]
            .clone()
            .with_part_numbers(crate::part_number_keys(&[
                "drawing_number=10-2234|A7".to_owned()
            ])),
    ];
    assert_eq!(match_views(&numbered, &named), as_picture);
    let other = vec![
        drawing[0]
            .clone()
            .with_part_numbers(crate::part_number_keys(&["part_number=10-2235".to_owned()])),
    ];
    assert!((match_views(&numbered, &other) - (as_picture - DRAWING_PENALTY)).abs() < 1e-6);
}

/// A 6 × 0.5 × 0.5 rod along x with a 0.6 × 1.2 × 1.2 head at its −x end (`side` −1) or +x end.
fn headed_rod(side: f32) -> Mesh {
    let mut rod = cuboid([6.0, 0.5, 0.5], IDENTITY);
    let head = cuboid([0.6, 1.2, 1.2], IDENTITY);
    let offset = rod.vertices.len() as u32;
    rod.vertices.extend(
        head.vertices
            .iter()
            .map(|v| [v[0] + side * 2.7, v[1], v[2]]),
    );
    rod.triangles
        .extend(head.triangles.iter().map(|t| t.map(|i| i + offset)));
    rod
}

#[test]
fn ends_tell_a_head_from_none_whatever_the_ends_order_and_survive_storage() {
    let headed = PartDescriptors::of_posed(&headed_rod(-1.0)).unwrap();
    let turned = PartDescriptors::of_posed(&headed_rod(1.0)).unwrap();
    let plain = PartDescriptors::of_posed(&cuboid([6.0, 0.5, 0.5], IDENTITY)).unwrap();
    // The rod with its head at the other end has the same ends (compared in either pairing).
    assert!(headed.ends_similarity(&turned) > 0.99);
    assert!(headed.ends_similarity(&plain) < headed.ends_similarity(&turned) - 0.05);
    assert!((plain.elongation() - 12.0).abs() < 0.01);
    let stored = PartDescriptors::from_bytes(&headed.to_bytes()).unwrap();
    assert!((stored.ends_similarity(&headed) - 1.0).abs() < 0.01);
    assert!((stored.elongation() - headed.elongation()).abs() < 0.001);
    assert!(PartDescriptors::from_bytes(&[0; 3]).is_none());
    assert!(PartDescriptors::of_posed(&Mesh::default()).is_none());
}

#[test]
fn an_elongated_model_searched_by_compares_its_ends_with_a_models() {
    use crate::{ENDS_WEIGHT, match_views};
    // A rod with a head at one end (a screw, roughly) and the same rod without its head.
    let headed = crate::analyze(".stl", &as_stl(&headed_rod(-1.0)))
        .unwrap()
        .views;
    let plain = crate::analyze(".stl", &as_stl(&cuboid([6.0, 0.5, 0.5], IDENTITY)))
        .unwrap()
        .views;
    let parts = |views: &[ViewDescriptor]| views[0].facts().parts().unwrap().clone();
    assert!(parts(&headed).elongation() >= crate::ELONGATED_FROM);
    let ends = parts(&headed).ends_similarity(&parts(&plain));
    assert!(ends < 0.95, "{ends}");
    // The same score as without the parts' descriptors, less the ends' difference.
    let without = |views: &[ViewDescriptor]| -> Vec<ViewDescriptor> {
        views
            .iter()
            .map(|view| view.clone().with_parts(None))
            .collect()
    };
    let whole = match_views(&without(&headed), &without(&plain));
    let scored = match_views(&headed, &plain);
    assert!((scored - (whole - ENDS_WEIGHT * (1.0 - ends))).abs() < 1e-5);
    assert!((match_views(&headed, &headed) - 1.0).abs() < 1e-4);
    // Every view of a model carries the same parts' descriptors, and keeps them in storage.
    assert!(
        headed
            .iter()
            .all(|view| view.facts().parts() == Some(&parts(&headed)))
    );
    let stored = ViewDescriptor::from_bytes(&headed[0].to_bytes()).unwrap();
    let kept = stored.facts().parts().unwrap();
    assert!((kept.ends_similarity(&parts(&headed)) - 1.0).abs() < 0.01);
}

#[test]
fn a_model_searched_by_has_32_views_of_a_database_file_in_order_but_no_large_image() {
    let stl = as_stl(&cuboid([40.0, 20.0, 10.0], turned()));
    let limits = crate::ExtractionLimits::default();
    let database = crate::analyze_for(Purpose::DatabaseFile, ".stl", &stl, &limits).unwrap();
    let input = crate::analyze_for(Purpose::SearchInput, ".stl", &stl, &limits).unwrap();
    // A search input is seen from 32 of the indexed directions, rendered on several threads: each of
    // its views is the database file's view from that direction, in the same order, and the
    // picture comes last in both.
    assert_eq!(input.views.len(), SEARCH_INPUT_DIRECTIONS + 1);
    assert_eq!(database.views.len(), VIEWS_PER_MODEL);
    let mut from = 0;
    for view in &input.views {
        let at = database.views[from..]
            .iter()
            .position(|indexed| indexed == view)
            .expect("each view of the search input is a view of the database file, in order");
        from += at + 1;
    }
    assert_eq!(input.views.last(), database.views.last());
    assert_eq!(input.thumbnail_jpeg, database.thumbnail_jpeg);
    assert_eq!(input.extracted_attributes, database.extracted_attributes);
    assert!(database.large_png.is_some());
    assert_eq!(input.large_png, None);
    // However many threads, in the items' order.
    let items: Vec<usize> = (0..93).collect();
    for threads in [1, 2, 3, 4, 200] {
        assert_eq!(
            in_order_on_threads(&items, threads, |item| item * 2),
            (0..186).step_by(2).collect::<Vec<_>>()
        );
    }
}

#[test]
fn a_flat_part_is_also_seen_near_edge_on_and_other_parts_are_not() {
    // A washer-like plate (turned: the pose finds its plane), a plate just too thick, a rod
    // (thin along two axes) and a cube.
    for (sides, flat) in [
        ([20.0, 18.0, 2.0], true),
        ([20.0, 10.0, 3.2], false),
        ([40.0, 3.0, 2.8], false),
        ([5.0, 5.0, 5.0], false),
    ] {
        let mesh = cuboid(sides, turned());
        assert_eq!(is_flat(&standard_pose(&mesh)), flat, "{sides:?}");
        let limits = crate::ExtractionLimits::default();
        let stl = as_stl(&mesh);
        let database = crate::analyze_for(Purpose::DatabaseFile, ".stl", &stl, &limits).unwrap();
        let input = crate::analyze_for(Purpose::SearchInput, ".stl", &stl, &limits).unwrap();
        let expected = if flat {
            VIEWS_PER_FLAT_MODEL
        } else {
            VIEWS_PER_MODEL
        };
        assert_eq!(database.views.len(), expected, "{sides:?}");
        // A search input is seen from its 32 directions whatever its shape, and the picture
        // comes last either way.
        assert_eq!(input.views.len(), SEARCH_INPUT_DIRECTIONS + 1, "{sides:?}");
        assert_eq!(input.views.last(), database.views.last(), "{sides:?}");
        // And they are found among the database file's views where the engine says they are.
        let positions = search_input_views_of_database_model(database.views.len())
            .expect("a database model of the current pipeline");
        let picked: Vec<&ViewDescriptor> =
            positions.iter().map(|&at| &database.views[at]).collect();
        assert_eq!(picked, input.views.iter().collect::<Vec<_>>(), "{sides:?}");
    }
    assert_eq!(search_input_views_of_database_model(1), None, "a picture");
    assert_eq!(
        search_input_views_of_database_model(VIEWS_PER_MODEL - 1),
        None
    );
    // No triangles: nothing to measure, not flat.
    assert!(!is_flat(&Mesh {
        vertices: vec![[0.0; 3]; 3],
        triangles: Vec::new(),
    }));
}

#[test]
fn a_framed_view_sees_the_part_in_perspective_its_near_edge_longer_than_its_far_edge() {
    // A square in the xy plane, its corners at radius 1 (a posed part's size), seen from 45°
    // above its −y edge: that edge is nearer the eye and at the bottom of the picture.
    let half = std::f32::consts::FRAC_1_SQRT_2;
    let square = Mesh {
        vertices: vec![
            [-half, -half, 0.0],
            [half, -half, 0.0],
            [half, half, 0.0],
            [-half, half, 0.0],
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    };
    let slant = Viewpoint {
        name: "slant",
        right: [1.0, 0.0, 0.0],
        up: [0.0, half, half],
    };
    let framed = render_framed(&square, &slant);
    let side = crate::framing::FRAMED_SIDE;
    let widths: Vec<usize> = framed
        .silhouette
        .chunks(side)
        .map(|row| row.iter().filter(|&&weight| weight > 0.5).count())
        .filter(|&width| width > 0)
        .collect();
    assert!(widths.len() > side / 4, "the square is on the picture");
    let (far, near) = (widths[1], widths[widths.len() - 2]);
    // Its edges are 0.5 nearer and farther than its centre: seen from `EYE_DISTANCE` radii they
    // are in the ratio (d + 0.5) / (d − 0.5) on the picture; in parallel projection, equal.
    let expected = (render::EYE_DISTANCE + 0.5) / (render::EYE_DISTANCE - 0.5);
    let measured = near as f32 / far as f32;
    assert!(
        (measured - expected).abs() < 0.04,
        "near edge {near} px, far edge {far} px: {measured} against {expected}"
    );
    // Every row between is wider than the one above it, or as wide: a trapezoid.
    assert!(
        widths[1..widths.len() - 1]
            .windows(2)
            .all(|pair| pair[1] + 1 >= pair[0])
    );
}

#[test]
fn a_large_librarys_graph_views_are_spread_evenly_nested_and_keep_the_search_inputs() {
    let sphere: Vec<[f32; 3]> = around_the_sphere(VIEW_DIRECTIONS)
        .iter()
        .map(Viewpoint::towards_viewer)
        .collect();
    // The largest angle from any of the 162 directions to the nearest kept one, as a cosine.
    let worst_cosine = |kept: &[usize]| {
        sphere
            .iter()
            .map(|direction| {
                kept.iter()
                    .map(|&at| {
                        let other = sphere[at];
                        direction[0] * other[0] + direction[1] * other[1] + direction[2] * other[2]
                    })
                    .fold(f32::NEG_INFINITY, f32::max)
            })
            .fold(f32::INFINITY, f32::min)
    };
    let ninety_two = spread_positions(VIEW_DIRECTIONS, 92);
    let sixty_two = spread_positions(VIEW_DIRECTIONS, 62);
    assert_eq!(ninety_two.len(), 92);
    assert_eq!(&ninety_two[..62], &sixty_two[..], "nested");
    let inputs = search_input_positions(VIEW_DIRECTIONS);
    assert!(inputs.iter().all(|at| ninety_two.contains(at)));
    // Spread: each of the 162 within 18° of one of the 92 (the 32 of the search input leave 31.7°).
    assert!(worst_cosine(&ninety_two) > 18.5_f32.to_radians().cos());
    assert!(worst_cosine(&inputs) < 25.0_f32.to_radians().cos());
    let flat = spread_views_of_database_model(VIEWS_PER_FLAT_MODEL, 92).unwrap_or_default();
    assert_eq!(
        flat.len(),
        93,
        "the 92 and the picture, no near-edge-on view"
    );
    assert_eq!(flat.last(), Some(&(VIEWS_PER_FLAT_MODEL - 1)));
    assert!(flat.windows(2).all(|pair| pair[0] < pair[1]));
    assert_eq!(spread_views_of_database_model(VIEWS_PER_MODEL, 162), None);
    assert_eq!(spread_views_of_database_model(1, 92), None, "a picture");
}
