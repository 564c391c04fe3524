//! The graph's vectors: view features for the approximate index, which stores them in half precision
//! (`f16`, two bytes a feature).
//!
//! A view's similarity is (up to the legacy descriptor's small perceptual-hash term) the dot product
//! of its feature vectors, so the graph works on the features alone, as stored (16-bit integers, at
//! most 32,767 in magnitude: inside `f16`'s range, so nothing is clipped; `scale` is 1; and rounded
//! by the engine to integers that `f16` holds exactly, so a vector is its view's features to the
//! bit, see `ann/held.rs`). The first
//! versions of this index scaled them so that the 99.99th percentile of their magnitudes became 127
//! (the `i8` range) and clipped the rest: a clipped feature moved a view's estimated score (see
//! `ann.rs`) by far more than rounding does, which forced a wide margin on the estimates. Graphs
//! saved with a scale are read with it.
//!
//! Why half precision and not 8 bits (measured in `benches/visual_scale.rs`, issue 11): 8-bit
//! rounding moves a dot product by about 0.1 % of the views' norms, as much as separates the ten
//! nearest views of a dense library (their scores lie within about 0.001 of each other), so the
//! graph's candidates missed some of the exact top ten however many were asked for (recall@10 0.96
//! at 100k views with 800 candidates a query view). `f16` keeps 11 significant bits, an error two
//! orders of magnitude smaller, and a view's vector stays at 512 bytes for 256 features (under the
//! 1 KB a view the issue allows, with the graph's links).
//!
//! Only the descriptor's public shape is used (a feature vector whose dot product the similarity is
//! built on), so another descriptor drops in without changes here.

use half::slice::HalfFloatSliceExt;
use partlens_engine::{ViewDescriptor, agreement_from_feature_dot, similarity_from_feature_dot};

/// The largest finite `f16`: a vector value is clamped to it (features as stored never reach it).
const F16_MAX: f32 = 65_504.0;

/// Turns view features into the graph's vectors.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantiser {
    /// Features per view.
    dimensions: usize,
    /// `vector = feature × scale`, clamped to the `f16` range.
    scale: f32,
}

impl Quantiser {
    /// A quantiser with a known scale (read back from a saved index).
    pub fn new(dimensions: usize, scale: f32) -> Self {
        Self { dimensions, scale }
    }

    /// A quantiser for `views` (all of the same length: the first view's; views of another length
    /// are ignored), keeping features as they are. `None` when there is no view to fit to.
    pub fn fitted<'a>(views: impl IntoIterator<Item = &'a ViewDescriptor>) -> Option<Self> {
        let dimensions = views.into_iter().next()?.features().len();
        (dimensions > 0).then_some(Self {
            dimensions,
            scale: 1.0,
        })
    }

    /// Features per view.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// The scale factor.
    pub fn scale(&self) -> f32 {
        self.scale
    }

    /// The scaled features of a view (the graph stores them as `f16`); `None` when it has another
    /// number of features.
    pub fn vector(&self, view: &ViewDescriptor) -> Option<Vec<f32>> {
        let features = view.features();
        (features.len() == self.dimensions).then(|| {
            features
                .iter()
                .map(|&value| (f32::from(value) * self.scale).clamp(-F16_MAX, F16_MAX))
                .collect()
        })
    }
}

impl Quantiser {
    /// True when this quantiser's vectors are the features themselves (scale 1, as for every
    /// graph built since features were kept unscaled): the engine rounds features to integers
    /// that `f16` holds exactly (`partlens_engine::half_exact`), so a graph's vector of a view is
    /// then its features, exactly (see [`features_of_halves`]).
    pub fn keeps_features(&self) -> bool {
        self.scale == 1.0
    }

    /// The view similarity of two of this quantiser's vectors: the descriptor's similarity up to
    /// the rounding of the vectors (an estimate, see `ann.rs`).
    pub fn similarity(&self, a: &[f32], b: &[f32]) -> f32 {
        self.similarity_of_dot(dot_f32(a, b))
    }

    /// [`Self::similarity`] before it is clamped to 0..1 (`engine::agreement_from_feature_dot`):
    /// clamped to 0 it is the similarity, to the last bit.
    pub fn agreement(&self, a: &[f32], b: &[f32]) -> f32 {
        agreement_from_feature_dot(dot_f32(a, b) / (self.scale * self.scale))
    }

    /// The view similarity whose vectors' dot product is `dot` (an estimate, as
    /// [`Self::similarity`]).
    pub fn similarity_of_dot(&self, dot: f32) -> f32 {
        similarity_from_feature_dot(dot / (self.scale * self.scale))
    }
}

/// The features a graph's half-precision vector holds when its quantiser
/// [keeps features](Quantiser::keeps_features): each value as the integer it is; `None` when one is
/// not an integer within `i16` (a vector of another quantiser).
pub(crate) fn features_of_halves(halves: &[half::f16]) -> Option<Vec<i16>> {
    // Widened eight at a time (`half`'s F16C path), then each value cast and compared back: a
    // value that is not an integer, or past `i16`, does not survive the round trip. (Converting
    // one value at a time and asking `fract` took 70 ns a value: 2 ms of a 10 ms search.)
    let mut widened = vec![0.0_f32; halves.len()];
    halves.convert_to_f32_slice(&mut widened);
    let features: Vec<i16> = widened.iter().map(|&value| value as i16).collect();
    features
        .iter()
        .zip(&widened)
        .all(|(&feature, &value)| f32::from(feature) == value)
        .then_some(features)
}

/// Dot product of two vectors in 16 independent lanes (vectorised by the compiler).
pub(crate) fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0_f32; 16];
    let a_chunks = a.chunks_exact(16);
    let b_chunks = b.chunks_exact(16);
    let tail: f32 = a_chunks
        .remainder()
        .iter()
        .zip(b_chunks.remainder())
        .map(|(&x, &y)| x * y)
        .sum();
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..16 {
            lanes[lane] += x[lane] * y[lane];
        }
    }
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_engine::samples::synthetic_views::{SyntheticViews, seeded};

    fn views() -> Vec<ViewDescriptor> {
        let pictures = partlens_engine::samples::parts::PART_NAMES.len();
        let pool = SyntheticViews::analysed(pictures, 2).unwrap();
        let mut random = seeded(3);
        (0..60)
            .map(|index| pool.perturbed(index, &mut random))
            .collect()
    }

    #[test]
    fn quantised_dot_products_follow_the_exact_ones() {
        let views = views();
        let quantiser = Quantiser::fitted(&views).unwrap();
        assert_eq!(quantiser.dimensions(), views[0].features().len());
        // As the graph stores them: half precision.
        let vectors: Vec<Vec<f32>> = views
            .iter()
            .map(|v| {
                quantiser
                    .vector(v)
                    .unwrap()
                    .into_iter()
                    .map(half_precision)
                    .collect()
            })
            .collect();
        let exact = |a: &ViewDescriptor, b: &ViewDescriptor| -> f64 {
            a.features()
                .iter()
                .zip(b.features())
                .map(|(&x, &y)| f64::from(x) * f64::from(y))
                .sum()
        };
        let squared_scale = f64::from(quantiser.scale()).powi(2);
        let mut total_error = 0.0;
        let mut largest = 0.0_f64;
        for a in 0..views.len() {
            for b in 0..views.len() {
                let norms = (exact(&views[a], &views[a]) * exact(&views[b], &views[b])).sqrt();
                let approximate = f64::from(dot_f32(&vectors[a], &vectors[b])) / squared_scale;
                let error = (exact(&views[a], &views[b]) - approximate).abs() / norms;
                assert!(error < 1e-3, "views {a} and {b}: relative error {error}");
                largest = largest.max(error);
                total_error += error;
            }
        }
        let mean_error = total_error / (views.len() * views.len()) as f64;
        // 8-bit rounding gave about 1e-3 here (too coarse for dense libraries, see the module doc);
        // half precision about 1e-4 (largest 3.3e-4).
        assert!(mean_error < 2e-4, "mean relative error {mean_error}");
        assert!(largest > 0.0, "the rounding was not applied");
    }

    /// `value` rounded to the nearest `f16` (11 significant bits), as usearch stores it.
    fn half_precision(value: f32) -> f32 {
        if value == 0.0 {
            return 0.0;
        }
        let exponent = value.abs().log2().floor();
        let step = 2_f32.powf(exponent - 10.0);
        (value / step).round() * step
    }

    #[test]
    fn a_vector_of_features_in_half_precision_gives_them_back() {
        let views = views();
        let quantiser = Quantiser::fitted(&views).unwrap();
        assert!(quantiser.keeps_features());
        for view in &views {
            let halves: Vec<half::f16> = quantiser
                .vector(view)
                .unwrap()
                .iter()
                .map(|&value| half::f16::from_f32(value))
                .collect();
            assert_eq!(features_of_halves(&halves).unwrap(), view.features());
        }
        // A scaled vector (a graph saved before features were kept) gives none back.
        assert!(features_of_halves(&[half::f16::from_f32(0.5)]).is_none());
        assert!(!Quantiser::new(views[0].features().len(), 0.5).keeps_features());
    }

    #[test]
    fn nothing_to_fit_gives_no_quantiser() {
        assert!(Quantiser::fitted(std::iter::empty()).is_none());
    }
}
