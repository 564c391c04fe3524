//! A large synthetic company library written straight into a store (SQLite or PostgreSQL), for
//! measuring search at scale (`benches/visual_scale.rs`) and for trying the service with one
//! (`examples/make_large_library.rs`): a million views load in minutes.
//!
//! Visual files are pictures (one view) and models (several views of one part), their descriptors
//! perturbed copies of really analysed part drawings ([`super::synthetic_views`]); text-only
//! records have no views. Every record gets attributes with a range of selectivities (a unique part
//! number, one of 50 suppliers, one of 8 materials weighted like a real stock list, a project of
//! about 1,000 files, a weight) and a text of words from a fixed vocabulary, so metadata filters and
//! free text can be measured from very selective to very broad. Records go in through the store's
//! bulk call (`StoreTx::write_loaded_files`: what an upload indexed during the call writes, the
//! same search text, journal and counts; set-based on PostgreSQL, file by file on SQLite), in
//! transactions of [`BATCH_FILES`] files; there are no file bytes or rendered images on disk.
//! Deterministic for a seed.

use std::time::{Duration, Instant};

use rand::RngExt;
use rand::rngs::StdRng;

use crate::error::ServiceError;
use partlens_api::Attribute;
use partlens_engine::ViewDescriptor;
use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};
use partlens_store::model::{IndexState, IndexedContent, LoadedFile, NewContent};
use partlens_store::{Store, iso_now};

/// Files written in one transaction.
pub const BATCH_FILES: usize = 5_000;

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
    pool: &SyntheticViews,
    views: usize,
    random: &mut StdRng,
) -> Result<Record, ServiceError> {
    let uid = uuid::Builder::from_random_bytes(random.random::<[u8; 16]>())
        .into_uuid()
        .hyphenated()
        .to_string();
    let part = pool.part_name(number);
    let extension = match views {
        0 => ".step",
        1 => ".png",
        _ => ".stl",
    };
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
        views: if views == 0 {
            Vec::new()
        } else {
            pool.file_views(number, views, random)
        },
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

/// Writes the library of `spec` into `store`. `progress` is told the records written so far and the
/// total after each transaction. Blocking.
pub fn generate(
    store: &Store,
    spec: &LibrarySpec,
    mut progress: impl FnMut(usize, usize),
) -> Result<GeneratedLibrary, ServiceError> {
    let started = Instant::now();
    let pool = SyntheticViews::analysed(spec.pool_pictures.max(1), spec.threads)
        .map_err(|error| ServiceError::Internal(format!("analysing the pool: {error}")))?;
    let analysis = started.elapsed();
    let company_id = store.write_tx_blocking(|tx| -> Result<_, ServiceError> {
        Ok(tx.ensure_company(&spec.company)?)
    })?;
    let mut random = seeded(spec.seed);
    // Plan the files: each visual file a picture or a model, until the views are used up.
    let mut plan: Vec<usize> = Vec::new();
    let mut planned_views = 0;
    while planned_views < spec.views {
        let views = if random.random_bool(spec.model_share.clamp(0.0, 1.0)) {
            spec.model_views.max(1)
        } else {
            1
        };
        let views = views.min(spec.views - planned_views);
        plan.push(views);
        planned_views += views;
    }
    let visual_files = plan.len();
    plan.extend(std::iter::repeat_n(0, spec.text_only_records));
    // Spread the text-only records among the visual files.
    for at in (1..plan.len()).rev() {
        let other = random.random_range(0..=at);
        plan.swap(at, other);
    }
    let total = plan.len();
    let now = iso_now();
    let started_writing = Instant::now();
    for (batch_number, batch) in plan.chunks(BATCH_FILES).enumerate() {
        let first = batch_number * BATCH_FILES;
        let records = batch
            .iter()
            .enumerate()
            .map(|(offset, &views)| record(first + offset, &pool, views, &mut random))
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
