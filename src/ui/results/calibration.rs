//! What a score means, per kind of search: the chance that a result is the same part as the
//! query, from a curve per kind (picture → picture, picture → model, sketch → model, model →
//! model, drawing → drawing) fitted on real pairs, and the "very similar" (chance ≥ 90 %) and "similar" (≥ 50 %)
//! labels that follow it. No egui here.
//!
//! The same score does not mean the same thing for every pair of kinds: a photo against the
//! part's 3D model (rendered views) and two models of different parts land in different ranges.
//! So each kind has its own curve ([`CALIBRATION`] says where each was measured and the command
//! that prints it); `tests/app/score_calibration.rs` checks the curves against the sample library
//! (no different sample part is labelled "very similar").

use crate::ui::search_bar::ViewKind;

/// What a search's views are, as its labels need them: their kind, and whether every one is a
/// sketch drawn on the sketch pad (a sketch's score against a model means less than a photo's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchedBy {
    /// The kind of the views (a sketch is an image).
    pub kind: ViewKind,
    /// Every view is a sketch from the sketch pad.
    pub sketched: bool,
}

impl From<ViewKind> for SearchedBy {
    fn from(kind: ViewKind) -> Self {
        Self {
            kind,
            sketched: false,
        }
    }
}

/// Which kind of file searched for which kind of result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QueryKind {
    /// A picture (photo, rendering, sketch) against a picture.
    PictureToPicture,
    /// A picture against a 3D model (or a model against a picture).
    PictureToModel,
    /// A sketch from the sketch pad against a 3D model.
    SketchToModel,
    /// A 3D model against a 3D model.
    ModelToModel,
    /// A 2D drawing against a 2D drawing.
    DrawingToDrawing,
    /// Any other pair (a drawing against a picture or a model, a sketch against a drawing…), or a
    /// result of unknown kind: the lowest chance of every curve, the strictest thresholds.
    Mixed,
}

impl QueryKind {
    /// The kind of a search by `query` views, for a result stored as `result_file_name`.
    pub fn between(query: impl Into<SearchedBy>, result_file_name: &str) -> Self {
        let query = query.into();
        match (query.kind, ViewKind::of_name(result_file_name)) {
            (ViewKind::Image, ViewKind::Model) if query.sketched => Self::SketchToModel,
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
            Self::SketchToModel => "sketch → model",
            Self::ModelToModel => "model → model",
            Self::DrawingToDrawing => "drawing → drawing",
            Self::Mixed => "mixed",
        }
    }

    /// What this kind's curve is read at for a result with raw `score` that lies `below_best` under
    /// the best other result of its kind in its search (0 for the best, never positive): the score,
    /// less [`BELOW_BEST_WEIGHT`] times the shortfall for picture → model, where a result far below
    /// its search's best model is the part less often than its score alone says (issue 49: the
    /// held-out photographs' bands at 61–91 % were the part 44–63 % of the time). The best result's
    /// lead over the next counts for nothing: it grows as the library shrinks, whether the best is
    /// the part or not.
    pub fn evidence(self, score: f64, below_best: f64) -> f64 {
        match self {
            Self::PictureToModel => score + BELOW_BEST_WEIGHT * below_best.min(0.0),
            _ => score,
        }
    }

    /// The chance that a result of this kind at `evidence` ([`QueryKind::evidence`]: the raw score
    /// for every kind but picture → model) is the same part: the kind's curve
    /// ([`Calibration::anchors`], straight lines between its anchors, flat after the last); a
    /// mixed pair takes the lowest chance of every kind's curve. One scale for every kind: a
    /// picture → model result at 0.84 and a picture → picture one at 0.84 get the chances their
    /// kinds' measurements give them, and the list is ordered by it.
    pub fn same_part_chance(self, evidence: f64) -> f64 {
        let score = if evidence.is_finite() {
            evidence.clamp(0.0, 1.0)
        } else {
            0.0
        };
        match self.calibration() {
            Some(calibration) => chance_on(calibration.anchors, score),
            None => CALIBRATION
                .iter()
                .map(|calibration| chance_on(calibration.anchors, score))
                .fold(1.0, f64::min),
        }
    }

    /// The thresholds of this kind's labels: the lowest evidence ([`QueryKind::evidence`]) its
    /// curve gives a chance of [`CHANCE_AT_VERY_SIMILAR`] and [`CHANCE_AT_SIMILAR`] (above 1 when
    /// it never does), so the labels follow the chance shown. A mixed pair takes the strictest of every kind.
    pub fn thresholds(self) -> Thresholds {
        let of = |anchors: &[(f64, f64)]| Thresholds {
            very_similar: lowest_score_with(anchors, CHANCE_AT_VERY_SIMILAR),
            similar: lowest_score_with(anchors, CHANCE_AT_SIMILAR),
        };
        match self.calibration() {
            Some(calibration) => of(calibration.anchors),
            None => CALIBRATION
                .iter()
                .map(|calibration| of(calibration.anchors))
                .fold(
                    Thresholds {
                        very_similar: 0.0,
                        similar: 0.0,
                    },
                    |strictest, thresholds| Thresholds {
                        very_similar: strictest.very_similar.max(thresholds.very_similar),
                        similar: strictest.similar.max(thresholds.similar),
                    },
                ),
        }
    }

    /// This kind's row of [`CALIBRATION`] (`None` for a mixed pair).
    fn calibration(self) -> Option<&'static Calibration> {
        CALIBRATION
            .iter()
            .find(|calibration| calibration.kind == self)
    }
}

/// What a picture → model result's shortfall from its search's best model result costs the
/// evidence its chance is read at ([`QueryKind::evidence`]): the weight with the lowest log loss on
/// the corpus's tuning half (`corpus_ranking reliability`'s `BELOW_BEST_WEIGHT`, the same value;
/// `benches/support/reliability_margin.py … clipped` compares others).
pub const BELOW_BEST_WEIGHT: f64 = 16.0;

/// The chance shown from which a result is labelled "similar" (even odds of the same part).
pub const CHANCE_AT_SIMILAR: f64 = 0.5;

/// The chance shown from which a result is labelled "very similar" (9 in 10).
pub const CHANCE_AT_VERY_SIMILAR: f64 = 0.9;

/// A score above every score: the threshold of a chance a curve never reaches.
const NEVER: f64 = 1.01;

/// The chance on the curve through `anchors` at `score` (in 0..1): straight lines between anchors,
/// flat after the last.
fn chance_on(anchors: &[(f64, f64)], score: f64) -> f64 {
    anchors
        .windows(2)
        .find(|pair| score <= pair[1].0)
        .map_or_else(
            || anchors.last().map_or(0.0, |last| last.1),
            |pair| {
                let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
                if x1 <= x0 {
                    y1
                } else {
                    y0 + (y1 - y0) * (score - x0) / (x1 - x0)
                }
            },
        )
}

/// The lowest score the curve through `anchors` gives at least `chance` ([`NEVER`] if none).
fn lowest_score_with(anchors: &[(f64, f64)], chance: f64) -> f64 {
    anchors
        .windows(2)
        .find(|pair| pair[1].1 >= chance)
        .map_or(NEVER, |pair| {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            if y0 >= chance || y1 <= y0 {
                x0
            } else {
                x0 + (x1 - x0) * (chance - y0) / (y1 - y0)
            }
        })
}

/// The lowest evidence ([`QueryKind::evidence`], the raw score for most kinds) of the labels of one
/// kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// At or above: "very similar".
    pub very_similar: f64,
    /// At or above (and below `very_similar`): "similar".
    pub similar: f64,
}

/// Where a kind's curve was measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeasuredOn {
    /// The real-world corpus (`../shared/realworld`): fitted on the tuning half and checked on the
    /// held-out half by the corpus_ranking bench's `reliability` (see [`CALIBRATION`]).
    CorpusTuningHalf,
    /// The real-world corpus's both halves: too few same-part pairs in one half to fit there.
    CorpusBothHalves,
    /// The sample library (`partlens_engine::samples::calibration`): the corpus has no such pairs.
    SampleLibrary,
}

/// One kind's curve of the chance of being the same part, and what it was measured on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// The kind of search.
    pub kind: QueryKind,
    /// The curve: (raw score, chance of being the same part), scores rising, chances never
    /// falling, from (0, 0).
    pub anchors: &'static [(f64, f64)],
    /// Where it was measured.
    pub measured_on: MeasuredOn,
    /// Results measured (the curve's fit), and how many of them were the same part.
    pub results: (usize, usize),
}

/// The curve of each kind. Model → model, picture → model and sketch → model are fitted on real
/// pairs of the real-world corpus (`../shared/realworld`) and checked on its held-out half; their
/// anchors, the pairs and the held-out reliability table are printed by
///
/// ```text
/// cargo test -p partlens-engine --bench corpus_ranking --no-run
/// crates/partlens-engine$ ../../target/debug/deps/corpus_ranking-HASH reliability photos=2 sketches=2
/// ```
///
/// (`benches/support/reliability.rs`; docs/PERFORMANCE.md, "Scores that hold their promise"): the
/// first 10 results of every search, scored as the service scores them, a monotone fit
/// (pool-adjacent-violators, blocks of at least 12 results, one anchor a block at its mean score
/// and same-part share) on the tuning half.
///
/// - model → model: every corpus model searched by, its model results (same part: its twin in
///   another format); tuning half 806 results, 44 the same part. *More like this* on a stored
///   model (its stored views) is labelled by this curve too; the bench checks that as well.
/// - picture → model: two photographs of every corpus model (the quality set's camera), their model
///   results (same part: the model photographed or its twin); tuning half 1,700 results, 257. Its
///   curve is of the evidence ([`QueryKind::evidence`]: the score less [`BELOW_BEST_WEIGHT`] times
///   the shortfall from the search's best model), with which every held-out band but 50–70 % is
///   within 5 points (that one understates: 59 % shown, 64 % the part), where the score alone's
///   bands above 50 % overstated by 17–30 points.
/// - drawing → drawing: every corpus drawing searched by, its drawing results (same part: one
///   drawing in another DXF version or as PDF); the tuning half holds no same-part result, so the
///   curve is fitted on both halves (54 results, 8 the same part) and is not checked on files it
///   was not fitted on. Different drawings (panels, plates) score as high as one drawing in two
///   versions, so the curve never reaches "similar" below a score of 0.999 (31 % at most; the
///   drawing itself, at 1, is "very similar"): the sample library's "very
///   similar" at 0.84 labelled 33 held-out drawing results so, 8 of them the same part.
/// - picture → picture: the corpus has no pictures; from the sample library's measurement
///   (`cargo run -p partlens-engine --release --example calibrate_scores`: same part 24 pairs,
///   median 0.941; other parts 264, 90th percentile 0.709), its thresholds 0.75 (similar) and 0.85
///   (very similar) made anchors as before: 5 % at 0.55, 50 %, 90 %, 99 % at 1.
///
/// - sketch → model: a search whose views are all sketches from the pad, its model results. The
///   bench's sketch set (`sketches=2`: two hand-drawn sketches of every corpus model, as a person
///   draws one, `benches/support/sketch.rs`), their model results (same part: the model sketched
///   or its twin). A sketch scores as high against a model as a photograph does while being the
///   same part far less often: under the picture → model curve the held-out sketches' results
///   labelled 70–90 % were the same part 18 % of the time. Tuning half 1,691 results, 193 the same
///   part; on the held-out half (1,578 results) the curve says 10.9 % and 11.6 % were.
///
/// A sketch against a drawing is a mixed pair, as any other: the lowest chance of every curve
/// (the sketch set's hand copies of the corpus's drawings are too few for a curve of their own:
/// the bench prints their table).
///
/// The curves describe partlens' own engine (the local workspace and `partlens-service`); against
/// another implementation of the interface they are a guide, not a measurement.
pub const CALIBRATION: [Calibration; 5] = [
    Calibration {
        kind: QueryKind::PictureToPicture,
        anchors: &[
            (0.0, 0.0),
            (0.55, 0.05),
            (0.75, 0.5),
            (0.85, 0.9),
            (1.0, 0.99),
        ],
        measured_on: MeasuredOn::SampleLibrary,
        results: (288, 24),
    },
    Calibration {
        kind: QueryKind::PictureToModel,
        // Of the evidence (`QueryKind::evidence`), not the score alone.
        anchors: &[
            (0.000, 0.000),
            (0.072, 0.004),
            (0.341, 0.010),
            (0.484, 0.043),
            (0.564, 0.043),
            (0.627, 0.059),
            (0.655, 0.111),
            (0.690, 0.148),
            (0.717, 0.308),
            (0.764, 0.310),
            (0.825, 0.312),
            (0.859, 0.500),
            (0.885, 0.556),
            (0.925, 0.833),
            (0.951, 0.923),
            (0.957, 0.926),
            (0.970, 0.938),
        ],
        measured_on: MeasuredOn::CorpusTuningHalf,
        results: (1_700, 257),
    },
    Calibration {
        kind: QueryKind::SketchToModel,
        // Never "similar": the sketch set's model results at the highest scores were the same part
        // 28 times in 100.
        anchors: &[
            (0.000, 0.000),
            (0.720, 0.000),
            (0.748, 0.024),
            (0.793, 0.054),
            (0.842, 0.080),
            (0.865, 0.109),
            (0.877, 0.204),
            (0.927, 0.279),
        ],
        measured_on: MeasuredOn::CorpusTuningHalf,
        results: (1_691, 193),
    },
    Calibration {
        kind: QueryKind::ModelToModel,
        anchors: &[
            (0.000, 0.000),
            (0.707, 0.000),
            (0.936, 0.333),
            (0.985, 0.990),
        ],
        measured_on: MeasuredOn::CorpusTuningHalf,
        results: (806, 44),
    },
    Calibration {
        kind: QueryKind::DrawingToDrawing,
        // The fit's anchors, then the file itself: a drawing searched by its own stored views
        // scores 1 (the fit has no result above 0.962, and flat after it the drawing itself
        // would read "weak" in a search by it).
        anchors: &[
            (0.000, 0.000),
            (0.863, 0.000),
            (0.962, 0.308),
            (0.999, 0.308),
            (1.000, 0.990),
        ],
        measured_on: MeasuredOn::CorpusBothHalves,
        results: (54, 8),
    },
];

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
        // Sketches from the pad: their model results have a curve of their own; their picture and
        // drawing results are labelled as any picture's.
        let sketched = SearchedBy {
            kind: ViewKind::Image,
            sketched: true,
        };
        assert_eq!(
            QueryKind::between(sketched, "flange.STEP"),
            QueryKind::SketchToModel
        );
        assert_eq!(
            QueryKind::between(sketched, "gear.png"),
            QueryKind::PictureToPicture
        );
        assert_eq!(
            QueryKind::between(sketched, "flange-drawing.pdf"),
            QueryKind::Mixed
        );
    }

    #[test]
    fn every_curve_rises_from_nothing_and_mixed_takes_the_strictest() {
        for calibration in &CALIBRATION {
            let anchors = calibration.anchors;
            assert_eq!(anchors.first(), Some(&(0.0, 0.0)), "{calibration:?}");
            assert!(
                anchors
                    .windows(2)
                    .all(|pair| pair[0].0 < pair[1].0 && pair[0].1 <= pair[1].1),
                "{calibration:?}"
            );
            assert!(
                anchors
                    .iter()
                    .all(|&(score, chance)| score <= 1.0 && chance <= 0.99),
                "{calibration:?}"
            );
            let thresholds = calibration.kind.thresholds();
            assert!(
                thresholds.similar <= thresholds.very_similar,
                "{calibration:?}"
            );
            assert!(calibration.results.0 > 0 && calibration.results.1 > 0);
        }
        let mixed = QueryKind::Mixed.thresholds();
        for calibration in &CALIBRATION {
            let thresholds = calibration.kind.thresholds();
            assert!(mixed.very_similar >= thresholds.very_similar);
            assert!(mixed.similar >= thresholds.similar);
            for step in 0..=100 {
                let score = f64::from(step) / 100.0;
                assert!(
                    QueryKind::Mixed.same_part_chance(score)
                        <= calibration.kind.same_part_chance(score)
                );
            }
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
            let thresholds = kind.thresholds();
            for (threshold, chance) in [
                (thresholds.similar, CHANCE_AT_SIMILAR),
                (thresholds.very_similar, CHANCE_AT_VERY_SIMILAR),
            ] {
                if threshold <= 1.0 {
                    assert!((kind.same_part_chance(threshold) - chance).abs() < 1e-9);
                    assert!(
                        kind.same_part_chance(threshold - 0.001) < chance,
                        "{kind:?}"
                    );
                } else {
                    assert!(kind.same_part_chance(1.0) < chance, "{kind:?}");
                }
            }
            let chances: Vec<f64> = (0..=100)
                .map(|step| kind.same_part_chance(f64::from(step) / 100.0))
                .collect();
            assert!(
                chances.windows(2).all(|pair| pair[0] <= pair[1]),
                "{kind:?}"
            );
            assert_eq!(kind.same_part_chance(f64::NAN), 0.0);
        }
        // The issue's example: a flange photo's STL at 0.791 is less likely the same part than its
        // picture at 0.787.
        let model = QueryKind::PictureToModel.same_part_chance(0.791);
        let picture = QueryKind::PictureToPicture.same_part_chance(0.787);
        assert!(model < picture, "{model} {picture}");
    }

    #[test]
    fn a_curve_between_anchors_is_a_straight_line_and_flat_after_the_last() {
        let anchors = [(0.0, 0.0), (0.5, 0.2), (0.9, 0.6)];
        assert!((chance_on(&anchors, 0.25) - 0.1).abs() < 1e-9);
        assert!((chance_on(&anchors, 0.7) - 0.4).abs() < 1e-9);
        assert!((chance_on(&anchors, 1.0) - 0.6).abs() < 1e-9);
        assert!((lowest_score_with(&anchors, 0.4) - 0.7).abs() < 1e-9);
        assert!((lowest_score_with(&anchors, 0.6) - 0.9).abs() < 1e-9);
        assert_eq!(lowest_score_with(&anchors, 0.9), NEVER);
    }
}
