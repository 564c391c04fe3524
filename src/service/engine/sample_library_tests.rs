//! The committed sample library (`assets/samples/`, made by `examples/make_samples.rs`) works with
//! the engine: each part's two query views, alone and together, rank that part first among all the
//! library files (the part images and the DXF drawings of some parts, added by
//! `examples/make_sample_drawings.rs`; a drawing has no query views of its own).

use std::path::PathBuf;

use super::{ViewDescriptor, VisualIndex, analyze};

fn samples_folder() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/samples")
}

fn views_of(file: &str) -> Vec<ViewDescriptor> {
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

#[test]
fn every_sample_part_is_found_first_from_its_query_views() {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(samples_folder().join("manifest.json")).unwrap(),
    )
    .unwrap();
    let parts = manifest["parts"].as_array().unwrap();
    assert!(parts.len() >= 12);
    let mut index = VisualIndex::new();
    for part in parts {
        let stored_path = part["stored_path"].as_str().unwrap();
        assert!(stored_path.starts_with("Samples/"));
        assert!(!part["attributes"].as_array().unwrap().is_empty());
        index.insert(
            stored_path.to_owned(),
            views_of(part["file"].as_str().unwrap()),
        );
    }
    assert_eq!(index.len(), parts.len());
    let part_number_of = |stored_path: &str| {
        parts
            .iter()
            .find(|part| part["stored_path"] == stored_path)
            .and_then(|part| {
                part["attributes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find_map(|text| text.as_str().unwrap().strip_prefix("part_number="))
            })
            .unwrap()
            .to_owned()
    };
    let mut drawings = 0;
    for part in parts {
        let stored_path = part["stored_path"].as_str().unwrap();
        if stored_path.starts_with("Samples/drawings/") {
            drawings += 1;
            assert!(part["views"].as_array().unwrap().is_empty());
            continue;
        }
        let views: Vec<ViewDescriptor> = part["views"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|view| views_of(view.as_str().unwrap()))
            .collect();
        assert_eq!(views.len(), 2, "{stored_path}");
        for view in &views {
            let ranked = index.rank(std::slice::from_ref(view), |_| true, 3);
            assert_eq!(ranked[0].0, stored_path, "{ranked:?}");
        }
        let ranked = index.rank(&views, |_| true, 4);
        assert_eq!(ranked[0].0, stored_path, "{ranked:?}");
        // The runner-up that counts is another part: a drawing of the same part may come close.
        let other_part = ranked
            .iter()
            .find(|(path, _)| part_number_of(path) != part_number_of(stored_path))
            .unwrap();
        assert!(ranked[0].1 > other_part.1 + 0.05, "{ranked:?}");
    }
    assert_eq!(drawings, 3);
}
