//! Search-engine benchmark: indexing throughput of `analyze` on realistic 512×512 part pictures and on
//! the sample library's STL models (read, posed, rendered shaded from 162 viewpoints, described, D2), and
//! search latency of `VisualIndex::rank` against the brute-force baseline
//! (`rank_by_matching_every_file`, `match_views` over every file) at 1,000 and 10,000 indexed files,
//! for single-view and two-view queries, in the same run, and `analyze` of the sample DXF/PDF drawings
//! against a 512×512 PNG. Prints markdown tables.
//!
//! ```text
//! cargo bench -p partlens-engine --bench search_engine
//! cargo bench --profile dev --bench search_engine -- drawings   # only the drawings
//! ```
//!
//! Analysing 10,000 pictures would take minutes, so the database is made from a few hundred analysed
//! pictures (every sample part in varied poses from fixed seeds), each reused with small seeded
//! perturbations of its descriptor (feature noise plus a few flipped hash bits). The queries are
//! perturbed copies too, so every query has near neighbours as a real one would.

use std::time::{Duration, Instant};

use partlens_engine::samples::parts::{PART_NAMES, Pose, draw_part, encode_jpeg, encode_png};
use partlens_engine::{ViewDescriptor, VisualIndex, analyze, rank_by_matching_every_file};
use rand::{RngExt, SeedableRng, rngs::StdRng};

/// Pictures analysed for real.
const ANALYSED_PICTURES: usize = 240;
/// Database sizes measured.
const DATABASE_SIZES: [usize; 2] = [1_000, 10_000];
/// Queries timed per case.
const QUERIES: usize = 60;
/// Results asked for per search.
const LIMIT: usize = 50;
/// Side of the pictures.
const SIDE: u32 = 512;
/// Times each sample model is analysed.
const MODEL_ROUNDS: usize = 5;

fn main() {
    // `-- drawings` measures only the drawings (quick, e.g. with `--profile dev`).
    if std::env::args().any(|arg| arg == "drawings") {
        let picture = draw_part(PART_NAMES[0], &Pose::default(), SIDE).unwrap_or_default();
        drawing_analysis(&encode_png(&picture).unwrap_or_default());
        return;
    }
    let mut random = StdRng::seed_from_u64(2024);

    // --- indexing throughput ---
    let pictures: Vec<(String, Vec<u8>)> = (0..ANALYSED_PICTURES)
        .map(|index| {
            let name = PART_NAMES[index % PART_NAMES.len()];
            let pose = if index < PART_NAMES.len() {
                Pose::default()
            } else {
                Pose::varied(index as u64)
            };
            let picture = draw_part(name, &pose, SIDE).unwrap_or_default();
            if index % 3 == 2 {
                (
                    ".jpg".to_owned(),
                    encode_jpeg(&picture, 85).unwrap_or_default(),
                )
            } else {
                (".png".to_owned(), encode_png(&picture).unwrap_or_default())
            }
        })
        .collect();
    let mut analyse_times = Vec::with_capacity(pictures.len());
    let mut describe_times = Vec::with_capacity(pictures.len());
    let mut pool = Vec::with_capacity(pictures.len());
    let started = Instant::now();
    for (extension, bytes) in &pictures {
        let start = Instant::now();
        let analysis = match analyze(extension, bytes) {
            Ok(analysis) => analysis,
            Err(error) => panic!("benchmark picture does not analyse: {error}"),
        };
        analyse_times.push(start.elapsed());
        pool.extend(analysis.views);
    }
    let analyse_total = started.elapsed();
    for (_, bytes) in &pictures {
        let Ok(image) = image::load_from_memory(bytes) else {
            continue;
        };
        let start = Instant::now();
        std::hint::black_box(ViewDescriptor::of_image(&image));
        describe_times.push(start.elapsed());
    }

    // --- indexing models: the sample STLs, in the same run as the pictures ---
    let models: Vec<(String, Vec<u8>)> = ["gear", "washer", "flange", "stepped-shaft"]
        .iter()
        .filter_map(|name| {
            let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
                .join("assets/samples/models")
                .join(format!("{name}.stl"));
            Some(((*name).to_owned(), std::fs::read(path).ok()?))
        })
        .collect();
    let mut model_times = Vec::new();
    let mut views_per_model = 0;
    for _round in 0..MODEL_ROUNDS {
        for (name, bytes) in &models {
            let start = Instant::now();
            match analyze(".stl", bytes) {
                Ok(analysis) => {
                    model_times.push(start.elapsed());
                    views_per_model = views_per_model.max(analysis.views.len());
                }
                Err(error) => panic!("sample model {name} does not analyse: {error}"),
            }
        }
    }

    // --- the database: analysed descriptors reused with small perturbations ---
    let largest = DATABASE_SIZES.iter().copied().max().unwrap_or(0);
    let files: Vec<(String, Vec<ViewDescriptor>)> = (0..largest)
        .map(|file| {
            let base = &pool[file % pool.len()];
            (
                format!("{:08x}-5eed-4000-8000-{:012x}", file, file * 7919),
                vec![perturb(base, &mut random)],
            )
        })
        .collect();
    let single_queries: Vec<Vec<ViewDescriptor>> = (0..QUERIES)
        .map(|query| vec![perturb(&pool[(query * 37) % pool.len()], &mut random)])
        .collect();
    let pair_queries: Vec<Vec<ViewDescriptor>> = (0..QUERIES)
        .map(|query| {
            // Two views of one part: two pictures of the same part name (the pool cycles names).
            let first = (query * 37) % pool.len();
            let second = (first + PART_NAMES.len()) % pool.len();
            vec![
                perturb(&pool[first], &mut random),
                perturb(&pool[second], &mut random),
            ]
        })
        .collect();

    println!("## partlens search engine benchmark\n");
    println!(
        "Indexing: {} pictures of {SIDE}×{SIDE} px (⅔ PNG, ⅓ JPEG), one thread.\n",
        pictures.len()
    );
    println!("| measure | value |");
    println!("|---|---|");
    println!(
        "| `analyze` throughput | {:.1} images/s |",
        pictures.len() as f64 / analyse_total.as_secs_f64()
    );
    println!(
        "| `analyze` per image p50 / p95 | {} / {} ms |",
        millis(percentile(&mut analyse_times, 0.50)),
        millis(percentile(&mut analyse_times, 0.95))
    );
    println!(
        "| descriptor only (`ViewDescriptor::of_image`) p50 / p95 | {} / {} ms |",
        millis(percentile(&mut describe_times, 0.50)),
        millis(percentile(&mut describe_times, 0.95))
    );
    if !model_times.is_empty() {
        let image_p50 = percentile(&mut analyse_times, 0.50);
        let model_p50 = percentile(&mut model_times, 0.50);
        println!(
            "| `analyze` per sample STL model ({} models × {MODEL_ROUNDS}, {views_per_model} views each) p50 / p95 | {} / {} ms |",
            models.len(),
            millis(model_p50),
            millis(percentile(&mut model_times, 0.95))
        );
        println!(
            "| model / image indexing time (p50) | {:.1}× |",
            model_p50.as_secs_f64() / image_p50.as_secs_f64().max(1e-9)
        );
    }
    println!();
    println!(
        "Search: {QUERIES} queries per case, limit {LIMIT}, one view per indexed file; \
         rankings of both paths compared for every query.\n"
    );
    println!(
        "| indexed files | query views | index p50 | index p95 | index on all cores p50 | brute force p50 | brute force p95 | speed-up (p50) | same ranking |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut memory_lines = Vec::new();
    for size in DATABASE_SIZES {
        let database = &files[..size];
        let mut index = VisualIndex::new();
        for (key, views) in database {
            index.insert(key.clone(), views.clone());
        }
        let grown_bytes = index.heap_bytes();
        index.shrink_to_fit();
        let mut all_cores = index.clone();
        all_cores.set_search_threads(usize::MAX);
        for (label, queries) in [("1", &single_queries), ("2", &pair_queries)] {
            let mut index_times = Vec::with_capacity(queries.len());
            let mut brute_times = Vec::with_capacity(queries.len());
            let mut all_core_times = Vec::with_capacity(queries.len());
            let mut agree = true;
            // One untimed round to warm caches.
            std::hint::black_box(index.rank(&queries[0], |_| true, LIMIT));
            std::hint::black_box(rank_by_matching_every_file(
                database,
                &queries[0],
                |_| true,
                LIMIT,
            ));
            for query in queries {
                let start = Instant::now();
                let fast = index.rank(query, |_| true, LIMIT);
                index_times.push(start.elapsed());
                let start = Instant::now();
                let parallel = all_cores.rank(query, |_| true, LIMIT);
                all_core_times.push(start.elapsed());
                agree &= fast == parallel;
                let start = Instant::now();
                let plain = rank_by_matching_every_file(database, query, |_| true, LIMIT);
                brute_times.push(start.elapsed());
                agree &= fast == plain;
            }
            let index_p50 = percentile(&mut index_times, 0.50);
            let brute_p50 = percentile(&mut brute_times, 0.50);
            println!(
                "| {size} | {label} | {} ms | {} ms | {} ms | {} ms | {} ms | {:.2}× | {} |",
                millis(index_p50),
                millis(percentile(&mut index_times, 0.95)),
                millis(percentile(&mut all_core_times, 0.50)),
                millis(brute_p50),
                millis(percentile(&mut brute_times, 0.95)),
                brute_p50.as_secs_f64() / index_p50.as_secs_f64().max(1e-9),
                if agree { "yes" } else { "NO" }
            );
        }
        let plain_bytes: usize = database
            .iter()
            .map(|(key, views)| {
                key.capacity()
                    + size_of::<(String, Vec<ViewDescriptor>)>()
                    + views.capacity() * size_of::<ViewDescriptor>()
                    + views.iter().map(ViewDescriptor::heap_bytes).sum::<usize>()
            })
            .sum();
        memory_lines.push(format!(
            "| {size} | {} | {} B | {} B | ≈{} B |",
            index.view_count(),
            index.heap_bytes() / index.view_count().max(1),
            grown_bytes / index.view_count().max(1),
            plain_bytes / size
        ));
    }
    println!();
    println!(
        "| indexed files | indexed views | index memory per view | … before `shrink_to_fit` (growth reserve) | plain list per view (baseline) |"
    );
    println!("|---|---|---|---|---|");
    for line in memory_lines {
        println!("{line}");
    }
    drawing_analysis(&pictures[0].1);
}

/// Times `analyze` of the sample DXF and PDF drawings against a 512×512 PNG picture in the same run and
/// prints their ratio (a drawing is parsed, rendered to a 1024-px page, described and read).
fn drawing_analysis(png: &[u8]) {
    use partlens_engine::samples::drawings::{
        SAMPLE_DRAWINGS, SAMPLE_PDF_DRAWING, sample_drawing_dxf, sample_drawing_pdf,
    };
    const ROUNDS: usize = 20;
    let time = |extension: &str, bytes: &[u8]| {
        let mut times: Vec<Duration> = (0..ROUNDS)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(analyze(extension, bytes).ok());
                start.elapsed()
            })
            .collect();
        percentile(&mut times, 0.50)
    };
    let picture = time(".png", png);
    println!();
    println!(
        "Drawings: `analyze` p50 over {ROUNDS} rounds, against a {SIDE}×{SIDE} PNG picture.\n"
    );
    println!("| file | bytes | `analyze` p50 | ratio to the PNG |");
    println!("|---|---|---|---|");
    println!(
        "| {SIDE}×{SIDE} PNG | {} | {} ms | 1.00× |",
        png.len(),
        millis(picture)
    );
    let drawings = SAMPLE_DRAWINGS
        .iter()
        .map(|sample| (sample.name, ".dxf", sample_drawing_dxf(sample).ok()))
        .chain(std::iter::once((
            SAMPLE_PDF_DRAWING.name,
            ".pdf",
            sample_drawing_pdf(&SAMPLE_PDF_DRAWING).ok(),
        )));
    for (name, extension, bytes) in drawings {
        let Some(bytes) = bytes else {
            continue;
        };
        let drawing = time(extension, &bytes);
        println!(
            "| {name}{extension} | {} | {} ms | {:.2}× |",
            bytes.len(),
            millis(drawing),
            drawing.as_secs_f64() / picture.as_secs_f64().max(1e-9)
        );
    }
}

/// A descriptor nudged by seeded noise: a distinct, realistic neighbour of `base`.
fn perturb(base: &ViewDescriptor, random: &mut StdRng) -> ViewDescriptor {
    let noise: Vec<f32> = (0..997).map(|_| random.random_range(-1.0..1.0)).collect();
    let flips: Vec<usize> = (0..random.random_range(0..24))
        .map(|_| random.random_range(0..256))
        .collect();
    base.perturbed(&noise, 0.15, &flips)
}

/// The `share` quantile of `times` (sorts them).
fn percentile(times: &mut [Duration], share: f64) -> Duration {
    if times.is_empty() {
        return Duration::ZERO;
    }
    times.sort();
    let at = ((times.len() - 1) as f64 * share).round() as usize;
    times[at.min(times.len() - 1)]
}

/// Milliseconds with three significant decimals.
fn millis(duration: Duration) -> String {
    format!("{:.3}", duration.as_secs_f64() * 1000.0)
}
