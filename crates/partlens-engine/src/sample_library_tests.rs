//! The committed sample library (`assets/samples/`, made by `examples/make_samples.rs`,
//! `examples/make_sample_models.rs`, `examples/make_sample_drawings.rs` and
//! `examples/make_sample_cad_models.rs`) works with the engine: each part picture's two query views,
//! alone and together, rank that part first among the whole library (its STL or STEP model or its
//! DXF/PDF drawing may come before its picture, every other part clearly behind); the pictures of a
//! part find a model of it first among the models, and every model finds itself (or the part's
//! model in the other format, which renders the same). Models and drawings have no query views of
//! their own.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::LazyLock;

use super::{ViewDescriptor, VisualIndex, analyze};
use crate::samples::{SamplePart, read_manifest};

fn samples_folder() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("assets/samples")
}

/// The parts of the committed library, in manifest order.
fn sample_parts() -> Vec<SamplePart> {
    read_manifest(&samples_folder()).unwrap().parts
}

fn analysed(file: &str) -> Vec<ViewDescriptor> {
    let path = samples_folder().join(file);
    let bytes = std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let extension = format!(
        ".{}",
        path.extension()
            .and_then(|e| e.to_str())
            .unwrap_or_default()
    );
    analyze(&extension, &bytes).unwrap().views
}

/// The views of every file of the library and of every query view, analysed once for all the tests
/// here (a model's many rendered views are the slow part of a debug build).
static VIEWS: LazyLock<HashMap<String, Vec<ViewDescriptor>>> = LazyLock::new(|| {
    let mut files: Vec<String> = Vec::new();
    for part in sample_parts() {
        files.push(part.file.clone());
        files.extend(part.views.iter().cloned());
        if let Some(name) = part.file.strip_prefix("models/").and_then(|file| {
            file.strip_suffix(".stl")
                .or_else(|| file.strip_suffix(".step"))
        }) {
            files.push(format!("views/{name}-a.png"));
            files.push(format!("views/{name}-b.jpg"));
        }
    }
    files.sort();
    files.dedup();
    files
        .into_iter()
        .map(|file| {
            let views = analysed(&file);
            (file, views)
        })
        .collect()
});

fn views_of(file: &str) -> Vec<ViewDescriptor> {
    VIEWS
        .get(file)
        .unwrap_or_else(|| panic!("{file} is not in the library"))
        .clone()
}

#[test]
fn every_sample_part_is_found_first_from_its_query_views() {
    let parts = sample_parts();
    assert!(parts.len() >= 12);
    let mut index = VisualIndex::new();
    for part in &parts {
        assert!(part.stored_path.starts_with("Samples/"));
        assert!(!part.attributes.is_empty());
        index.insert(part.stored_path.clone(), views_of(&part.file));
    }
    assert_eq!(index.len(), parts.len());
    let part_number_of = |stored_path: &str| {
        parts
            .iter()
            .find(|part| part.stored_path == stored_path)
            .and_then(|part| {
                part.attributes
                    .iter()
                    .find_map(|text| text.strip_prefix("part_number="))
            })
            .unwrap()
            .to_owned()
    };
    let mut drawings = 0;
    let mut failures = Vec::new();
    for part in &parts {
        let stored_path = part.stored_path.as_str();
        let file = part.file.as_str();
        if file.starts_with("models/") || file.starts_with("drawings/") {
            drawings += usize::from(file.starts_with("drawings/"));
            // No query views: the models are checked by the test below.
            assert!(part.views.is_empty());
            continue;
        }
        let views: Vec<ViewDescriptor> =
            part.views.iter().flat_map(|view| views_of(view)).collect();
        assert_eq!(views.len(), 2, "{stored_path}");
        // The part's picture comes first, or after other files of the same part only (its model,
        // its drawing); either way the part is clearly ahead of every other part.
        let part_number = part_number_of(stored_path);
        let same_part = |key: &str| part_number_of(key) == part_number;
        for query in views.chunks(1).chain([views.as_slice()]) {
            let ranked = index.rank(query, |_| true, usize::MAX);
            let picture_at = ranked
                .iter()
                .position(|(key, _)| key == stored_path)
                .unwrap();
            let other = ranked.iter().find(|(key, _)| !same_part(key)).unwrap();
            if !ranked[..picture_at].iter().all(|(key, _)| same_part(key))
                || ranked[0].1 <= other.1 + 0.05
            {
                failures.push(format!(
                    "{stored_path} ({} views): {:?}",
                    query.len(),
                    &ranked[..4]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(drawings, 3);
}

#[test]
fn sample_models_are_found_from_the_part_pictures_and_from_themselves() {
    let parts = sample_parts();
    let models: Vec<(&str, &str)> = parts
        .iter()
        .filter(|part| part.file.starts_with("models/"))
        .map(|part| (part.file.as_str(), part.stored_path.as_str()))
        .collect();
    assert!(models.len() >= 7, "{models:?}");
    let mut library = VisualIndex::new();
    for part in &parts {
        library.insert(part.stored_path.clone(), views_of(&part.file));
    }
    let is_model = |key: &str| key.starts_with("Samples/models/");
    let mut failures = Vec::new();
    for (file, stored_path) in &models {
        let name = file
            .trim_start_matches("models/")
            .trim_end_matches(".stl")
            .trim_end_matches(".step");
        // The part's STL and STEP models render alike: either may come first.
        let model_of_this_part = |key: &str| {
            key.strip_prefix("Samples/models/")
                .and_then(|file| file.split('.').next())
                == Some(name)
        };
        let model_views = views_of(file);
        // The flange, the gear and the washer are flat: they are also seen near edge-on.
        let expected_views = if name == "stepped-shaft" {
            super::mesh::VIEWS_PER_MODEL
        } else {
            super::mesh::VIEWS_PER_FLAT_MODEL
        };
        assert_eq!(model_views.len(), expected_views, "{file}");
        // Each of the part's pictures, alone and together, puts its model first among the models.
        let pictures: Vec<ViewDescriptor> =
            [format!("views/{name}-a.png"), format!("views/{name}-b.jpg")]
                .iter()
                .flat_map(|view| views_of(view))
                .collect();
        for (at, query) in pictures.chunks(1).chain([pictures.as_slice()]).enumerate() {
            let ranked = library.rank(query, is_model, 4);
            // The flange seen face-on (`flange-b.jpg`, the second picture, a drawing whose holes
            // are filled with its outline) is a disc with holes, as the washer is: a washer model
            // may come first by a hair; a flange model is next, and first with both pictures.
            let within = if name == "flange" && at == 1 { 2 } else { 1 };
            if !ranked[..within]
                .iter()
                .any(|(key, _)| model_of_this_part(key))
            {
                failures.push(format!("{name} ({} views): {ranked:?}", query.len()));
            }
        }
        // The model finds itself first in the whole library (or its twin in the other format,
        // scoring as high), clearly ahead of other parts (the picture and the DXF drawing of the
        // same part may come close).
        let ranked = library.rank(&model_views, |_| true, usize::MAX);
        assert!(model_of_this_part(&ranked[0].0), "{ranked:?}");
        let itself = ranked.iter().find(|(key, _)| key == stored_path).unwrap();
        assert!(itself.1 > 0.999, "{ranked:?}");
        let of_this_part = |key: &str| key.contains(name);
        let other = ranked[1..]
            .iter()
            .find(|(key, _)| !of_this_part(key))
            .unwrap();
        if ranked[0].1 <= 0.999 || other.1 >= ranked[0].1 - 0.1 {
            failures.push(format!("{name} finds itself: {:?}", &ranked[..4]));
        }
        // Among the pictures and drawings, one of its part (picture or DXF drawing) comes first; the
        // stepped shaft's may come second: seen end-on a turned part is concentric circles, which is
        // what the washer picture is.
        let ranked = library.rank(&model_views, |key| !is_model(key), 3);
        let drawing_at = ranked.iter().position(|(key, _)| of_this_part(key));
        let expected = if name == "stepped-shaft" { 1 } else { 0 };
        if drawing_at.is_none_or(|at| at > expected) {
            failures.push(format!("{name} among pictures: {ranked:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
