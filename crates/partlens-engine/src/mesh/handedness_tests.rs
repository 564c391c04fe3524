//! A model's handedness (`handedness.rs`) on real files of the corpus (`../shared/realworld/`):
//! the Prusa i3's filament-sensor lever (a handed part) as its STEP file, its mirror image (x
//! negated, winding turned), a turned copy, and an ISO 4032 nut (a part with mirror planes).
//! Without the corpus the test says so and passes, except under CI.

use super::{Handedness, Mesh, standard_pose};
use crate::drawing::corpus_tests::corpus_file;

fn handedness(mesh: &Mesh) -> Handedness {
    Handedness::of_posed(&standard_pose(mesh))
}

fn moved(mesh: &Mesh, place: impl Fn([f32; 3]) -> [f32; 3], mirror: bool) -> Mesh {
    Mesh {
        vertices: mesh.vertices.iter().map(|vertex| place(*vertex)).collect(),
        triangles: mesh
            .triangles
            .iter()
            .map(|&[a, b, c]| if mirror { [a, c, b] } else { [a, b, c] })
            .collect(),
    }
}

fn read(relative: &str) -> Option<Mesh> {
    let bytes = corpus_file(relative)?;
    let extension = format!(".{}", relative.rsplit('.').next().unwrap_or_default());
    partlens_geometry::read_model(&extension, &bytes).mesh.ok()
}

#[test]
fn a_mirror_image_is_told_from_the_part_and_a_symmetric_part_has_none() {
    let (Some(lever), Some(nut)) = (
        read("step/prusa_i3__fs-lever.stp"),
        read("step/freecadlib__Nuts__ISO4032_Hex_Nut_M8.step"),
    ) else {
        return;
    };
    let part = handedness(&lever);
    let mirrored = handedness(&moved(&lever, |[x, y, z]| [-x, y, z], true));
    // 53° about z, a quarter turn about x, and another unit (inches): the same hand.
    let turned = handedness(&moved(
        &lever,
        |[x, y, z]| {
            [
                25.4 * (0.6 * x - 0.8 * y),
                -25.4 * z,
                25.4 * (0.8 * x + 0.6 * y),
            ]
        },
        false,
    ));
    assert!(part.is_handed(), "{part:?}");
    assert!(part.mirrors(&mirrored), "{part:?} {mirrored:?}");
    assert!((part.chirality() - mirrored.chirality()).abs() < 1e-4);
    assert!(!part.mirrors(&turned), "{part:?} {turned:?}");
    assert!(!part.mirrors(&part));
    let (nut, nut_mirrored) = (
        handedness(&nut),
        handedness(&moved(&nut, |[x, y, z]| [-x, y, z], true)),
    );
    assert!(!nut.is_handed(), "{nut:?}");
    assert!(!nut.mirrors(&nut_mirrored));
    // Stored in a byte, it keeps its hand and, near the threshold, its chirality.
    let stored = Handedness::from_byte(part.to_byte()).unwrap();
    assert!(stored.mirrors(&mirrored) && !stored.mirrors(&part));
    assert!((stored.chirality() - part.chirality()).abs() < 0.01);
    assert!(Handedness::from_byte(0x80).is_none());
    assert_eq!(
        Handedness::from_byte(Handedness::default().to_byte()),
        Some(Handedness::default())
    );
}
