//! A shortlist by a subset of the views, scored exactly on all of them (issue 51 item 1, way B):
//! what `shortlist=K1,K2,…` measures. A graph over a subset of each model's views (by default the
//! 33 a search by that model brings, `shortlist_views=SUBSET` for another) would find candidate
//! files; the best K of them are then scored on all their views exactly as today. For every
//! search (each model searched by, and with `photos=N` each photograph) the library is ranked by
//! the subset alone (the engine's score of the query against the candidate's subset views, and for
//! a model found by a model the size blend, as the bench's exact ranking), its best K kept, those
//! ranked by their exact score and the rest after them in the subset's order; counted against the
//! exact ranking of the same run:
//!
//! - recall@10: of the exact first 10, how many are in the two-stage first 10 (one whose exact
//!   score is within [`TIE`] of the two-stage tenth's is a tie and counted as found);
//! - the exact first result in the shortlist, and the bench's rows (twins, kinds, P@3, drawings
//!   first, the photo rows) on the two-stage ranking;
//! - where the exact first result, the deepest of the exact first 10 and the same part (a twin,
//!   the model photographed) sit in the subset's ranking, as ranks and as a fraction of the
//!   library: the numbers a K at 100,000 parts is extrapolated from (the corpus's library is 199
//!   files).
//!
//! The subset's scores stand for what a graph over the subset would find if it were exact; the
//! graph's own recall (≥ 0.98 a view, measured in "Visual search at scale") comes on top.

use partlens_engine::ViewDescriptor;
use partlens_engine::match_views;
use partlens_engine::samples::corpus_halves::CorpusHalf;

use crate::view_subsets::ViewSubset;
use crate::{
    LibraryFile, Photo, PhotoRows, Rows, count_photo, count_search, on_two_threads, rank_visual,
};

/// A search's candidates, best first: (position in the library, score).
pub type Ranked = Vec<(usize, f32)>;

/// A search by a model: the model, the views it brought, its exact ranking.
pub struct ModelSearch<'a> {
    /// The model searched by (its position in the library).
    pub query: usize,
    /// Its views as a search input.
    pub views: &'a [ViewDescriptor],
    /// Its candidates ranked on all their views.
    pub exact: Ranked,
}

/// Results counted by recall: the first page.
const FIRST: usize = 10;

/// Scores this close to the exact tenth's are ties (as the service's `visual_scale` counts them).
const TIE: f32 = 0.001;

/// What `shortlist=…` asks for.
pub struct Shortlists {
    /// The shortlist's lengths, K.
    widths: Vec<usize>,
    /// The views of each library model the shortlist is made by.
    subset: ViewSubset,
}

impl Shortlists {
    /// The shortlists the bench's arguments ask for (`None` without `shortlist=`).
    pub fn from_args(args: &[String]) -> Result<Option<Self>, String> {
        let Some(widths) = args.iter().find_map(|arg| arg.strip_prefix("shortlist=")) else {
            return Ok(None);
        };
        let widths = widths
            .split(',')
            .map(|width| match width.trim().parse::<usize>() {
                Ok(width) if width > 0 => Ok(width),
                _ => Err(format!(
                    "`{width}` is no shortlist length: say shortlist=50,100,200"
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let subset = args
            .iter()
            .find_map(|arg| arg.strip_prefix("shortlist_views="))
            .map_or(Ok(ViewSubset::SearchInput), ViewSubset::parse)?;
        Ok(Some(Self { widths, subset }))
    }
}

/// One search's two rankings, best first: (position in the library, score).
struct TwoRankings {
    /// The query's half.
    half: CorpusHalf,
    /// The model searched by, or the model photographed.
    model: usize,
    /// The files that are the same part: the model photographed and its twins, or the twins of
    /// the model searched by (empty when it has none).
    same_part: Vec<usize>,
    exact: Ranked,
    by_subset: Ranked,
}

/// Measures the shortlists and prints their tables against the exact rankings of the model
/// searches and of the photographs.
pub fn report(
    shortlists: &Shortlists,
    library: &[LibraryFile],
    searches: &[ModelSearch],
    photos: &[Photo],
) {
    let subset_views: Vec<Vec<ViewDescriptor>> = library
        .iter()
        .map(|entry| shortlists.subset.restrict(&entry.views))
        .collect();
    let by_subset = |query: Option<usize>, views: &[ViewDescriptor]| {
        (0..library.len())
            .filter(|&at| Some(at) != query)
            .map(|at| (at, match_views(views, &subset_views[at])))
            .collect::<Vec<_>>()
    };
    let twins = |model: usize| {
        let twin = &library[model].file.twin;
        (0..library.len())
            .filter(|&at| at != model && !twin.is_empty() && library[at].file.twin == *twin)
            .collect::<Vec<_>>()
    };
    let models = on_two_threads(searches, |search| TwoRankings {
        half: library[search.query].file.half(),
        model: search.query,
        same_part: twins(search.query),
        exact: search.exact.clone(),
        by_subset: rank_visual(
            library,
            search.query,
            by_subset(Some(search.query), search.views),
        ),
    });
    let photos = on_two_threads(photos, |photo| {
        let mut exact = photo.candidates.clone();
        sort_best_first(&mut exact);
        let mut subset = by_subset(None, &photo.views);
        sort_best_first(&mut subset);
        let mut same_part = twins(photo.model);
        same_part.push(photo.model);
        TwoRankings {
            half: library[photo.model].file.half(),
            model: photo.model,
            same_part,
            exact,
            by_subset: subset,
        }
    });
    let stored = |views: &[Vec<ViewDescriptor>]| views.iter().map(Vec::len).sum::<usize>();
    println!(
        "\n## Shortlist by `{}` ({} views stored in the library against {} with all), scored \
         exactly on all views",
        shortlists.subset.name(),
        stored(&subset_views),
        library.iter().map(|entry| entry.views.len()).sum::<usize>()
    );
    print_depths(library.len(), &models, &photos);
    print_table(shortlists, library, &models, &photos);
}

fn sort_best_first(ranked: &mut [(usize, f32)]) {
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// The ranking of the two stages: the subset's best `width`, ranked by their exact scores, then
/// the rest in the subset's order.
fn two_stage(search: &TwoRankings, width: usize) -> Ranked {
    let exact_score = |at: usize| {
        search
            .exact
            .iter()
            .find(|&&(other, _)| other == at)
            .map_or(0.0, |&(_, score)| score)
    };
    let mut head: Ranked = search
        .by_subset
        .iter()
        .take(width)
        .map(|&(at, _)| (at, exact_score(at)))
        .collect();
    sort_best_first(&mut head);
    head.extend(search.by_subset.iter().skip(width).copied());
    head
}

/// Of the exact first [`FIRST`], how many the two-stage ranking's first [`FIRST`] has (ties
/// within [`TIE`] of its tenth counted as found), and how many there were.
fn recall(search: &TwoRankings, ranked: &[(usize, f32)]) -> (usize, usize) {
    let shown = &ranked[..ranked.len().min(FIRST)];
    let last = shown.last().map_or(f32::NEG_INFINITY, |&(_, score)| score);
    let wanted = &search.exact[..search.exact.len().min(FIRST)];
    let found = wanted
        .iter()
        .filter(|&&(at, score)| shown.iter().any(|&(other, _)| other == at) || score <= last + TIE)
        .count();
    (found, wanted.len())
}

/// Where `at` sits in the subset's ranking (1 is first).
fn subset_rank(search: &TwoRankings, at: usize) -> usize {
    search
        .by_subset
        .iter()
        .position(|&(other, _)| other == at)
        .map_or(search.by_subset.len(), |rank| rank + 1)
}

/// The distribution of the subset's ranks of the exact first result, of the deepest of the
/// exact first ten and of the same part, over the searches of each kind.
fn print_depths(library: usize, models: &[TwoRankings], photos: &[TwoRankings]) {
    println!(
        "\n| in the subset's ranking (of {} candidates) | searches | median | 90th | 99th | \
         worst | worst as a fraction of the library |",
        library - 1
    );
    println!("|---|---|---|---|---|---|---|");
    for (kind, searches) in [("a model", models), ("a photograph", photos)] {
        if searches.is_empty() {
            continue;
        }
        type Depth = fn(&TwoRankings) -> Option<usize>;
        let depths: [(&str, Depth); 3] = [
            ("the exact first result", |search| {
                let &(at, _) = search.exact.first()?;
                Some(subset_rank(search, at))
            }),
            ("the deepest of the exact first 10", |search| {
                search
                    .exact
                    .iter()
                    .take(FIRST)
                    .map(|&(at, _)| subset_rank(search, at))
                    .max()
            }),
            ("the same part", |search| {
                search
                    .same_part
                    .iter()
                    .map(|&at| subset_rank(search, at))
                    .min()
            }),
        ];
        for (what, depth) in depths {
            let mut ranks: Vec<usize> = searches.iter().filter_map(depth).collect();
            if ranks.is_empty() {
                continue;
            }
            ranks.sort_unstable();
            let at = |share: f64| ranks[((ranks.len() - 1) as f64 * share).round() as usize];
            let worst = at(1.0);
            println!(
                "| {what}, search by {kind} | {} | {} | {} | {} | {worst} | {:.3} |",
                ranks.len(),
                at(0.5),
                at(0.9),
                at(0.99),
                worst as f64 / (library - 1).max(1) as f64
            );
        }
    }
}

/// One column of the table: the counts over every search of the two-stage ranking of one width
/// (`None`: the exact ranking itself).
struct Column {
    recall_models: (usize, usize),
    recall_photos: (usize, usize),
    first_kept_models: (usize, usize),
    first_kept_photos: (usize, usize),
    rows: [Rows; 2],
    photo_rows: [PhotoRows; 2],
}

fn column(
    library: &[LibraryFile],
    models: &[TwoRankings],
    photos: &[TwoRankings],
    width: Option<usize>,
) -> Column {
    let ranked = |search: &TwoRankings| match width {
        Some(width) => two_stage(search, width),
        None => search.exact.clone(),
    };
    let mut column = Column {
        recall_models: (0, 0),
        recall_photos: (0, 0),
        first_kept_models: (0, 0),
        first_kept_photos: (0, 0),
        rows: [Rows::default(), Rows::default()],
        photo_rows: [PhotoRows::default(), PhotoRows::default()],
    };
    let kept_first = |search: &TwoRankings| {
        width.is_none_or(|width| {
            search
                .exact
                .first()
                .is_none_or(|&(at, _)| subset_rank(search, at) <= width)
        })
    };
    for search in models {
        let two = ranked(search);
        add(&mut column.recall_models, recall(search, &two));
        add(
            &mut column.first_kept_models,
            (usize::from(kept_first(search)), 1),
        );
        let half = usize::from(search.half == CorpusHalf::HeldOut);
        count_search(library, search.model, &two, &mut column.rows[half]);
    }
    for search in photos {
        let two = ranked(search);
        add(&mut column.recall_photos, recall(search, &two));
        add(
            &mut column.first_kept_photos,
            (usize::from(kept_first(search)), 1),
        );
        let half = usize::from(search.half == CorpusHalf::HeldOut);
        count_photo(library, search.model, &two, &mut column.photo_rows[half]);
    }
    column
}

fn add(total: &mut (usize, usize), (hits, of): (usize, usize)) {
    total.0 += hits;
    total.1 += of;
}

/// The table: a row a measure, a column the exact ranking and each width; the rows of the bench
/// as tuning / held-out.
fn print_table(
    shortlists: &Shortlists,
    library: &[LibraryFile],
    models: &[TwoRankings],
    photos: &[TwoRankings],
) {
    let mut columns = vec![(
        "exact, all views".to_owned(),
        column(library, models, photos, None),
    )];
    for &width in &shortlists.widths {
        columns.push((
            format!("K = {width}"),
            column(library, models, photos, Some(width)),
        ));
    }
    let names: Vec<&str> = columns.iter().map(|(name, _)| name.as_str()).collect();
    println!("\n| | {} |", names.join(" | "));
    println!("|---|{}", "---|".repeat(columns.len()));
    let fraction = |(hits, of): (usize, usize)| format!("{:.3}", hits as f64 / of.max(1) as f64);
    let both = |cell: &dyn Fn(usize) -> (usize, usize)| {
        let [tuning, held_out] = [cell(0), cell(1)];
        format!("{}/{} · {}/{}", tuning.0, tuning.1, held_out.0, held_out.1)
    };
    type Cell<'a> = Box<dyn Fn(&Column) -> String + 'a>;
    let mut rows: Vec<(&str, Cell)> = vec![
        (
            "recall@10, search by a model",
            Box::new(|column: &Column| fraction(column.recall_models)),
        ),
        (
            "exact first in the shortlist, by a model",
            Box::new(|column: &Column| fraction(column.first_kept_models)),
        ),
        (
            "twin top-1 (tuning · held-out)",
            Box::new(|column: &Column| both(&|half| column.rows[half].twin_first)),
        ),
        (
            "kind top-1 (tuning · held-out)",
            Box::new(|column: &Column| both(&|half| column.rows[half].kind_first)),
        ),
        (
            "kind P@3, of 3 a search (tuning · held-out)",
            Box::new(|column: &Column| {
                both(&|half| {
                    let rows = &column.rows[half];
                    (rows.kind_three, 3 * rows.kind_first.1)
                })
            }),
        ),
        (
            "first result a drawing (tuning · held-out)",
            Box::new(|column: &Column| both(&|half| column.rows[half].drawing_first)),
        ),
    ];
    if !photos.is_empty() {
        rows.extend::<[(&str, Cell); 4]>([
            (
                "recall@10, search by a photograph",
                Box::new(|column: &Column| fraction(column.recall_photos)),
            ),
            (
                "exact first in the shortlist, by a photograph",
                Box::new(|column: &Column| fraction(column.first_kept_photos)),
            ),
            (
                "photo: the part in the first five (tuning · held-out)",
                Box::new(|column: &Column| both(&|half| column.photo_rows[half].part_in_five)),
            ),
            (
                "photo: first result of its kind (tuning · held-out)",
                Box::new(|column: &Column| both(&|half| column.photo_rows[half].kind_first)),
            ),
        ]);
    }
    for (what, cell) in rows {
        let cells: Vec<String> = columns.iter().map(|(_, column)| cell(column)).collect();
        println!("| {what} | {} |", cells.join(" | "));
    }
}
