//! Writes a large synthetic company library straight into a data directory (see
//! `partlens_service::large_library`): pictures and models whose descriptors are seeded
//! perturbations of really analysed part drawings, text-only records, attributes and text. Then,
//! unless `--no-graph`, builds and saves the company's visual graph the way the service does when it
//! finds one missing, so that a service started on the directory with `--ann-from-views`
//! answers at once.
//!
//! ```text
//! cargo run --release -p partlens-service --example make_large_library -- --data /tmp/big --views 1000000 \
//!     --text-only 450000 --user alice --password s3cret
//! partlens-service --data /tmp/big serve --ann-from-views 0   # log in as alice (admin of "Acme")
//! ```
//!
//! Options: `--data DIR` (required), `--views N` (default 100,000), `--text-only N` (default 0),
//! `--company NAME` (default Acme), `--seed N` (default 11), `--user NAME --password P` (an admin of
//! the company, for logging in), `--no-graph`; `--real-models PARTS`: instead of pictures and
//! 7-view models, PARTS real-structure models (163 views, 211 when flat, blended direction by
//! direction from real corpus models: `LibrarySpec::of_real_models`), made from `--pool-models K`
//! models (default `large_library::POOL_MODELS`) of the corpus in `--corpus DIR` (default: where
//! `partlens_testkit::realworld::corpus_dir` finds it).
//!
//! ```text
//! cargo run --release -p partlens-service --example make_large_library -- --data /tmp/real \
//!     --real-models 100000 --text-only 100000 --no-graph
//! ```

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use partlens_service::large_library::{LibrarySpec, ModelPool, RealModels, generate};
use partlens_store::Store;
use partlens_visual::{VisualKeeper, VisualSettings};

fn main() -> anyhow::Result<()> {
    let mut data = None;
    let mut spec = LibrarySpec::new("Acme", 100_000);
    let mut user = None;
    let mut password = None;
    let mut graph = true;
    let mut real_models: Option<usize> = None;
    let mut corpus = partlens_testkit::realworld::corpus_dir();
    let mut pool_models = partlens_service::large_library::POOL_MODELS;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().with_context(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--data" => data = Some(PathBuf::from(value()?)),
            "--views" => spec.views = value()?.parse().context("--views")?,
            "--text-only" => spec.text_only_records = value()?.parse().context("--text-only")?,
            "--company" => spec.company = value()?,
            "--seed" => spec.seed = value()?.parse().context("--seed")?,
            "--user" => user = Some(value()?),
            "--password" => password = Some(value()?),
            "--no-graph" => graph = false,
            "--real-models" => real_models = Some(value()?.parse().context("--real-models")?),
            "--corpus" => corpus = PathBuf::from(value()?),
            "--pool-models" => pool_models = value()?.parse().context("--pool-models")?,
            other => bail!("unknown option {other} (see the file's doc comment)"),
        }
    }
    let data = data.context("--data DIR is required")?;
    if let Some(parts) = real_models {
        // As `LibrarySpec::of_real_models`, with the other options given kept.
        spec.real_models = Some(RealModels {
            parts,
            pool: ModelPool::Corpus {
                dir: corpus,
                models: pool_models,
            },
        });
    }
    if let (Some(user), Some(password)) = (&user, &password) {
        partlens_service::admin::add_user(&data, &spec.company, user, password, true)?;
    }
    let started = Instant::now();
    let store = Store::open_blocking(&data)?;
    let generated = generate(&store, &spec, |done, total| {
        if done % 100_000 < partlens_service::large_library::BATCH_FILES || done == total {
            eprintln!(
                "{done} / {total} records ({:.0} s)",
                started.elapsed().as_secs_f64()
            );
        }
    })?;
    println!(
        "{} records ({} visual files, {} views) in {:.1} s (pool analysed in {:.1} s, written in {:.1} s)",
        generated.records,
        generated.visual_files,
        generated.views,
        started.elapsed().as_secs_f64(),
        generated.analysis.as_secs_f64(),
        generated.writing.as_secs_f64()
    );
    if graph {
        // The graph is opt-in in the service; here it was asked for: every company gets one.
        let settings = VisualSettings {
            ann_from_views: 0,
            ..VisualSettings::default()
        };
        let keeper = VisualKeeper::new(store.clone(), &data, settings);
        let loaded = Instant::now();
        keeper.recover_blocking()?;
        println!(
            "exact index loaded in {:.1} s",
            loaded.elapsed().as_secs_f64()
        );
        let built = Instant::now();
        keeper.maintain_blocking();
        println!(
            "visual graphs built and saved in {:.1} s",
            built.elapsed().as_secs_f64()
        );
    }
    Ok(())
}
