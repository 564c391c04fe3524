//! Tests of the OpenCASCADE reader (built with `--features occt`) on the sample library's IGES and
//! STEP files and on hostile input: each sample meshes to its size in millimetres, budgets stop it
//! with a reason, and broken bytes are refused with words, never a crash.

use std::time::Duration;

use super::*;
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
