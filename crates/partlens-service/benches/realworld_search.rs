//! Search quality on real parts (issues 23 and 49), measured as a user searches: every file of the
//! real-world corpus (`../shared/realworld/`: STEP, STL, OBJ, PLY, IGES in a build with `occt`,
//! and the DXF and PDF drawings, as a real company's library holds its models and drawings) is
//! uploaded into one company's database of a service on loopback; then each model is uploaded
//! again as a search input and searched by (`GET /api/Search?filterStr=fileUID=…`). The result
//! that is the file itself (its database copy) is skipped.
//!
//! The searches are split in two halves by the fixed rule of
//! `partlens_engine::samples::corpus_halves` (a family, and every format of a part, wholly in one
//! half): a ranking is tuned on the **tuning half** and reported on the **held-out half**; the
//! table has a column for each. The library always holds both halves' files. Prints, per half:
//!
//! - **twin**: where the same part is in the corpus in another format (the manifest's `twin`),
//!   the share of searches whose first result is a twin (any other format of the part: a STEP's
//!   STL or its PLY), and whose first five hold one;
//! - **kind**: where at least one other part of the file's family is in the database and the
//!   family is sizes or variants of one kind of part (the manifest's `family_kind` is `kind`:
//!   ISO 4762 socket head cap screws, DIN 471 rings, stepper motors), the share whose first
//!   result other than a twin is of the family, and the precision of the first three such results
//!   (with the precision a perfect ranking would reach: a family of fewer than three other files
//!   cannot fill the first three); the same ranked among models alone (drawings passed over); how
//!   many of the misses had a drawing first; and how many searches had a drawing first at all
//!   (DXF, PDF). The manifest families that are one machine's or folder's different parts
//!   (`folder`) are counted in a row of their own, not in the goal's;
//! - model → model score bands by the rule of `partlens_engine::samples::calibration` over every
//!   model result's score (same part: a twin), through the service (run with `-- every`); the
//!   app's curves (`ui::results::calibration`) are now fitted by `corpus_ranking -- reliability`,
//!   and these bands are a check of them end to end;
//! - the time of a search by a model (the input uploaded and analysed, then ranked): p50, p95;
//! - the misses, each with what came first (a drawing said so) and where the first twin or
//!   family file came.
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
//! cargo bench -p partlens-service --bench realworld_search -- photos=2 varied   # issue 49, item 6
//! ```
//!
//! `varied` takes the photographs as varied as real ones (the camera's `scene.rs`: the part on a
//! table with its grain and the part's shadow, things behind it and in front of it, a camera near
//! or far, warm or cool light, more blur, lower JPEG quality).
//!
//! With `PARTLENS_BENCH_LOG=partlens_service=debug` the service logs the time of each step of an
//! upload (the read in the worker, the save) and of a search (the inputs' views read, the visual
//! ranking, the ranking by size, the results loaded) on stderr.
//!
//! With `PARTLENS_SEARCH_DUMP=file.json` it also writes every file (its manifest family, kind and
//! twin, its half, the attributes the service extracted) and every search's ranked results with their scores, to
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
use partlens_engine::samples::corpus_halves::CorpusHalf;
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
#[path = "../../partlens-engine/tests/engine/quality_set/scene.rs"]
mod scene;
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

/// The formats searched: models, the formats whose files have twins.
fn is_model(file: &CorpusFile) -> bool {
    // IGES only in a build with `occt` (a plain `match` reads as `matches!` to clippy there).
    matches!(file.group(), "STEP" | "mesh") || (file.group() == "IGES" && cfg!(feature = "occt"))
}

/// The drawings (DXF, PDF): in the library, never searched by here.
fn is_drawing(file: &CorpusFile) -> bool {
    matches!(file.group(), "DXF" | "PDF")
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
    if std::env::args().any(|argument| argument == "phases") {
        let models: Vec<CorpusFile> = files
            .iter()
            .filter(|file| is_model(file))
            .cloned()
            .collect();
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
    let library = Library::upload(&admin, &files).await;

    let mut rows = [ModelRows::default(), ModelRows::default()];
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
    for (index, file) in files.iter().enumerate() {
        if !is_model(file) {
            continue;
        }
        let Some(own_uid) = library.uid_of.get(&file.relative) else {
            continue;
        };
        let twins = library.twins_of(index);
        // The other files of the file's family in the library, its twins excepted.
        let family_files = library.family_of(index, &twins).len();
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
        // Every result that is a model but the file itself, for the app's model → model bands.
        for item in body["ResultsList"].as_array().into_iter().flatten() {
            let (Some(uid), Some(score)) = (item["UID"].as_str(), item["Score"].as_f64()) else {
                continue;
            };
            match library.file_of.get(uid) {
                Some(&at) if at != index && is_model(&files[at]) => score_pairs.push(ScoredPair {
                    kind: "model → model",
                    query: file.relative.clone(),
                    candidate: files[at].relative.clone(),
                    same_part: twins.contains(&at),
                    score,
                }),
                _ => {}
            }
        }
        dumped_searches.push(serde_json::json!({
            "query": index,
            "results": body["ResultsList"].as_array().map(|items| items.iter().filter_map(|item| {
                let at = library.file_of.get(item["UID"].as_str()?)?;
                Some(serde_json::json!([at, item["Score"]]))
            }).collect::<Vec<_>>()),
        }));
        let ranked: Vec<usize> = result_uids(&body)
            .into_iter()
            .filter(|uid| uid != own_uid)
            .filter_map(|uid| library.file_of.get(&uid).copied())
            .collect();
        let searched_by = SearchedBy {
            files: &files,
            query: index,
            twins: &twins,
            family_files,
            ranked: &ranked,
        };
        rows[half_index(file)].count(&searched_by, &mut misses);
    }
    let photo_searches = if photos_per_model > 0 {
        let varied = std::env::args().any(|argument| argument == "varied");
        search_by_photos(&admin, &files, &library, photos_per_model, varied).await
    } else {
        [PhotoSearches::default(), PhotoSearches::default()]
    };
    times.sort();
    upload_times.sort();
    search_times.sort();
    indexed_search_times.sort();
    if let Ok(path) = std::env::var("PARTLENS_SEARCH_DUMP") {
        let mut dumped_files = Vec::new();
        for file in &files {
            let extracted = match library.uid_of.get(&file.relative) {
                Some(uid) => admin.get(&format!("/api/File?fileUID={uid}")).await.json()
                    ["ExtractedAttributes"]
                    .clone(),
                None => serde_json::Value::Null,
            };
            dumped_files.push(serde_json::json!({
                "file": file.relative, "family": file.family, "twin": file.twin,
                "family_kind": file.family_kind, "half": file.half().name(),
                "extracted": extracted,
            }));
        }
        let dump = serde_json::json!({"models": dumped_files, "searches": dumped_searches});
        std::fs::write(&path, dump.to_string()).expect("the dump written");
    }
    let build = if cfg!(feature = "occt") {
        "with occt"
    } else {
        "default (no occt)"
    };
    println!(
        "Search quality on the real-world corpus, {build}; the library holds every file of the \
         corpus: {} files uploaded ({} models, {} drawings; a file the engine refuses, an IGES \
         file without occt or an empty DXF, stays without views). Searches by the corpus's models, \
         split by the fixed rule of partlens_engine::samples::corpus_halves: a ranking is tuned on \
         the tuning half and reported on the held-out half.\n",
        library.uid_of.len(),
        library.count(is_model),
        library.count(is_drawing),
    );
    println!("| search | tuning half | held-out half |");
    println!("|---|---|---|");
    print_model_rows(&rows);
    print_photo_rows(&photo_searches, photos_per_model);
    let scored: Vec<&ScoredPair> = score_pairs.iter().collect();
    println!(
        "\nBoth halves: the app's model → model bands by its rule (9 in 10 / half of the results at \
         or above are the same part), {} model results: very similar ≥ {:.2}, similar ≥ {:.2}.",
        scored.len(),
        thresholds(&scored, VERY_SIMILAR_PRECISION),
        thresholds(&scored, SIMILAR_PRECISION)
    );
    println!("\n| time, both halves | searches | measured |");
    println!("|---|---|---|");
    println!(
        "| a search by a model (upload, analysis, ranking) | {} | p50 {} ms, p95 {} ms |",
        times.len(),
        percentile_of(&times, 0.5),
        percentile_of(&times, 0.95)
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
        let mut photo_times: Vec<Duration> = photo_searches
            .iter()
            .flat_map(|half| half.times.iter().copied())
            .collect();
        photo_times.sort();
        println!(
            "| a search by a photograph (upload, analysis, ranking) | {} | p50 {} ms, p95 {} ms |",
            photo_times.len(),
            percentile_of(&photo_times, 0.5),
            percentile_of(&photo_times, 0.95)
        );
        let unread: usize = photo_searches.iter().map(|half| half.unread).sum();
        if unread > 0 {
            println!("\n{unread} models in the database gave no mesh to photograph (left out).");
        }
    }
    misses.extend(photo_searches.into_iter().flat_map(|half| half.misses));
    println!("\nMisses:");
    for miss in misses {
        println!("- {miss}");
    }
}

/// The time at `share` (0..1) of sorted `times`, in milliseconds (0 when there is none).
fn percentile_of(times: &[Duration], share: f64) -> u128 {
    times
        .get(((times.len() as f64 * share) as usize).min(times.len().saturating_sub(1)))
        .map_or(0, Duration::as_millis)
}

/// Where a corpus file's rows go: 0 the tuning half, 1 the held-out half.
fn half_index(file: &CorpusFile) -> usize {
    usize::from(file.half() == CorpusHalf::HeldOut)
}

/// The corpus in the service's database: every file that indexed, by UID and by path.
struct Library {
    /// Each indexed file's UID, by its corpus path.
    uid_of: BTreeMap<String, String>,
    /// Each indexed file's position in the corpus list, by its UID.
    file_of: BTreeMap<String, usize>,
    /// The corpus list.
    files: Vec<CorpusFile>,
}

impl Library {
    /// Uploads every file of the corpus into the session's company (models, IGES too where it
    /// reads, DXF and PDF drawings), as a real company's library holds them; the files that do not
    /// index (an empty or damaged drawing, IGES without `occt`) are said on stderr and left out.
    async fn upload(admin: &partlens_testkit::service::Session, files: &[CorpusFile]) -> Self {
        let started = Instant::now();
        let mut library = Self {
            uid_of: BTreeMap::new(),
            file_of: BTreeMap::new(),
            files: files.to_vec(),
        };
        for (index, file) in files.iter().enumerate() {
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
                library.file_of.insert(uid.clone(), index);
                library.uid_of.insert(file.relative.clone(), uid);
            } else {
                eprintln!("not in the database: {} ({})", file.relative, reply.status);
            }
        }
        eprintln!(
            "{} of {} files in the database in {:.0} s",
            library.uid_of.len(),
            files.len(),
            started.elapsed().as_secs_f64()
        );
        library
    }

    /// How many files in the database `which` admits.
    fn count(&self, which: impl Fn(&CorpusFile) -> bool) -> usize {
        self.file_of
            .values()
            .filter(|&&at| which(&self.files[at]))
            .count()
    }

    /// Every other file in the database of the part at `index` (a STEP, its STL and its PLY are
    /// each other's twins).
    fn twins_of(&self, index: usize) -> Vec<usize> {
        let file = &self.files[index];
        self.in_database(|other, candidate| {
            other != index && !file.twin.is_empty() && candidate.twin == file.twin
        })
    }

    /// The other files in the database of the family of the file at `index`, `twins` excepted.
    fn family_of(&self, index: usize, twins: &[usize]) -> Vec<usize> {
        let file = &self.files[index];
        self.in_database(|other, candidate| {
            other != index
                && !twins.contains(&other)
                && !file.family.is_empty()
                && candidate.family == file.family
        })
    }

    /// The files in the database that `which` (position, file) admits.
    fn in_database(&self, which: impl Fn(usize, &CorpusFile) -> bool) -> Vec<usize> {
        self.files
            .iter()
            .enumerate()
            .filter(|(at, file)| self.uid_of.contains_key(&file.relative) && which(*at, file))
            .map(|(at, _)| at)
            .collect()
    }
}

/// One search by a model, as [`ModelRows::count`] takes it.
struct SearchedBy<'a> {
    files: &'a [CorpusFile],
    /// The model searched by.
    query: usize,
    /// Its twins in the database.
    twins: &'a [usize],
    /// How many other files of its family (twins excepted) are in the database.
    family_files: usize,
    /// The results, the file's own database copy left out, best first.
    ranked: &'a [usize],
}

/// The rows of the searches by models of one half.
#[derive(Default)]
struct ModelRows {
    twin_first: Tally,
    twin_five: Tally,
    /// Families of one kind of part (`family_kind` `kind`): the goal's rows.
    kind: FamilyRow,
    /// The same searches ranked among models alone (the drawings passed over).
    kind_among_models: Tally,
    /// Manifest families that are a folder of different parts (`folder`): not in the goal.
    folder: FamilyRow,
    /// Searches (with a twin or a family) whose first result, not itself or a twin, is a drawing,
    /// and of those how many were DXF.
    drawing_first: Tally,
    drawing_first_dxf: usize,
    /// One-kind searches whose first result is not of the family, and of those how many had a
    /// drawing first.
    kind_misses: usize,
    kind_misses_drawing_first: usize,
}

impl ModelRows {
    /// Counts one search by a model, and its misses in `misses`.
    fn count(&mut self, search: &SearchedBy<'_>, misses: &mut Vec<String>) {
        let files = search.files;
        let file = &files[search.query];
        let first = search
            .ranked
            .first()
            .map_or("nothing".to_owned(), |&at| shown(&files[at]));
        if !search.twins.is_empty() {
            let at = search
                .ranked
                .iter()
                .position(|candidate| search.twins.contains(candidate));
            self.twin_first.count(at == Some(0));
            self.twin_five.count(at.is_some_and(|at| at < 5));
            if at != Some(0) {
                misses.push(format!(
                    "twin   {} → {} (twin at {})",
                    name(file),
                    first,
                    at.map_or("none".to_owned(), |at| (at + 1).to_string())
                ));
            }
        }
        // Every result but the part itself (its twins).
        let others: Vec<usize> = search
            .ranked
            .iter()
            .copied()
            .filter(|candidate| !search.twins.contains(candidate))
            .collect();
        let drawing_first = others.first().is_some_and(|&at| is_drawing(&files[at]));
        self.drawing_first.count(drawing_first);
        if drawing_first && others.first().is_some_and(|&at| files[at].group() == "DXF") {
            self.drawing_first_dxf += 1;
        }
        if search.family_files == 0 {
            return;
        }
        let of_family = |at: &usize| files[*at].family == file.family;
        let one_kind = file.in_family_of_one_kind();
        let row = if one_kind {
            &mut self.kind
        } else {
            &mut self.folder
        };
        let hit = others.first().is_some_and(of_family);
        row.count(&others, search.family_files, of_family);
        if !one_kind {
            return;
        }
        let models_alone: Vec<usize> = others
            .iter()
            .copied()
            .filter(|&at| !is_drawing(&files[at]))
            .collect();
        self.kind_among_models
            .count(models_alone.first().is_some_and(of_family));
        if !hit {
            self.kind_misses += 1;
            self.kind_misses_drawing_first += usize::from(drawing_first);
            misses.push(format!(
                "family {} → {} (family at {}; among models alone at {})",
                name(file),
                first_other(files, &others),
                others
                    .iter()
                    .position(of_family)
                    .map_or("none".to_owned(), |at| (at + 1).to_string()),
                models_alone
                    .iter()
                    .position(of_family)
                    .map_or("none".to_owned(), |at| (at + 1).to_string())
            ));
        }
    }
}

/// The first of `others` as a miss line names it (a drawing said so).
fn first_other(files: &[CorpusFile], others: &[usize]) -> String {
    others
        .first()
        .map_or("nothing".to_owned(), |&at| shown(&files[at]))
}

/// A file's name in a miss line, a drawing said so.
fn shown(file: &CorpusFile) -> String {
    if is_drawing(file) {
        format!("{} (a {} drawing)", name(file), file.group())
    } else {
        name(file).to_owned()
    }
}

/// The model rows of both halves, one table row each.
fn print_model_rows(rows: &[ModelRows; 2]) {
    let row = |what: &str, cell: &dyn Fn(&ModelRows) -> String| {
        println!("| {what} | {} | {} |", cell(&rows[0]), cell(&rows[1]));
    };
    row(
        "by a model: the same part in another format (twin)",
        &|rows| {
            format!(
                "top-1 {}, top-5 {}",
                rows.twin_first.share(),
                rows.twin_five.share()
            )
        },
    );
    row(
        "by a model: another part of its kind (families of one kind), first result not itself or a twin",
        &|rows| {
            format!(
                "top-1 {}, P@3 {:.0} % (a perfect ranking {:.0} %)",
                rows.kind.first.share(),
                rows.kind.precision(rows.kind.three),
                rows.kind.precision(rows.kind.three_possible)
            )
        },
    );
    row(
        "the same, ranked among models alone (the drawings passed over)",
        &|rows| format!("top-1 {}", rows.kind_among_models.share()),
    );
    row("of the kind misses, those with a drawing first", &|rows| {
        format!("{} of {}", rows.kind_misses_drawing_first, rows.kind_misses)
    });
    row(
        "searches by a model whose first result (not itself or a twin) is a drawing",
        &|rows| {
            format!(
                "{} (DXF {}, PDF {})",
                rows.drawing_first.share(),
                rows.drawing_first_dxf,
                rows.drawing_first.hits - rows.drawing_first_dxf
            )
        },
    );
    row(
        "by a model, manifest families that are a folder of different parts (not in the goal)",
        &|rows| {
            format!(
                "top-1 {}, P@3 {:.0} %",
                rows.folder.first.share(),
                rows.folder.precision(rows.folder.three)
            )
        },
    );
}

/// The photo rows of both halves, one table row each (none without `-- photos`).
fn print_photo_rows(photos: &[PhotoSearches; 2], per_model: usize) {
    if per_model == 0 {
        return;
    }
    let row = |what: &str, cell: &dyn Fn(&PhotoSearches) -> String| {
        println!("| {what} | {} | {} |", cell(&photos[0]), cell(&photos[1]));
    };
    row(
        &format!(
            "a photo-like picture ({per_model} a model): the part (itself or a twin) in the first five"
        ),
        &|half| format!("top-5 {}", half.part_five.share()),
    );
    row(
        "the same, other parts of its family passed over (sizes tie)",
        &|half| format!("top-5 {}", half.part_five_sizes_tied.share()),
    );
    row(
        "a photo-like picture: first result of its kind (families of one kind)",
        &|half| format!("top-1 {}", half.kind_first.share()),
    );
    row("a photo-like picture: first result a drawing", &|half| {
        half.drawing_first.share()
    });
    row(
        "a photo-like picture: first result of its family, folders of different parts (not in the goal)",
        &|half| format!("top-1 {}", half.folder_first.share()),
    );
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

/// What the searches by photographs of `-- photos` found, in one half.
#[derive(Default)]
struct PhotoSearches {
    part_five: Tally,
    /// The same, other parts of the file's family passed over (a photograph has no size: two
    /// sizes of one part may tie).
    part_five_sizes_tied: Tally,
    /// First result of its family, for families of one kind of part.
    kind_first: Tally,
    /// The same for the manifest families that are a folder of different parts.
    folder_first: Tally,
    /// First result a drawing.
    drawing_first: Tally,
    times: Vec<Duration>,
    misses: Vec<String>,
    /// Models in the database whose mesh did not read here.
    unread: usize,
}

/// Photographs every model in the database (its mesh as the service reads it) `per_model` times
/// with the quality set's camera, searches by each photograph and counts the part in the first
/// five and its family first, by half.
async fn search_by_photos(
    admin: &partlens_testkit::service::Session,
    files: &[CorpusFile],
    library: &Library,
    per_model: usize,
    varied: bool,
) -> [PhotoSearches; 2] {
    let mut found = [PhotoSearches::default(), PhotoSearches::default()];
    let mut shots = StdRng::seed_from_u64(PHOTO_SEED);
    for (index, file) in files.iter().enumerate() {
        if !is_model(file) || !library.uid_of.contains_key(&file.relative) {
            continue;
        }
        let found = &mut found[half_index(file)];
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
        let mut part = library.twins_of(index);
        part.push(index);
        // The family is measured where another part of it is in the database (as for models).
        let family_in_database = !library.family_of(index, &part).is_empty();
        for _photo in 0..per_model {
            let shot = if varied {
                camera::Shot::varied(&mut shots)
            } else {
                camera::Shot::random(&mut shots)
            };
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
                .filter_map(|uid| library.file_of.get(&uid).copied())
                .collect();
            let first = ranked
                .first()
                .map_or("nothing".to_owned(), |&at| shown(&files[at]));
            found
                .drawing_first
                .count(ranked.first().is_some_and(|&at| is_drawing(&files[at])));
            let at = ranked.iter().position(|candidate| part.contains(candidate));
            let in_five = at.is_some_and(|at| at < 5);
            found.part_five.count(in_five);
            let at_sizes_tied = ranked
                .iter()
                .filter(|&&candidate| {
                    part.contains(&candidate)
                        || file.family.is_empty()
                        || files[candidate].family != file.family
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
                    .position(|&candidate| files[candidate].family == file.family);
                let of_family = family_at == Some(0);
                if file.in_family_of_one_kind() {
                    found.kind_first.count(of_family);
                    if !of_family {
                        found.misses.push(format!(
                            "photo kind   {} → {} (family at {})",
                            name(file),
                            first,
                            family_at.map_or("none".to_owned(), |at| (at + 1).to_string())
                        ));
                    }
                } else {
                    found.folder_first.count(of_family);
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
    /// Counts one search: `others` its results but the part itself, best first, with
    /// `family_files` other files of the family in the database.
    fn count(&mut self, others: &[usize], family_files: usize, of_family: impl Fn(&usize) -> bool) {
        self.first.count(others.first().is_some_and(&of_family));
        self.three += others.iter().take(3).filter(|at| of_family(at)).count();
        // A family of fewer than three other files cannot fill the first three.
        self.three_possible += family_files.min(3);
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
