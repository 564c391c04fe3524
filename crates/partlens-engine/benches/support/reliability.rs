//! Scores that hold their promise (issue 49, item 4): for each kind of search the corpus gives real
//! pairs for, the results a user sees (the first [`SHOWN`] of each search, in the service's order)
//! with the score the service shows, whether each is the same part, and the query's half; a
//! monotone chance-of-same-part curve fitted on the tuning half (pool-adjacent-violators, then one
//! anchor a pooled block), and the reliability table of the held-out half under that curve.
//!
//! The score is the service's `Score`: [`partlens_engine::match_views`] of the query's views against
//! the candidate's stored views, and for a model found by a model the size blend of the service's
//! `part_size.rs` (the bench's `rank`). Same part: the model photographed, or a file of the same
//! `twin` key in the manifest (a STEP and its STL, one drawing as DXF R12 and R2013). A file of the
//! same family is another part. The kinds:
//!
//! - model → model: every model searched by (as an upload, `Purpose::SearchInput`), its model results.
//! - model → model by a stored model: every model searched by its stored views (*More like this*,
//!   which searches by the file's UID), its model results, under the model → model curve.
//! - photo → model: the bench's photographs of every model (`photos=N`), their model results; the
//!   curve is read at the score less [`BELOW_BEST_WEIGHT`] times how far the result lies below its
//!   search's best shown model (0 for the best), as the app reads it.
//! - drawing → drawing: every drawing searched by (as an upload), its drawing results.
//! - sketch → model: the sketch set's sketches of every model (`sketches=N`, `sketch_set.rs`), their
//!   model results; fitted on its own, and shown under the photo → model curve too (the app
//!   labelled a sketch's model results by the picture → model curve before it had this one).
//! - sketch → drawing: the sketch set's hand copies of every drawing's page, their drawing results
//!   (the drawing itself is the same part).
//!
//! ```text
//! cargo test -p partlens-engine --bench corpus_ranking --no-run
//! ../../target/debug/deps/corpus_ranking-HASH reliability photos=2 sketches=2
//! ```

use std::collections::BTreeMap;

use partlens_engine::Purpose;
use partlens_engine::samples::corpus_halves::CorpusHalf;

use crate::sketch_set::Sketch;
use crate::{LibraryFile, Photo, analysis_of, on_two_threads, rank_visual};

/// The results of a search a user sees and the curve is fitted on: the first page of the app's grid.
pub const SHOWN: usize = 10;

/// A pooled block of the fit holds at least this many results, so that no anchor rests on a few.
const MIN_BLOCK: usize = 12;

/// The highest chance a curve gives: two files can look the same and be different parts.
const HIGHEST_CHANCE: f64 = 0.99;

/// The bands of the shown chance the reliability table is cut into (lower bounds).
const BANDS: [(f64, &str); 5] = [
    (0.0, "< 30 %"),
    (0.3, "30–50 %"),
    (0.5, "50–70 %"),
    (0.7, "70–90 %"),
    (0.9, "≥ 90 %"),
];

/// What a photo → model result's shortfall from its search's best shown model result costs the
/// evidence its curve is read at: the app's `BELOW_BEST_WEIGHT` (`src/ui/results/calibration.rs`),
/// the same value; chosen by the tuning half's log loss (`reliability_margin.py … clipped`,
/// docs/PERFORMANCE.md, "The margin clipped at zero").
const BELOW_BEST_WEIGHT: f64 = 16.0;

/// A band is reliable when its same-part share is within this of its label (the mean chance shown).
const TOLERANCE: f64 = 0.05;

/// A search's candidates, best first: (position in the library, the score shown).
type Ranked = Vec<(usize, f32)>;

/// A kind of search the corpus gives real same-part pairs for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    ModelToModel,
    StoredModelToModel,
    PhotoToModel,
    SketchToModel,
    DrawingToDrawing,
    SketchToDrawing,
}

impl Kind {
    const ALL: [Self; 6] = [
        Self::ModelToModel,
        Self::StoredModelToModel,
        Self::PhotoToModel,
        Self::SketchToModel,
        Self::DrawingToDrawing,
        Self::SketchToDrawing,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::ModelToModel => "model → model",
            Self::StoredModelToModel => "model → model by a stored model (More like this)",
            Self::PhotoToModel => "photo → model",
            Self::DrawingToDrawing => "drawing → drawing",
            Self::SketchToModel => "sketch → model",
            Self::SketchToDrawing => "sketch → drawing (a drawing's page copied out by hand)",
        }
    }

    /// What a result's shortfall from its search's best shown result of the kind costs the
    /// evidence the curve is read at ([`BELOW_BEST_WEIGHT`] for photo → model, as in the app).
    fn below_best_weight(self) -> f64 {
        if self == Self::PhotoToModel {
            BELOW_BEST_WEIGHT
        } else {
            0.0
        }
    }

    /// The kind whose curve the app labels this one by, when it is not fitted on its own.
    fn labelled_as(self) -> Option<Self> {
        (self == Self::StoredModelToModel).then_some(Self::ModelToModel)
    }

    /// The kind whose fitted curve the app labelled this one by before it had its own.
    fn labelled_before_by(self) -> Option<Self> {
        (self == Self::SketchToModel).then_some(Self::PhotoToModel)
    }
}

/// One result a user sees.
#[derive(Clone, Copy, Debug)]
struct Shown {
    /// Where the curve is read: the score shown, less the kind's [`Kind::below_best_weight`] times
    /// the result's shortfall from its search's best shown result.
    score: f64,
    /// The score shown.
    raw: f64,
    same_part: bool,
}

/// `results` read at their scores shown alone (for the curves of the score alone).
fn at_raw(results: &[Shown]) -> Vec<Shown> {
    results
        .iter()
        .map(|shown| Shown {
            score: shown.raw,
            ..*shown
        })
        .collect()
}

/// The shown results of every kind, by half (tuning first).
#[derive(Default)]
struct Results {
    by_kind: BTreeMap<Kind, [Vec<Shown>; 2]>,
}

impl Results {
    /// Keeps the first [`SHOWN`] of `ranked` (best first) whose file `counts`, for a query in `half`.
    fn keep(
        &mut self,
        kind: Kind,
        half: CorpusHalf,
        ranked: &[(usize, f32)],
        counts: impl Fn(usize) -> bool,
        same_part: impl Fn(usize) -> bool,
    ) {
        let kept =
            &mut self.by_kind.entry(kind).or_default()[usize::from(half == CorpusHalf::HeldOut)];
        let shown: Vec<(usize, f64)> = ranked
            .iter()
            .take(SHOWN)
            .filter(|(at, _)| counts(*at))
            .map(|&(at, score)| (at, f64::from(score)))
            .collect();
        let best = shown
            .iter()
            .map(|&(_, score)| score)
            .fold(f64::NEG_INFINITY, f64::max);
        let weight = kind.below_best_weight();
        kept.extend(shown.iter().map(|&(at, score)| Shown {
            score: score + weight * (score - best).min(0.0),
            raw: score,
            same_part: same_part(at),
        }));
    }
}

/// Measures every kind, fits each curve on the tuning half and prints the anchors and the held-out
/// reliability tables (markdown). `searches` are the model searches as the service ranks them.
pub fn report(
    library: &[LibraryFile],
    searches: &[(usize, Vec<(usize, f32)>)],
    photos: &[Photo],
    sketches: &[Sketch],
) {
    let mut results = Results::default();
    let twins = |a: usize, b: usize| {
        let (a, b) = (&library[a].file, &library[b].file);
        !a.twin.is_empty() && a.twin == b.twin
    };
    for (query, ranked) in searches {
        let half = library[*query].file.half();
        let model = |at: usize| library[at].file.is_model();
        results.keep(Kind::ModelToModel, half, ranked, model, |at| {
            twins(*query, at)
        });
    }
    for (query, ranked) in stored_model_searches(library) {
        let half = library[query].file.half();
        let model = |at: usize| library[at].file.is_model();
        results.keep(Kind::StoredModelToModel, half, &ranked, model, |at| {
            twins(query, at)
        });
    }
    for photo in photos {
        let mut ranked = photo.candidates.clone();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let half = library[photo.model].file.half();
        let model = |at: usize| library[at].file.is_model();
        let part = |at: usize| at == photo.model || twins(photo.model, at);
        results.keep(Kind::PhotoToModel, half, &ranked, model, part);
    }
    for (query, ranked) in drawing_searches(library) {
        let half = library[query].file.half();
        let drawing = |at: usize| library[at].file.is_drawing();
        results.keep(Kind::DrawingToDrawing, half, &ranked, drawing, |at| {
            twins(query, at)
        });
    }
    for sketch in sketches {
        let drawn = sketch.drawn;
        let half = library[drawn].file.half();
        let same = |at: usize| at == drawn || twins(drawn, at);
        let (kind, counts): (Kind, &dyn Fn(usize) -> bool) = if library[drawn].file.is_model() {
            (Kind::SketchToModel, &|at| library[at].file.is_model())
        } else {
            (Kind::SketchToDrawing, &|at| library[at].file.is_drawing())
        };
        results.keep(kind, half, &sketch.ranked, counts, same);
    }
    println!("\n## Scores that hold their promise (first {SHOWN} results of each search)\n");
    println!("| kind | tuning half: results, same part | held-out half: results, same part |");
    println!("|---|---|---|");
    for (kind, halves) in &results.by_kind {
        let same = |shown: &[Shown]| shown.iter().filter(|shown| shown.same_part).count();
        println!(
            "| {} | {}, {} | {}, {} |",
            kind.name(),
            halves[0].len(),
            same(&halves[0]),
            halves[1].len(),
            same(&halves[1])
        );
    }
    print_fits(&results);
}

/// Fits each kind's curve (on the tuning half, or on both when the tuning half has no same-part
/// result) and prints its anchors and reliability tables; a kind labelled by another's curve is
/// shown under that curve.
fn print_fits(results: &Results) {
    let mut fitted: BTreeMap<Kind, Vec<(f64, f64)>> = BTreeMap::new();
    for kind in Kind::ALL {
        let Some([tuning, held_out]) = results.by_kind.get(&kind) else {
            println!(
                "\n{}: no results (photographs need `photos=N`, sketches `sketches=N`)",
                kind.name()
            );
            continue;
        };
        if let Some(anchors) = kind.labelled_as().and_then(|other| fitted.get(&other)) {
            println!(
                "\n### {}\n\nUnder the curve the app labels it by (fitted on uploads' tuning half):",
                kind.name()
            );
            println!("\nHeld-out half:\n");
            print_table(held_out, anchors);
            println!("\nTuning half:\n");
            print_table(tuning, anchors);
            continue;
        }
        // A kind whose tuning half holds no same-part result has no curve to fit there: it is
        // fitted on both halves, and its table is then no held-out check (said so).
        let checked = tuning.iter().any(|shown| shown.same_part);
        let anchors = if checked {
            fit(tuning)
        } else {
            fit(&[tuning.as_slice(), held_out.as_slice()].concat())
        };
        let fitted_on = if checked {
            "the tuning half"
        } else {
            "both halves (no same-part result in the tuning half): NOT a held-out check"
        };
        println!(
            "\n### {}\n\nAnchors fitted on {fitted_on} (score, chance):",
            kind.name()
        );
        println!(
            "`[{}]`",
            anchors
                .iter()
                .map(|(score, chance)| format!("({score:.3}, {chance:.3})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
            "\nHeld-out half under the fitted curve{}:\n",
            if checked { "" } else { " (fitted on it too)" }
        );
        print_table(held_out, &anchors);
        println!("\nTuning half under the fitted curve:\n");
        print_table(tuning, &anchors);
        if kind.below_best_weight() > 0.0 {
            let (tuning, held_out) = (at_raw(tuning), at_raw(held_out));
            let alone = fit(&tuning);
            println!(
                "\nHeld-out half under the curve of the score alone, fitted on the tuning half (the \
                 app's before its shortfall from the best counted):\n"
            );
            print_table(&held_out, &alone);
        }
        if let Some(old) = old_anchors(kind) {
            println!("\nHeld-out half under the app's curve before (labels' thresholds):\n");
            print_table(&at_raw(held_out), &old);
        }
        if let Some((before, anchors)) = kind
            .labelled_before_by()
            .and_then(|before| Some((before, fitted.get(&before)?)))
        {
            println!(
                "\nHeld-out half under the {} curve the app labelled it by before:\n",
                before.name()
            );
            print_table(held_out, anchors);
        }
        fitted.insert(kind, anchors);
    }
}

/// Every model searched by its stored views (*More like this* on a stored model searches by the
/// file's UID, so by its database analysis, not an upload's), ranked as the service ranks it (the
/// size blend for model candidates): (the model's position, the ranked candidates).
fn stored_model_searches(library: &[LibraryFile]) -> Vec<(usize, Ranked)> {
    let models: Vec<usize> = (0..library.len())
        .filter(|&at| library[at].file.is_model())
        .collect();
    on_two_threads(&models, |&query| {
        let own = &library[query];
        let visual = library
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != query)
            .map(|(at, candidate)| {
                (
                    at,
                    partlens_engine::match_views(&own.views, &candidate.views),
                )
            })
            .collect();
        (query, rank_visual(library, query, visual))
    })
}

/// Every drawing searched by as an upload, against the whole library but itself, best first: (the
/// drawing's position, the ranked candidates).
fn drawing_searches(library: &[LibraryFile]) -> Vec<(usize, Ranked)> {
    let drawings: Vec<usize> = (0..library.len())
        .filter(|&at| library[at].file.is_drawing())
        .collect();
    let queries = on_two_threads(&drawings, |&at| {
        let views = analysis_of(&library[at].file, Purpose::SearchInput)?.views;
        (!views.is_empty()).then_some((at, views))
    });
    queries
        .into_iter()
        .flatten()
        .map(|(at, views)| {
            let mut ranked: Ranked = library
                .iter()
                .enumerate()
                .filter(|(candidate, _)| *candidate != at)
                .map(|(candidate, file)| {
                    (candidate, partlens_engine::match_views(&views, &file.views))
                })
                .collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            (at, ranked)
        })
        .collect()
}

/// A monotone curve of the chance of being the same part by score: the pool-adjacent-violators fit
/// of same part (1) or not (0) over the results sorted by score, its blocks pooled further until
/// each holds [`MIN_BLOCK`] results, one anchor a block (its mean score, its same-part share, at
/// most [`HIGHEST_CHANCE`]), from (0, 0).
fn fit(results: &[Shown]) -> Vec<(f64, f64)> {
    let mut sorted = results.to_vec();
    sorted.sort_by(|a, b| a.score.total_cmp(&b.score));
    // A block: (sum of scores, same-part count, results).
    let mut blocks: Vec<(f64, f64, usize)> = Vec::new();
    for shown in &sorted {
        blocks.push((shown.score, f64::from(u8::from(shown.same_part)), 1));
        while blocks.len() > 1 {
            let last = blocks[blocks.len() - 1];
            let before = blocks[blocks.len() - 2];
            let too_small = before.2 < MIN_BLOCK;
            if before.1 / before.2 as f64 >= last.1 / last.2 as f64 || too_small {
                blocks.pop();
                let merged = blocks.last_mut().expect("the block before");
                *merged = (merged.0 + last.0, merged.1 + last.1, merged.2 + last.2);
            } else {
                break;
            }
        }
    }
    // The last block may be small: pool it with the one before.
    if blocks.len() > 1 && blocks[blocks.len() - 1].2 < MIN_BLOCK {
        let last = blocks.pop().expect("a last block");
        let merged = blocks.last_mut().expect("the block before");
        *merged = (merged.0 + last.0, merged.1 + last.1, merged.2 + last.2);
    }
    let mut anchors = vec![(0.0, 0.0)];
    for (scores, same, count) in blocks {
        let count = count as f64;
        let anchor = (scores / count, (same / count).min(HIGHEST_CHANCE));
        if anchor.0 > anchors[anchors.len() - 1].0 {
            anchors.push(anchor);
        }
    }
    anchors
}

/// The chance the curve through `anchors` gives `score`: straight lines between anchors, flat after
/// the last (as the app's `same_part_chance`).
fn chance(anchors: &[(f64, f64)], score: f64) -> f64 {
    let score = score.clamp(0.0, 1.0);
    anchors.windows(2).find(|pair| score <= pair[1].0).map_or(
        anchors.last().map_or(0.0, |last| last.1),
        |pair| {
            let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
            y0 + (y1 - y0) * (score - x0) / (x1 - x0)
        },
    )
}

/// The app's curve before this measurement, from its labels' thresholds (5 % at twice the gap
/// below "similar", 50 % at "similar", 90 % at "very similar", 99 % at 1), for the kinds it had.
fn old_anchors(kind: Kind) -> Option<Vec<(f64, f64)>> {
    let (similar, very_similar) = match kind {
        Kind::ModelToModel => (0.85, 0.91),
        Kind::PhotoToModel => (0.81, 0.85),
        Kind::DrawingToDrawing => (0.66, 0.84),
        Kind::StoredModelToModel | Kind::SketchToModel | Kind::SketchToDrawing => return None,
    };
    let unlikely: f64 = similar - 2.0 * (very_similar - similar);
    Some(vec![
        (0.0, 0.0),
        (unlikely.max(0.01), 0.05),
        (similar, 0.5),
        (very_similar, 0.9),
        (1.0, 0.99),
    ])
}

/// The reliability table of `results` under the curve through `anchors`: per band of the chance
/// shown, the results, the mean chance shown (the band's label), the same-part share with its 95 %
/// Wilson interval, and whether the share is within [`TOLERANCE`] of the label.
fn print_table(results: &[Shown], anchors: &[(f64, f64)]) {
    println!(
        "| chance shown | results | label (mean shown) | same part | 95 % interval | within 5 points |"
    );
    println!("|---|---|---|---|---|---|");
    for (band, (low, name)) in BANDS.iter().enumerate() {
        let high = BANDS.get(band + 1).map_or(f64::INFINITY, |next| next.0);
        let in_band: Vec<(f64, bool)> = results
            .iter()
            .map(|shown| (chance(anchors, shown.score), shown.same_part))
            .filter(|(chance, _)| (*low..high).contains(chance))
            .collect();
        if in_band.is_empty() {
            println!("| {name} | 0 | – | – | – | – |");
            continue;
        }
        let count = in_band.len() as f64;
        let label = in_band.iter().map(|(chance, _)| chance).sum::<f64>() / count;
        let same = in_band.iter().filter(|(_, same)| *same).count();
        let share = same as f64 / count;
        let (from, to) = wilson(same, in_band.len());
        println!(
            "| {name} | {} | {:.1} % | {:.1} % ({same}) | {:.0}–{:.0} % | {} |",
            in_band.len(),
            100.0 * label,
            100.0 * share,
            100.0 * from,
            100.0 * to,
            if (share - label).abs() <= TOLERANCE {
                "yes"
            } else {
                "no"
            }
        );
    }
}

/// The 95 % Wilson score interval of `hits` in `total`.
fn wilson(hits: usize, total: usize) -> (f64, f64) {
    let (n, z) = (total as f64, 1.96_f64);
    let p = hits as f64 / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}
