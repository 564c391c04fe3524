//! The engine on CAD models (the sample library's STEP files): a STEP model gets the views,
//! pictures and measurements of any model plus the words of its product data; one whose shape
//! cannot be read fails with those words kept; and a picture of the part finds the STEP model as it
//! finds the part's STL model.

use std::path::PathBuf;

use super::{EngineError, VisualIndex, analyze, mesh::VIEWS_PER_FLAT_MODEL};

fn sample(file: &str) -> Vec<u8> {
    let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .join("assets/samples")
        .join(file);
    std::fs::read(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// `.step` for `models/flange.step`.
fn extension_of(file: &str) -> &str {
    &file[file.rfind('.').unwrap()..]
}

#[test]
fn a_step_model_gets_views_pictures_measurements_and_its_product_data() {
    let analysis = analyze(".STEP", &sample("models/flange.step")).unwrap();
    // A flange is flat: it is also seen near edge-on.
    assert_eq!(analysis.views.len(), VIEWS_PER_FLAT_MODEL);
    assert!(analysis.views.iter().all(|view| view.shape().is_some()));
    assert!(analysis.thumbnail_jpeg.is_some() && analysis.large_png.is_some());
    let attributes = &analysis.extracted_attributes;
    for expected in [
        "part_number=PL-1002",
        "material=stainless steel",
        "step_schema=AP214",
    ] {
        assert!(attributes.contains(&expected.to_owned()), "{attributes:?}");
    }
    // Measured in millimetres, and closed: the faces truck meshes on their own are welded.
    assert!(
        attributes
            .iter()
            .any(|a| a.starts_with("bounding_box(mm)=160×")),
        "{attributes:?}"
    );
    assert!(
        attributes.iter().any(|a| a.starts_with("volume(mm3)=")),
        "{attributes:?}"
    );
    assert!(
        analysis.text.contains("Weld neck flange"),
        "{}",
        analysis.text
    );
    // The same file under its other extension reads the same.
    assert_eq!(
        analyze(".stp", &sample("models/flange.step")).unwrap(),
        analysis
    );
}

#[test]
fn a_step_model_whose_shape_cannot_be_read_keeps_its_words() {
    let text = String::from_utf8(sample("models/washer.step")).unwrap();
    let looped = text.replace("#7=VERTEX_POINT('',#6);", "#7=VERTEX_POINT('',#7);");
    assert_ne!(looped, text);
    match analyze(".step", looped.as_bytes()) {
        Err(EngineError::ShapeUnreadable {
            reason,
            text,
            extracted_attributes,
            ..
        }) => {
            assert!(reason.contains("refers back to itself"), "{reason}");
            assert!(text.contains("Flat washer M12"), "{text}");
            assert!(extracted_attributes.contains(&"part_number=PL-1004".to_owned()));
        }
        other => panic!("{other:?}"),
    }
    // Bytes that are not STEP at all have no words: an ordinary undecodable file.
    assert!(matches!(
        analyze(".step", b"solid cube\nendsolid\n"),
        Err(EngineError::Undecodable { .. })
    ));
}

#[test]
fn the_pictures_of_a_part_find_its_step_model_among_the_models() {
    let models = ["washer", "flange", "stepped-shaft", "gear"];
    let mut index = VisualIndex::new();
    for name in models {
        let file = if name == "gear" {
            format!("models/{name}.stl")
        } else {
            format!("models/{name}.step")
        };
        let views = analyze(extension_of(&file), &sample(&file)).unwrap().views;
        index.insert(file, views);
    }
    for name in ["washer", "flange", "stepped-shaft"] {
        let views = [format!("views/{name}-a.png"), format!("views/{name}-b.jpg")];
        let mut both = Vec::new();
        let model = format!("models/{name}.step");
        // The flange seen face-on (`flange-b.jpg`, a drawing whose holes are filled with its
        // outline) is a disc with holes, as the washer is: with it the washer's model ties with the
        // flange's (0.753 against 0.740 alone, 0.779 against 0.778 with the other picture), so
        // there the flange's model must be among the first two; everywhere else first.
        let face_on_places = if name == "flange" { 2 } else { 1 };
        for (view, places) in views.iter().zip([1, face_on_places]) {
            let query = analyze(extension_of(view), &sample(view)).unwrap().views;
            let ranked = index.rank(&query, |_| true, 4);
            assert!(
                ranked[..places].iter().any(|(key, _)| *key == model),
                "{view}: {ranked:?}"
            );
            both.extend(query);
        }
        let ranked = index.rank(&both, |_| true, 4);
        assert!(
            ranked[..face_on_places]
                .iter()
                .any(|(key, _)| *key == model),
            "{name}, both pictures: {ranked:?}"
        );
    }
}
