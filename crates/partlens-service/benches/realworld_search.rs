//! Search quality on real parts (issue 23), measured as a user searches: every model of the
//! real-world corpus (`../shared/realworld/`: STEP, STL, OBJ, PLY, and IGES in a build with
//! `occt`) is uploaded into one company's database of a service on loopback; then each model is
//! uploaded again as a search input and searched by (`GET /api/Search?filterStr=fileUID=…`). The
//! result that is the file itself (its database copy) is skipped. Prints:
//!
//! - **twin**: where the same part is in the corpus in another format (the manifest's `twin`),
//!   the share of searches whose first result is a twin (any other format of the part: a STEP's
//!   STL or its PLY), and whose first five hold one;
//! - **family**: where at least one other part of the file's family (the manifest's `family`, e.g.
//!   ISO 4762 socket head cap screws) is in the database, the share whose first result other
//!   than a twin is of the family, and the precision of the first three such results (with the
//!   precision a perfect ranking would reach: a family of fewer than three other files cannot
//!   fill the first three); and the same apart for the families of one kind of part and for the
//!   manifest families that are one machine's or folder's different parts
//!   ([`FOLDERS_OF_DIFFERENT_PARTS`]), with what top-1 and P@3 reach when every family of one kind
//!   is ranked perfectly and the folders as measured;
//! - the app's model → model score bands by the rule of `partlens_engine::samples::calibration`
//!   over every result's score (same part: a twin), which `ui::results::calibration` takes (run
//!   with `-- every` for the table's figures);
//! - the time of a search by a model (the input uploaded and analysed, then ranked): p50, p95;
//! - the misses, each with what came first and where the first twin or family file came.
//!
//! ```text
//! cargo bench -p partlens-service --bench realworld_search
//! cargo bench -p partlens-service --bench realworld_search --features occt
//! ```
//!
//! With `-- phases` it measures instead where the time of a model's analysis goes, in this
//! process, model by model (reading, pose and D2, the views rendered, described, the picture, its
//! thumbnail and large image), as the reader worker runs it, and a search input's analysis (the
//! same views on every core, no large image) against it:
//!
//! ```text
//! cargo test -p partlens-service --bench realworld_search -- phases
//! ```
//!
//! With `-- photos` (or `-- photos=N`) it also searches by photo-like pictures of the parts: for
//! every model in the database whose mesh reads, one (or N) shaded photograph of the mesh the
//! service reads, taken by the engine's quality-set camera (`partlens-engine/tests/engine/
//! quality_set/camera.rs`: perspective from a viewpoint the engine never renders, a tinted part
//! lit on a tinted gradient background, grain, blur, JPEG; seeded, so the same run gives the same
//! pictures), uploaded as a search input and searched by. It prints the share whose first five
//! results hold the part (the model itself or a twin), the same with the other parts of its
//! family passed over (a photograph has no size, so two sizes of one part may tie), and where its
//! family is measured (as above), the share whose first result is of the family:
//!
//! ```text
//! cargo bench -p partlens-service --bench realworld_search -- photos
//! cargo bench -p partlens-service --bench realworld_search -- photos=2
//! ```
//!
//! With `PARTLENS_BENCH_LOG=partlens_service=debug` the service logs the time of each step of an
//! upload (the read in the worker, the save) and of a search (the inputs' views read, the visual
//! ranking, the ranking by size, the results loaded) on stderr.
//!
//! With `PARTLENS_SEARCH_DUMP=file.json` it also writes every model (its manifest family and twin,
//! the attributes the service extracted) and every search's ranked results with their scores, to
//! tune a ranking offline. With `-- every` it searches by every model, also those with neither a
//! twin nor a family in the database (counted in no quality row, but in the times and the dump),
//! so that the dump holds every model's own results:
//!
//! ```text
//! PARTLENS_SEARCH_DUMP=/tmp/every.json cargo bench -p partlens-service --bench realworld_search -- every
//! ```

// A benchmark that cannot set itself up has nothing to measure: it stops with the reason.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use partlens_engine::samples::calibration::{
    SIMILAR_PRECISION, ScoredPair, VERY_SIMILAR_PRECISION, thresholds,
};
use partlens_testkit::realworld::{CorpusFile, corpus_dir, corpus_files};
use partlens_testkit::service::{TestService, result_uids};
use rand::{SeedableRng, rngs::StdRng};

// The engine's quality-set camera, included alone with the vector sums it uses (the rest of the
// set builds its own parts, with dependencies this crate does not have); it finds both, and the
// blur below, in the bench's root.
#[allow(dead_code)]
#[path = "../../partlens-engine/tests/engine/quality_set/camera.rs"]
mod camera;
#[allow(dead_code)]
#[path = "../../partlens-engine/tests/engine/quality_set/vector.rs"]
mod vector;

/// The camera's blur: `image`'s Gaussian (the engine's set blurs with `imageproc`, which this
/// crate does not depend on; the pictures differ from its by rounding only).
fn gaussian_blur(photo: &image::RgbImage, sigma: f32) -> image::RgbImage {
    image::imageops::blur(photo, sigma)
}

/// Seed of the photographs of `-- photos` (not the quality set's seeds: other shots).
const PHOTO_SEED: u64 = 23_001;
/// Width and height of a photograph, as the quality set's.
const PHOTO_SIZE: (u32, u32) = (640, 480);

/// The manifest families that are one machine's or one catalogue folder's different parts, not
/// sizes or variants of one kind of part (the Prusa i3's extruder body, idler, sensor lever and Y
/// motor holder; the Thor arm's opto mount, motor gear and motor bracket; …), judged by looking at
/// their files: a shape ranking has no reason to put them together, so the bench also counts the
/// family rows of these and of the other families apart (docs/PERFORMANCE.md, "What the family
/// rows can reach").
const FOLDERS_OF_DIFFERENT_PARTS: &[&str] = &[
    "prusa_i3/Printed-Parts",
    "thor/Art (robot arm parts)",
    "freecadlib/Wood Construction/Connectors/Ironsmith Parts",
    "robotassets/kuka_iiwa/meshes",
    "gepetto/alex_description/meshes/cycloidal_arm",
    "voron2/STLs/Electronics_Bay/Controller_Mounts",
    "voron0/STLs/Panel_Mounting",
    "voron2/STLs/Superceded_Parts/ZipChain",
];

/// The formats searched: models, the formats whose files have twins.
fn is_model(file: &CorpusFile) -> bool {
    // IGES only in a build with `occt` (a plain `match` reads as `matches!` to clippy there).
    matches!(file.group(), "STEP" | "mesh") || (file.group() == "IGES" && cfg!(feature = "occt"))
}

/// The file name without its folder, for the printed lists.
fn name(file: &CorpusFile) -> &str {
    file.relative.rsplit('/').next().unwrap_or(&file.relative)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `PARTLENS_BENCH_LOG=partlens_service=debug` shows the service's own timing of each upload
    // and search (its steps, on stderr).
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("PARTLENS_BENCH_LOG") {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_writer(std::io::stderr)
            .init();
    }
    let files = corpus_files().unwrap_or_else(|| {
        panic!(
            "no real-world corpus at {} (set PARTLENS_REALWORLD_DIR)",
            corpus_dir().display()
        )
    });
    let models: Vec<CorpusFile> = files.into_iter().filter(is_model).collect();
    if std::env::args().any(|argument| argument == "phases") {
        analysis_phases(&models);
        return;
    }
    let search_by_every_model = std::env::args().any(|argument| argument == "every");
    let photos_per_model: usize = std::env::args()
        .find_map(|argument| match argument.as_str() {
            "photos" => Some(1),
            _ => argument.strip_prefix("photos=")?.parse().ok(),
        })
        .unwrap_or(0);
    let program = std::path::PathBuf::from(env!("CARGO_BIN_EXE_partlens-service"));
    let service = TestService::start_with(|config| config.reader.program = Some(program)).await;
    let admin = service.session("ann").await;
    let started = Instant::now();
    let mut uid_of: BTreeMap<String, String> = BTreeMap::new();
    let mut file_of: BTreeMap<String, usize> = BTreeMap::new();
    for (index, file) in models.iter().enumerate() {
        let bytes = std::fs::read(corpus_dir().join(&file.relative)).expect("a corpus file");
        let reply = admin
            .put_binary(
                &format!(
                    "/api/FileBinary?file=corpus%2F{}&isSearchInput=false",
                    name(file)
                ),
                bytes,
            )
            .await;
        if reply.status == 200 {
            let uid = reply.string();
            file_of.insert(uid.clone(), index);
            uid_of.insert(file.relative.clone(), uid);
        } else {
            eprintln!("not in the database: {} ({})", file.relative, reply.status);
        }
    }
    eprintln!(
        "{} of {} models in the database in {:.0} s",
        uid_of.len(),
        models.len(),
        started.elapsed().as_secs_f64()
    );

    let mut twin_first = Tally::default();
    let mut twin_five = Tally::default();
    // The family rows apart: [families of one kind of part, folders of different parts].
    let mut family_rows = [FamilyRow::default(), FamilyRow::default()];
    let mut times: Vec<Duration> = Vec::new();
    // The two calls of a search by a model: the input's upload with its analysis, and the search.
    let mut upload_times: Vec<Duration> = Vec::new();
    let mut search_times: Vec<Duration> = Vec::new();
    let mut indexed_search_times: Vec<Duration> = Vec::new();
    // The reader workers' CPU time (user and system, every thread) over the inputs' uploads: the
    // work of the analysis, which the machine's load does not change as it does the wall time.
    let mut worker_cpu = Duration::ZERO;
    let mut misses: Vec<String> = Vec::new();
    let mut dumped_searches: Vec<serde_json::Value> = Vec::new();
    let mut score_pairs: Vec<ScoredPair> = Vec::new();
    for (index, file) in models.iter().enumerate() {
        let Some(own_uid) = uid_of.get(&file.relative) else {
            continue;
        };
        // Every other file of the part (a STEP, its STL and its PLY are each other's twins).
        let twins: Vec<usize> = models
            .iter()
            .enumerate()
            .filter(|(other, candidate)| {
                *other != index
                    && !file.twin.is_empty()
                    && candidate.twin == file.twin
                    && uid_of.contains_key(&candidate.relative)
            })
            .map(|(other, _)| other)
            .collect();
        // The other files of the file's family in the database, its twins excepted.
        let family_files = models
            .iter()
            .enumerate()
            .filter(|(other, candidate)| {
                *other != index
                    && !twins.contains(other)
                    && !file.family.is_empty()
                    && candidate.family == file.family
                    && uid_of.contains_key(&candidate.relative)
            })
            .count();
        let family_in_database = family_files > 0;
        if twins.is_empty() && !family_in_database && !search_by_every_model {
            continue;
        }
        let bytes = std::fs::read(corpus_dir().join(&file.relative)).expect("a corpus file");
        let cpu_before = workers_cpu();
        let searched = Instant::now();
        let input = admin
            .upload_search_input(&file.extension(), &bytes, false)
            .await;
        let uploaded = searched.elapsed();
        worker_cpu += workers_cpu().saturating_sub(cpu_before);
        let reply = admin.search(&format!("fileUID={input}")).await;
        times.push(searched.elapsed());
        upload_times.push(uploaded);
        search_times.push(searched.elapsed() - uploaded);
        // Baseline in the same run: the same part searched by its database copy, whose views were
        // read as a database file's are (a search input brings fewer).
        let baseline = Instant::now();
        admin.search(&format!("fileUID={own_uid}")).await;
        indexed_search_times.push(baseline.elapsed());
        if reply.status != 200 {
            eprintln!("search by {} failed: {}", file.relative, reply.status);
            continue;
        }
        let body = reply.json();
        // Every result but the file itself, for the app's model → model score bands.
        for item in body["ResultsList"].as_array().into_iter().flatten() {
            let (Some(uid), Some(score)) = (item["UID"].as_str(), item["Score"].as_f64()) else {
                continue;
            };
            match file_of.get(uid) {
                Some(&at) if at != index => score_pairs.push(ScoredPair {
                    kind: "model → model",
                    query: file.relative.clone(),
                    candidate: models[at].relative.clone(),
                    same_part: twins.contains(&at),
                    score,
                }),
                _ => {}
            }
        }
        dumped_searches.push(serde_json::json!({
            "query": index,
            "results": body["ResultsList"].as_array().map(|items| items.iter().filter_map(|item| {
                let at = file_of.get(item["UID"].as_str()?)?;
                Some(serde_json::json!([at, item["Score"]]))
            }).collect::<Vec<_>>()),
        }));
        let ranked: Vec<usize> = result_uids(&body)
            .into_iter()
            .filter(|uid| uid != own_uid)
            .filter_map(|uid| file_of.get(&uid).copied())
            .collect();
        let first = ranked.first().map_or("nothing", |&at| name(&models[at]));
        if !twins.is_empty() {
            let at = ranked
                .iter()
                .position(|candidate| twins.contains(candidate));
            twin_first.count(at == Some(0));
            twin_five.count(at.is_some_and(|at| at < 5));
            if at != Some(0) {
                misses.push(format!(
                    "twin   {} → {} (twin at {})",
                    name(file),
                    first,
                    at.map_or("none".to_owned(), |at| (at + 1).to_string())
                ));
            }
        }
        if family_in_database {
            let others: Vec<usize> = ranked
                .iter()
                .copied()
                .filter(|candidate| !twins.contains(candidate))
                .collect();
            let of_family = |at: &usize| models[*at].family == file.family;
            let row = &mut family_rows
                [usize::from(FOLDERS_OF_DIFFERENT_PARTS.contains(&file.family.as_str()))];
            row.first.count(others.first().is_some_and(of_family));
            row.three += others.iter().take(3).filter(|at| of_family(at)).count();
            // A family of fewer than three other files cannot fill the first three.
            row.three_possible += family_files.min(3);
            if !others.first().is_some_and(of_family) {
                misses.push(format!(
                    "family {} → {} (family at {})",
                    name(file),
                    others.first().map_or("nothing", |&at| name(&models[at])),
                    others
                        .iter()
                        .position(of_family)
                        .map_or("none".to_owned(), |at| (at + 1).to_string())
                ));
            }
        }
    }
    let photo_searches = if photos_per_model > 0 {
        search_by_photos(&admin, &models, &uid_of, &file_of, photos_per_model).await
    } else {
        PhotoSearches::default()
    };
    times.sort();
    upload_times.sort();
    search_times.sort();
    indexed_search_times.sort();
    if let Ok(path) = std::env::var("PARTLENS_SEARCH_DUMP") {
        let mut dumped_models = Vec::new();
        for file in &models {
            let extracted = match uid_of.get(&file.relative) {
                Some(uid) => admin.get(&format!("/api/File?fileUID={uid}")).await.json()
                    ["ExtractedAttributes"]
                    .clone(),
                None => serde_json::Value::Null,
            };
            dumped_models.push(serde_json::json!({
                "file": file.relative, "family": file.family, "twin": file.twin,
                "extracted": extracted,
            }));
        }
        let dump = serde_json::json!({"models": dumped_models, "searches": dumped_searches});
        std::fs::write(&path, dump.to_string()).expect("the dump written");
    }
    let percentile_of = |times: &[Duration], share: f64| {
        times
            .get(((times.len() as f64 * share) as usize).min(times.len().saturating_sub(1)))
            .map_or(0, Duration::as_millis)
    };
    let percentile = |share: f64| percentile_of(&times, share);
    let build = if cfg!(feature = "occt") {
        "with occt"
    } else {
        "default (no occt)"
    };
    println!(
        "Search quality on the real-world corpus, {build}, {} models in the database:\n",
        uid_of.len()
    );
    println!("| search | searches | measured |");
    println!("|---|---|---|");
    println!(
        "| the same part in another format (twin) | {} | top-1 {}, top-5 {} |",
        twin_first.total,
        twin_first.share(),
        twin_five.share()
    );
    let [one_kind, folders] = &family_rows;
    let family = one_kind.added(folders);
    println!(
        "| another part of its family, first result not itself or a twin | {} | top-1 {}, P@3 {:.0} % |",
        family.first.total,
        family.first.share(),
        family.precision(family.three)
    );
    println!(
        "| the same, the P@3 a perfect ranking reaches (a family of fewer than three other files fills fewer) | {} | P@3 {:.0} % |",
        family.first.total,
        family.precision(family.three_possible)
    );
    for (row, what) in [
        (
            one_kind,
            "families of one kind of part (screws, rings, motors, horns, …)",
        ),
        (
            folders,
            "manifest families that are a folder of different parts",
        ),
    ] {
        println!(
            "| the same, {what} | {} | top-1 {}, P@3 {:.0} % (a perfect ranking {:.0} %) |",
            row.first.total,
            row.first.share(),
            row.precision(row.three),
            row.precision(row.three_possible)
        );
    }
    let searches = family.first.total;
    println!(
        "| the same, every family of one kind ranked perfectly, the folders as measured | {} | top-1 {:.0} % ({}/{}), P@3 {:.0} % |",
        searches,
        100.0 * (one_kind.first.total + folders.first.hits) as f64 / searches.max(1) as f64,
        one_kind.first.total + folders.first.hits,
        searches,
        100.0 * (one_kind.three_possible + folders.three) as f64 / (3 * searches).max(1) as f64
    );
    let scored: Vec<&ScoredPair> = score_pairs.iter().collect();
    println!(
        "| the app's model → model bands by its rule (9 in 10 / half of the results at or above are the same part) | {} | very similar ≥ {:.2}, similar ≥ {:.2} |",
        scored.len(),
        thresholds(&scored, VERY_SIMILAR_PRECISION),
        thresholds(&scored, SIMILAR_PRECISION)
    );
    println!(
        "| time of a search by a model (upload, analysis, ranking) | {} | p50 {} ms, p95 {} ms |",
        times.len(),
        percentile(0.5),
        percentile(0.95)
    );
    println!(
        "| of which the input's upload and analysis (PUT /api/FileBinary, indexed during the call) | {} | p50 {} ms, p95 {} ms |",
        upload_times.len(),
        percentile_of(&upload_times, 0.5),
        percentile_of(&upload_times, 0.95)
    );
    println!(
        "| of which the reader worker's CPU (user and system, its threads summed) | {} | mean {:.0} ms, sum {:.1} s |",
        upload_times.len(),
        worker_cpu.as_secs_f64() * 1000.0 / upload_times.len().max(1) as f64,
        worker_cpu.as_secs_f64()
    );
    println!(
        "| of which the search by its UID (GET /api/Search: views read, ranked, records loaded) | {} | p50 {} ms, p95 {} ms |",
        search_times.len(),
        percentile_of(&search_times, 0.5),
        percentile_of(&search_times, 0.95)
    );
    println!(
        "| baseline: the search by the database copy's UID (its {}+1 views, as indexed) | {} | p50 {} ms, p95 {} ms |",
        partlens_engine::mesh::VIEW_DIRECTIONS,
        indexed_search_times.len(),
        percentile_of(&indexed_search_times, 0.5),
        percentile_of(&indexed_search_times, 0.95)
    );
    if photos_per_model > 0 {
        let mut photo_times = photo_searches.times.clone();
        photo_times.sort();
        println!(
            "| a photo-like picture of a part ({photos_per_model} a model): the part (itself or a twin) in the first five | {} | top-5 {} |",
            photo_searches.part_five.total,
            photo_searches.part_five.share()
        );
        println!(
            "| the same, other parts of its family passed over (sizes tie) | {} | top-5 {} |",
            photo_searches.part_five_sizes_tied.total,
            photo_searches.part_five_sizes_tied.share()
        );
        let [one_kind, folders] = &photo_searches.family_first_apart;
        let family_first = one_kind.added(folders);
        println!(
            "| a photo-like picture of a part: first result of its family | {} | top-1 {} |",
            family_first.total,
            family_first.share()
        );
        println!(
            "| the same, families of one kind of part; manifest families that are a folder of different parts | {}; {} | top-1 {}; {} |",
            one_kind.total,
            folders.total,
            one_kind.share(),
            folders.share()
        );
        println!(
            "| the same, every family of one kind first, the folders as measured | {} | top-1 {:.0} % ({}/{}) |",
            one_kind.total + folders.total,
            100.0 * (one_kind.total + folders.hits) as f64
                / (one_kind.total + folders.total).max(1) as f64,
            one_kind.total + folders.hits,
            one_kind.total + folders.total
        );
        println!(
            "| time of a search by a photograph (upload, analysis, ranking) | {} | p50 {} ms, p95 {} ms |",
            photo_times.len(),
            percentile_of(&photo_times, 0.5),
            percentile_of(&photo_times, 0.95)
        );
        if photo_searches.unread > 0 {
            println!(
                "\n{} models in the database gave no mesh to photograph (left out).",
                photo_searches.unread
            );
        }
    }
    misses.extend(photo_searches.misses);
    println!("\nMisses:");
    for miss in misses {
        println!("- {miss}");
    }
}

/// The CPU time (user and system) of this process's ended and reaped children, the service's
/// reader workers: `/proc/self/stat`'s cutime and cstime, in the kernel's 100 ticks a second
/// (zero where there is no such file).
fn workers_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // The fields after the program's name, which is in parentheses and may hold spaces; cutime and
    // cstime are fields 16 and 17 of the whole line.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
    let ticks: u64 = [13, 14]
        .iter()
        .filter_map(|&at| fields.get(at)?.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

/// Where the time of a model's analysis goes (`analyze` of the engine, as the reader worker runs
/// it), each step timed on its own over every model of the corpus, p50 and the sum; the views'
/// descriptors are the whole analysis less the steps timed apart.
fn analysis_phases(models: &[CorpusFile]) {
    use partlens_engine::mesh;
    let mut steps: BTreeMap<String, Vec<Duration>> = BTreeMap::new();
    let mut note =
        |step: &str, took: Duration| steps.entry(step.to_owned()).or_default().push(took);
    let directions = mesh::VIEW_DIRECTIONS;
    let input_directions = mesh::SEARCH_INPUT_DIRECTIONS;
    // Models whose two reads gave different meshes (their views not compared).
    let mut reads_differed: Vec<String> = Vec::new();
    for file in models {
        let bytes = std::fs::read(corpus_dir().join(&file.relative)).expect("a corpus file");
        let extension = file.extension();
        let started = Instant::now();
        let Ok(analysis) = partlens_engine::analyze(&extension, &bytes) else {
            continue;
        };
        let whole = started.elapsed();
        let started = Instant::now();
        let Ok(read) = partlens_geometry::read_model(&extension, &bytes).mesh else {
            continue;
        };
        let reading = started.elapsed();
        let started = Instant::now();
        let posed = mesh::standard_pose(&read);
        let _shape = partlens_engine::ShapeDistribution::of_mesh(&posed);
        let posing = started.elapsed();
        let started = Instant::now();
        let renderer = mesh::FramedRenderer::new(&posed);
        for view in mesh::around_the_sphere(mesh::VIEW_DIRECTIONS) {
            std::hint::black_box(renderer.render(&view));
        }
        let rendering = started.elapsed();
        let started = Instant::now();
        let picture = image::DynamicImage::ImageRgb8(mesh::render(
            &posed,
            &mesh::VIEWPOINTS[mesh::PICTURE_VIEW],
            mesh::VIEW_SIDE,
        ));
        let picturing = started.elapsed();
        let started = Instant::now();
        let mut encoded = Vec::new();
        picture
            .thumbnail(
                partlens_engine::THUMBNAIL_SIZE,
                partlens_engine::THUMBNAIL_SIZE,
            )
            .to_rgb8()
            .write_to(
                &mut std::io::Cursor::new(&mut encoded),
                image::ImageFormat::Jpeg,
            )
            .expect("a thumbnail");
        let thumbnail = started.elapsed();
        let started = Instant::now();
        picture
            .to_rgb8()
            .write_to(
                &mut std::io::Cursor::new(&mut encoded),
                image::ImageFormat::Png,
            )
            .expect("a large image");
        let large = started.elapsed();
        let limits = partlens_engine::ExtractionLimits::default();
        let started = Instant::now();
        let Ok(input) = partlens_engine::analyze_for(
            partlens_engine::Purpose::SearchInput,
            &extension,
            &bytes,
            &limits,
        ) else {
            continue;
        };
        note(
            &format!("8 whole analysis of a search input ({input_directions}+1 views)"),
            started.elapsed(),
        );
        // The input's views are the database file's from some of its directions, and its picture,
        // when both analyses read the same mesh. A STEP face at the reader's per-face time budget
        // is meshed or left out as the time falls (the M6 countersunk screw's thread): its two
        // reads then differ in triangles or area, and the views are not comparable.
        if input.extracted_attributes == analysis.extracted_attributes {
            assert!(
                input.views.iter().all(|view| analysis.views.contains(view)),
                "{}",
                file.relative
            );
        } else {
            reads_differed.push(file.relative.clone());
        }
        let timed = reading + posing + rendering + picturing + thumbnail + large;
        note("0 whole analysis", whole);
        note("1 read and mesh", reading);
        note("2 pose and D2", posing);
        note(
            &format!("3 {directions} views rendered and framed"),
            rendering,
        );
        note(
            &format!("4 {directions}+1 views described (the rest)"),
            whole.saturating_sub(timed),
        );
        note("5 picture rendered", picturing);
        note("6 thumbnail (JPEG)", thumbnail);
        note("7 large image (PNG)", large);
        std::hint::black_box(analysis);
    }
    println!(
        "Where a model's analysis goes, {} models:\n",
        steps.get("0 whole analysis").map_or(0, Vec::len)
    );
    println!("| step | p50 | sum | share of the sum |");
    println!("|---|---|---|---|");
    let all: Duration = steps
        .get("0 whole analysis")
        .map_or(Duration::ZERO, |times| times.iter().sum());
    for (step, times) in &mut steps {
        times.sort();
        let sum: Duration = times.iter().sum();
        println!(
            "| {} | {:.1} ms | {:.2} s | {:.0} % |",
            &step[2..],
            times[times.len() / 2].as_secs_f64() * 1000.0,
            sum.as_secs_f64(),
            100.0 * sum.as_secs_f64() / all.as_secs_f64().max(1e-9)
        );
    }
    for file in reads_differed {
        println!(
            "\n{file}: its two reads gave two meshes (as a STEP face at the reader's time budget \
             does); its search input's views were not compared with its database views."
        );
    }
}

/// What the searches by photographs of `-- photos` found.
#[derive(Default)]
struct PhotoSearches {
    part_five: Tally,
    /// The same, other parts of the file's family passed over (a photograph has no size: two
    /// sizes of one part may tie).
    part_five_sizes_tied: Tally,
    /// First result of its family: [families of one kind of part, folders of different parts].
    family_first_apart: [Tally; 2],
    times: Vec<Duration>,
    misses: Vec<String>,
    /// Models in the database whose mesh did not read here.
    unread: usize,
}

/// Photographs every model in the database (its mesh as the service reads it) `per_model` times
/// with the quality set's camera, searches by each photograph and counts the part in the first
/// five and its family first.
async fn search_by_photos(
    admin: &partlens_testkit::service::Session,
    models: &[CorpusFile],
    uid_of: &BTreeMap<String, String>,
    file_of: &BTreeMap<String, usize>,
    per_model: usize,
) -> PhotoSearches {
    let mut found = PhotoSearches::default();
    let mut shots = StdRng::seed_from_u64(PHOTO_SEED);
    for (index, file) in models.iter().enumerate() {
        if !uid_of.contains_key(&file.relative) {
            continue;
        }
        let bytes = std::fs::read(corpus_dir().join(&file.relative)).expect("a corpus file");
        let Ok(mesh) = partlens_geometry::read_mesh(&file.extension(), &bytes) else {
            found.unread += 1;
            continue;
        };
        let triangles: vector::Triangles = mesh
            .triangles
            .iter()
            .map(|triangle| triangle.map(|at| mesh.vertices[at as usize].map(f64::from)))
            .collect();
        // The part: the model itself and every other format of it.
        let part: Vec<usize> = models
            .iter()
            .enumerate()
            .filter(|(other, candidate)| {
                *other == index || (!file.twin.is_empty() && candidate.twin == file.twin)
            })
            .map(|(other, _)| other)
            .collect();
        // The family is measured where another part of it is in the database (as for models).
        let family_in_database = !file.family.is_empty()
            && models.iter().enumerate().any(|(other, candidate)| {
                !part.contains(&other)
                    && candidate.family == file.family
                    && uid_of.contains_key(&candidate.relative)
            });
        for _photo in 0..per_model {
            let shot = camera::Shot::random(&mut shots);
            let picture = camera::photograph(&triangles, &shot, PHOTO_SIZE.0, PHOTO_SIZE.1);
            let mut jpeg = Vec::new();
            picture
                .write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
                    &mut std::io::Cursor::new(&mut jpeg),
                    shot.jpeg_quality,
                ))
                .expect("a JPEG in memory");
            let searched = Instant::now();
            let input = admin.upload_search_input(".jpg", &jpeg, false).await;
            let reply = admin.search(&format!("fileUID={input}")).await;
            found.times.push(searched.elapsed());
            if reply.status != 200 {
                eprintln!(
                    "search by a photo of {} failed: {}",
                    file.relative, reply.status
                );
                continue;
            }
            let ranked: Vec<usize> = result_uids(&reply.json())
                .into_iter()
                .filter_map(|uid| file_of.get(&uid).copied())
                .collect();
            let first = ranked.first().map_or("nothing", |&at| name(&models[at]));
            let at = ranked.iter().position(|candidate| part.contains(candidate));
            let in_five = at.is_some_and(|at| at < 5);
            found.part_five.count(in_five);
            let at_sizes_tied = ranked
                .iter()
                .filter(|&&candidate| {
                    part.contains(&candidate)
                        || file.family.is_empty()
                        || models[candidate].family != file.family
                })
                .position(|candidate| part.contains(candidate));
            found
                .part_five_sizes_tied
                .count(at_sizes_tied.is_some_and(|at| at < 5));
            if !in_five {
                found.misses.push(format!(
                    "photo part   {} → {} (part at {})",
                    name(file),
                    first,
                    at.map_or("none".to_owned(), |at| (at + 1).to_string())
                ));
            }
            if family_in_database {
                let family_at = ranked
                    .iter()
                    .position(|&candidate| models[candidate].family == file.family);
                let of_family = family_at == Some(0);
                found.family_first_apart
                    [usize::from(FOLDERS_OF_DIFFERENT_PARTS.contains(&file.family.as_str()))]
                .count(of_family);
                if !of_family {
                    found.misses.push(format!(
                        "photo family {} → {} (family at {})",
                        name(file),
                        first,
                        family_at.map_or("none".to_owned(), |at| (at + 1).to_string())
                    ));
                }
            }
        }
    }
    found
}

/// The family rows of one class of families.
#[derive(Default)]
struct FamilyRow {
    /// Searches whose first result (not itself or a twin) is of the family.
    first: Tally,
    /// Family files among the first three such results, summed over the searches.
    three: usize,
    /// The family files the first three could hold at best, summed.
    three_possible: usize,
}

impl FamilyRow {
    /// Both classes' rows together.
    fn added(&self, other: &Self) -> Self {
        Self {
            first: self.first.added(&other.first),
            three: self.three + other.three,
            three_possible: self.three_possible + other.three_possible,
        }
    }

    /// `files` out of the first three of every search, in per cent.
    fn precision(&self, files: usize) -> f64 {
        100.0 * files as f64 / (3 * self.first.total).max(1) as f64
    }
}

/// Hits out of searches.
#[derive(Default)]
struct Tally {
    hits: usize,
    total: usize,
}

impl Tally {
    /// Both tallies together.
    fn added(&self, other: &Self) -> Self {
        Self {
            hits: self.hits + other.hits,
            total: self.total + other.total,
        }
    }

    fn count(&mut self, hit: bool) {
        self.total += 1;
        self.hits += usize::from(hit);
    }

    fn share(&self) -> String {
        format!(
            "{:.0} % ({}/{})",
            100.0 * self.hits as f64 / self.total.max(1) as f64,
            self.hits,
            self.total
        )
    }
}
