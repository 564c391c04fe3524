//! Measures what the engine's scores mean on the sample library, per kind of search, and prints
//! the app's calibration table (`src/ui/results/calibration.rs`) with the figures it came from.
//!
//! ```sh
//! cargo run --release -p partlens-engine --example calibrate_scores            # assets/samples
//! cargo run --release -p partlens-engine --example calibrate_scores -- DIR     # another sample library
//! ```
//!
//! The pairs and the rule are in `partlens_engine::samples::calibration`; `tests/app/score_calibration.rs`
//! checks the table in the code against the same measurement.

use std::path::PathBuf;

use partlens_engine::samples::calibration::{calibrate, measure_sample_library};

fn main() -> anyhow::Result<()> {
    let samples = std::env::args_os().nth(1).map_or_else(
        || PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("assets/samples"),
        PathBuf::from,
    );
    let pairs = measure_sample_library(&samples).map_err(anyhow::Error::msg)?;
    let table = calibrate(&pairs);
    println!(
        "| kind | same part: pairs, min / median | other parts: pairs, p90 / max | very similar ≥ | similar ≥ |"
    );
    println!("|---|---|---|---|---|");
    for row in &table {
        println!(
            "| {} | {}, {:.3} / {:.3} | {}, {:.3} / {:.3} | {:.2} | {:.2} |",
            row.kind,
            row.same_part_pairs,
            row.same_part_min,
            row.same_part_median,
            row.other_pairs,
            row.other_p90,
            row.other_max,
            row.very_similar,
            row.similar
        );
    }
    println!();
    for row in &table {
        let variant = match row.kind {
            "picture → picture" => "PictureToPicture",
            "picture → model" => "PictureToModel",
            "model → model" => "ModelToModel",
            _ => "DrawingToDrawing",
        };
        println!(
            "    Calibration {{\n        kind: QueryKind::{variant},\n        thresholds: Thresholds {{\n            very_similar: {:.2},\n            similar: {:.2},\n        }},\n        same_part: ({}, {:.3}),\n        other_parts: ({}, {:.3}),\n    }},",
            row.very_similar,
            row.similar,
            row.same_part_pairs,
            row.same_part_median,
            row.other_pairs,
            row.other_p90
        );
    }
    Ok(())
}
