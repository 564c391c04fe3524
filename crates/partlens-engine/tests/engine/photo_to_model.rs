//! Photo → model, the quick guard of the quality benchmark (`benches/photo_quality.rs`): a small,
//! fixed slice of the project's quality set (`tests/engine/quality_set/`) — one variant of three kinds of
//! part as STL models, photographed shaded from viewpoints the engine never renders, on coloured
//! backgrounds, with grain, blur and JPEG — where each photograph, alone and with the other of its
//! part, must find the model of its kind first. The whole benchmark measures the share of such hits
//! on fifty parts in a release build; this keeps a debug build to seconds (the models' 162 rendered
//! views each are most of it).

// A failure is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::quality_set;

use partlens_engine::{ViewDescriptor, VisualIndex, analyze};

/// Kinds in the slice (indices into `quality_set::FAMILIES`): spur gear, bolt, coil spring.
const KINDS: [usize; 3] = [0, 4, 8];
/// Photographs a part.
const PHOTOS_PER_PART: usize = 2;
/// Width and height of a photograph: three quarters of the benchmark's, as the photographer's renderer is
/// not optimised in a debug build.
const PHOTO_SIZE: (u32, u32) = (480, 360);

#[test]
fn a_photograph_finds_a_model_of_its_kind_first() {
    let parts: Vec<quality_set::Part> = quality_set::parts_of(&KINDS)
        .into_iter()
        .filter(|part| part.variant == 0)
        .collect();
    let mut models = VisualIndex::new();
    for part in &parts {
        let views = analyze(".stl", &part.stl()).unwrap().views;
        models.insert(part.name.clone(), views);
    }
    let shots = quality_set::shots(quality_set::QUERY_SEED, parts.len() * PHOTOS_PER_PART);
    let mut misses = Vec::new();
    for (number, part) in parts.iter().enumerate() {
        let mut together: Vec<ViewDescriptor> = Vec::new();
        for shot in &shots[number * PHOTOS_PER_PART..(number + 1) * PHOTOS_PER_PART] {
            let photo = quality_set::photograph(&part.triangles, shot, PHOTO_SIZE.0, PHOTO_SIZE.1);
            let jpeg = quality_set::jpeg(&photo, shot.jpeg_quality);
            let views = analyze(".jpg", &jpeg).unwrap().views;
            let ranked = models.rank(&views, |_| true, parts.len());
            if ranked[0].0 != part.name {
                misses.push(format!("{} photographed {shot:?}: {ranked:?}", part.name));
            }
            together.extend(views);
        }
        let ranked = models.rank(&together, |_| true, parts.len());
        if ranked[0].0 != part.name {
            misses.push(format!("{}, all photographs: {ranked:?}", part.name));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}
