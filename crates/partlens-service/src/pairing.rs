//! Candidate duplicates computed when a file is indexed (issue 51: the duplicates view answers at
//! 100,000 files): a company database file with views is ranked once by its own views, as a search
//! by it would rank ([`rank_by_own_views`], its first
//! [`NEIGHBOURS`](crate::same_part::NEIGHBOURS)), and every file of that ranking that may be the
//! same part ([`same_part_score`]: the size rule) is stored as a pair with its
//! score, whatever the score, so that `GET /api/Duplicates` answers any `minScore` by reading them
//! ([`crate::duplicates`]).
//!
//! A pair is found by the file paired later, and often by both: a file is paired after it is
//! indexed, in the background ([`crate::pairing_queue`]), when every file indexed before it is in
//! the visual index its ranking reads. Indexing a file again (an overwrite, a descriptor
//! upgrade) forgets its pairs on both sides in the transaction that saves its new views
//! ([`crate::indexing`]); deleting it deletes them with it (the store's references). Pairing never
//! fails the indexing of a file: a failure is logged and the file is left unpaired, for the
//! backfill at the next start ([`crate::pairing_backfill`]).

use std::sync::Arc;

use partlens_store::model::{FilePair, FileRecord, IndexState};
use partlens_store::{Store, StoreTx};
use partlens_visual::VisualKeeper;

use super::error::ServiceError;
use super::filter_scopes::FilterScopes;
use super::part_size::PartSize;
use super::same_part::{rank_by_own_views, same_part_score, views_of};

/// The version of the pairing the stored pairs were computed by: raise it when what a pair is
/// changes (the ranking, [`NEIGHBOURS`](crate::same_part::NEIGHBOURS), the size rule), and the
/// backfill pairs every file again. (Not raised for the two passes of [`rank_by_own_views`]: a
/// pair stored before them was found by the full ranking, and its score is the one they give.)
pub const PAIRING_VERSION: i64 = 1;

/// Pairs files: ranks one by its own views and stores its pairs. Cheap to clone.
#[derive(Clone)]
pub struct Pairer {
    store: Store,
    visual: VisualKeeper,
    /// Unused by an unfiltered ranking; [`rank_visually`] asks for it.
    scopes: Arc<FilterScopes>,
}

/// What a ranking found for one file, and the indexing of the file it was made for.
struct RankedFile {
    record: FileRecord,
    pairs: Vec<FilePair>,
}

impl Pairer {
    /// A pairer over the store and the visual index the indexer writes.
    pub fn new(store: Store, visual: VisualKeeper) -> Self {
        Self {
            store,
            visual,
            scopes: Arc::new(FilterScopes::new()),
        }
    }

    /// Pairs file `uid` (blocking): ranks it by its own views and replaces its stored pairs. True
    /// when it was paired; false for a file that is not paired (not an indexed company database
    /// file with views, text-only) or that was indexed again or deleted meanwhile.
    pub fn pair_blocking(&self, uid: &str) -> Result<bool, ServiceError> {
        let Some(ranked) = self.store.read_tx_blocking(|tx| self.rank(tx, uid))? else {
            return Ok(false);
        };
        self.store
            .write_tx_blocking(|tx| -> Result<bool, ServiceError> {
                // Saved only over the indexing that was ranked.
                let same = tx.find_any_file(uid)?.is_some_and(|now| {
                    now.state == IndexState::Completed
                        && now.revision == ranked.record.revision
                        && now.indexed_at == ranked.record.indexed_at
                });
                if same {
                    tx.save_pairs(
                        uid,
                        &ranked.record.company_id,
                        PAIRING_VERSION,
                        &ranked.pairs,
                    )?;
                }
                Ok(same)
            })
    }

    /// Ranks file `uid` by its own views: its pairs, or `None` when it is not a file to pair.
    fn rank(&self, tx: &mut dyn StoreTx, uid: &str) -> Result<Option<RankedFile>, ServiceError> {
        let Some(record) = tx.find_any_file(uid)?.filter(is_paired_kind) else {
            return Ok(None);
        };
        // Views that cannot be read back are found (and the file indexed again) by a search.
        let Some(views) = views_of(tx, uid)? else {
            return Ok(None);
        };
        let visual = self.visual.current(&mut *tx)?;
        let ranked = rank_by_own_views(tx, &visual, &self.scopes, &record.company_id, &views)?;
        drop(visual);
        let others: Vec<String> = ranked
            .iter()
            .filter(|(other, _)| *other != record.uid)
            .map(|(other, _)| other.clone())
            .collect();
        let size = PartSize::of(&record.extracted_attributes, &record.extension);
        let mut pairs = Vec::new();
        for other in tx.find_files(&record.company_id, &others)? {
            let Some(&(_, visual_score)) = ranked.iter().find(|(found, _)| *found == other.uid)
            else {
                continue;
            };
            let other_size = PartSize::of(&other.extracted_attributes, &other.extension);
            if let Some(score) = same_part_score(visual_score, size, other_size) {
                pairs.push(FilePair {
                    file_uid: record.uid.clone(),
                    other_uid: other.uid,
                    score,
                });
            }
        }
        Ok(Some(RankedFile { record, pairs }))
    }
}

/// True for a file that is paired: an indexed company database file that is not text-only.
pub fn is_paired_kind(record: &FileRecord) -> bool {
    record.state == IndexState::Completed && !record.is_search_input && !record.text_only
}
