//! Tests of the OpenCASCADE reader (built with `--features occt`) on the sample library's IGES and
//! STEP files and on hostile input: each sample meshes to its size in millimetres, budgets stop it
//! with a reason, and broken bytes are refused with words, never a crash.

use std::time::Duration;

use super::*;
use crate::realworld_for_tests::realworld_file;
use crate::step::{STEP_TIME_BUDGET, STEP_TRIANGLE_BUDGET};

fn sample(file: &str) -> Vec<u8> {
    let path = format!(
        "{}/assets/samples/models/{file}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
    );
    std::fs::read(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

fn size(mesh: &Mesh) -> [f32; 3] {
    let [low, high] = mesh.bounds().unwrap();
    [0, 1, 2].map(|k| high[k] - low[k])
}

fn near(actual: [f32; 3], expected: [f32; 3]) -> bool {
    (0..3).all(|k| (actual[k] - expected[k]).abs() < 0.02 * expected[k].max(1.0))
}

#[test]
fn opencascade_reads_the_sample_iges_and_step_files() {
    assert!(occt_version().starts_with('7'), "{}", occt_version());
    let budget = StepBudget::default();
    let washer = read_with_occt(CadFormat::Iges, &sample("washer.igs"), budget).unwrap();
    assert!(
        near(size(&washer), [22.8, 22.8, 1.92]),
        "{:?}",
        size(&washer)
    );
    for (file, expected) in [
        ("washer.step", [22.8, 22.8, 1.92]),
        ("flange.step", [160.0, 160.0, 35.37]),
        ("stepped-shaft.step", [100.0, 100.0, 190.0]),
    ] {
        let mesh = read_with_occt(CadFormat::Step, &sample(file), budget).unwrap();
        assert!(mesh.triangles.len() > 50, "{file}");
        assert!(near(size(&mesh), expected), "{file}: {:?}", size(&mesh));
    }
}

#[test]
fn budgets_and_broken_bytes_are_refused_with_words() {
    let flange = sample("flange.step");
    let no_time = StepBudget {
        time: Duration::ZERO,
        triangles: STEP_TRIANGLE_BUDGET,
    };
    assert!(matches!(
        read_with_occt(CadFormat::Step, &flange, no_time),
        Err(GeometryError::OutOfTime { .. })
    ));
    let few = StepBudget {
        time: STEP_TIME_BUDGET,
        triangles: 10,
    };
    let error = read_with_occt(CadFormat::Step, &flange, few).unwrap_err();
    assert!(
        error.to_string().contains("more than 10 triangles"),
        "{error}"
    );
    let half = &flange[..flange.len() / 2];
    let error = read_with_occt(CadFormat::Step, half, StepBudget::default()).unwrap_err();
    assert!(!error.to_string().is_empty());
    for garbage in [&b""[..], b"ISO-10303-21;", &[0xff; 4096]] {
        assert!(read_with_occt(CadFormat::Step, garbage, StepBudget::default()).is_err());
        assert!(read_with_occt(CadFormat::Iges, garbage, StepBudget::default()).is_err());
    }
}

/// A file of the real-world corpus's `iges/` folder (see [`realworld_file`]).
fn realworld_iges(file: &str) -> Option<Vec<u8>> {
    realworld_file(&format!("iges/{file}"))
}

#[test]
fn an_iges_of_curves_only_is_drawn_as_lines() {
    let Some(arcs) = realworld_iges("pyiges__example-arcs.iges") else {
        return;
    };
    let mesh = read_with_occt(CadFormat::Iges, &arcs, StepBudget::default()).unwrap();
    assert!(!mesh.triangles.is_empty());
    assert_eq!(mesh.triangles.len() % TRIANGLES_PER_SEGMENT, 0);
    // Arcs and lines in the plane z = 0, from (-140.76, -187.23) to (172.27, 94.71) mm.
    let extent = [313.03_f32, 281.94];
    let [low, high] = mesh.bounds().unwrap();
    let drawn = size(&mesh);
    for k in 0..2 {
        assert!(
            (drawn[k] - extent[k]).abs() < 0.02 * extent[k],
            "{drawn:?} against {extent:?}"
        );
    }
    assert!(
        (low[0] + 140.76).abs() < 5.0 && (high[1] - 94.71).abs() < 5.0,
        "{low:?} {high:?}"
    );
    // The tubes are thin: a fraction of a percent of the diagonal (about 421 mm).
    assert!(drawn[2] > 0.0 && drawn[2] < 0.01 * 421.0, "{drawn:?}");

    // A file of points only has neither faces nor curves: refused, as before.
    let Some(points) = realworld_iges("pyiges__sample.igs") else {
        return;
    };
    let error = read_with_occt(CadFormat::Iges, &points, StepBudget::default()).unwrap_err();
    assert!(error.to_string().contains("holds only points"), "{error}");

    // The triangle budget bounds the segments too (6 triangles a segment).
    let few = StepBudget {
        time: STEP_TIME_BUDGET,
        triangles: 60,
    };
    let error = read_with_occt(CadFormat::Iges, &arcs, few).unwrap_err();
    assert!(
        error.to_string().contains("more than 10 line segments"),
        "{error}"
    );
}

#[test]
fn a_polyline_becomes_a_thin_tube_wound_outwards() {
    let mut builder = MeshBuilder::default();
    let polyline = [
        [0.0, 0.0, 0.0],
        [10.0, 0.0, 0.0],
        [10.0, 0.0, 0.0],
        [10.0, 5.0, 0.0],
    ];
    tube(&mut builder, &polyline, 0.5).unwrap();
    let mesh = builder.finish();
    // Two segments (the repeated point makes none), 6 triangles each, none degenerate.
    assert_eq!(mesh.triangles.len(), 2 * TRIANGLES_PER_SEGMENT);
    assert!(mesh.triangles.iter().all(|t| mesh.triangle_area(t) > 0.0));
    let [low, high] = mesh.bounds().unwrap();
    assert!(low.iter().all(|&v| v >= -0.5 - 1e-6), "{low:?}");
    assert!(high[0] <= 10.5 + 1e-6 && high[1] <= 5.0 + 1e-6, "{high:?}");
    assert!(high[2] - low[2] > 0.5, "{low:?} {high:?}");
    // Wound outwards: each triangle's normal points away from its segment's axis.
    for (index, triangle) in mesh.triangles.iter().enumerate() {
        let [a, b, c] = triangle.map(|i| mesh.vertices[i as usize].map(f64::from));
        let normal = cross(sub(b, a), sub(c, a));
        let centre = scale(add(add(a, b), c), 1.0 / 3.0);
        let axis_point = if index < TRIANGLES_PER_SEGMENT {
            [centre[0], 0.0, 0.0]
        } else {
            [10.0, centre[1], 0.0]
        };
        assert!(
            dot(normal, sub(centre, axis_point)) > 0.0,
            "triangle {index}"
        );
    }
}
