//! The app's score labels against a fresh measurement: the calibration table in
//! `ui::results::calibration` must hold what `service::samples::calibration` measures on the
//! sample library today, so a change of the engine that moves scores fails here until the table
//! is measured again (`cargo run --release -p partlens-engine --example calibrate_scores`).

#![allow(clippy::unwrap_used)]

use std::path::Path;

use partlens::ui::results::calibration::{CALIBRATION, QueryKind};
use partlens_engine::samples::calibration::{
    SIMILAR_PRECISION, VERY_SIMILAR_PRECISION, calibrate, measure_sample_library,
};

#[test]
fn the_calibration_table_holds_what_the_sample_library_measures() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/samples");
    let pairs = measure_sample_library(&samples).unwrap();
    let measured = calibrate(&pairs);
    assert_eq!(measured.len(), CALIBRATION.len());
    for row in &measured {
        let table = CALIBRATION
            .iter()
            .find(|calibration| calibration.kind.name() == row.kind)
            .unwrap_or_else(|| panic!("no row for {} in the table", row.kind));
        if table.kind == QueryKind::ModelToModel {
            // Measured on the real-world corpus (the table's doc): here its thresholds must still
            // hold the rule on the sample library's model pairs.
            let kind_pairs: Vec<_> = pairs.iter().filter(|pair| pair.kind == row.kind).collect();
            // The engine's rule: the share of same-part pairs at or above a threshold.
            let precision_at = |threshold: f64| {
                let above: Vec<_> = kind_pairs
                    .iter()
                    .filter(|pair| pair.score >= threshold)
                    .collect();
                let same = above.iter().filter(|pair| pair.same_part).count();
                (same, above.len())
            };
            let (same, above) = precision_at(table.thresholds.very_similar);
            assert!(
                above > 0 && same as f64 / above as f64 >= VERY_SIMILAR_PRECISION,
                "model → model: {same} of {above} sample pairs at or above very similar ({}) \
                 are the same part; {row:?}",
                table.thresholds.very_similar
            );
            let (same, above) = precision_at(table.thresholds.similar);
            assert!(
                above == 0 || same as f64 / above as f64 >= SIMILAR_PRECISION,
                "model → model: {same} of {above} sample pairs at or above similar ({}) are \
                 the same part; {row:?}",
                table.thresholds.similar
            );
            assert!(
                row.same_part_median > table.thresholds.very_similar,
                "{row:?}"
            );
            continue;
        }
        let close = |a: f64, b: f64| (a - b).abs() <= 0.015;
        assert!(
            close(table.thresholds.very_similar, row.very_similar)
                && close(table.thresholds.similar, row.similar)
                && table.same_part.0 == row.same_part_pairs
                && table.other_parts.0 == row.other_pairs
                && close(table.same_part.1, row.same_part_median)
                && close(table.other_parts.1, row.other_p90),
            "{}: the table says {table:?}, the engine now gives {row:?}; \
             run `cargo run --release -p partlens-engine --example calibrate_scores` and update the table",
            row.kind
        );
        // The labels mean something: the same part scores above other parts in the middle.
        assert!(row.same_part_median > row.other_p90 - 0.1, "{row:?}");
    }
}
