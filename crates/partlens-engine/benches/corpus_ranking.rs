//! Search quality on the real-world corpus, in process: the rows of the service's
//! `realworld_search` bench (twins, kinds of part, drawings first) computed from the engine's own
//! analyses and scores, in minutes instead of the service's quarter of an hour, to tune a ranking
//! on the corpus's tuning half and check it on the held-out half
//! (`partlens_engine::samples::corpus_halves`) before the service's bench confirms it.
//!
//! Every file of the corpus (`../shared/realworld/`, or `PARTLENS_REALWORLD_DIR`) is analysed as
//! a database file (models, DXF and PDF drawings: the library) and every model also as a search
//! input, as the service's reader worker does; the analyses are kept in `target/corpus-ranking/`
//! (keyed by the file's SHA-256, the purpose and [`ANALYSIS_KEY`]), so a second run reads them
//! back. Each model's search is then every library file scored by [`partlens_engine::match_views`],
//! the candidates that are models ranked again by size as the service's `part_size.rs` does
//! (mirrored in [`size_blend`]), and counted as `realworld_search` counts.
//!
//! ```text
//! cargo bench -p partlens-engine --bench corpus_ranking
//! cargo bench -p partlens-engine --bench corpus_ranking -- dump=/tmp/components.json
//! ```
//!
//! With `photos=N` it also photographs every model N times as the service bench does (the
//! quality set's camera, the same seed and order) and prints the photo rows by half (with
//! `varied`, photographs as varied as real ones: `quality_set/scene.rs`; `PARTLENS_PHOTOS_DIR=DIR`
//! writes them there); with
//! `learned=DIR` it writes what a learned network would be shown of every model, drawing,
//! photograph and sketch (`benches/support/learned/measure.py` measures the network on them).
//!
//! With `sketches=N` it sketches every model and copies out every drawing's page N times as a
//! person draws (`benches/support/sketch.rs`), searches by each as the app's sketch pad does, and
//! prints the sketch rows by half (`benches/support/sketch_set.rs`).
//!
//! With `reliability` it measures what the scores shown promise, per kind of search: the
//! chance-of-same-part curves fitted on the tuning half and their reliability tables on the
//! held-out half (`benches/support/reliability.rs`; with `photos=N` for photo → model, with
//! `sketches=N` for sketch → model and sketch → drawing).
//!
//! With `dump=FILE` it also writes every file (path, family, kind, twin, half, format, extents)
//! and, for every search by a model, every candidate's score components (the views' part, the D2
//! similarity, the part descriptors' similarities, the size difference), and every photograph's
//! and sketch's scored files, so that a script can try other blends of them offline
//! (`benches/support/corpus_sweep.py`, `benches/support/learned/measure.py`).
//!
//! With `library_views=SUBSET` every library model keeps only a subset of its views (`all`,
//! `search_input`, `sphereN`: `benches/support/view_subsets.rs`), the search inputs unchanged, and
//! the rows are those of that library. With `shortlist=K1,K2,…` each search also ranks the library
//! by a subset of the views (`shortlist_views=SUBSET`, the search input's 33 by default), scores its
//! best K exactly on all views and counts that against the exact ranking
//! (`benches/support/shortlist.rs`). Both measure how many views a model needs at 100,000 parts
//! (issue 51 item 1).

// A benchmark that cannot set itself up has nothing to measure: it stops with the reason.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use partlens_engine::mesh;
use partlens_engine::samples::corpus_halves::{CorpusHalf, corpus_half};

// The engine's quality-set camera with the vector sums it uses (it finds them, and the blur
// below, in the bench's root), as the service's `realworld_search` bench includes it.
#[allow(dead_code)]
#[path = "../tests/engine/quality_set/camera.rs"]
mod camera;
#[allow(dead_code)]
#[path = "../tests/engine/quality_set/scene.rs"]
mod scene;
#[allow(dead_code)]
#[path = "../tests/engine/quality_set/vector.rs"]
mod vector;

// The figures of a part measured and not kept in the engine (holes, outline).
#[path = "support/part_figures.rs"]
mod part_figures;
use part_figures::PartFigures;
// Sketches of the corpus's models and drawings, drawn as a person draws, and their searches.
#[path = "support/sketch.rs"]
mod sketch;
#[path = "support/sketch_set.rs"]
mod sketch_set;
// The chance-of-same-part curves fitted per kind of search and their reliability tables.
#[path = "support/reliability.rs"]
mod reliability;
// Fewer views stored a model, and a shortlist by a subset of them (issue 51 item 1).
#[path = "support/shortlist.rs"]
mod shortlist;
#[path = "support/view_subsets.rs"]
mod view_subsets;
use partlens_engine::{ExtractionLimits, Purpose, ViewDescriptor, analyze_for};
use view_subsets::ViewSubset;

/// Changes when what an analysis gives changes in a way the stored descriptor's version does not
/// say (so that the kept analyses are made again).
const ANALYSIS_KEY: &str = "v2";

/// One file of the corpus, as its manifest lists it.
#[derive(Clone, Debug)]
struct CorpusFile {
    path: String,
    format: String,
    sha256: String,
    family: String,
    family_kind: String,
    twin: String,
}

impl CorpusFile {
    fn extension(&self) -> String {
        Path::new(&self.path)
            .extension()
            .map(|extension| format!(".{}", extension.to_string_lossy().to_ascii_lowercase()))
            .unwrap_or_default()
    }

    fn is_model(&self) -> bool {
        // IGES only with OpenCASCADE, as the service.
        matches!(self.format.as_str(), "step" | "stp" | "stl" | "obj" | "ply")
            || (cfg!(feature = "occt") && matches!(self.format.as_str(), "iges" | "igs"))
    }

    fn is_drawing(&self) -> bool {
        matches!(self.format.as_str(), "dxf" | "pdf")
    }

    fn half(&self) -> CorpusHalf {
        corpus_half(&self.family, &self.twin, &self.path)
    }

    fn name(&self) -> &str {
        self.path.rsplit('/').next().unwrap_or(&self.path)
    }
}

fn corpus_dir() -> PathBuf {
    std::env::var_os("PARTLENS_REALWORLD_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/realworld"),
        PathBuf::from,
    )
}

fn read_manifest() -> Vec<CorpusFile> {
    let mut reader =
        csv::Reader::from_path(corpus_dir().join("manifest.csv")).expect("the corpus's manifest");
    let headers = reader.headers().expect("its header").clone();
    let column = |name: &str| headers.iter().position(|header| header == name);
    let at = |name: &str| column(name).unwrap_or_else(|| panic!("no {name} column"));
    let (path, format, sha, family, twin) = (
        at("path"),
        at("format"),
        at("sha256"),
        at("family"),
        at("twin"),
    );
    let kind = column("family_kind");
    reader
        .records()
        .map(|record| {
            let record = record.expect("a manifest row");
            let get = |at: usize| record.get(at).unwrap_or_default().to_owned();
            CorpusFile {
                path: get(path),
                format: get(format),
                sha256: get(sha),
                family: get(family),
                family_kind: kind.map(get).unwrap_or_default(),
                twin: get(twin),
            }
        })
        .collect()
}

/// What the bench keeps of an analysis.
struct Analysed {
    views: Vec<ViewDescriptor>,
    attributes: Vec<String>,
}

/// Where the analysis of `file` for `purpose` is kept.
fn kept_at(file: &CorpusFile, purpose: Purpose) -> PathBuf {
    let purpose = match purpose {
        Purpose::DatabaseFile => "db",
        Purpose::SearchInput => "input",
    };
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target/corpus-ranking")
        .join(format!("{}-{purpose}-{ANALYSIS_KEY}", file.sha256))
}

/// The kept analysis, if it is there and its views still read.
fn read_kept(path: &Path) -> Option<Analysed> {
    let bytes = std::fs::read(path).ok()?;
    let mut at = 0usize;
    let mut next = |len: usize| {
        let slice = bytes.get(at..at + len)?;
        at += len;
        Some(slice)
    };
    let count = u32::from_le_bytes(next(4)?.try_into().ok()?) as usize;
    let mut views = Vec::with_capacity(count);
    for _ in 0..count {
        let len = u32::from_le_bytes(next(4)?.try_into().ok()?) as usize;
        views.push(ViewDescriptor::from_bytes(next(len)?).ok()?);
    }
    let len = u32::from_le_bytes(next(4)?.try_into().ok()?) as usize;
    let attributes = String::from_utf8(next(len)?.to_vec()).ok()?;
    Some(Analysed {
        views,
        attributes: attributes.lines().map(str::to_owned).collect(),
    })
}

fn write_kept(path: &Path, analysed: &Analysed) {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(&(analysed.views.len() as u32).to_le_bytes());
    for view in &analysed.views {
        let stored = view.to_bytes();
        bytes.extend_from_slice(&(stored.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&stored);
    }
    let attributes = analysed.attributes.join("\n");
    bytes.extend_from_slice(&(attributes.len() as u32).to_le_bytes());
    bytes.extend_from_slice(attributes.as_bytes());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("the cache folder");
    }
    std::fs::write(path, bytes).expect("the analysis kept");
}

/// The analysis of `file` for `purpose`, kept or made (`None` when the engine refuses the file).
fn analysis_of(file: &CorpusFile, purpose: Purpose) -> Option<Analysed> {
    let kept = kept_at(file, purpose);
    if let Some(analysed) = read_kept(&kept) {
        return Some(analysed);
    }
    let bytes = std::fs::read(corpus_dir().join(&file.path)).expect("a corpus file");
    let analysis = match analyze_for(
        purpose,
        &file.extension(),
        &bytes,
        &ExtractionLimits::default(),
    ) {
        Ok(analysis) if !analysis.views.is_empty() => analysis,
        Ok(_) => return None,
        Err(error) => {
            eprintln!("not in the library: {} ({error})", file.path);
            return None;
        }
    };
    let analysed = Analysed {
        views: analysis.views,
        attributes: analysis.extracted_attributes,
    };
    write_kept(&kept, &analysed);
    Some(analysed)
}

/// A model's figures measured beside the engine's, from its mesh read and posed as the engine
/// does (`None` for a drawing or a model whose mesh does not read).
fn figures_of(file: &CorpusFile) -> Option<PartFigures> {
    if !file.is_model() {
        return None;
    }
    let bytes = std::fs::read(corpus_dir().join(&file.path)).expect("a corpus file");
    let mesh = partlens_geometry::read_model(&file.extension(), &bytes)
        .mesh
        .ok()?;
    let posed = mesh::standard_pose(&mesh);
    // The engine's own part descriptors, timed: what they add to a model's analysis.
    let started = Instant::now();
    std::hint::black_box(mesh::PartDescriptors::of_posed(&posed));
    PARTS_NANOS.fetch_add(
        started.elapsed().as_nanos() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
    PartFigures::of_posed(&posed)
}

/// Time spent making the engine's part descriptors, over every model (nanoseconds).
static PARTS_NANOS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// `work` of each item on two threads, in the items' order.
fn on_two_threads<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let half = items.len().div_ceil(2);
    std::thread::scope(|scope| {
        let work = &work;
        let parts: Vec<_> = items
            .chunks(half.max(1))
            .map(|part| scope.spawn(move || part.iter().map(work).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().expect("a worker"))
            .collect()
    })
}

/// A model's extents from its `bounding_box(mm)` attribute, smallest first, each at least 1 % of
/// the largest (as the service's `part_size.rs`).
fn extents_of(attributes: &[String]) -> Option<[f32; 3]> {
    let value = attributes
        .iter()
        .find_map(|attribute| attribute.strip_prefix("bounding_box(mm)="))?;
    let mut extents = [0.0_f32; 3];
    let mut parts = value.split(['×', 'x', 'X']);
    for extent in &mut extents {
        *extent = parts.next()?.trim().parse().ok()?;
    }
    extents.sort_by(f32::total_cmp);
    let largest = extents[2];
    (largest > 0.0).then(|| extents.map(|extent| extent.max(largest * 0.01)))
}

/// The size difference of the service's `part_size::size_difference`: the mean |ln| of the
/// sorted extents' ratios, a unitless mesh off by exactly 25.4 or 1000 taken as the same size.
fn size_difference(a: [f32; 3], a_unitless: bool, b: [f32; 3], b_unitless: bool) -> f32 {
    let ratios = [0, 1, 2].map(|k| a[k] / b[k]);
    let mean_log =
        |ratios: [f32; 3]| ratios.iter().map(|ratio| ratio.ln().abs()).sum::<f32>() / 3.0;
    if a_unitless || b_unitless {
        for factor in [25.4_f32, 1000.0] {
            for ratio in [factor, 1.0 / factor] {
                if ratios.iter().all(|r| (r / ratio - 1.0).abs() <= 0.02) {
                    return mean_log(ratios.map(|r| r / ratio));
                }
            }
        }
    }
    mean_log(ratios)
}

/// The service's `part_size::blend`: 1.0 a unit of size difference up to 0.1, 0.05 a unit up to 4.
fn size_blend(visual: f32, difference: f32) -> f32 {
    (visual - difference.min(0.1) - 0.05 * difference.min(4.0)).max(0.0)
}

/// One library file in the bench.
struct LibraryFile {
    file: CorpusFile,
    views: Vec<ViewDescriptor>,
    /// A model's figures measured beside the engine's (from its mesh read again here).
    figures: Option<PartFigures>,
    extents: Option<[f32; 3]>,
    unitless: bool,
}

/// The counts of one half.
#[derive(Default)]
struct Rows {
    twin_first: (usize, usize),
    kind_first: (usize, usize),
    kind_three: usize,
    kind_among_models: (usize, usize),
    kind_misses_drawing_first: usize,
    drawing_first: (usize, usize),
    misses: Vec<String>,
}

fn share((hits, total): (usize, usize)) -> String {
    format!(
        "{:.0} % ({hits}/{total})",
        100.0 * hits as f64 / total.max(1) as f64
    )
}

/// Prints a table row: `label`, then a count's share on the tuning half and on the held-out half.
fn halves_row(label: &str, tuning: (usize, usize), held_out: (usize, usize)) {
    println!("| {label} | {} | {} |", share(tuning), share(held_out));
}

fn count(tally: &mut (usize, usize), hit: bool) {
    tally.0 += usize::from(hit);
    tally.1 += 1;
}

fn main() {
    let dump_to =
        std::env::args().find_map(|argument| argument.strip_prefix("dump=").map(PathBuf::from));
    let arguments: Vec<String> = std::env::args().collect();
    let library_views = arguments
        .iter()
        .find_map(|argument| argument.strip_prefix("library_views="))
        .map_or(Ok(ViewSubset::All), ViewSubset::parse)
        .unwrap_or_else(|reason| panic!("{reason}"));
    let shortlists =
        shortlist::Shortlists::from_args(&arguments).unwrap_or_else(|reason| panic!("{reason}"));
    let files = read_manifest();
    let started = Instant::now();
    let library_files: Vec<&CorpusFile> = files
        .iter()
        .filter(|file| file.is_model() || file.is_drawing())
        .collect();
    let analysed = on_two_threads(&library_files, |file| {
        analysis_of(file, Purpose::DatabaseFile)
    });
    let figures = on_two_threads(&library_files, |file| figures_of(file));
    let library: Vec<LibraryFile> = library_files
        .iter()
        .zip(analysed)
        .zip(figures)
        .filter_map(|((file, analysed), figures)| {
            let analysed = analysed?;
            Some(LibraryFile {
                file: (*file).clone(),
                figures,
                extents: extents_of(&analysed.attributes),
                unitless: matches!(file.format.as_str(), "stl" | "obj" | "ply"),
                views: library_views.restrict(&analysed.views),
            })
        })
        .collect();
    print_library_views(library_views, &library);
    let queries: Vec<usize> = (0..library.len())
        .filter(|&at| library[at].file.is_model())
        .collect();
    let inputs = on_two_threads(&queries, |&at| {
        analysis_of(&library[at].file, Purpose::SearchInput)
    });
    eprintln!(
        "the part descriptors of the models: {:.1} ms a model on average",
        PARTS_NANOS.load(std::sync::atomic::Ordering::Relaxed) as f64
            / 1e6
            / library_files
                .iter()
                .filter(|file| file.is_model())
                .count()
                .max(1) as f64
    );
    eprintln!(
        "{} library files, {} search inputs analysed or read back in {:.0} s",
        library.len(),
        inputs.iter().flatten().count(),
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let pending: Vec<(usize, &Analysed)> = queries
        .iter()
        .zip(&inputs)
        .filter_map(|(&query, input)| Some((query, input.as_ref()?)))
        .collect();
    let scored: Vec<Scored> = on_two_threads(&pending, |&(query, input)| Scored {
        query,
        candidates: library
            .iter()
            .enumerate()
            .filter(|(at, _)| *at != query)
            .map(|(at, candidate)| {
                let mut components = components(&input.views, &candidate.views);
                components.extend(figure_components(&library[query], candidate));
                (at, components)
            })
            .collect(),
    });
    let searches: Vec<(usize, Vec<(usize, f32)>)> = scored
        .iter()
        .map(|search| (search.query, rank(&library, search)))
        .collect();
    eprintln!(
        "{} searches scored in {:.0} s",
        searches.len(),
        started.elapsed().as_secs_f64()
    );
    let mut rows = [Rows::default(), Rows::default()];
    for (query, ranked) in &searches {
        let file = &library[*query].file;
        let half = usize::from(file.half() == CorpusHalf::HeldOut);
        count_search(&library, *query, ranked, &mut rows[half]);
    }
    print_rows(&rows);
    let photos_per_model: usize = std::env::args()
        .find_map(|argument| argument.strip_prefix("photos=")?.parse().ok())
        .unwrap_or(0);
    // `varied`: photographs as varied as real ones (a table and the part's shadow, things behind
    // and in front, near and far cameras, warm and cool light: the camera's `scene.rs`).
    // `varied=table,behind,…` keeps only those variations, to measure each alone.
    let varied = std::env::args().find_map(|argument| match argument.as_str() {
        "varied" => Some(scene::Variations::ALL),
        _ => scene::Variations::named(argument.strip_prefix("varied=")?),
    });
    let photos = photographs(&library, photos_per_model, varied.as_ref());
    if photos_per_model > 0 {
        print_photo_rows(&library, &photos);
    }
    if let Some(shortlists) = &shortlists {
        let with_inputs: Vec<shortlist::ModelSearch> = pending
            .iter()
            .zip(&searches)
            .map(|(&(query, input), (_, ranked))| shortlist::ModelSearch {
                query,
                views: &input.views,
                exact: ranked.clone(),
            })
            .collect();
        shortlist::report(shortlists, &library, &with_inputs, &photos);
    }
    let sketches_per_file: usize = std::env::args()
        .find_map(|argument| argument.strip_prefix("sketches=")?.parse().ok())
        .unwrap_or(0);
    let sketches = sketch_set::sketches(&library, sketches_per_file);
    if sketches_per_file > 0 {
        sketch_set::print_rows(&library, &sketches);
    }
    if std::env::args().any(|argument| argument == "reliability") {
        reliability::report(&library, &searches, &photos, &sketches);
    }
    if let Some(path) = dump_to {
        dump(&path, &library, &scored, &photos, &sketches);
    }
    if let Some(dir) =
        std::env::args().find_map(|argument| argument.strip_prefix("learned=").map(PathBuf::from))
    {
        write_network_inputs(&dir, &library, &photos, &sketches);
    }
}

/// The blur of the quality set's camera, as the service's `realworld_search` bench makes it
/// (`image`'s Gaussian), so that both benches take the same photographs.
fn gaussian_blur(photo: &image::RgbImage, sigma: f32) -> image::RgbImage {
    image::imageops::blur(photo, sigma)
}

/// Seed and size of the photographs: the service bench's (`realworld_search -- photos=N`).
const PHOTO_SEED: u64 = 23_001;
const PHOTO_SIZE: (u32, u32) = (640, 480);

/// A photo-like picture of a library model, searched by.
struct Photo {
    /// The model photographed.
    model: usize,
    /// The picture as the JPEG the service bench uploads.
    jpeg: Vec<u8>,
    /// Its views as the engine analyses it (a search input's).
    views: Vec<ViewDescriptor>,
    /// Every library file scored against it: (position, the engine's score).
    candidates: Vec<(usize, f32)>,
}

/// `per_model` photographs of every library model (its mesh as the engine reads it), taken in the
/// service bench's order with its camera and seed, each searched by against the whole library.
fn photographs(
    library: &[LibraryFile],
    per_model: usize,
    varied: Option<&scene::Variations>,
) -> Vec<Photo> {
    use rand::SeedableRng;
    let mut shots = rand::rngs::StdRng::seed_from_u64(PHOTO_SEED);
    let mut taken = Vec::new();
    for (at, entry) in library.iter().enumerate() {
        if !entry.file.is_model() || per_model == 0 {
            continue;
        }
        let Some(triangles) = triangles_of(&entry.file) else {
            continue;
        };
        for _ in 0..per_model {
            let shot = match varied {
                Some(kept) => camera::Shot::varied_in(&mut shots, kept),
                None => camera::Shot::random(&mut shots),
            };
            let picture = camera::photograph(&triangles, &shot, PHOTO_SIZE.0, PHOTO_SIZE.1);
            let mut jpeg = Vec::new();
            picture
                .write_with_encoder(image::codecs::jpeg::JpegEncoder::new_with_quality(
                    &mut std::io::Cursor::new(&mut jpeg),
                    shot.jpeg_quality,
                ))
                .expect("a JPEG in memory");
            if let Some(dir) = std::env::var_os("PARTLENS_PHOTOS_DIR") {
                // To look at what the camera took.
                let name = format!("{at:03}-{}.jpg", taken.len());
                std::fs::write(Path::new(&dir).join(name), &jpeg).expect("a photograph written");
            }
            taken.push(Photo {
                model: at,
                jpeg,
                views: Vec::new(),
                candidates: Vec::new(),
            });
        }
    }
    let uploads: Vec<(&str, &[u8])> = taken
        .iter()
        .map(|photo| (".jpg", photo.jpeg.as_slice()))
        .collect();
    let scored = searched_by_pictures(library, &uploads);
    for (photo, (views, candidates)) in taken.iter_mut().zip(scored) {
        photo.views = views;
        photo.candidates = candidates;
    }
    taken
}

/// A library model's mesh as a triangle soup, as the engine reads the file (none when it is not a
/// model or does not read).
fn triangles_of(file: &CorpusFile) -> Option<vector::Triangles> {
    if !file.is_model() {
        return None;
    }
    let bytes = std::fs::read(corpus_dir().join(&file.path)).expect("a corpus file");
    let mesh = partlens_geometry::read_mesh(&file.extension(), &bytes).ok()?;
    Some(
        mesh.triangles
            .iter()
            .map(|triangle| triangle.map(|index| mesh.vertices[index as usize].map(f64::from)))
            .collect(),
    )
}

/// A picture searched by: its views, and every library file scored against them (position, score).
type PictureSearch = (Vec<ViewDescriptor>, Vec<(usize, f32)>);

/// Each picture (its file's extension and bytes) analysed as a search input and every library file
/// scored against it: the picture's views and the candidates (position, the engine's score), in
/// the library's order.
fn searched_by_pictures(library: &[LibraryFile], pictures: &[(&str, &[u8])]) -> Vec<PictureSearch> {
    on_two_threads(pictures, |(extension, bytes)| {
        let views = partlens_engine::analyze(extension, bytes)
            .expect("a picture analyses")
            .views;
        let candidates = library
            .iter()
            .enumerate()
            .map(|(at, candidate)| (at, partlens_engine::match_views(&views, &candidate.views)))
            .collect();
        (views, candidates)
    })
}

/// The photo rows of one half: the part (the model or a twin) in the first five, the first result
/// of its kind (families of one kind).
#[derive(Default)]
struct PhotoRows {
    part_in_five: (usize, usize),
    kind_first: (usize, usize),
}

/// Counts one search by a photograph of the model at `model`, its candidates `ranked` best first.
fn count_photo(
    library: &[LibraryFile],
    model: usize,
    ranked: &[(usize, f32)],
    rows: &mut PhotoRows,
) {
    let file = &library[model].file;
    let part =
        |at: usize| at == model || (!file.twin.is_empty() && library[at].file.twin == file.twin);
    let of_family = |at: usize| library[at].file.family == file.family;
    count(
        &mut rows.part_in_five,
        ranked.iter().take(5).any(|&(at, _)| part(at)),
    );
    let family_elsewhere =
        file.family_kind == "kind" && (0..library.len()).any(|at| !part(at) && of_family(at));
    if family_elsewhere {
        count(
            &mut rows.kind_first,
            ranked.first().is_some_and(|&(at, _)| of_family(at)),
        );
    }
}

/// The photo rows by half.
fn print_photo_rows(library: &[LibraryFile], photos: &[Photo]) {
    let mut rows = [PhotoRows::default(), PhotoRows::default()];
    for photo in photos {
        let mut ranked = photo.candidates.clone();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let half = usize::from(library[photo.model].file.half() == CorpusHalf::HeldOut);
        count_photo(library, photo.model, &ranked, &mut rows[half]);
    }
    println!("\n| a photo-like picture | tuning half | held-out half |");
    println!("|---|---|---|");
    halves_row(
        "the part in the first five",
        rows[0].part_in_five,
        rows[1].part_in_five,
    );
    halves_row(
        "first result of its kind",
        rows[0].kind_first,
        rows[1].kind_first,
    );
}

/// Writes what a learned network would be shown (the learned-features measurement,
/// `benches/support/learned/`): each model's framed renderings from the 32 directions a search
/// input is seen from (`m{file}_{view}.png`, with their directions in `directions.json`), each
/// drawing's framed page (`d{file}.png`), each photograph framed (`p{photo}.png`, with its
/// model in `photos.json`) and each sketch framed (`s{sketch}.png`, with the file it draws in
/// `sketches.json`), all [`partlens_engine::FRAMED_SIDE`]² grey pictures.
fn write_network_inputs(
    dir: &Path,
    library: &[LibraryFile],
    photos: &[Photo],
    sketches: &[sketch_set::Sketch],
) {
    std::fs::create_dir_all(dir).expect("the folder for the network's inputs");
    let directions = mesh::search_input_subset(mesh::VIEW_DIRECTIONS);
    let towards: Vec<[f32; 3]> = directions
        .iter()
        .map(|view| {
            let (r, u) = (view.right, view.up);
            [
                r[1] * u[2] - r[2] * u[1],
                r[2] * u[0] - r[0] * u[2],
                r[0] * u[1] - r[1] * u[0],
            ]
        })
        .collect();
    let written = on_two_threads(
        &library.iter().enumerate().collect::<Vec<_>>(),
        |(at, entry)| {
            let bytes = std::fs::read(corpus_dir().join(&entry.file.path)).expect("a corpus file");
            if entry.file.is_drawing() {
                let analysis = partlens_engine::analyze(&entry.file.extension(), &bytes).ok()?;
                let page = image::load_from_memory(&analysis.large_png?).ok()?;
                let grey = partlens_engine::frame(&page).to_grey();
                grey.save(dir.join(format!("d{at}.png"))).ok()?;
                return Some(());
            }
            let mesh = partlens_geometry::read_model(&entry.file.extension(), &bytes)
                .mesh
                .ok()?;
            let posed = mesh::standard_pose(&mesh);
            let renderer = mesh::FramedRenderer::new(&posed);
            for (view, direction) in directions.iter().enumerate() {
                let grey = renderer.render(direction).to_grey();
                grey.save(dir.join(format!("m{at}_{view}.png"))).ok()?;
            }
            Some(())
        },
    );
    let photographed: Vec<(&[u8], usize)> = photos
        .iter()
        .map(|photo| (photo.jpeg.as_slice(), photo.model))
        .collect();
    write_framed_pictures(dir, "p", &photographed, "photos.json");
    let sketched: Vec<(&[u8], usize)> = sketches
        .iter()
        .map(|sketch| (sketch.png.as_slice(), sketch.drawn))
        .collect();
    write_framed_pictures(dir, "s", &sketched, "sketches.json");
    std::fs::write(
        dir.join("directions.json"),
        serde_json::json!(towards).to_string(),
    )
    .expect("directions.json");
    eprintln!(
        "network inputs of {} files, {} photographs and {} sketches written to {}",
        written.iter().flatten().count(),
        photos.len(),
        sketches.len(),
        dir.display()
    );
}

/// Writes each picture (its encoded bytes, and the library file it shows) framed as the engine
/// frames a picture searched by, grey, as `{prefix}{n}.png`, and the files they show, in order, as
/// the JSON list `list_name`.
fn write_framed_pictures(dir: &Path, prefix: &str, pictures: &[(&[u8], usize)], list_name: &str) {
    for (at, (bytes, _)) in pictures.iter().enumerate() {
        let picture = image::load_from_memory(bytes).expect("a picture the bench made");
        partlens_engine::frame(&picture)
            .to_grey()
            .save(dir.join(format!("{prefix}{at}.png")))
            .expect("a framed picture written");
    }
    let shown: Vec<usize> = pictures.iter().map(|&(_, file)| file).collect();
    std::fs::write(dir.join(list_name), serde_json::json!(shown).to_string()).expect(list_name);
}

/// One search's candidates (every library file but the query) with their score components.
struct Scored {
    query: usize,
    candidates: Vec<(usize, Vec<Option<f32>>)>,
}

/// The candidates of a search ranked as the service ranks them: the engine's score, then for a
/// model candidate of a model query the size blend; best first, ties by position.
fn rank(library: &[LibraryFile], search: &Scored) -> Vec<(usize, f32)> {
    let visual = search
        .candidates
        .iter()
        .map(|(at, components)| (*at, components[SCORE].unwrap_or(0.0)))
        .collect();
    rank_visual(library, search.query, visual)
}

/// The candidates of the model at `query` with their engine's scores, `visual`, ranked as
/// [`rank`] ranks them.
fn rank_visual(
    library: &[LibraryFile],
    query: usize,
    visual: Vec<(usize, f32)>,
) -> Vec<(usize, f32)> {
    let own = &library[query];
    let mut ranked: Vec<(usize, f32)> = visual
        .into_iter()
        .map(|(at, visual)| {
            let candidate = &library[at];
            let score = match (own.extents, candidate.extents) {
                (Some(a), Some(b)) => size_blend(
                    visual,
                    size_difference(a, own.unitless, b, candidate.unitless),
                ),
                _ => visual,
            };
            (at, score)
        })
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

/// What the library stores under `library_views`: its views, a model's on average, and how
/// evenly the sphere directions kept cover the sphere.
fn print_library_views(subset: ViewSubset, library: &[LibraryFile]) {
    let models: Vec<&LibraryFile> = library
        .iter()
        .filter(|entry| entry.file.is_model())
        .collect();
    let model_views: usize = models.iter().map(|entry| entry.views.len()).sum();
    let all_views: usize = library.iter().map(|entry| entry.views.len()).sum();
    let (mean, largest) = view_subsets::coverage_degrees(subset);
    eprintln!(
        "library_views={}: {all_views} views stored, {model_views} of them of {} models \
         ({:.1} a model); any direction {mean:.1}° from the nearest sphere direction kept on \
         average, {largest:.1}° at most",
        subset.name(),
        models.len(),
        model_views as f64 / models.len().max(1) as f64
    );
}

/// Counts one search by the model at `query` in `rows`, as `realworld_search` does.
fn count_search(library: &[LibraryFile], query: usize, ranked: &[(usize, f32)], rows: &mut Rows) {
    let file = &library[query].file;
    let twin = |at: usize| !file.twin.is_empty() && library[at].file.twin == file.twin;
    let of_family = |at: usize| !file.family.is_empty() && library[at].file.family == file.family;
    let has_twin = (0..library.len()).any(|at| at != query && twin(at));
    let family_files = (0..library.len())
        .filter(|&at| at != query && !twin(at) && of_family(at))
        .count();
    if has_twin {
        let hit = ranked.first().is_some_and(|&(at, _)| twin(at));
        count(&mut rows.twin_first, hit);
        if !hit {
            rows.misses.push(format!(
                "twin   {} → {}",
                file.name(),
                library[ranked[0].0].file.name()
            ));
        }
    }
    if !has_twin && family_files == 0 {
        return;
    }
    let others: Vec<usize> = ranked
        .iter()
        .map(|&(at, _)| at)
        .filter(|&at| !twin(at))
        .collect();
    let drawing_first = others
        .first()
        .is_some_and(|&at| library[at].file.is_drawing());
    count(&mut rows.drawing_first, drawing_first);
    if family_files == 0 || file.family_kind != "kind" {
        return;
    }
    let hit = others.first().is_some_and(|&at| of_family(at));
    count(&mut rows.kind_first, hit);
    rows.kind_three += others.iter().take(3).filter(|&&at| of_family(at)).count();
    let models: Vec<usize> = others
        .iter()
        .copied()
        .filter(|&at| !library[at].file.is_drawing())
        .collect();
    count(
        &mut rows.kind_among_models,
        models.first().is_some_and(|&at| of_family(at)),
    );
    if !hit {
        rows.kind_misses_drawing_first += usize::from(drawing_first);
        rows.misses.push(format!(
            "kind   {} → {} (family at {})",
            file.name(),
            others
                .first()
                .map_or("nothing", |&at| library[at].file.name()),
            others
                .iter()
                .position(|&at| of_family(at))
                .map_or("none".to_owned(), |at| (at + 1).to_string())
        ));
    }
}

fn print_rows(rows: &[Rows; 2]) {
    println!("| search by a model | tuning half | held-out half |");
    println!("|---|---|---|");
    let row = |what: &str, cell: &dyn Fn(&Rows) -> String| {
        println!("| {what} | {} | {} |", cell(&rows[0]), cell(&rows[1]));
    };
    row("twin top-1", &|rows| share(rows.twin_first));
    row("kind top-1, P@3", &|rows| {
        format!(
            "{}, P@3 {:.0} %",
            share(rows.kind_first),
            100.0 * rows.kind_three as f64 / (3 * rows.kind_first.1).max(1) as f64
        )
    });
    row("kind top-1 among models alone", &|rows| {
        share(rows.kind_among_models)
    });
    row("kind misses with a drawing first", &|rows| {
        format!(
            "{} of {}",
            rows.kind_misses_drawing_first,
            rows.kind_first.1 - rows.kind_first.0
        )
    });
    row("first result a drawing", &|rows| share(rows.drawing_first));
    for (half, rows) in CorpusHalf::BOTH.iter().zip(rows) {
        println!("\nMisses, {}:", half.name());
        for miss in &rows.misses {
            println!("- {miss}");
        }
    }
}

/// Writes the files and every search's score components (see the module doc).
fn dump(
    path: &Path,
    library: &[LibraryFile],
    scored: &[Scored],
    photos: &[Photo],
    sketches: &[sketch_set::Sketch],
) {
    let files: Vec<serde_json::Value> = library
        .iter()
        .map(|entry| {
            serde_json::json!({
                "path": entry.file.path, "format": entry.file.format,
                "family": entry.file.family, "family_kind": entry.file.family_kind,
                "twin": entry.file.twin, "half": entry.file.half().name(),
                "extents": entry.extents, "unitless": entry.unitless,
                "views": entry.views.len(),
                "elongation": entry.views.iter().find_map(|view| view.facts().parts())
                    .map(partlens_engine::mesh::PartDescriptors::elongation),
                "drawing": entry.views.first().is_some_and(|view| view.facts().is_drawing()),
            })
        })
        .collect();
    let searches: Vec<serde_json::Value> = scored
        .iter()
        .map(|search| serde_json::json!({"query": search.query, "candidates": search.candidates}))
        .collect();
    let photos: Vec<serde_json::Value> = photos
        .iter()
        .map(|photo| serde_json::json!({"model": photo.model, "candidates": photo.candidates}))
        .collect();
    let sketches: Vec<serde_json::Value> = sketches
        .iter()
        .map(|sketch| serde_json::json!({"drawn": sketch.drawn, "candidates": sketch.ranked}))
        .collect();
    let dump = serde_json::json!({
        "components": COMPONENTS,
        "files": files,
        "searches": searches,
        "photos": photos,
        "sketches": sketches,
    });
    std::fs::write(path, dump.to_string()).expect("the dump written");
    eprintln!("components written to {}", path.display());
}

/// The names of a candidate's score components: [`components`]' then [`figure_components`]'.
const COMPONENTS: [&str; 8] = [
    "views", "d2", "score", "ends", "holes_x", "holes_y", "holes_z", "outline",
];
/// Where the engine's whole score is among them.
const SCORE: usize = 2;

/// The measured figures' similarities of two models (nulls unless both have them).
fn figure_components(query: &LibraryFile, candidate: &LibraryFile) -> Vec<Option<f32>> {
    match (&query.figures, &candidate.figures) {
        (Some(query), Some(candidate)) => {
            let (holes, outline) = query.similarities(candidate);
            let mut components = holes.to_vec();
            components.push(Some(outline));
            components
        }
        _ => vec![None; 4],
    }
}

/// The parts' descriptors a model's views carry.
fn parts(views: &[ViewDescriptor]) -> Option<&mesh::PartDescriptors> {
    views.iter().find_map(|view| view.facts().parts())
}

/// A candidate's score components for a query: the views' part of the score, the D2 similarity
/// (null unless both are meshes), the engine's whole score, and the ends' similarity (null unless
/// both are meshes with parts' descriptors).
fn components(query: &[ViewDescriptor], candidate: &[ViewDescriptor]) -> Vec<Option<f32>> {
    let mut similarities = Vec::with_capacity(query.len() * candidate.len());
    for query_view in query {
        for candidate_view in candidate {
            similarities.push(query_view.similarity(candidate_view));
        }
    }
    let query_shape = query.iter().find_map(ViewDescriptor::shape);
    let candidate_shape = candidate.iter().find_map(ViewDescriptor::shape);
    let ends = parts(query)
        .zip(parts(candidate))
        .map(|(query, candidate)| query.ends_similarity(candidate));
    let views = partlens_engine::views_score(
        &similarities,
        query.len(),
        candidate.len(),
        query_shape.is_some(),
        candidate_shape.is_some(),
    );
    let d2 = query_shape
        .zip(candidate_shape)
        .map(|(query, candidate)| query.similarity(candidate));
    vec![
        Some(views),
        d2,
        Some(partlens_engine::match_views(query, candidate)),
        ends,
    ]
}
