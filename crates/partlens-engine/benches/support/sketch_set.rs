//! The sketch set (issue 49): every library model sketched `per_file` times from the views people
//! draw, and every drawing's page copied out by hand as often (`sketch.rs`), each searched by as
//! the app's sketch pad searches (a PNG, analysed as a picture) against the whole library, ranked by
//! the engine's score as a picture search is. The rows by half: a sketch of a model finds its part
//! (the model or its twin) first and in the first five, and the first result of its kind; a sketch
//! of a drawing finds the drawing (or its twin) first and in the first five.
//!
//! ```text
//! ../../target/debug/deps/corpus_ranking-HASH sketches=2 [reliability]
//! ```
//!
//! `PARTLENS_SKETCHES_DIR=DIR` writes the sketches there, to look at;
//! `PARTLENS_SKETCHES_WITHOUT_LIFTS=1` draws the same sketches with a pen that never lifts.

use std::path::Path;

use partlens_engine::samples::corpus_halves::CorpusHalf;
use rand::SeedableRng;

use crate::sketch::{self, Hand, Pose};
use crate::{
    LibraryFile, PhotoRows, corpus_dir, count, count_photo, halves_row, on_two_threads,
    searched_by_pictures, triangles_of,
};

/// Seed of the hands and poses, and the sheet's size (the sketch pad's square PNG).
const SKETCH_SEED: u64 = 49_004;
const SHEET_SIDE: u32 = 512;

/// A sketch of a library file searched by.
pub struct Sketch {
    /// The file sketched (a model, or a drawing whose page was copied).
    pub drawn: usize,
    /// Every library file scored against the sketch, best first (ties by position).
    pub ranked: Vec<(usize, f32)>,
    /// The sketch as the pad uploads it (a PNG), for the learned-features measurement.
    pub png: Vec<u8>,
}

/// `per_file` sketches of every library model and drawing, each searched by.
pub fn sketches(library: &[LibraryFile], per_file: usize) -> Vec<Sketch> {
    let mut hands = rand::rngs::StdRng::seed_from_u64(SKETCH_SEED);
    let lifts = std::env::var_os("PARTLENS_SKETCHES_WITHOUT_LIFTS").is_none();
    let mut drawn = Vec::new();
    let mut uploads = Vec::new();
    for (at, entry) in library.iter().enumerate() {
        if per_file == 0 {
            break;
        }
        // One file's subject at a time: a corpus mesh can be millions of triangles.
        let subject = if entry.file.is_model() {
            let Some(triangles) = triangles_of(&entry.file) else {
                continue;
            };
            Subject::Part(triangles)
        } else if entry.file.is_drawing() {
            let bytes = std::fs::read(corpus_dir().join(&entry.file.path)).expect("a corpus file");
            let page = partlens_engine::analyze(&entry.file.extension(), &bytes)
                .ok()
                .and_then(|analysis| analysis.large_png)
                .and_then(|png| image::load_from_memory(&png).ok());
            let Some(page) = page else {
                continue;
            };
            Subject::Page(page.to_luma8())
        } else {
            continue;
        };
        // The hands and poses are drawn in order (a page is drawn without a pose; one is drawn
        // anyway to keep the draws in step); the file's sketches are drawn on two threads.
        let planned: Vec<(usize, Hand, Pose)> = (0..per_file)
            .map(|k| {
                let hand = Hand::random(&mut hands, lifts);
                (drawn.len() + k, hand, Pose::random(&mut hands))
            })
            .collect();
        uploads.extend(on_two_threads(&planned, |(number, hand, pose)| {
            let picture = match &subject {
                Subject::Part(triangles) => {
                    sketch::sketch_part(triangles, *pose, hand, SHEET_SIDE, SHEET_SIDE)
                }
                Subject::Page(page) => sketch::sketch_page(page, hand, SHEET_SIDE, SHEET_SIDE),
            };
            let png = sketch::png(&picture);
            if let Some(dir) = std::env::var_os("PARTLENS_SKETCHES_DIR") {
                let name = format!("{at:03}-{number}.png");
                std::fs::write(Path::new(&dir).join(name), &png).expect("a sketch written");
            }
            (".png", png)
        }));
        drawn.extend(std::iter::repeat_n(at, per_file));
    }
    let pictures: Vec<(&str, &[u8])> = uploads
        .iter()
        .map(|(extension, png)| (*extension, png.as_slice()))
        .collect();
    let searched = searched_by_pictures(library, &pictures);
    searched
        .into_iter()
        .zip(drawn)
        .zip(uploads)
        .map(|(((_, mut ranked), drawn), (_, png))| {
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            Sketch { drawn, ranked, png }
        })
        .collect()
}

/// What is sketched: a part's triangles or a drawing's page.
enum Subject {
    Part(crate::vector::Triangles),
    Page(image::GrayImage),
}

/// The rows of one half for sketches of drawings: the drawing (or its twin) first and in the
/// first five.
#[derive(Default)]
struct DrawingRows {
    first: (usize, usize),
    in_five: (usize, usize),
}

/// The sketch rows by half.
pub fn print_rows(library: &[LibraryFile], sketches: &[Sketch]) {
    let mut model_rows = [PhotoRows::default(), PhotoRows::default()];
    let mut part_first = [(0, 0), (0, 0)];
    let mut drawing_rows = [DrawingRows::default(), DrawingRows::default()];
    for sketch in sketches {
        let file = &library[sketch.drawn].file;
        let half = usize::from(file.half() == CorpusHalf::HeldOut);
        let same = |at: usize| {
            at == sketch.drawn || (!file.twin.is_empty() && library[at].file.twin == file.twin)
        };
        if file.is_model() {
            count_photo(library, sketch.drawn, &sketch.ranked, &mut model_rows[half]);
            count(
                &mut part_first[half],
                sketch.ranked.first().is_some_and(|&(at, _)| same(at)),
            );
        } else {
            let rows = &mut drawing_rows[half];
            count(
                &mut rows.first,
                sketch.ranked.first().is_some_and(|&(at, _)| same(at)),
            );
            count(
                &mut rows.in_five,
                sketch.ranked.iter().take(5).any(|&(at, _)| same(at)),
            );
        }
    }
    println!("\n| a sketch | tuning half | held-out half |");
    println!("|---|---|---|");
    halves_row("of a model: the part first", part_first[0], part_first[1]);
    halves_row(
        "of a model: the part in the first five",
        model_rows[0].part_in_five,
        model_rows[1].part_in_five,
    );
    halves_row(
        "of a model: first result of its kind",
        model_rows[0].kind_first,
        model_rows[1].kind_first,
    );
    halves_row(
        "of a drawing: the drawing first",
        drawing_rows[0].first,
        drawing_rows[1].first,
    );
    halves_row(
        "of a drawing: the drawing in the first five",
        drawing_rows[0].in_five,
        drawing_rows[1].in_five,
    );
}
