//! Measures what the engine's scores mean on the sample library, per kind of search, and prints
//! the figures with the row of the app's calibration table (`src/ui/results/calibration.rs`)
//! that comes from them (picture → picture; the other kinds are fitted on the real-world corpus).
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
    // Only picture → picture takes its curve from the sample library today (the others are
    // fitted on the real-world corpus: `corpus_ranking -- reliability photos=2`); its row of the
    // app's table, anchors made from the thresholds by the rule: 5 % at twice their gap below
    // "similar", 50 %, 90 %, 99 % at 1.
    println!();
    for row in table.iter().filter(|row| row.kind == "picture → picture") {
        let unlikely = (row.similar - 2.0 * (row.very_similar - row.similar)).max(0.01);
        println!(
            "    Calibration {{\n        kind: QueryKind::PictureToPicture,\n        anchors: &[\n            (0.0, 0.0),\n            ({unlikely:.2}, 0.05),\n            ({:.2}, 0.5),\n            ({:.2}, 0.9),\n            (1.0, 0.99),\n        ],\n        measured_on: MeasuredOn::SampleLibrary,\n        results: ({}, {}),\n    }},",
            row.similar,
            row.very_similar,
            row.same_part_pairs + row.other_pairs,
            row.same_part_pairs
        );
    }
    Ok(())
}
