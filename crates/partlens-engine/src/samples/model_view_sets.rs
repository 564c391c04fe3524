//! Synthetic models that keep a real model's view structure, for libraries of 100,000 parts
//! (`partlens_service::large_library`, the service's `visual_scale` bench with `real-models`).
//!
//! The pool: real models of the corpus (`../shared/realworld/`, its `manifest.csv`) analysed as the
//! service indexes a company-database file ([`crate::analyze_within`]: [`crate::Purpose::DatabaseFile`]),
//! so each holds the database layout of views — the [`crate::mesh::VIEW_DIRECTIONS`] sphere
//! directions, a flat part's near-edge-on directions, the picture's view last:
//! [`VIEWS_PER_MODEL`] views, [`VIEWS_PER_FLAT_MODEL`] for a flat part. Models are chosen
//! deterministically: the model files of the manifest in its order, one a part (a part in two
//! formats, its twin key, once), at most [`MAX_MODEL_BYTES`] bytes, `models` of them spread evenly
//! over the list (so over the corpus's sources, flat and non-flat parts mixed); a model that fails
//! or has another number of views is left out.
//!
//! A synthetic model: a base model of the pool (model `index` modulo the pool: flat and non-flat
//! parts in the pool's proportion) and two partners of the same layout, weights uniform on the
//! simplex ([`blend_weights`], as [`SyntheticViews::perturbed`] draws them), blended direction by
//! direction — view `i` of the result is the blend of view `i` of the three with the same weights
//! for every view: one consistent part "in between" three real ones — then each view noised as
//! every synthetic view is ([`noised`]). So neighbouring directions of one synthetic model look
//! alike as a real model's do, which is what a graph over some of a model's views relies on. The
//! file's facts (D2 distribution, parts, handedness) are the base model's.
//!
//! [`SyntheticViews::perturbed`]: super::synthetic_views::SyntheticViews::perturbed

use std::path::Path;

use rand::RngExt;
use rand::rngs::StdRng;

use super::synthetic_views::{blend_weights, noised, on_threads};
use crate::mesh::{VIEWS_PER_FLAT_MODEL, VIEWS_PER_MODEL};
use crate::{ExtractionLimits, ViewDescriptor, analyze_within};

/// Largest model file analysed for the pool: the corpus's few bigger files (STEP files up to
/// 3.4 MB) are left out so that the pool analyses in about half a minute (48 models in 29 s of a
/// dev build on two cores).
pub const MAX_MODEL_BYTES: u64 = 2_000_000;

/// The corpus's list of files, in its folder.
const MANIFEST: &str = "manifest.csv";

/// One real model of the pool: its name and its views in the database layout.
#[derive(Clone, Debug)]
pub struct ModelViews {
    /// The model file's stem (`freecadlib__Bolts_Screws__…_M3x10`).
    pub name: String,
    /// Its views as the service stores them ([`VIEWS_PER_MODEL`] or [`VIEWS_PER_FLAT_MODEL`]).
    pub views: Vec<ViewDescriptor>,
}

impl ModelViews {
    /// True for a flat part (its views include the near-edge-on ones).
    pub fn is_flat(&self) -> bool {
        self.views.len() == VIEWS_PER_FLAT_MODEL
    }
}

/// A pool of real models' view sets and the synthetic models made from them (see the module doc).
#[derive(Clone, Debug)]
pub struct ModelViewSets {
    models: Vec<ModelViews>,
}

impl ModelViewSets {
    /// Analyses up to `models` model files of the corpus in `corpus_dir` (chosen as the module doc
    /// says) as company-database files, on up to `threads` threads. An error when the manifest
    /// cannot be read or no model gives the database layout.
    pub fn analysed(corpus_dir: &Path, models: usize, threads: usize) -> Result<Self, String> {
        let chosen = chosen_model_files(corpus_dir, models)?;
        let analysed = on_threads(chosen.len(), threads, |at| {
            let relative = &chosen[at];
            let path = corpus_dir.join(relative);
            let bytes = std::fs::read(&path).ok()?;
            let extension = extension_of(relative);
            let analysis = analyze_within(&extension, &bytes, &ExtractionLimits::default()).ok()?;
            let name = Path::new(relative)
                .file_stem()
                .map_or_else(|| relative.clone(), |stem| stem.to_string_lossy().into());
            Some((name, analysis.views))
        });
        Self::from_view_sets(analysed.into_iter().flatten().collect()).map_err(|error| {
            format!(
                "{error} among the {} models chosen in {}",
                chosen.len(),
                corpus_dir.display()
            )
        })
    }

    /// A pool of the view sets given (name, views), keeping those of the database layout
    /// ([`VIEWS_PER_MODEL`] or [`VIEWS_PER_FLAT_MODEL`] views); an error when none is.
    pub fn from_view_sets(sets: Vec<(String, Vec<ViewDescriptor>)>) -> Result<Self, String> {
        let models: Vec<ModelViews> = sets
            .into_iter()
            .filter(|(_, views)| is_database_layout(views.len()))
            .map(|(name, views)| ModelViews { name, views })
            .collect();
        if models.is_empty() {
            return Err(format!(
                "no model with {VIEWS_PER_MODEL} or {VIEWS_PER_FLAT_MODEL} views"
            ));
        }
        Ok(Self { models })
    }

    /// How many real models the pool holds.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// True when the pool holds no model (never, once made).
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// The pool's models.
    pub fn models(&self) -> &[ModelViews] {
        &self.models
    }

    /// The base model of synthetic model `index`: pool model `index` modulo the pool's size.
    pub fn base(&self, index: usize) -> &ModelViews {
        &self.models[index % self.models.len()]
    }

    /// The views of synthetic model `index`: its [`base`](Self::base) blended direction by
    /// direction with two partners of the same layout (other models where the pool has any),
    /// weights uniform on the simplex and the same for every view, each view then noised; drawn
    /// from `random` (see the module doc). Deterministic for the random source.
    pub fn synthetic(&self, index: usize, random: &mut StdRng) -> Vec<ViewDescriptor> {
        let base_at = index % self.models.len();
        let base = &self.models[base_at];
        let same_layout = self.partners_of(base_at);
        let [own_weight, partner_weights @ ..] = blend_weights(random);
        let partners: Vec<(&ModelViews, f32)> = partner_weights
            .into_iter()
            .map(|weight| {
                let partner = if same_layout.is_empty() {
                    base
                } else {
                    &self.models[same_layout[random.random_range(0..same_layout.len())]]
                };
                (partner, weight)
            })
            .collect();
        base.views
            .iter()
            .enumerate()
            .map(|(direction, view)| {
                let others: Vec<(&ViewDescriptor, f32)> = partners
                    .iter()
                    .map(|(partner, weight)| (&partner.views[direction], *weight))
                    .collect();
                noised(&view.blended(own_weight, &others), random)
            })
            .collect()
    }

    /// The models synthetic models based on pool model `base_at` may be blended with: the others
    /// of its layout (its number of views).
    fn partners_of(&self, base_at: usize) -> Vec<usize> {
        let layout = self.models[base_at].views.len();
        (0..self.models.len())
            .filter(|&at| at != base_at && self.models[at].views.len() == layout)
            .collect()
    }
}

/// True for the number of views a model indexed as a database file has.
fn is_database_layout(views: usize) -> bool {
    views == VIEWS_PER_MODEL || views == VIEWS_PER_FLAT_MODEL
}

/// The lower-case extension of `relative` with the dot.
fn extension_of(relative: &str) -> String {
    Path::new(relative)
        .extension()
        .map(|extension| format!(".{}", extension.to_string_lossy().to_ascii_lowercase()))
        .unwrap_or_default()
}

/// The model files (paths inside the corpus) analysed for a pool of `models` (see the module doc).
fn chosen_model_files(corpus_dir: &Path, models: usize) -> Result<Vec<String>, String> {
    let path = corpus_dir.join(MANIFEST);
    let unreadable = |error: csv::Error| format!("cannot read {}: {error}", path.display());
    let mut reader = csv::Reader::from_path(&path).map_err(unreadable)?;
    let header = reader.headers().map_err(unreadable)?.clone();
    let column = |name: &str| {
        header
            .iter()
            .position(|field| field == name)
            .ok_or_else(|| format!("{} has no {name} column", path.display()))
    };
    let (path_at, bytes_at, twin_at) = (column("path")?, column("bytes")?, column("twin")?);
    let mut twins_seen = std::collections::HashSet::new();
    let mut candidates = Vec::new();
    for record in reader.records() {
        let record = record.map_err(unreadable)?;
        let field = |at: usize| record.get(at).unwrap_or("");
        let relative = field(path_at);
        let small = field(bytes_at)
            .parse::<u64>()
            .is_ok_and(|bytes| bytes <= MAX_MODEL_BYTES);
        let twin = field(twin_at);
        let new_part = twin.is_empty() || twins_seen.insert(twin.to_owned());
        if partlens_geometry::is_model_extension(&extension_of(relative)) && small && new_part {
            candidates.push(relative.to_owned());
        }
    }
    let wanted = models.min(candidates.len());
    Ok((0..wanted)
        .map(|at| candidates[at * candidates.len() / wanted].clone())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::super::synthetic_views::{SyntheticViews, seeded};
    use super::*;

    /// A pool of `flat` flat and `round` non-flat made-up models, every view of a model a small
    /// step from the one before (as neighbouring directions are), from a few analysed pictures.
    fn made_up_pool(flat: usize, round: usize) -> ModelViewSets {
        // Analysed once for every test of the module.
        static PICTURES: std::sync::OnceLock<SyntheticViews> = std::sync::OnceLock::new();
        let pictures = PICTURES.get_or_init(|| SyntheticViews::analysed(12, 2).unwrap());
        let mut random = seeded(5);
        let sets = (0..flat + round)
            .map(|model| {
                let count = if model < flat {
                    VIEWS_PER_FLAT_MODEL
                } else {
                    VIEWS_PER_MODEL
                };
                let mut view = pictures.perturbed(model * 7, &mut random);
                let views = (0..count)
                    .map(|at| {
                        let step = pictures.perturbed(model * 7 + at, &mut random);
                        view = view.blended(2.0, &[(&step, 1.0)]);
                        view.clone()
                    })
                    .collect();
                (format!("model-{model}"), views)
            })
            .collect();
        ModelViewSets::from_view_sets(sets).unwrap()
    }

    #[test]
    fn synthetic_models_keep_the_layout_and_blend_only_models_of_it() {
        let made_up = made_up_pool(2, 3).models().to_vec();
        let sets = made_up
            .into_iter()
            .map(|model| (model.name, model.views))
            .chain([("picture".to_owned(), Vec::new())])
            .collect();
        let pool = ModelViewSets::from_view_sets(sets).unwrap();
        assert_eq!(pool.len(), 5, "a set of another layout is left out");
        assert!(ModelViewSets::from_view_sets(Vec::new()).is_err());
        assert_eq!(
            pool.models().iter().filter(|model| model.is_flat()).count(),
            2
        );
        // Models 0 and 1 are flat, 2, 3 and 4 not.
        assert_eq!(pool.partners_of(0), [1]);
        assert_eq!(pool.partners_of(3), [2, 4]);
        let mut random = seeded(9);
        for index in 0..10 {
            let views = pool.synthetic(index, &mut random);
            assert_eq!(views.len(), pool.base(index).views.len());
            assert_eq!(pool.base(index).is_flat(), index % 5 < 2);
        }
        // A model alone of its layout is blended with itself only.
        let alone = ModelViewSets::from_view_sets(vec![
            ("flat".into(), pool.models()[0].views.clone()),
            ("round".into(), pool.models()[2].views.clone()),
        ])
        .unwrap();
        assert!(alone.partners_of(0).is_empty() && alone.partners_of(1).is_empty());
        assert_eq!(alone.synthetic(0, &mut random).len(), VIEWS_PER_FLAT_MODEL);
    }

    #[test]
    fn synthetic_models_are_the_same_for_a_seed_and_differ_between_indices() {
        let pool = made_up_pool(1, 2);
        let first = pool.synthetic(4, &mut seeded(3));
        // (Compared with `==`: a failing `assert_eq!` would print hundreds of descriptors.)
        assert!(first == pool.synthetic(4, &mut seeded(3)));
        assert!(first != pool.synthetic(4, &mut seeded(4)));
        // Model 5 has another base (the pool holds 3); model 7 the same base, other draws.
        assert!(first != pool.synthetic(5, &mut seeded(3)));
        assert!(first != pool.synthetic(7, &mut seeded(4)));
    }

    #[test]
    fn a_synthetic_model_keeps_its_base_direction_by_direction() {
        let pool = made_up_pool(1, 3);
        let mut random = seeded(21);
        for index in 0..4 {
            let base = &pool.base(index).views;
            let views = pool.synthetic(index, &mut random);
            let count = views.len();
            let same: f32 = (0..count)
                .map(|view| views[view].similarity(&base[view]))
                .sum::<f32>()
                / count as f32;
            // View i against the base's view i + count / 2: another direction of the same model.
            let other: f32 = (0..count)
                .map(|view| views[view].similarity(&base[(view + count / 2) % count]))
                .sum::<f32>()
                / count as f32;
            assert!(
                same > other + 0.01,
                "model {index}: same direction {same:.4}, another direction {other:.4}"
            );
        }
    }

    #[test]
    fn one_small_model_file_a_part_is_chosen_from_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(MANIFEST),
            "path,note,bytes,twin\n\
             step/a.stp,\"PMI: a, b \"\"c\"\"\",12,pair\n\
             mesh/a.stl,,40,pair\n\
             pdf/a.pdf,,10,\n\
             mesh/huge.stl,,99999999,\n\
             mesh/b.stl,,30,\n",
        )
        .unwrap();
        assert_eq!(
            chosen_model_files(dir.path(), 10).unwrap(),
            ["step/a.stp", "mesh/b.stl"],
            "a twin once, no drawing, nothing too large; a quoted comma is no column"
        );
        assert_eq!(chosen_model_files(dir.path(), 1).unwrap(), ["step/a.stp"]);
    }
}
