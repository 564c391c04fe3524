//! Photo → model quality benchmark: how well a photograph of a part finds its 3D model (pictures →
//! models) and the part's own photograph (pictures → pictures), on the project's quality set
//! (`tests/engine/quality_set/`: ten kinds of mechanical part × five variants as meshes, photographed from
//! viewpoints the engine never renders), with one query photograph and with three of the same part,
//! for today's engine and the engine before issue 9 (`Pipeline::Legacy`) in the same run. Prints
//! markdown tables: family top-1, part top-1, part top-5, indexing time a model, views and bytes a
//! model, and the score distributions (same part, same family, other family).
//!
//! ```text
//! cargo bench -p partlens-engine --bench photo_quality                 # the full set, both engines
//! cargo bench -p partlens-engine --bench photo_quality -- quick        # two photographs a part instead of six
//! cargo bench -p partlens-engine --bench photo_quality -- current      # today's engine only (or: legacy)
//! cargo bench -p partlens-engine --bench photo_quality -- seed=5001    # other shots: queries from seed 5001, stored
//!                                                   # pictures from 5002 (for tuning)
//! ```
//!
//! The engine's settings are tuned on other seeds than the benchmark's own (`QUERY_SEED`,
//! `PICTURE_SEED` of the quality set), so that its figures are not fitted to the shots they report.

#[path = "../tests/engine/quality_set/mod.rs"]
mod quality_set;

use std::time::{Duration, Instant};

use partlens_engine::{Analysis, EngineError, Pipeline, ViewDescriptor, VisualIndex};

/// Query photographs a part (a multiple of three: they also make the three-view queries).
const QUERIES_PER_PART: usize = 6;
/// With `quick`.
const QUICK_QUERIES_PER_PART: usize = 3;

/// One photograph, ready to analyse.
struct Photo {
    part: usize,
    jpeg: Vec<u8>,
}

/// What one engine achieved.
struct Outcome {
    name: &'static str,
    model_times: Vec<Duration>,
    /// Mean CPU time a model, where the platform tells it.
    model_cpu: Option<Duration>,
    views_per_model: usize,
    bytes_per_model: usize,
    photo_times: Vec<Duration>,
    rows: Vec<Row>,
    scores: Vec<Scores>,
}

/// One line of the quality table.
struct Row {
    search: &'static str,
    query_views: usize,
    /// Shares in percent.
    family_top1: f64,
    part_top1: f64,
    part_top5: f64,
    queries: usize,
}

/// The scores single-view queries gave, for one search.
struct Scores {
    search: &'static str,
    /// The right part's score.
    same: Vec<f32>,
    /// The best score of another variant of the same kind.
    family: Vec<f32>,
    /// The best score of another kind.
    other: Vec<f32>,
}

/// CPU time this thread has used (Linux: `/proc/thread-self/stat`, in clock ticks of 10 ms); the
/// machine is shared, so a model's indexing cost on one core is its CPU time, not the wall clock.
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn analyse(pipeline: Pipeline, extension: &str, bytes: &[u8]) -> Analysis {
    match partlens_engine::analyze_with(
        pipeline,
        extension,
        bytes,
        &partlens_engine::ExtractionLimits::default(),
    ) {
        Ok(analysis) => analysis,
        Err(EngineError::Undecodable { reason, .. }) => {
            panic!("the quality set does not analyse: {reason}")
        }
        Err(error) => panic!("the quality set does not analyse: {error}"),
    }
}

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    let quick = arguments.iter().any(|argument| argument == "quick");
    let pipelines: Vec<(&'static str, Pipeline)> = [
        ("today", Pipeline::Current),
        ("before issue 9", Pipeline::Legacy),
    ]
    .into_iter()
    .filter(|(_, pipeline)| {
        let only_current = arguments.iter().any(|argument| argument == "current");
        let only_legacy = arguments.iter().any(|argument| argument == "legacy");
        match pipeline {
            Pipeline::Current => !only_legacy,
            Pipeline::Legacy => !only_current,
        }
    })
    .collect();
    let seed = arguments
        .iter()
        .find_map(|argument| argument.strip_prefix("seed="))
        .map(|seed| {
            seed.parse::<u64>()
                .unwrap_or_else(|_| panic!("seed={seed}: not a number"))
        });
    let per_part = if quick {
        QUICK_QUERIES_PER_PART
    } else {
        QUERIES_PER_PART
    };

    let started = Instant::now();
    let parts = quality_set::parts();
    let stls: Vec<Vec<u8>> = parts.iter().map(quality_set::Part::stl).collect();
    let cache = std::env::var("PARTLENS_QUALITY_CACHE").ok();
    let photograph = |shot: &quality_set::Shot, part: usize| {
        let key = cache
            .as_ref()
            .map(|dir| format!("{dir}/{}-{}.jpg", part, shot.seed));
        if let Some(bytes) = key.as_ref().and_then(|key| std::fs::read(key).ok()) {
            return Photo { part, jpeg: bytes };
        }
        let jpeg = quality_set::jpeg(&parts[part].photograph(shot), shot.jpeg_quality);
        if let Some(key) = key {
            let _ = std::fs::write(key, &jpeg);
        }
        Photo { part, jpeg }
    };
    let (query_seed, picture_seed) = seed.map_or(
        (quality_set::QUERY_SEED, quality_set::PICTURE_SEED),
        |seed| (seed, seed + 1),
    );
    let query_shots = quality_set::shots(query_seed, parts.len() * per_part);
    let queries: Vec<Photo> = query_shots
        .iter()
        .enumerate()
        .map(|(number, shot)| photograph(shot, number / per_part))
        .collect();
    let picture_shots = quality_set::shots(picture_seed, parts.len());
    let pictures: Vec<Photo> = picture_shots
        .iter()
        .enumerate()
        .map(|(part, shot)| photograph(shot, part))
        .collect();
    eprintln!(
        "quality set: {} parts, {} query photographs (seed {query_seed}), {} stored pictures \
         (seed {picture_seed}), made in {:.1} s",
        parts.len(),
        queries.len(),
        pictures.len(),
        started.elapsed().as_secs_f64()
    );

    let outcomes: Vec<Outcome> = pipelines
        .iter()
        .map(|&(name, pipeline)| {
            evaluate(name, pipeline, &parts, &stls, &queries, &pictures, per_part)
        })
        .collect();
    report(&parts, &outcomes, per_part);
}

fn evaluate(
    name: &'static str,
    pipeline: Pipeline,
    parts: &[quality_set::Part],
    stls: &[Vec<u8>],
    queries: &[Photo],
    pictures: &[Photo],
    per_part: usize,
) -> Outcome {
    let started = Instant::now();
    let mut models = VisualIndex::new();
    let mut model_times = Vec::new();
    let cpu_before = thread_cpu_time();
    let mut views_per_model = 0;
    let mut bytes_per_model = 0;
    for (part, stl) in parts.iter().zip(stls) {
        let start = Instant::now();
        let analysis = analyse(pipeline, ".stl", stl);
        model_times.push(start.elapsed());
        views_per_model = views_per_model.max(analysis.views.len());
        bytes_per_model = bytes_per_model.max(
            analysis
                .views
                .iter()
                .map(|view| view.to_bytes().len())
                .sum::<usize>(),
        );
        models.insert(part.name.clone(), analysis.views);
    }
    let model_cpu = match (cpu_before, thread_cpu_time()) {
        (Some(before), Some(after)) => Some((after - before) / parts.len() as u32),
        _ => None,
    };
    let mut stored_pictures = VisualIndex::new();
    for picture in pictures {
        let analysis = analyse(pipeline, ".jpg", &picture.jpeg);
        stored_pictures.insert(parts[picture.part].name.clone(), analysis.views);
    }
    let mut photo_times = Vec::new();
    let query_views: Vec<ViewDescriptor> = queries
        .iter()
        .map(|photo| {
            let start = Instant::now();
            let mut analysis = analyse(pipeline, ".jpg", &photo.jpeg);
            photo_times.push(start.elapsed());
            analysis.views.remove(0)
        })
        .collect();
    eprintln!(
        "{name}: indexed and described in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let mut rows = Vec::new();
    let mut scores = Vec::new();
    for (search, index) in [
        ("pictures → models", &models),
        ("pictures → pictures", &stored_pictures),
    ] {
        for views in [1, 3] {
            let groups: Vec<(usize, Vec<ViewDescriptor>)> = (0..queries.len() / views)
                .filter(|group| views == 1 || (group * views) % per_part + views <= per_part)
                .map(|group| {
                    let range = group * views..(group + 1) * views;
                    (queries[range.start].part, query_views[range].to_vec())
                })
                .collect();
            let (mut family_hits, mut part_hits, mut top5_hits) = (0, 0, 0);
            let (mut same, mut family, mut other) = (Vec::new(), Vec::new(), Vec::new());
            let families = quality_set::FAMILIES.len();
            let mut confusion = vec![0_usize; families * families];
            for (part, query) in &groups {
                let ranked = index.rank(query, |_| true, usize::MAX);
                let part_of = |key: &str| {
                    parts
                        .iter()
                        .position(|p| p.name == key)
                        .unwrap_or(usize::MAX)
                };
                let truth = &parts[*part];
                if let Some((first, _)) = ranked.first() {
                    let found = part_of(first);
                    family_hits +=
                        usize::from(found < parts.len() && parts[found].family == truth.family);
                    if found < parts.len() {
                        confusion[truth.family * families + parts[found].family] += 1;
                    }
                    part_hits += usize::from(found == *part);
                }
                top5_hits +=
                    usize::from(ranked.iter().take(5).any(|(key, _)| part_of(key) == *part));
                if views == 1 {
                    let mut best_family = 0.0_f32;
                    let mut best_other = 0.0_f32;
                    for (key, score) in &ranked {
                        let found = part_of(key);
                        if found == *part {
                            same.push(*score);
                        } else if found < parts.len() && parts[found].family == truth.family {
                            best_family = best_family.max(*score);
                        } else {
                            best_other = best_other.max(*score);
                        }
                    }
                    family.push(best_family);
                    other.push(best_other);
                }
            }
            if std::env::var_os("PARTLENS_QUALITY_CONFUSION").is_some() && views == 1 {
                eprintln!("{name}, {search}: true kind → top-1 kind");
                for (row, family_name) in quality_set::FAMILIES.iter().enumerate() {
                    let counts: Vec<String> = confusion[row * families..(row + 1) * families]
                        .iter()
                        .map(|count| format!("{count:3}"))
                        .collect();
                    eprintln!("{family_name:>14} {}", counts.join(""));
                }
            }
            let share = |hits: usize| 100.0 * hits as f64 / groups.len().max(1) as f64;
            rows.push(Row {
                search,
                query_views: views,
                family_top1: share(family_hits),
                part_top1: share(part_hits),
                part_top5: share(top5_hits),
                queries: groups.len(),
            });
            if views == 1 {
                scores.push(Scores {
                    search,
                    same,
                    family,
                    other,
                });
            }
        }
    }
    Outcome {
        name,
        model_times,
        model_cpu,
        views_per_model,
        bytes_per_model,
        photo_times,
        rows,
        scores,
    }
}

fn percentile(values: &mut [Duration], share: f64) -> Duration {
    values.sort();
    values
        .get(((values.len() as f64 - 1.0) * share).round() as usize)
        .copied()
        .unwrap_or_default()
}

fn spread(values: &[f32]) -> String {
    let mut sorted = values.to_vec();
    sorted.sort_by(f32::total_cmp);
    let at = |share: f64| {
        sorted
            .get(((sorted.len() as f64 - 1.0) * share).round() as usize)
            .copied()
            .unwrap_or(0.0)
    };
    format!("{:.2} / {:.2} / {:.2}", at(0.1), at(0.5), at(0.9))
}

fn report(parts: &[quality_set::Part], outcomes: &[Outcome], per_part: usize) {
    println!("## partlens photo → model quality benchmark\n");
    println!(
        "{} parts ({} kinds × {} variants), {} query photographs a part (single view: each; three views: \
         {} groups of three a part), one stored photograph a part for pictures → pictures.\n",
        parts.len(),
        quality_set::FAMILIES.len(),
        quality_set::VARIANTS,
        per_part,
        per_part / 3,
    );
    println!(
        "| engine | search | query views | family top-1 | part top-1 | part top-5 | queries |"
    );
    println!("|---|---|---|---|---|---|---|");
    for outcome in outcomes {
        for row in &outcome.rows {
            println!(
                "| {} | {} | {} | {:.1} % | {:.1} % | {:.1} % | {} |",
                outcome.name,
                row.search,
                row.query_views,
                row.family_top1,
                row.part_top1,
                row.part_top5,
                row.queries
            );
        }
    }
    println!(
        "\n| engine | views a model (most) | stored bytes a model (most) | index a model: CPU time (mean) | wall p50 | wall p95 | describe a photograph p50 |"
    );
    println!("|---|---|---|---|---|---|---|");
    for outcome in outcomes {
        let mut model_times = outcome.model_times.clone();
        let mut photo_times = outcome.photo_times.clone();
        println!(
            "| {} | {} | {} | {} | {:.0} ms | {:.0} ms | {:.1} ms |",
            outcome.name,
            outcome.views_per_model,
            outcome.bytes_per_model,
            outcome.model_cpu.map_or("–".to_owned(), |cpu| format!(
                "{:.0} ms",
                cpu.as_secs_f64() * 1e3
            )),
            percentile(&mut model_times, 0.5).as_secs_f64() * 1e3,
            percentile(&mut model_times, 0.95).as_secs_f64() * 1e3,
            percentile(&mut photo_times, 0.5).as_secs_f64() * 1e3,
        );
    }
    println!("\nScores of single-view queries (10th / 50th / 90th percentile):\n");
    println!(
        "| engine | search | the right part | best other variant of its kind | best other kind |"
    );
    println!("|---|---|---|---|---|");
    for outcome in outcomes {
        for scores in &outcome.scores {
            println!(
                "| {} | {} | {} | {} | {} |",
                outcome.name,
                scores.search,
                spread(&scores.same),
                spread(&scores.family),
                spread(&scores.other)
            );
        }
    }
}
