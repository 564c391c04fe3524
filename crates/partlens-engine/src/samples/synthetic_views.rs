//! Synthetic view descriptors for large libraries: a pool of descriptors from really analysed
//! pictures (every sample part drawn in seeded varied poses, see [`super::parts`]), reused through
//! seeded blends and perturbations. Analysing a million pictures would take hours; blending a few
//! hundred real descriptors gives as many distinct, realistic ones in seconds.
//!
//! A synthetic view is a random blend of three analysed views of one part (weights drawn uniformly
//! from the simplex: a view "between" real poses, as intermediate viewpoints and the variants of a
//! part are) plus a small feature noise (relative size [`NOISE_AMOUNT`]) and, for the legacy
//! descriptor, a few flipped hash bits. Views then vary continuously, and a view's nearest
//! neighbours are the views blended most like it, as in a real library.
//!
//! Why blends and not only noise (the generator until issue 11's second round): copies of one
//! analysed view with independent noise of equal size all lie at about the same distance from each
//! other — in 256 dimensions, independent noise makes a thin shell — so once a library holds
//! thousands of copies of each pool view (a pool of hundreds, a million views), a query's exact top
//! ten is a near tie among thousands (scores equal to ±0.001) and no approximate index can
//! reproduce it; a real library does not look like that.
//!
//! Used by the benchmarks and by `examples/make_large_library.rs`. Deterministic for a seed.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::parts::{PART_NAMES, Pose, draw_part, encode_png};
use crate::{EngineError, ViewDescriptor, analyze};

/// Side of the pictures analysed for the pool.
const PICTURE_SIDE: u32 = 512;
/// Relative size of the feature noise of one synthetic view.
pub const NOISE_AMOUNT: f32 = 0.03;
/// Analysed views of one part a synthetic view is blended from.
pub const BLENDED_VIEWS: usize = 3;
/// Length of the noise pattern (cycled over the features; prime, so blocks get different noise).
const NOISE_LEN: usize = 997;
/// Most hash bits one perturbation flips.
const MAX_FLIPPED_BITS: usize = 24;

/// A pool of analysed descriptors and the perturbations made from them.
#[derive(Clone, Debug)]
pub struct SyntheticViews {
    /// The analysed descriptors; entry `i` shows part `i % PART_NAMES.len()`.
    pool: Vec<ViewDescriptor>,
}

impl SyntheticViews {
    /// Analyses `pictures` part drawings (the sample parts in turn, the first of each in the default
    /// pose, the others in poses varied from their index), on up to `threads` threads.
    pub fn analysed(pictures: usize, threads: usize) -> Result<Self, EngineError> {
        let describe = |index: usize| -> Result<ViewDescriptor, EngineError> {
            let name = PART_NAMES[index % PART_NAMES.len()];
            let pose = if index < PART_NAMES.len() {
                Pose::default()
            } else {
                Pose::varied(index as u64)
            };
            let undrawable = |reason: String| EngineError::Undecodable {
                extension: ".png".into(),
                reason,
            };
            let picture = draw_part(name, &pose, PICTURE_SIDE)
                .ok_or_else(|| undrawable(format!("part {name} cannot be drawn")))?;
            let bytes = encode_png(&picture).map_err(|error| undrawable(error.to_string()))?;
            analyze(".png", &bytes)?
                .views
                .into_iter()
                .next()
                .ok_or_else(|| undrawable("the picture has no view".into()))
        };
        let described = on_threads(pictures, threads, describe);
        Ok(Self {
            pool: described.into_iter().collect::<Result<_, _>>()?,
        })
    }

    /// A pool made of descriptors the caller already has (tests).
    pub fn from_pool(pool: Vec<ViewDescriptor>) -> Self {
        Self { pool }
    }

    /// How many analysed descriptors the pool holds.
    pub fn len(&self) -> usize {
        self.pool.len()
    }

    /// True when the pool is empty.
    pub fn is_empty(&self) -> bool {
        self.pool.is_empty()
    }

    /// The analysed descriptor `index` (modulo the pool's size).
    pub fn base(&self, index: usize) -> &ViewDescriptor {
        &self.pool[index % self.pool.len()]
    }

    /// The name of the sample part pool entry `index` shows.
    pub fn part_name(&self, index: usize) -> &'static str {
        PART_NAMES[(index % self.pool.len()) % PART_NAMES.len()]
    }

    /// A distinct, realistic view near pool entry `index`: a blend of it with two other analysed
    /// views of the same part (weights uniform on the simplex), feature noise of relative size
    /// [`NOISE_AMOUNT`] and up to 24 flipped hash bits, drawn from `random` (see the module doc).
    pub fn perturbed(&self, index: usize, random: &mut StdRng) -> ViewDescriptor {
        let parts = PART_NAMES.len();
        // Pool entries `part`, `part + parts`, `part + 2 × parts`, … show one part in other poses.
        let part = (index % self.pool.len()) % parts;
        let poses = self.pool.len() / parts;
        let [own_weight, partner_weights @ ..] = blend_weights(random);
        let partners: Vec<(&ViewDescriptor, f32)> = partner_weights
            .into_iter()
            .map(|partner_weight| {
                let partner = if poses == 0 {
                    index
                } else {
                    part + random.random_range(0..poses) * parts
                };
                (self.base(partner), partner_weight)
            })
            .collect();
        noised(&self.base(index).blended(own_weight, &partners), random)
    }

    /// The views of one synthetic file: `views` perturbed copies of pool entries that show the same
    /// part (entry `index` and the entries `PART_NAMES.len()` apart from it: other poses), as a model's
    /// rendered views or a part's several pictures would be.
    pub fn file_views(
        &self,
        index: usize,
        views: usize,
        random: &mut StdRng,
    ) -> Vec<ViewDescriptor> {
        (0..views)
            .map(|view| self.perturbed(index + view * PART_NAMES.len(), random))
            .collect()
    }
}

/// Weights of a blend of [`BLENDED_VIEWS`] views, uniform on the simplex (normalised exponential
/// draws; the first is the blend's own view's), drawn from `random`.
pub fn blend_weights(random: &mut StdRng) -> [f32; BLENDED_VIEWS] {
    std::array::from_fn(|_| -random.random_range(f32::EPSILON..1.0).ln())
}

/// `view` with the feature noise of a synthetic view (relative size [`NOISE_AMOUNT`]) and up to
/// 24 flipped hash bits, drawn from `random`: what makes two synthetic views from the same blend
/// distinct, and a photograph-like query from a stored view.
pub fn noised(view: &ViewDescriptor, random: &mut StdRng) -> ViewDescriptor {
    let noise: Vec<f32> = (0..NOISE_LEN)
        .map(|_| random.random_range(-1.0..1.0))
        .collect();
    let flips: Vec<usize> = (0..random.random_range(0..MAX_FLIPPED_BITS))
        .map(|_| random.random_range(0..256))
        .collect();
    view.perturbed(&noise, NOISE_AMOUNT, &flips)
}

/// `job(0)` … `job(jobs - 1)` run on up to `threads` threads (job `i` on thread `i % threads`),
/// their results in job order. A panicking job panics the caller.
pub(crate) fn on_threads<T: Send>(
    jobs: usize,
    threads: usize,
    job: impl Fn(usize) -> T + Sync,
) -> Vec<T> {
    let threads = threads.clamp(1, jobs.max(1));
    let job = &job;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                scope.spawn(move || {
                    (worker..jobs)
                        .step_by(threads)
                        .map(|index| (index, job(index)))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, T)> = Vec::with_capacity(jobs);
        for worker in workers {
            match worker.join() {
                Ok(part) => all.extend(part),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        all.sort_by_key(|(index, _)| *index);
        all.into_iter().map(|(_, result)| result).collect()
    })
}

/// A seeded random source (the generators' one kind, so a seed means the same library everywhere).
pub fn seeded(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}
