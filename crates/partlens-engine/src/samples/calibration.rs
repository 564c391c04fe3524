//! Score calibration measured on the sample library: for each kind of query (picture → picture,
//! picture → model, model → model, drawing → drawing) the engine's scores of pairs that show the
//! same part and of pairs that do not, and the band thresholds those scores give.
//!
//! The app shows a score as a chance of being the same part, from a curve per query kind
//! (`ui::results::calibration`): picture → picture's comes from what [`measure_sample_library`]
//! measures here (`examples/calibrate_scores.rs` prints it as the table's code; the other kinds
//! are fitted on the real-world corpus), and `tests/app/score_calibration.rs` (the app's tests)
//! fails when the engine's scores drift away from it or a curve breaks the rule below on these
//! pairs.
//!
//! The rule ([`thresholds`]): among the measured pairs scoring at or above a band's threshold, at
//! least [`VERY_SIMILAR_PRECISION`] (very similar) or [`SIMILAR_PRECISION`] (similar) show the same
//! part, and the threshold is the lowest score where that holds for every higher score too.
//!
//! The pairs:
//! - picture → picture: every query photo of the manifest (`views/`) against every part picture;
//! - picture → model: every query photo against every 3D model of the manifest (STL, STEP);
//! - model → model: every model against every other model (the STL and the STEP of a part are the
//!   same part);
//! - drawing → drawing: every sample drawing of [`super::drawings`] (two DXF, one PDF) and another
//!   revision of it (other revision, drawing number and note word), each against every other (a
//!   drawing and its revision are the same part).

use std::collections::HashMap;
use std::path::Path;

use super::drawings::{
    SAMPLE_DRAWINGS, SAMPLE_PDF_DRAWING, SampleDrawing, sample_drawing_dxf, sample_drawing_pdf,
};
use super::read_manifest;
use crate::ViewDescriptor;

/// Share of same-part pairs among the pairs at or above the "very similar" threshold.
pub const VERY_SIMILAR_PRECISION: f64 = 0.9;
/// Share of same-part pairs among the pairs at or above the "similar" threshold.
pub const SIMILAR_PRECISION: f64 = 0.5;

/// The query kinds measured, by the names the app's table uses.
pub const QUERY_KINDS: [&str; 4] = [
    "picture → picture",
    "picture → model",
    "model → model",
    "drawing → drawing",
];

/// One measured pair: a query against a candidate file.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredPair {
    /// One of [`QUERY_KINDS`].
    pub kind: &'static str,
    /// The query file (relative to the samples folder, or the drawing's generated name).
    pub query: String,
    /// The candidate file.
    pub candidate: String,
    /// Whether both show the same part.
    pub same_part: bool,
    /// The engine's file score of the candidate for the query.
    pub score: f64,
}

/// What the pairs of one query kind give.
#[derive(Clone, Debug, PartialEq)]
pub struct KindCalibration {
    /// One of [`QUERY_KINDS`].
    pub kind: &'static str,
    /// Same-part pairs measured.
    pub same_part_pairs: usize,
    /// Median score of the same-part pairs.
    pub same_part_median: f64,
    /// Lowest score of a same-part pair.
    pub same_part_min: f64,
    /// Pairs of different parts measured.
    pub other_pairs: usize,
    /// 90th percentile of the scores of different parts.
    pub other_p90: f64,
    /// Highest score of a pair of different parts.
    pub other_max: f64,
    /// The "very similar" threshold the rule gives (two decimals).
    pub very_similar: f64,
    /// The "similar" threshold the rule gives (two decimals).
    pub similar: f64,
}

/// The part a sample file shows: its file stem without a `-a`/`-b` view suffix or a `-drawing` /
/// `-drawing-rev` suffix (`views/flange-a.png`, `models/flange.step`, `flange-drawing-rev.dxf`
/// → `flange`).
pub fn part_of(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name.split('.').next().unwrap_or(name);
    let stem = stem.strip_suffix("-rev").unwrap_or(stem);
    let stem = stem.strip_suffix("-drawing").unwrap_or(stem);
    let stem = stem
        .strip_suffix("-a")
        .or_else(|| stem.strip_suffix("-b"))
        .unwrap_or(stem);
    stem.to_owned()
}

/// Another revision of a sample drawing: the same part drawn the same way, with another revision,
/// drawing number and note word in its title block and note (what a search by a drawing should
/// find as the same part).
fn revision_of(sample: &SampleDrawing) -> SampleDrawing {
    SampleDrawing {
        revision: "R7",
        drawing_number: "DWG-9999",
        note_word: "POLISH",
        ..sample.clone()
    }
}

/// The lower-case extension of a file name, with the dot.
fn extension_of(file: &str) -> String {
    file.rsplit_once('.')
        .map(|(_, extension)| format!(".{}", extension.to_ascii_lowercase()))
        .unwrap_or_default()
}

/// Analyses one file's bytes into its view descriptors.
fn views_of(name: &str, bytes: &[u8]) -> Result<Vec<ViewDescriptor>, String> {
    let analysis =
        crate::analyze(&extension_of(name), bytes).map_err(|error| format!("{name}: {error}"))?;
    if analysis.views.is_empty() {
        return Err(format!("{name}: the engine gave no view"));
    }
    Ok(analysis.views)
}

/// Every pair of every query kind on the sample library in `samples_dir` (see the module doc).
pub fn measure_sample_library(samples_dir: &Path) -> Result<Vec<ScoredPair>, String> {
    let manifest = read_manifest(samples_dir)?;
    let read = |file: &str| {
        std::fs::read(samples_dir.join(file))
            .map_err(|error| format!("cannot read {file}: {error}"))
    };
    let mut photos = Vec::new();
    let mut pictures = Vec::new();
    let mut models = Vec::new();
    for part in &manifest.parts {
        let extension = extension_of(&part.file);
        if crate::is_image_extension(&extension) {
            pictures.push((part.file.clone(), views_of(&part.file, &read(&part.file)?)?));
            for view in &part.views {
                photos.push((view.clone(), views_of(view, &read(view)?)?));
            }
        } else if partlens_geometry::is_model_extension(&extension) {
            models.push((part.file.clone(), views_of(&part.file, &read(&part.file)?)?));
        }
    }
    let mut drawings = Vec::new();
    for sample in SAMPLE_DRAWINGS.iter().chain([&SAMPLE_PDF_DRAWING]) {
        let revised = revision_of(sample);
        for (drawing, suffix) in [(sample, ""), (&revised, "-rev")] {
            let name = format!("{}{suffix}", sample.name);
            let (name, bytes) = if SAMPLE_DRAWINGS.contains(sample) {
                let name = format!("{name}.dxf");
                let bytes = sample_drawing_dxf(drawing).map_err(|error| format!("{name}: {error}"));
                (name, bytes?)
            } else {
                let name = format!("{name}.pdf");
                let bytes = sample_drawing_pdf(drawing).map_err(|error| format!("{name}: {error}"));
                (name, bytes?)
            };
            drawings.push((name.clone(), views_of(&name, &bytes)?));
        }
    }

    let mut pairs = Vec::new();
    let mut score_all = |kind: &'static str,
                         queries: &[(String, Vec<ViewDescriptor>)],
                         candidates: &[(String, Vec<ViewDescriptor>)]| {
        for (query, query_views) in queries {
            for (candidate, candidate_views) in candidates {
                if query == candidate {
                    continue;
                }
                pairs.push(ScoredPair {
                    kind,
                    query: query.clone(),
                    candidate: candidate.clone(),
                    same_part: part_of(query) == part_of(candidate),
                    score: f64::from(crate::match_views(query_views, candidate_views)),
                });
            }
        }
    };
    score_all(QUERY_KINDS[0], &photos, &pictures);
    score_all(QUERY_KINDS[1], &photos, &models);
    score_all(QUERY_KINDS[2], &models, &models);
    score_all(QUERY_KINDS[3], &drawings, &drawings);
    Ok(pairs)
}

/// The value at quantile `q` (0..=1) of sorted `values` (nearest rank); 0 when empty.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (q * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

/// The lowest score `t` such that, for `t` and every measured score above it, at least `precision`
/// of the pairs scoring at or above it show the same part; rounded up to two decimals. 1.0 (the
/// band is never given) when even the best-scoring pairs miss it.
pub fn thresholds(pairs: &[&ScoredPair], precision: f64) -> f64 {
    let mut scored: Vec<(f64, bool)> = pairs
        .iter()
        .map(|pair| (pair.score, pair.same_part))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut same = 0usize;
    let mut threshold = 1.0;
    for (at, &(score, same_part)) in scored.iter().enumerate() {
        same += usize::from(same_part);
        // Ties: decide at the last pair of equal score.
        if scored.get(at + 1).is_some_and(|next| next.0 == score) {
            continue;
        }
        if (same as f64) / ((at + 1) as f64) >= precision {
            threshold = score;
        } else {
            break;
        }
    }
    ((threshold * 100.0).ceil() / 100.0).min(1.0)
}

/// The figures and thresholds of each query kind in `pairs`, in [`QUERY_KINDS`] order.
pub fn calibrate(pairs: &[ScoredPair]) -> Vec<KindCalibration> {
    let mut by_kind: HashMap<&str, Vec<&ScoredPair>> = HashMap::new();
    for pair in pairs {
        by_kind.entry(pair.kind).or_default().push(pair);
    }
    QUERY_KINDS
        .iter()
        .map(|&kind| {
            let pairs = by_kind.remove(kind).unwrap_or_default();
            let sorted_scores = |same: bool| {
                let mut scores: Vec<f64> = pairs
                    .iter()
                    .filter(|pair| pair.same_part == same)
                    .map(|pair| pair.score)
                    .collect();
                scores.sort_by(f64::total_cmp);
                scores
            };
            let same = sorted_scores(true);
            let other = sorted_scores(false);
            KindCalibration {
                kind,
                same_part_pairs: same.len(),
                same_part_median: quantile(&same, 0.5),
                same_part_min: same.first().copied().unwrap_or(0.0),
                other_pairs: other.len(),
                other_p90: quantile(&other, 0.9),
                other_max: other.last().copied().unwrap_or(0.0),
                very_similar: thresholds(&pairs, VERY_SIMILAR_PRECISION),
                similar: thresholds(&pairs, SIMILAR_PRECISION),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(score: f64, same_part: bool) -> ScoredPair {
        ScoredPair {
            kind: QUERY_KINDS[0],
            query: String::new(),
            candidate: String::new(),
            same_part,
            score,
        }
    }

    #[test]
    fn parts_are_named_by_the_file_stem() {
        assert_eq!(part_of("views/flange-a.png"), "flange");
        assert_eq!(part_of("views/hex-nut-b.jpg"), "hex-nut");
        assert_eq!(part_of("models/stepped-shaft.step"), "stepped-shaft");
        assert_eq!(part_of("l-bracket-drawing.pdf"), "l-bracket");
        assert_eq!(part_of("flange-drawing-rev.dxf"), "flange");
        assert_eq!(part_of("gear.png"), "gear");
    }

    #[test]
    fn thresholds_stop_where_precision_falls_below_the_goal() {
        let pairs = [
            pair(0.95, true),
            pair(0.90, true),
            pair(0.85, false),
            pair(0.80, true),
            pair(0.70, false),
            pair(0.60, false),
        ];
        let refs: Vec<&ScoredPair> = pairs.iter().collect();
        // 2/2 at 0.90, 2/3 at 0.85: very similar (0.9) stops at 0.90.
        assert_eq!(thresholds(&refs, 0.9), 0.90);
        // 3/4 at 0.80, 3/5 at 0.70, 3/6 at 0.60: similar (0.5) reaches 0.60.
        assert_eq!(thresholds(&refs, 0.5), 0.60);
        // The best pair not the part: never very similar.
        let refs: Vec<&ScoredPair> = pairs[2..].iter().collect();
        assert_eq!(thresholds(&refs, 0.9), 1.0);
    }

    #[test]
    fn thresholds_round_up_to_two_decimals() {
        let pairs = [pair(0.8512, true), pair(0.5, false)];
        let refs: Vec<&ScoredPair> = pairs.iter().collect();
        assert_eq!(thresholds(&refs, 0.9), 0.86);
    }
}
