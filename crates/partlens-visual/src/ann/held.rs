//! Candidates scored exactly from the graph itself, without reading them from the store.
//!
//! The engine rounds every view feature to an integer that half precision holds exactly
//! (`partlens_engine::half_exact`), and a graph whose quantiser keeps features as they are
//! ([`Quantiser::keeps_features`]) stores each view's features as its `f16` vector: so the graph's
//! vector of a view is the view's features, to the bit. What a view carries besides its features is
//! its file's facts (a mesh's D2 distribution and parts, its handedness, the drawing flag, the part
//! numbers), the same for every view of a file, and a hash that only the legacy descriptor has. So
//! the graph holds one view of each file (the first, with those facts) and rebuilds any other view
//! of it from that view and the view's vector: the descriptor the store would give back, which
//! `match_views` scores to the same bits.
//!
//! Why: the exact stage read each candidate's deciding views from the store, one primary-key
//! lookup a view. At 100,000 parts the store (17 GB) no longer fits beside the graph in a 23 GB
//! machine's page cache, and each lookup was a read from disk (about 0.9 ms here, one at a time):
//! searches took 0.4–1 s, 45 % of it waiting for the disk. Held in memory, a view costs its
//! file's share of one descriptor (about 1 KB a file, 6 B a view of a model).
//!
//! A file is held only when every view is today's descriptor, all carry the same facts and every
//! feature is one `f16` holds; a graph saved before views were held (or with a scaled quantiser)
//! holds none, and its candidates are read from the store as before.

use super::{AnnIndex, Candidate, PARALLEL_FROM_VIEWS, StoredVector, in_chunks};
use crate::Ranked;
use crate::error::VisualError;
use crate::quantise::features_of_halves;
use partlens_engine::{Generation, ViewDescriptor, half_exact};

impl AnnIndex {
    /// The view the graph keeps of a file with `views` (its first) when it can hold the file whole
    /// (see the module doc); `None` otherwise.
    pub(super) fn view_to_hold(&self, views: &[ViewDescriptor]) -> Option<Box<ViewDescriptor>> {
        let first = views.first()?;
        let holdable = self.quantiser.keeps_features()
            && views.iter().all(|view| {
                view.generation() == Generation::Current
                    && view.facts() == first.facts()
                    && view
                        .features()
                        .iter()
                        .all(|&value| half_exact(value) == value)
            });
        holdable.then(|| Box::new(first.clone()))
    }

    /// The view held of the file in `slot` (saving; `None` when it is not held).
    pub(crate) fn held_of(&self, slot: u32) -> Option<&ViewDescriptor> {
        self.held.get(slot as usize)?.as_deref()
    }

    /// Heap bytes of the held views.
    pub(super) fn held_bytes(&self) -> usize {
        self.held.capacity() * size_of::<Option<Box<ViewDescriptor>>>()
            + self
                .held
                .iter()
                .flatten()
                .map(|view| size_of::<ViewDescriptor>() + view.heap_bytes())
                .sum::<usize>()
    }

    /// View `position` of the file in `slot` as the store holds it, from its vector and the file's
    /// held view `first`; `None` when the graph has no vector for it or the vector is not features.
    fn rebuilt_view(
        &self,
        slot: u32,
        position: usize,
        first: &ViewDescriptor,
        vector: &mut StoredVector,
    ) -> Result<Option<ViewDescriptor>, VisualError> {
        Ok(self
            .view_halves(slot, position, vector)?
            .and_then(features_of_halves)
            .and_then(|features| first.with_features(features)))
    }

    /// The views of `candidate` it is scored on (its deciding views, else all), rebuilt from the
    /// graph; `None` when the graph does not hold the file or lacks one of them.
    fn held_views(
        &self,
        candidate: &Candidate,
        vector: &mut StoredVector,
    ) -> Result<Option<Vec<ViewDescriptor>>, VisualError> {
        let Some(first) = self.held_of(candidate.slot) else {
            return Ok(None);
        };
        let count = self
            .slots
            .get(candidate.slot as usize)
            .map_or(0, |file| usize::from(file.views));
        let positions: Vec<usize> = if candidate.deciding.is_empty() {
            (0..count).collect()
        } else {
            candidate
                .deciding
                .iter()
                .map(|&position| position as usize)
                .collect()
        };
        let mut views = Vec::with_capacity(positions.len());
        for position in positions {
            if position >= count {
                return Ok(None);
            }
            match self.rebuilt_view(candidate.slot, position, first, vector)? {
                Some(view) => views.push(view),
                None => return Ok(None),
            }
        }
        Ok((!views.is_empty()).then_some(views))
    }

    /// Scores exactly the candidates whose files the graph holds, from memory, as `score_exactly`
    /// would from the store (a candidate with deciding views on those alone); the others are
    /// returned, to be read from the store. Split over the cores when many views are rebuilt.
    pub(super) fn score_held(
        &self,
        query: &[ViewDescriptor],
        candidates: Vec<Candidate>,
    ) -> Result<(Ranked, Vec<Candidate>), VisualError> {
        let views_rebuilt: usize = candidates
            .iter()
            .map(|candidate| match candidate.deciding.len() {
                0 => self
                    .slots
                    .get(candidate.slot as usize)
                    .map_or(0, |file| usize::from(file.views)),
                deciding => deciding,
            })
            .sum();
        let dimensions = self.quantiser.dimensions();
        let chunks = in_chunks(
            &candidates,
            views_rebuilt >= PARALLEL_FROM_VIEWS,
            |chunk| -> Result<(Ranked, Vec<Candidate>), VisualError> {
                let mut vector = StoredVector::new(dimensions);
                let mut scored = Ranked::new();
                let mut to_read = Vec::new();
                for candidate in chunk {
                    match self.held_views(candidate, &mut vector)? {
                        Some(views) => {
                            let score = if candidate.deciding.is_empty() {
                                partlens_engine::match_views(query, &views)
                            } else {
                                partlens_engine::match_views_on_deciding_views(query, &views)
                            };
                            scored.push((candidate.uid.clone(), score));
                        }
                        None => to_read.push(candidate.clone()),
                    }
                }
                Ok((scored, to_read))
            },
        );
        let mut scored = Ranked::new();
        let mut to_read = Vec::new();
        for chunk in chunks {
            let (chunk_scored, chunk_to_read) = chunk?;
            scored.extend(chunk_scored);
            to_read.extend(chunk_to_read);
        }
        Ok((scored, to_read))
    }
}
