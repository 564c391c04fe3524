//! Tests of the STEP reader on the sample library's STEP files (written by
//! `examples/make_sample_cad_models.rs`) and on hostile variants of them: each limit of the module
//! doc refuses its case with a reason, and a file whose shape is refused still gives its product
//! data.

use std::time::Duration;

use super::*;
use crate::Mesh;
use crate::realworld_for_tests::realworld_file;

fn sample(stem: &str) -> String {
    let path = format!(
        "{}/assets/samples/models/{stem}.step",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn size(mesh: &Mesh) -> [f32; 3] {
    let [low, high] = mesh.bounds().unwrap();
    [0, 1, 2].map(|k| high[k] - low[k])
}

fn assert_near(actual: [f32; 3], expected: [f32; 3]) {
    for k in 0..3 {
        assert!(
            (actual[k] - expected[k]).abs() < 0.02 * expected[k].max(1.0),
            "{actual:?} is not {expected:?}"
        );
    }
}

/// The reason a reading failed, in words.
fn failure(reading: &ModelReading) -> String {
    match &reading.mesh {
        Ok(mesh) => panic!("read {} triangles", mesh.triangles.len()),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_sample_step_models_mesh_to_their_size_with_their_product_data() {
    let expected = [
        ("washer", [22.8, 22.8, 1.92], "PL-1004"),
        ("flange", [160.0, 160.0, 35.37], "PL-1002"),
        ("stepped-shaft", [100.0, 100.0, 190.0], "PL-1007"),
    ];
    for (stem, dimensions, part_number) in expected {
        let reading = read_step(sample(stem).as_bytes());
        let mesh = reading
            .mesh
            .unwrap_or_else(|error| panic!("{stem}: {error}"));
        assert!(
            mesh.triangles.len() > 50,
            "{stem}: {}",
            mesh.triangles.len()
        );
        assert_near(size(&mesh), dimensions);
        let attributes = &reading.description.attributes;
        assert!(
            attributes.contains(&format!("part_number={part_number}")),
            "{stem}: {attributes:?}"
        );
        assert!(attributes.contains(&"step_schema=AP214".to_owned()));
        assert!(attributes.iter().any(|a| a.starts_with("material=")));
        assert!(reading.description.text.contains(part_number));
        // The same bytes give the same mesh.
        assert_eq!(
            read_step(sample(stem).as_bytes()).mesh.unwrap(),
            mesh,
            "{stem}"
        );
    }
}

#[test]
fn a_file_in_metres_is_measured_in_millimetres() {
    // The washer's coordinates divided by 1000 and its unit made the metre.
    let millimetres = sample("washer");
    let metres: String = millimetres
        .lines()
        .map(|line| {
            let line = line.replace("SI_UNIT(.MILLI.,.METRE.)", "SI_UNIT($,.METRE.)");
            match line.split_once("CARTESIAN_POINT('',(") {
                Some((head, rest)) => {
                    let (numbers, tail) = rest.split_once(')').unwrap();
                    let scaled: Vec<String> = numbers
                        .split(',')
                        .map(|n| format!("{:?}", n.parse::<f64>().unwrap() / 1000.0))
                        .collect();
                    format!("{head}CARTESIAN_POINT('',({}){tail}", scaled.join(","))
                }
                // Radii and vector lengths are lengths too.
                None if ["CIRCLE(", "CYLINDRICAL_SURFACE(", "VECTOR("]
                    .iter()
                    .any(|entity| line.contains(entity)) =>
                {
                    let (head, radius) = line.rsplit_once(',').unwrap();
                    let radius: f64 = radius.trim_end_matches(");").parse().unwrap();
                    format!("{head},{:?});", radius / 1000.0)
                }
                None => line,
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mesh = read_step(metres.as_bytes()).mesh.unwrap();
    assert_near(size(&mesh), [22.8, 22.8, 1.92]);
}

#[test]
fn a_truncated_file_is_refused_with_a_reason() {
    let whole = sample("flange");
    for cut in [whole.len() / 2, whole.len() - 25, 40] {
        let reason = failure(&read_step(&whole.as_bytes()[..cut]));
        assert!(reason.contains("truncated"), "{cut}: {reason}");
    }
    let garbled = whole.replacen("#7=", "#7 ", 1);
    let reason = failure(&read_step(garbled.as_bytes()));
    assert!(reason.contains("does not parse (line"), "{reason}");
}

#[test]
fn a_self_referencing_entity_is_refused_and_the_product_data_kept() {
    let text = sample("washer");
    let line = text
        .lines()
        .find(|line| line.contains("=VERTEX_POINT("))
        .unwrap();
    let id = &line[1..line.find('=').unwrap()];
    let looped = text.replace(line, &format!("#{id}=VERTEX_POINT('',#{id});"));
    let reading = read_step(looped.as_bytes());
    let reason = failure(&reading);
    assert!(
        reason.contains(&format!("#{id} refers back to itself")),
        "{reason}"
    );
    assert!(
        reading
            .description
            .attributes
            .contains(&"part_number=PL-1004".to_owned()),
        "the product data is read before the shape is refused"
    );
}

#[test]
fn huge_counts_are_refused_before_anything_is_allocated() {
    // A B-spline edge claiming a billion knots, put under the washer's shell in place of a line.
    let text = sample("washer");
    let line = text.lines().find(|line| line.contains("=LINE(")).unwrap();
    let id = &line[1..line.find('=').unwrap()];
    let huge = text.replace(
        line,
        &format!(
            "#{id}=B_SPLINE_CURVE_WITH_KNOTS('',3,(#1,#1,#1,#1),.UNSPECIFIED.,.F.,.F.,(1000000000,4),(0.,1.),.UNSPECIFIED.);"
        ),
    );
    let reason = failure(&read_step(huge.as_bytes()));
    assert!(reason.contains("1000000000"), "{reason}");
    // A file claiming more instances than the limit.
    let many = format!(
        "ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\n{}ENDSEC;\nEND-ISO-10303-21;\n",
        "#1=X();".repeat(MAX_ENTITIES + 1)
    );
    assert!(failure(&read_step(many.as_bytes())).contains("entity instances"));
    // Brackets nested past the limit.
    let deep = format!(
        "ISO-10303-21;\nHEADER;\nENDSEC;\nDATA;\n#1=X({}1{});\nENDSEC;\nEND-ISO-10303-21;\n",
        "(".repeat(MAX_NESTING + 1),
        ")".repeat(MAX_NESTING + 1)
    );
    assert!(failure(&read_step(deep.as_bytes())).contains("nest deeper"));
}

#[test]
fn a_file_over_the_size_limit_is_refused_unread() {
    let mut huge = sample("washer").into_bytes();
    huge.resize(MAX_STEP_BYTES + 1, b' ');
    let reading = read_step(&huge);
    assert!(matches!(reading.mesh, Err(GeometryError::TooLarge { .. })));
    assert!(reading.description.is_empty());
}

#[test]
fn meshing_stops_at_the_time_and_triangle_budgets() {
    let flange = sample("flange");
    let no_time = StepBudget {
        time: Duration::ZERO,
        triangles: STEP_TRIANGLE_BUDGET,
    };
    let reading = read_step_within(flange.as_bytes(), no_time);
    assert!(
        matches!(reading.mesh, Err(GeometryError::OutOfTime { .. })),
        "{:?}",
        reading.mesh
    );
    assert!(!reading.description.is_empty());
    let few_triangles = StepBudget {
        time: STEP_TIME_BUDGET,
        triangles: 100,
    };
    let reason = failure(&read_step_within(flange.as_bytes(), few_triangles));
    assert!(reason.contains("sample points"), "{reason}");
}

#[test]
fn a_file_without_a_shell_gives_its_words_and_says_why_it_has_no_shape() {
    let text = sample("washer");
    let without_shell: String = text
        .lines()
        .filter(|line| !line.contains("CLOSED_SHELL") && !line.contains("MANIFOLD_SOLID_BREP"))
        .collect::<Vec<_>>()
        .join("\n");
    let reading = read_step(without_shell.as_bytes());
    assert!(failure(&reading).contains("no B-rep shell"));
    assert!(reading.description.text.contains("Washer"));
}

#[test]
fn a_plane_cutting_a_cone_leaves_an_edge_between_its_corners() {
    // FreeCAD's Futaba 3003 four-arm servo horn: each arm's chamfer (a cone) meets its flat side
    // in a hyperbola. truck put those edges on another stretch of the hyperbola, 3 mm above the
    // horn, and meshed the chamfers out to them: 9.4 mm tall instead of the 6.3 of its STL.
    let Some(bytes) = realworld_file("step/freecadlib__Servos__Futaba3003-4-arms-horn.step") else {
        return;
    };
    let mesh = read_step(&bytes).mesh.unwrap();
    assert_near(size(&mesh), [38.85, 38.85, 6.3]);
}

#[test]
fn a_face_meshed_over_its_untrimmed_surface_is_left_out() {
    // NIST's CTC 02 test part (a 400 × 680 × 860 mm casting): truck meshed six of its faces over
    // their untrimmed surfaces, one reaching 120 mm past the part, which read 980 mm long.
    let Some(bytes) = realworld_file("step/nist_mbe_pmi__nist_ctc_02_asme1_ap242-1.stp") else {
        return;
    };
    let mesh = read_step(&bytes).mesh.unwrap();
    let mut extents = size(&mesh);
    extents.sort_by(f32::total_cmp);
    assert_near(extents, [400.0, 680.0, 860.0]);
}
