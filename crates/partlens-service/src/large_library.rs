//! A large synthetic company library written straight into a store (SQLite or PostgreSQL), for
//! measuring search at scale (`benches/visual_scale.rs`) and for trying the service with one
//! (`examples/make_large_library.rs`): a million views load in minutes.
//!
//! Visual files are pictures (one view) and models (several views of one part), their descriptors
//! perturbed copies of really analysed part drawings
//! ([`partlens_engine::samples::synthetic_views`]); or, for a library of real-structure models
//! ([`LibrarySpec::of_real_models`]), models of the stored layout (163 views, 211 when flat) blended
//! direction by direction from real corpus models analysed as the service indexes them
//! ([`partlens_engine::samples::model_view_sets`]). Text-only records have no views. Every record gets attributes with a range of selectivities (a unique part
//! number, one of 50 suppliers, one of 8 materials weighted like a real stock list, a project of
//! about 1,000 files, a weight) and a text of words from a fixed vocabulary, so metadata filters and
//! free text can be measured from very selective to very broad. Records go in through the store's
//! bulk call (`StoreTx::write_loaded_files`: what an upload indexed during the call writes, the
//! same search text, journal and counts; set-based on PostgreSQL, file by file on SQLite), in
//! transactions of [`BATCH_FILES`] files; there are no file bytes or rendered images on disk.
//! Deterministic for a seed.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::RngExt;
use rand::rngs::StdRng;

use crate::error::ServiceError;
use partlens_api::Attribute;
use partlens_engine::ViewDescriptor;
use partlens_engine::samples::model_view_sets::ModelViewSets;
use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};
use partlens_store::model::{IndexState, IndexedContent, LoadedFile, NewContent};
use partlens_store::{Store, iso_now};

/// Files written in one transaction.
pub const BATCH_FILES: usize = 5_000;
/// Files written in one transaction of a library of real-structure models (about 180 views each:
/// some 90,000 views a transaction, as [`BATCH_FILES`] pictures and 7-view models hold).
pub const BATCH_MODELS: usize = 500;
/// Real models analysed for the pool of [`LibrarySpec::of_real_models`].
pub const POOL_MODELS: usize = 48;

/// The materials and how often each occurs (per mille).
pub const MATERIALS: [(&str, u32); 8] = [
    ("steel", 300),
    ("stainless steel", 200),
    ("aluminium", 180),
    ("brass", 90),
    ("cast iron", 80),
    ("plastic", 70),
    ("titanium", 50),
    ("bronze", 30),
];

/// How many suppliers there are (`Supplier 00` … `Supplier 49`, equally often).
pub const SUPPLIERS: usize = 50;
/// Files a project holds (`project=P-0000`, `P-0001`, …).
pub const FILES_PER_PROJECT: usize = 1_000;
/// Words of the text vocabulary (each record's text has [`WORDS_PER_TEXT`] of them).
pub const VOCABULARY: usize = 4_000;
/// Words in each record's text.
pub const WORDS_PER_TEXT: usize = 12;

/// What to generate.
#[derive(Clone, Debug)]
pub struct LibrarySpec {
    /// The company's name (created when missing).
    pub company: String,
    /// Views of the visual files together (pictures and models).
    pub views: usize,
    /// Records without views (text-searchable only), on top of the visual files.
    pub text_only_records: usize,
    /// Share of visual files that are models.
    pub model_share: f64,
    /// Views of a model.
    pub model_views: usize,
    /// Part drawings analysed for the descriptor pool.
    pub pool_pictures: usize,
    /// Threads for analysing the pool.
    pub threads: usize,
    /// The seed: the same seed gives the same library.
    pub seed: u64,
    /// When set, the visual files are these real-structure models instead (and `views`,
    /// `model_share`, `model_views` and `pool_pictures` are not used).
    pub real_models: Option<RealModels>,
}

/// The visual files of a library of real-structure models.
#[derive(Clone, Debug)]
pub struct RealModels {
    /// How many models (parts).
    pub parts: usize,
    /// The real models they are made from.
    pub pool: ModelPool,
}

/// Where the real models of a library of real-structure models come from.
#[derive(Clone, Debug)]
pub enum ModelPool {
    /// Models of the corpus analysed when the library is generated
    /// ([`ModelViewSets::analysed`]).
    Corpus {
        /// The corpus's folder (with its `manifest.csv`).
        dir: PathBuf,
        /// How many of its models.
        models: usize,
    },
    /// A pool made before: a bench's (shared with its queries) or a test's.
    Given(Arc<ModelViewSets>),
}

impl LibrarySpec {
    /// `views` views in the company `company`, a sixth of the files models of 7 views, no text-only
    /// records, 600 analysed pictures, seed 11.
    pub fn new(company: &str, views: usize) -> Self {
        Self {
            company: company.to_owned(),
            views,
            text_only_records: 0,
            model_share: 1.0 / 6.0,
            model_views: 7,
            pool_pictures: 600,
            threads: std::thread::available_parallelism().map_or(1, std::num::NonZero::get),
            seed: 11,
            real_models: None,
        }
    }

    /// `parts` real-structure models in the company `company`, made from [`POOL_MODELS`] models of
    /// the corpus in `corpus_dir` (see [`partlens_engine::samples::model_view_sets`]), no text-only
    /// records, seed 11.
    pub fn of_real_models(company: &str, parts: usize, corpus_dir: &Path) -> Self {
        Self {
            real_models: Some(RealModels {
                parts,
                pool: ModelPool::Corpus {
                    dir: corpus_dir.to_path_buf(),
                    models: POOL_MODELS,
                },
            }),
            ..Self::new(company, 0)
        }
    }

    /// [`of_real_models`](Self::of_real_models) made from a pool the caller has (a bench's,
    /// shared with its queries; a test's).
    pub fn of_model_pool(company: &str, parts: usize, pool: Arc<ModelViewSets>) -> Self {
        Self {
            real_models: Some(RealModels {
                parts,
                pool: ModelPool::Given(pool),
            }),
            ..Self::new(company, 0)
        }
    }
}

/// What was generated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedLibrary {
    /// The company's id.
    pub company_id: String,
    /// Records written (visual and text-only).
    pub records: usize,
    /// Visual files written.
    pub visual_files: usize,
    /// Views written.
    pub views: usize,
    /// Time spent analysing the pool.
    pub analysis: Duration,
    /// Time spent writing.
    pub writing: Duration,
}

/// A word of the vocabulary: three syllables (the number written in base 20), the same for the same
/// number, distinct for numbers below 8,000.
pub fn vocabulary_word(number: usize) -> String {
    const SYLLABLES: [&str; 20] = [
        "ka", "lo", "mir", "ten", "sa", "vor", "qui", "del", "bra", "nu", "fex", "or", "lin", "da",
        "po", "zer", "ul", "ti", "gra", "mo",
    ];
    let mut word = String::new();
    let mut rest = number;
    for _ in 0..3 {
        word.push_str(SYLLABLES[rest % SYLLABLES.len()]);
        rest /= SYLLABLES.len();
    }
    word
}

/// The stored path of synthetic file `number` showing `part`, with `extension`.
pub fn stored_path(part: &str, number: usize, extension: &str) -> String {
    format!("Library/{part}/{part}-{number:07}{extension}")
}

/// The part number of synthetic file `number`.
pub fn part_number(number: usize) -> String {
    format!("PL-{number:07}")
}

/// The supplier name `index`.
pub fn supplier(index: usize) -> String {
    format!("Supplier {index:02}")
}

fn material(random: &mut StdRng) -> &'static str {
    let mut roll = random.random_range(0..1000_u32);
    for (name, share) in MATERIALS {
        if roll < share {
            return name;
        }
        roll -= share;
    }
    MATERIALS[0].0
}

/// One record to write.
struct Record {
    uid: String,
    stored_path: String,
    extension: String,
    attributes: Vec<Attribute>,
    text: String,
    views: Vec<ViewDescriptor>,
}

fn record(
    number: usize,
    part: &str,
    extension: &str,
    random: &mut StdRng,
    views: impl FnOnce(&mut StdRng) -> Vec<ViewDescriptor>,
) -> Result<Record, ServiceError> {
    let uid = uuid::Builder::from_random_bytes(random.random::<[u8; 16]>())
        .into_uuid()
        .hyphenated()
        .to_string();
    let attribute_texts = [
        format!("part_number={}", part_number(number)),
        format!("material={}", material(random)),
        format!("supplier={}", supplier(random.random_range(0..SUPPLIERS))),
        format!("project=P-{:04}", number / FILES_PER_PROJECT),
        format!("weight(kg)={:.2}", random.random_range(0.05..50.0_f64)),
        format!("category={part}"),
    ];
    let attributes = attribute_texts
        .iter()
        .map(|text| {
            Attribute::parse(text)
                .map_err(|error| ServiceError::Internal(format!("attribute {text}: {error}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut text = format!("{part} drawing D{number:07}");
    for _ in 0..WORDS_PER_TEXT {
        text.push(' ');
        text.push_str(&vocabulary_word(random.random_range(0..VOCABULARY)));
    }
    Ok(Record {
        uid,
        stored_path: stored_path(part, number, extension),
        extension: extension.to_owned(),
        attributes,
        text,
        views: views(random),
    })
}

/// One record as a bulk load writes it: as an upload indexed during the call
/// ([`partlens_store::StoreTx::write_loaded_files`]; set-based on PostgreSQL).
fn loaded(company_id: &str, owner: i64, record: &Record) -> LoadedFile {
    let display_name = record
        .stored_path
        .rsplit('/')
        .next()
        .unwrap_or(&record.stored_path)
        .to_owned();
    LoadedFile {
        content: NewContent {
            uid: record.uid.clone(),
            company_id: company_id.to_owned(),
            owner_user_id: owner,
            is_search_input: false,
            stored_path: record.stored_path.clone(),
            display_name,
            extension: record.extension.clone(),
            size: 4096,
            state: IndexState::InProgress,
            callback_param: None,
            text_only: false,
        },
        attributes: record.attributes.clone(),
        indexed: IndexedContent {
            views: record.views.iter().map(ViewDescriptor::to_bytes).collect(),
            text: record.text.clone(),
            extracted_attributes: Vec::new(),
            pmi_json: "[]".into(),
            has_thumbnail: false,
            has_large_image: false,
            pages_json: String::new(),
        },
    }
}

/// One planned record.
#[derive(Clone, Copy, Debug)]
enum Planned {
    /// A record without views.
    TextOnly,
    /// A picture (1) or a model of this many views blended from pictures.
    Pictures(usize),
    /// Real-structure model number `n` ([`ModelViewSets::synthetic`]).
    Model(usize),
}

/// What the visual files' views are made from.
enum ViewSource {
    /// Analysed part drawings.
    Pictures(SyntheticViews),
    /// Real models' view sets.
    Models(Arc<ModelViewSets>),
}

impl ViewSource {
    /// The source `spec` asks for, analysed.
    fn of(spec: &LibrarySpec) -> Result<Self, ServiceError> {
        let failed = |error: String| ServiceError::Internal(format!("analysing the pool: {error}"));
        match &spec.real_models {
            None => SyntheticViews::analysed(spec.pool_pictures.max(1), spec.threads)
                .map(Self::Pictures)
                .map_err(|error| failed(error.to_string())),
            Some(RealModels {
                pool: ModelPool::Given(pool),
                ..
            }) => Ok(Self::Models(Arc::clone(pool))),
            Some(RealModels {
                pool: ModelPool::Corpus { dir, models },
                ..
            }) => ModelViewSets::analysed(dir, *models, spec.threads)
                .map(|pool| Self::Models(Arc::new(pool)))
                .map_err(failed),
        }
    }

    /// The visual files of `spec` and how many views they hold together.
    fn plan(&self, spec: &LibrarySpec, random: &mut StdRng) -> (Vec<Planned>, usize) {
        let Self::Models(pool) = self else {
            // Each visual file a picture or a model, until the views are used up.
            let mut plan = Vec::new();
            let mut planned_views = 0;
            while planned_views < spec.views {
                let views = if random.random_bool(spec.model_share.clamp(0.0, 1.0)) {
                    spec.model_views.max(1)
                } else {
                    1
                };
                let views = views.min(spec.views - planned_views);
                plan.push(Planned::Pictures(views));
                planned_views += views;
            }
            return (plan, planned_views);
        };
        let parts = spec.real_models.as_ref().map_or(0, |real| real.parts);
        let views = (0..parts).map(|model| pool.base(model).views.len()).sum();
        ((0..parts).map(Planned::Model).collect(), views)
    }

    /// Records a transaction writes.
    fn batch_files(&self) -> usize {
        match self {
            Self::Pictures(_) => BATCH_FILES,
            Self::Models(_) => BATCH_MODELS,
        }
    }

    /// Record `number`, planned as `planned`.
    fn record(
        &self,
        number: usize,
        planned: Planned,
        random: &mut StdRng,
    ) -> Result<Record, ServiceError> {
        match (self, planned) {
            (Self::Pictures(pool), Planned::Pictures(views)) => {
                let extension = if views == 1 { ".png" } else { ".stl" };
                record(
                    number,
                    pool.part_name(number),
                    extension,
                    random,
                    |random| pool.file_views(number, views, random),
                )
            }
            (Self::Pictures(pool), _) => {
                record(number, pool.part_name(number), ".step", random, |_| {
                    Vec::new()
                })
            }
            (Self::Models(pool), Planned::Model(model)) => {
                let part = category(&pool.base(model).name);
                record(number, &part, ".stl", random, |random| {
                    pool.synthetic(model, random)
                })
            }
            (Self::Models(pool), _) => {
                let part = category(&pool.base(number).name);
                record(number, &part, ".step", random, |_| Vec::new())
            }
        }
    }
}

/// The category (and folder) of a real-structure model based on the model file `name`: its
/// letters, digits, `-` and `_`, others as `_`, at most 60 characters.
fn category(name: &str) -> String {
    name.chars()
        .take(60)
        .map(|character| {
            if character.is_ascii_alphanumeric() || character == '-' {
                character
            } else {
                '_'
            }
        })
        .collect()
}

/// Writes the library of `spec` into `store`. `progress` is told the records written so far and the
/// total after each transaction. Blocking.
pub fn generate(
    store: &Store,
    spec: &LibrarySpec,
    mut progress: impl FnMut(usize, usize),
) -> Result<GeneratedLibrary, ServiceError> {
    let started = Instant::now();
    let source = ViewSource::of(spec)?;
    let analysis = started.elapsed();
    let company_id = store.write_tx_blocking(|tx| -> Result<_, ServiceError> {
        Ok(tx.ensure_company(&spec.company)?)
    })?;
    let mut random = seeded(spec.seed);
    let (mut plan, planned_views) = source.plan(spec, &mut random);
    let visual_files = plan.len();
    plan.extend(std::iter::repeat_n(
        Planned::TextOnly,
        spec.text_only_records,
    ));
    // Spread the text-only records among the visual files.
    for at in (1..plan.len()).rev() {
        let other = random.random_range(0..=at);
        plan.swap(at, other);
    }
    let total = plan.len();
    let now = iso_now();
    let started_writing = Instant::now();
    let batch_files = source.batch_files();
    for (batch_number, batch) in plan.chunks(batch_files).enumerate() {
        let first = batch_number * batch_files;
        let records = batch
            .iter()
            .enumerate()
            .map(|(offset, &planned)| source.record(first + offset, planned, &mut random))
            .collect::<Result<Vec<_>, _>>()?;
        let files: Vec<LoadedFile> = records
            .iter()
            .map(|record| loaded(&company_id, 0, record))
            .collect();
        store.write_tx_blocking(|tx| -> Result<(), ServiceError> {
            Ok(tx.write_loaded_files(&files, &now)?)
        })?;
        progress(first + batch.len(), total);
    }
    Ok(GeneratedLibrary {
        company_id,
        records: total,
        visual_files,
        views: planned_views,
        analysis,
        writing: started_writing.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_visual::{AnnSettings, LibraryMode, VisualKeeper, VisualSettings};

    #[test]
    fn vocabulary_words_are_distinct_and_long_enough_for_the_text_index() {
        let words: std::collections::HashSet<String> =
            (0..VOCABULARY).map(vocabulary_word).collect();
        assert_eq!(words.len(), VOCABULARY);
        assert!(words.iter().all(|word| word.len() >= 4));
    }

    #[test]
    fn every_generated_view_is_stored_readable_and_loaded_by_the_visual_index_on_both_stores() {
        for (store, kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::new("Big", 40);
            spec.pool_pictures = 24;
            spec.text_only_records = 5;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            assert_eq!(generated.views, 40);
            assert_eq!(generated.records, generated.visual_files + 5);
            let stored = store
                .read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    let mut stored = Vec::new();
                    tx.for_each_searched_file(&generated.company_id, &mut |_, views| {
                        stored.extend(views);
                        std::ops::ControlFlow::Continue(())
                    })?;
                    Ok(stored)
                })
                .unwrap();
            assert_eq!(stored.len(), 40);
            for bytes in &stored {
                ViewDescriptor::from_bytes(bytes).unwrap();
            }
            let keeper = partlens_visual::VisualKeeper::new(
                store.clone(),
                kept.path(),
                partlens_visual::VisualSettings::default(),
            );
            let (loaded, damaged) = keeper.recover_blocking().unwrap();
            assert_eq!(loaded, generated.visual_files);
            assert!(damaged.is_empty(), "{damaged:?}");
        }
    }

    #[test]
    fn real_structure_models_are_stored_whole_in_their_layout_on_both_stores() {
        use partlens_engine::mesh::{VIEWS_PER_FLAT_MODEL, VIEWS_PER_MODEL};
        let pictures = SyntheticViews::analysed(4, 2).unwrap();
        let mut random = seeded(3);
        let mut view_set = |views: usize| -> Vec<ViewDescriptor> {
            (0..views)
                .map(|view| pictures.perturbed(view, &mut random))
                .collect()
        };
        let pool = Arc::new(
            ModelViewSets::from_view_sets(vec![
                ("round part".into(), view_set(VIEWS_PER_MODEL)),
                ("flat/plate".into(), view_set(VIEWS_PER_FLAT_MODEL)),
            ])
            .unwrap(),
        );
        for (store, kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::of_model_pool("Big", 3, Arc::clone(&pool));
            spec.text_only_records = 2;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            assert_eq!((generated.visual_files, generated.records), (3, 5));
            assert_eq!(generated.views, 2 * VIEWS_PER_MODEL + VIEWS_PER_FLAT_MODEL);
            let mut stored = store
                .read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    let mut stored = Vec::new();
                    tx.for_each_searched_file(&generated.company_id, &mut |_, views| {
                        stored.push(views.len());
                        std::ops::ControlFlow::Continue(())
                    })?;
                    Ok(stored)
                })
                .unwrap();
            stored.sort_unstable();
            assert_eq!(
                stored,
                [VIEWS_PER_MODEL, VIEWS_PER_MODEL, VIEWS_PER_FLAT_MODEL]
            );
            let keeper = VisualKeeper::new(store.clone(), kept.path(), VisualSettings::default());
            let (loaded, damaged) = keeper.recover_blocking().unwrap();
            assert_eq!(loaded, 3);
            assert!(damaged.is_empty(), "{damaged:?}");
        }
    }

    #[test]
    fn a_graph_saved_over_other_directions_is_built_again() {
        use partlens_engine::mesh::VIEWS_PER_MODEL;
        let pictures = SyntheticViews::analysed(4, 2).unwrap();
        let mut random = seeded(4);
        let views: Vec<ViewDescriptor> = (0..VIEWS_PER_MODEL)
            .map(|view| pictures.perturbed(view, &mut random))
            .collect();
        let pool = Arc::new(ModelViewSets::from_view_sets(vec![("round".into(), views)]).unwrap());
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_blocking(dir.path()).unwrap();
        let generated = generate(
            &store,
            &LibrarySpec::of_model_pool("Big", 4, pool),
            |_, _| {},
        )
        .unwrap();
        let company = generated.company_id;
        let over = |graph_directions: usize| VisualSettings {
            ann_from_views: 0,
            ann: AnnSettings {
                graph_directions,
                ..AnnSettings::default()
            },
            ..VisualSettings::default()
        };
        let graph_views = |keeper: &VisualKeeper| {
            let library = keeper.read().unwrap();
            (
                library.mode(&company),
                library
                    .approximate()
                    .graphs()
                    .measure_of(&company, partlens_visual::AnnIndex::graph_view_count),
            )
        };
        let first = VisualKeeper::new(store.clone(), dir.path(), over(92));
        first.recover_blocking().unwrap();
        first.build_blocking(&company).unwrap();
        assert_eq!(graph_views(&first), (LibraryMode::Approximate, 4 * 93));
        // Restarted as set up: the saved graph is loaded.
        let same = VisualKeeper::new(store.clone(), dir.path(), over(92));
        same.recover_blocking().unwrap();
        assert_eq!(graph_views(&same), (LibraryMode::Approximate, 4 * 93));
        // Restarted over every direction: the saved graph is not used, but built again.
        let every = VisualKeeper::new(store.clone(), dir.path(), over(162));
        every.recover_blocking().unwrap();
        assert_eq!(graph_views(&every).0, LibraryMode::Exact);
        every.build_blocking(&company).unwrap();
        assert_eq!(
            graph_views(&every),
            (LibraryMode::Approximate, 4 * VIEWS_PER_MODEL)
        );
    }

    #[test]
    fn a_saved_graph_is_searched_as_the_service_is_set_up_now() {
        let dir = tempfile::tempdir().unwrap();
        let mut spec = LibrarySpec::new("Big", 60);
        spec.pool_pictures = 24;
        let store = Store::open_blocking(dir.path()).unwrap();
        let generated = generate(&store, &spec, |_, _| {}).unwrap();
        let on_graph = |ann: AnnSettings| VisualSettings {
            ann_from_views: 0,
            ann,
            ..VisualSettings::default()
        };
        let saved_with = AnnSettings {
            connectivity: 8,
            expansion_search: 50,
            views_per_query_view: 10,
            views_per_view_of_several: 20,
            direct_views: 30,
            ..AnnSettings::default()
        };
        let first = VisualKeeper::new(store.clone(), dir.path(), on_graph(saved_with));
        first.recover_blocking().unwrap();
        first.build_blocking(&generated.company_id).unwrap();
        first.save_blocking(&generated.company_id).unwrap();

        let now = AnnSettings::default();
        let restarted = VisualKeeper::new(store.clone(), dir.path(), on_graph(now));
        restarted.recover_blocking().unwrap();
        let library = restarted.read().unwrap();
        assert_eq!(
            library.mode(&generated.company_id),
            LibraryMode::Approximate
        );
        let loaded = library
            .approximate()
            .graphs()
            .company(&generated.company_id)
            .unwrap()
            .settings();
        // How it was built is the saved graph's; how it is searched, the service's.
        assert_eq!(loaded.connectivity, saved_with.connectivity);
        assert_eq!(loaded.expansion_search, now.expansion_search);
        assert_eq!(loaded.views_per_query_view, now.views_per_query_view);
        assert_eq!(
            loaded.views_per_view_of_several,
            now.views_per_view_of_several
        );
        assert_eq!(loaded.direct_views, now.direct_views);
    }

    #[test]
    fn a_graph_is_built_from_either_store_and_a_restart_loads_it_or_builds_it_again() {
        for (store, kept) in crate::test_stores::both() {
            let mut spec = LibrarySpec::new("Big", 60);
            spec.pool_pictures = 24;
            let generated = generate(&store, &spec, |_, _| {}).unwrap();
            let company = generated.company_id;
            let settings = VisualSettings {
                ann_from_views: 0,
                ..VisualSettings::default()
            };
            let first = VisualKeeper::new(store.clone(), kept.path(), settings);
            let (files, damaged) = first.recover_blocking().unwrap();
            assert_eq!(files, generated.visual_files);
            assert!(damaged.is_empty());
            {
                let library = first.read().unwrap();
                // With the database's own vector index (PostgreSQL with pgvector) no graph is due.
                let due: &[String] = if library.uses_store_vectors() {
                    &[]
                } else {
                    std::slice::from_ref(&company)
                };
                assert_eq!(library.due_for_graph(), due);
            }
            first.build_blocking(&company).unwrap();
            assert_eq!(
                first.read().unwrap().mode(&company),
                LibraryMode::Approximate
            );
            let restarted = VisualKeeper::new(store.clone(), kept.path(), settings);
            restarted.recover_blocking().unwrap();
            let library = restarted.read().unwrap();
            if store.shared_by_nodes() {
                // Nodes keep nothing beside the database: loaded from it again.
                assert!(!first.snapshot_folder().exists());
                assert_eq!(library.mode(&company), LibraryMode::Exact);
            } else {
                assert_eq!(library.mode(&company), LibraryMode::Approximate);
            }
        }
    }
}
