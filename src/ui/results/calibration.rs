//! What a score means, per kind of search: the thresholds of the "very similar" and "similar"
//! labels for picture → picture, picture → model, model → model and drawing → drawing searches,
//! with the figures they came from. No egui here.
//!
//! The same score does not mean the same thing for every pair of kinds: a query photo against
//! another picture of its part and a query photo against the part's 3D model (rendered views)
//! land in different ranges. So each kind has its own thresholds, chosen by one rule on the
//! engine's scores of the sample library (`partlens_engine::samples::calibration`, which states the rule
//! and the pairs): at or above "very similar", at least 9 in 10 measured results were the same
//! part; at or above "similar", at least half were. partlens-engine's `examples/calibrate_scores.rs` prints this
//! table from a fresh measurement, and `tests/app/score_calibration.rs` fails when the engine's scores
//! drift away from it.
//!
//! The thresholds describe partlens' own engine (the local workspace and `partlens-service`);
//! against another implementation of the interface they are a guide, not a measurement.

use crate::ui::search_bar::ViewKind;

/// Which kind of file searched for which kind of result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// A picture (photo, rendering, sketch) against a picture.
    PictureToPicture,
    /// A picture against a 3D model (or a model against a picture).
    PictureToModel,
    /// A 3D model against a 3D model.
    ModelToModel,
    /// A 2D drawing against a 2D drawing.
    DrawingToDrawing,
    /// Any other pair (a drawing against a picture or a model…), or a result of unknown kind:
    /// the strictest thresholds of the table.
    Mixed,
}

impl QueryKind {
    /// The kind of a search whose views are of `query` kind, for a result stored as
    /// `result_file_name`.
    pub fn between(query: ViewKind, result_file_name: &str) -> Self {
        match (query, ViewKind::of_name(result_file_name)) {
            (ViewKind::Image, ViewKind::Image) => Self::PictureToPicture,
            (ViewKind::Image, ViewKind::Model) | (ViewKind::Model, ViewKind::Image) => {
                Self::PictureToModel
            }
            (ViewKind::Model, ViewKind::Model) => Self::ModelToModel,
            (ViewKind::Drawing, ViewKind::Drawing) => Self::DrawingToDrawing,
            _ => Self::Mixed,
        }
    }

    /// The kind in words, as the calibration measures it.
    pub fn name(self) -> &'static str {
        match self {
            Self::PictureToPicture => "picture → picture",
            Self::PictureToModel => "picture → model",
            Self::ModelToModel => "model → model",
            Self::DrawingToDrawing => "drawing → drawing",
            Self::Mixed => "mixed",
        }
    }

    /// The chance that a result of this kind with raw `score` is the same part, from the measured
    /// thresholds: at "similar" at least half of the measured results were the same part, at "very
    /// similar" at least 9 in 10, so those are the anchors (50 % and 90 %); the chance rises in
    /// straight lines between them, from 5 % at as far below "similar" as twice the gap between
    /// the two thresholds (and 0 at a score of 0) up to 99 % at a score of 1. One scale for every
    /// kind: a picture → model result at 0.84 and a picture → picture one at 0.84 get the chances
    /// their kinds' measurements give them, and the list is ordered by it.
    pub fn same_part_chance(self, score: f64) -> f64 {
        let thresholds = self.thresholds();
        let gap = (thresholds.very_similar - thresholds.similar).max(0.01);
        let unlikely = (thresholds.similar - 2.0 * gap).max(0.01);
        let anchors = [
            (0.0, 0.0),
            (unlikely, CHANCE_UNLIKELY),
            (thresholds.similar, CHANCE_AT_SIMILAR),
            (thresholds.very_similar, CHANCE_AT_VERY_SIMILAR),
            (1.0, CHANCE_AT_ONE),
        ];
        let score = if score.is_finite() {
            score.clamp(0.0, 1.0)
        } else {
            0.0
        };
        anchors
            .windows(2)
            .find(|pair| score <= pair[1].0)
            .map_or(CHANCE_AT_ONE, |pair| {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                if x1 <= x0 {
                    y1
                } else {
                    y0 + (y1 - y0) * (score - x0) / (x1 - x0)
                }
            })
    }

    /// The thresholds of this kind's labels.
    pub fn thresholds(self) -> Thresholds {
        CALIBRATION
            .iter()
            .find(|calibration| calibration.kind == self)
            .map_or_else(strictest, |calibration| calibration.thresholds)
    }
}

/// The chance of being the same part at the "similar" threshold (the rule that chose it: at least
/// half of the measured results at or above it were the same part).
pub const CHANCE_AT_SIMILAR: f64 = 0.5;

/// The chance at the "very similar" threshold (at least 9 in 10 were the same part).
pub const CHANCE_AT_VERY_SIMILAR: f64 = 0.9;

/// The chance far below "similar" (twice the gap between the thresholds under it).
const CHANCE_UNLIKELY: f64 = 0.05;

/// The chance at a raw score of 1 (never certain: two parts can look the same).
const CHANCE_AT_ONE: f64 = 0.99;

/// The lowest scores of the labels of one kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// At or above: "very similar".
    pub very_similar: f64,
    /// At or above (and below `very_similar`): "similar".
    pub similar: f64,
}

/// One row of the table: a kind, its thresholds, and the measurement they came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The kind of search.
    pub kind: QueryKind,
    /// Its thresholds.
    pub thresholds: Thresholds,
    /// Same-part pairs measured, and their median score.
    pub same_part: (usize, f64),
    /// Pairs of different parts measured, and the 90th percentile of their scores.
    pub other_parts: (usize, f64),
}

/// The thresholds per kind, measured on the sample library with today's engine (`cargo run -p
/// partlens-engine --release --example calibrate_scores` prints this table). The figures, same part: pairs,
/// lowest / median; other parts: pairs, 90th percentile / highest:
///
/// | kind | same part | other parts | very similar ≥ | similar ≥ |
/// |---|---|---|---|---|
/// | picture → picture | 24, 0.841 / 0.941 | 264, 0.709 / 0.847 | 0.85 | 0.75 |
/// | picture → model | 14, 0.777 / 0.868 | 154, 0.797 / 0.846 | 0.85 | 0.81 |
/// | model → model | 6, 0.978 / 0.990 | 36, 0.820 / 0.821 | (0.98) | (0.83) |
/// | drawing → drawing | 6, 0.838 / 0.980 | 24, 0.671 / 0.671 | 0.84 | 0.66 |
///
/// Model → model is the exception: its row is measured on the real-world corpus
/// (`../shared/realworld`, 164 models searched by each other through the service, as ranked with
/// their sizes; `cargo bench -p partlens-service --bench realworld_search -- every` prints it),
/// by the same rule: same part (a STEP and its STL) 88 pairs, lowest 0.902, median 0.987; other
/// parts 26,644 pairs, 90th percentile 0.678, highest 0.940; very similar ≥ 0.91, similar ≥
/// 0.85. The sample library's six model pairs are near-perfect tessellations of one another
/// (0.978–0.990), so the rule put "very similar" at 0.98 there, and a real STEP and its STL
/// (0.90–0.99) came out merely "similar", ranked below a picture of something like it; the table's
/// thresholds still hold the rule on the sample library (tests/app/score_calibration.rs).
///
/// So the same 0.85 is "very similar" between two pictures, two drawings or a picture and a model,
/// but only "similar" between two models (where the same part scores 0.90–0.99).
pub const CALIBRATION: [Calibration; 4] = [
    Calibration {
        kind: QueryKind::PictureToPicture,
        thresholds: Thresholds {
            very_similar: 0.85,
            similar: 0.75,
        },
        same_part: (24, 0.941),
        other_parts: (264, 0.709),
    },
    Calibration {
        kind: QueryKind::PictureToModel,
        thresholds: Thresholds {
            very_similar: 0.85,
            similar: 0.81,
        },
        same_part: (14, 0.868),
        other_parts: (154, 0.797),
    },
    Calibration {
        kind: QueryKind::ModelToModel,
        thresholds: Thresholds {
            very_similar: 0.91,
            similar: 0.85,
        },
        same_part: (88, 0.987),
        other_parts: (26_644, 0.678),
    },
    Calibration {
        kind: QueryKind::DrawingToDrawing,
        thresholds: Thresholds {
            very_similar: 0.84,
            similar: 0.66,
        },
        same_part: (6, 0.980),
        other_parts: (24, 0.671),
    },
];

/// The strictest thresholds of the table, for pairs it does not measure.
fn strictest() -> Thresholds {
    CALIBRATION.iter().fold(
        Thresholds {
            very_similar: 0.0,
            similar: 0.0,
        },
        |strictest, calibration| Thresholds {
            very_similar: strictest
                .very_similar
                .max(calibration.thresholds.very_similar),
            similar: strictest.similar.max(calibration.thresholds.similar),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_follow_the_query_and_the_result() {
        let cases = [
            (ViewKind::Image, "gear.png", QueryKind::PictureToPicture),
            (ViewKind::Image, "flange.STEP", QueryKind::PictureToModel),
            (ViewKind::Model, "flange.png", QueryKind::PictureToModel),
            (ViewKind::Model, "gear.stl", QueryKind::ModelToModel),
            (
                ViewKind::Drawing,
                "flange-drawing.pdf",
                QueryKind::DrawingToDrawing,
            ),
            (ViewKind::Drawing, "gear.png", QueryKind::Mixed),
        ];
        for (query, result, kind) in cases {
            assert_eq!(
                QueryKind::between(query, result),
                kind,
                "{query:?} → {result}"
            );
        }
    }

    #[test]
    fn every_kind_has_ordered_thresholds_and_mixed_takes_the_strictest() {
        for calibration in &CALIBRATION {
            let thresholds = calibration.thresholds;
            assert!(
                thresholds.similar <= thresholds.very_similar && thresholds.very_similar <= 1.0,
                "{calibration:?}"
            );
            assert!(calibration.same_part.0 > 0 && calibration.other_parts.0 > 0);
        }
        let mixed = QueryKind::Mixed.thresholds();
        for calibration in &CALIBRATION {
            assert!(mixed.very_similar >= calibration.thresholds.very_similar);
            assert!(mixed.similar >= calibration.thresholds.similar);
        }
    }
}

#[cfg(test)]
mod chance_tests {
    use super::*;

    #[test]
    fn the_chance_is_half_at_similar_nine_in_ten_at_very_similar_and_rises_with_the_score() {
        for calibration in CALIBRATION {
            let kind = calibration.kind;
            let thresholds = calibration.thresholds;
            assert!((kind.same_part_chance(thresholds.similar) - 0.5).abs() < 1e-9);
            assert!((kind.same_part_chance(thresholds.very_similar) - 0.9).abs() < 1e-9);
            let chances: Vec<f64> = (0..=100)
                .map(|step| kind.same_part_chance(f64::from(step) / 100.0))
                .collect();
            assert!(
                chances.windows(2).all(|pair| pair[0] <= pair[1]),
                "{kind:?}"
            );
            assert_eq!(kind.same_part_chance(f64::NAN), 0.0);
        }
        // The example: a flange photo's STL at 0.791 is less likely the same part than its
        // picture at 0.787, and a gear photo's own model at 0.776 is not "weak" next to a picture.
        let model = QueryKind::PictureToModel.same_part_chance(0.791);
        let picture = QueryKind::PictureToPicture.same_part_chance(0.787);
        assert!(model < picture, "{model} {picture}");
    }
}
