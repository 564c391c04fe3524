//! A selective filter's models ranked first on a few of their views (issue 51 item 1).
//!
//! A filter that lists its files ([`FileFilter::Only`](crate::FileFilter::Only)) with few views
//! is answered by estimating every listed file on every view, not through the graph (a graph search
//! that admits one node in fifty wanders). At 100,000 parts one supplier lists about 2,000 models,
//! 334,000 views: estimating them all read 256 MB of half-precision vectors, 35 ms p50 and 42 ms
//! p95 on this machine's memory (about 8 GB/s on two cores), where the graph search admitting only
//! them took 115 / 191 ms.
//!
//! So the models whose views are kept beside the graph (`graph_views.rs`) are first ranked on the
//! views from `graph_views::COARSE_DIRECTIONS` directions and their picture (33 of 163; a fifth of
//! the bytes, the first of the model's block, so read in one run), each by the mean over the query
//! views of its best similarity among them, and only the best [`AnnIndex::coarse_keep`] are
//! estimated on every view. Files kept whole in the graph (pictures, drawings' pages) are
//! estimated on all their views as before. On the corpus, shortlisting by
//! these 33 views and scoring the best 100 of 199 files on all views kept recall@10 at 1.000 for a
//! search by a model and 0.998 by a photograph (docs/PERFORMANCE.md, "Views a model at 100,000
//! parts", table B). At 100,000 parts the supplier's search took 21.6 / 29.7 ms p50 / p95 for
//! one view (recall@10 0.992) and 24.6 / 29.1 ms for three (1.000), docs/PERFORMANCE.md, "A
//! selective filter at 100,000 parts".

use half::slice::HalfFloatSliceExt;

use super::{AnnIndex, Estimate, PARALLEL_FROM_VIEWS, in_chunks};
use crate::error::VisualError;

/// Reading a view kept beside the graph costs about this share of reading one through the graph's
/// key lookup (0.1 µs against 0.4–1.5 µs, measured at 10,000 and 100,000 parts): how listed views
/// count against [`super::AnnSettings::direct_views`].
pub(crate) const BESIDE_READS_PER_GRAPH_READ: usize = 8;

impl AnnIndex {
    /// How many coarse-ranked models are estimated on every view: the files the search keeps
    /// (`keep`), three times that for a query of one view, and never fewer than four times the
    /// results asked for. (At 100,000 parts, one supplier's 2,047 models, one view: recall@10
    /// 0.932 with `keep` (300), 0.970 with twice, 0.992 with three times (p95 29.7 ms), 0.998 with
    /// four times (30.7 ms); three views 1.000 with `keep` (800).)
    fn coarse_keep(keep: usize, limit: usize, query_views: usize) -> usize {
        let keep = if query_views == 1 {
            keep.saturating_mul(3)
        } else {
            keep
        };
        keep.max(limit.saturating_mul(4))
    }

    /// What estimating the `listed` files costs, in views read through the graph: a file kept
    /// whole in the graph its views, a model kept beside it its coarse views at
    /// [`BESIDE_READS_PER_GRAPH_READ`] a read.
    pub(super) fn direct_cost(&self, listed: &[u32]) -> usize {
        let mut whole = 0;
        let mut beside = 0;
        for &slot in listed {
            let views = usize::from(self.slots[slot as usize].views);
            match self.placement.coarse_positions(views) {
                Some(positions) if !self.beside_of(slot).is_empty() => beside += positions.len(),
                _ => whole += views,
            }
        }
        whole + beside / BESIDE_READS_PER_GRAPH_READ
    }

    /// The estimates of the `listed` files that can decide a search for `limit` results that keeps
    /// `keep` files: every file kept whole in the graph, and of the models kept beside it the
    /// best [`Self::coarse_keep`] by their coarse views (all of them when there are no more).
    pub(super) fn coarse_then_estimates(
        &self,
        vectors: &[Vec<f32>],
        query: (bool, bool),
        listed: &[u32],
        (keep, limit): (usize, usize),
    ) -> Result<Vec<Estimate>, VisualError> {
        let (split, mut whole): (Vec<u32>, Vec<u32>) = listed.iter().partition(|&&slot| {
            !self.beside_of(slot).is_empty()
                && self
                    .placement
                    .coarse_positions(usize::from(self.slots[slot as usize].views))
                    .is_some()
        });
        let wanted = Self::coarse_keep(keep, limit, vectors.len());
        if split.len() <= wanted {
            whole.extend(split);
            return self.estimates(vectors, query, &whole);
        }
        let coarse_views: usize = split
            .iter()
            .filter_map(|&slot| {
                self.placement
                    .coarse_positions(usize::from(self.slots[slot as usize].views))
            })
            .map(<[usize]>::len)
            .sum();
        let chunks = in_chunks(&split, coarse_views >= PARALLEL_FROM_VIEWS, |chunk| {
            let mut widened = vec![0.0; self.quantiser.dimensions()];
            chunk
                .iter()
                .map(|&slot| (self.coarse_score(&mut widened, vectors, slot), slot))
                .collect::<Vec<(f32, u32)>>()
        });
        let mut ranked: Vec<(f32, u32)> = chunks.concat();
        ranked.select_nth_unstable_by(wanted - 1, |a, b| b.0.total_cmp(&a.0));
        whole.extend(ranked[..wanted].iter().map(|&(_, slot)| slot));
        self.estimates(vectors, query, &whole)
    }

    /// The mean over the query `vectors` of each one's best similarity among the coarse views of
    /// the model in `slot` (0 for a file without them): the first views of its block beside the
    /// graph (`graph_views.rs`), read in one run; `widened` is the buffer a view is widened in.
    fn coarse_score(&self, widened: &mut [f32], vectors: &[Vec<f32>], slot: u32) -> f32 {
        let views = usize::from(self.slots[slot as usize].views);
        let Some(positions) = self.placement.coarse_positions(views) else {
            return 0.0;
        };
        let dimensions = widened.len();
        let block = self.beside_of(slot);
        let coarse = block
            .get(..positions.len() * dimensions)
            .unwrap_or_default();
        let mut best = vec![f32::NEG_INFINITY; vectors.len()];
        for stored in coarse.chunks_exact(dimensions.max(1)) {
            stored.convert_to_f32_slice(widened);
            for (best, query_vector) in best.iter_mut().zip(vectors) {
                *best = best.max(self.quantiser.similarity(query_vector, widened));
            }
        }
        let total: f32 = best.iter().map(|&best| best.max(0.0)).sum();
        total / vectors.len().max(1) as f32
    }
}
