//! Duplicate parts (`GET /api/Duplicates`, this service's extension): groups of the caller's
//! company database files that are the same part, the same shape at the same size, whatever their
//! format or name (a STEP file and the STL exported from it, one model uploaded twice under two
//! names).
//!
//! Each database file with views is ranked by its own views once, when it is indexed, as a search
//! by that file would rank ([`crate::search::rank_visually`], its first [`NEIGHBOURS`]), and the
//! files of its ranking that may be the same part are stored as its pairs with their scores
//! ([`crate::pairing`]): when both files are models, their sizes differ by at most [`SAME_SIZE`] (a
//! model and a picture are never one part; two pictures are compared by shape), whatever the
//! score, so any `minScore` is answered. A call reads the company's stored pairs scoring at least
//! the minimum between indexed files and joins them into groups, strongest first; a group's score
//! is the weakest pair that joined it. Its cost is one read of those pairs (no ranking), so it
//! answers at any library size; `FilesCompared` is the files whose pairs are computed. Files
//! indexed before pairing existed are paired by the start-up backfill
//! ([`crate::pairing_backfill`]); until then they are in no group.

use std::collections::{BTreeMap, HashMap};

use partlens_api::duplicates::{DuplicateFile, DuplicateGroup, DuplicatesReply};

use super::error::ServiceError;
use super::pairing::PAIRING_VERSION;
use super::part_size::PartSize;
pub use super::same_part::{NEIGHBOURS, SAME_SIZE, same_part_score};
use super::state::AppState;
use crate::caller::Caller;
use partlens_store::StoreTx;
use partlens_store::model::FileRecord;

/// The lowest score of a pair of files taken for the same part when the caller does not say. On
/// the real-world corpus the parts in two formats (a STEP file and its STL) score 0.890 (the
/// 28BYJ-48 motor) to 0.995 against each other, and two different parts of the same size at most
/// 0.879 (two Voron hotend mounts), except the fan-saver mounts for the Dragon and the Revo, which
/// differ only inside (0.93): docs/PERFORMANCE.md.
pub const DEFAULT_MIN_SCORE: f32 = 0.885;

/// Reads the `minScore` parameter (a number in 0..=1; [`DEFAULT_MIN_SCORE`] when absent).
pub fn min_score_param(value: Option<&str>) -> Result<f32, ServiceError> {
    match value {
        None => Ok(DEFAULT_MIN_SCORE),
        Some(text) => match text.trim().parse::<f32>() {
            Ok(score) if (0.0..=1.0).contains(&score) => Ok(score),
            _ => Err(ServiceError::BadRequest(format!(
                "minScore={text} is not a number from 0 to 1"
            ))),
        },
    }
}

/// The duplicate groups of the caller's company, with pairs scoring at least `min_score`.
pub async fn find(
    state: &AppState,
    caller: &Caller,
    min_score: f32,
) -> Result<DuplicatesReply, ServiceError> {
    // The company's files still waiting for their pairing are paired first (pairing_queue.rs).
    state.indexer.settle_pairing(&caller.company_id).await;
    let company_id = caller.company_id.clone();
    state
        .store
        .read_tx(move |tx| find_in(tx, &company_id, min_score))
        .await
}

/// [`find`] in a read transaction: the company's stored pairs at `min_score`, grouped.
fn find_in(
    tx: &mut dyn StoreTx,
    company_id: &str,
    min_score: f32,
) -> Result<DuplicatesReply, ServiceError> {
    let started = std::time::Instant::now();
    let stored = tx.pairs_of_company(company_id, min_score)?;
    let read = started.elapsed();
    let files_compared = tx.paired_file_count(company_id, PAIRING_VERSION)?;
    let counted = started.elapsed();
    let mut uids: Vec<&str> = stored
        .iter()
        .flat_map(|pair| [pair.file_uid.as_str(), pair.other_uid.as_str()])
        .collect();
    uids.sort_unstable();
    uids.dedup();
    let at: HashMap<&str, usize> = uids
        .iter()
        .enumerate()
        .map(|(index, uid)| (*uid, index))
        .collect();
    // The best score of each pair, whichever file's ranking found it.
    let mut pairs: BTreeMap<(usize, usize), f32> = BTreeMap::new();
    for pair in &stored {
        let (Some(&a), Some(&b)) = (
            at.get(pair.file_uid.as_str()),
            at.get(pair.other_uid.as_str()),
        ) else {
            continue;
        };
        if a == b {
            continue;
        }
        let best = pairs.entry((a.min(b), a.max(b))).or_insert(pair.score);
        *best = best.max(pair.score);
    }
    let groups = group_pairs(uids.len(), pairs);
    let grouped: Vec<String> = groups
        .iter()
        .flat_map(|(_, members)| members.iter().map(|&index| uids[index].to_owned()))
        .collect();
    let grouping = started.elapsed();
    let records: HashMap<String, FileRecord> = tx
        .find_files(company_id, &grouped)?
        .into_iter()
        .map(|record| (record.uid.clone(), record))
        .collect();
    let mut reply_groups: Vec<DuplicateGroup> = groups
        .into_iter()
        .map(|(score, members)| DuplicateGroup {
            score: rounded(score),
            files: members
                .into_iter()
                .filter_map(|index| records.get(uids[index]))
                .map(duplicate_file)
                .collect(),
        })
        .filter(|group| group.files.len() > 1)
        .collect();
    // Where the time of a call goes (docs/PERFORMANCE.md, "Duplicates at 100k files").
    tracing::debug!(
        pairs = stored.len(),
        read_ms = read.as_secs_f64() * 1000.0,
        count_ms = (counted - read).as_secs_f64() * 1000.0,
        group_ms = (grouping - counted).as_secs_f64() * 1000.0,
        records_ms = (started.elapsed() - grouping).as_secs_f64() * 1000.0,
        "duplicates"
    );
    reply_groups.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.files[0].uid.cmp(&b.files[0].uid))
    });
    Ok(DuplicatesReply {
        min_score: rounded(min_score),
        files_compared,
        groups: reply_groups,
    })
}

/// One file of a group as the reply gives it.
fn duplicate_file(record: &FileRecord) -> DuplicateFile {
    let size = PartSize::of(&record.extracted_attributes, &record.extension);
    DuplicateFile {
        uid: record.uid.clone(),
        file_name: record.stored_path.clone(),
        display_name: record.display_name.clone(),
        size_mm: size
            .map(|size| size.extents.map(f64::from).to_vec())
            .unwrap_or_default(),
    }
}

/// A score as the reply gives it: four decimals (an f32's 0.885 is 0.88499999 as an f64).
fn rounded(score: f32) -> f64 {
    (f64::from(score) * 1e4).round() / 1e4
}

/// Joins the pairs into groups, strongest pair first (Kruskal over a union-find): each group of two
/// or more files, its members in index order, with the weakest score that joined it.
fn group_pairs(count: usize, pairs: BTreeMap<(usize, usize), f32>) -> Vec<(f32, Vec<usize>)> {
    let mut parent: Vec<usize> = (0..count).collect();
    fn root(parent: &mut [usize], mut at: usize) -> usize {
        while parent[at] != at {
            parent[at] = parent[parent[at]];
            at = parent[at];
        }
        at
    }
    let mut weakest: HashMap<usize, f32> = HashMap::new();
    let mut ordered: Vec<((usize, usize), f32)> = pairs.into_iter().collect();
    ordered.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for ((a, b), score) in ordered {
        let (root_a, root_b) = (root(&mut parent, a), root(&mut parent, b));
        if root_a == root_b {
            continue;
        }
        let joined = [
            weakest.remove(&root_a),
            weakest.remove(&root_b),
            Some(score),
        ]
        .into_iter()
        .flatten()
        .fold(f32::INFINITY, f32::min);
        parent[root_b] = root_a;
        weakest.insert(root_a, joined);
    }
    let mut members: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for index in 0..count {
        let top = root(&mut parent, index);
        members.entry(top).or_default().push(index);
    }
    members
        .into_iter()
        .filter(|(_, group)| group.len() > 1)
        .map(|(top, group)| (weakest.get(&top).copied().unwrap_or(0.0), group))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_store::model::{FilePair, IndexState, NewContent};

    /// More indexed database files than the one-call comparison took (it refused a company past
    /// 10,000 of them).
    const MANY_FILES: usize = 10_001;

    fn uid(index: usize) -> String {
        format!("3f2504e0-4f89-41d3-9a0c-{index:012}")
    }

    /// Stores [`MANY_FILES`] indexed database files of `company_id`, each paired (file `2k+1` with
    /// file `2k` at 0.9; file 1 with file 2 at 0.5 too), as the pairing at indexing would.
    fn many_paired_files(tx: &mut dyn StoreTx, company_id: &str) -> Result<(), ServiceError> {
        for index in 0..MANY_FILES {
            let content = NewContent {
                uid: uid(index),
                company_id: company_id.to_owned(),
                owner_user_id: 1,
                is_search_input: false,
                stored_path: format!("parts/part{index}.png"),
                display_name: format!("part{index}.png"),
                extension: ".png".into(),
                size: 2000,
                state: IndexState::Completed,
                callback_param: None,
                text_only: false,
            };
            tx.upsert_file(&content, "2026-12-06T00:00:00Z")?;
        }
        for index in 0..MANY_FILES {
            let mut pairs = Vec::new();
            if index % 2 == 1 {
                pairs.push(FilePair {
                    file_uid: uid(index),
                    other_uid: uid(index - 1),
                    score: 0.9,
                });
            }
            if index == 1 {
                pairs.push(FilePair {
                    file_uid: uid(1),
                    other_uid: uid(2),
                    score: 0.5,
                });
            }
            tx.save_pairs(&uid(index), company_id, PAIRING_VERSION, &pairs)?;
        }
        Ok(())
    }

    /// On SQLite only: writing 10,001 records through the store takes 3 s there and 80 s on
    /// PostgreSQL; what is read is the same on both (tests/store/pairs.rs checks the pairs' reads
    /// on both engines, tests/service/duplicates.rs the whole call).
    #[test]
    fn a_company_past_ten_thousand_files_is_answered_from_the_stored_pairs() {
        let dir = tempfile::tempdir().unwrap();
        {
            let store = partlens_store::Store::open_blocking(dir.path()).unwrap();
            let company_id = store
                .write_tx_blocking(|tx| -> Result<String, ServiceError> {
                    let company_id = tx.ensure_company("Acme")?;
                    many_paired_files(tx, &company_id)?;
                    Ok(company_id)
                })
                .unwrap();
            let (default, low) = store
                .read_tx_blocking(|tx| -> Result<_, ServiceError> {
                    Ok((
                        find_in(tx, &company_id, DEFAULT_MIN_SCORE)?,
                        find_in(tx, &company_id, 0.4)?,
                    ))
                })
                .unwrap();
            assert_eq!(default.files_compared, MANY_FILES as u64);
            assert_eq!(default.groups.len(), MANY_FILES / 2);
            let first = &default.groups[0];
            assert_eq!(first.score, 0.9);
            assert_eq!(first.files.len(), 2);
            assert_eq!(first.files[0].uid, uid(0));
            assert_eq!(first.files[0].file_name, "parts/part0.png");
            // Below 0.5 files 0 to 3 are one group, joined by its weakest pair.
            assert_eq!(low.groups.len(), MANY_FILES / 2 - 1);
            let joined = low.groups.iter().find(|group| group.files.len() == 4);
            assert_eq!(joined.map(|group| group.score), Some(0.5));
        }
    }

    #[test]
    fn pairs_join_into_groups_scored_by_their_weakest_pair() {
        let pairs = BTreeMap::from([((0, 1), 0.99), ((1, 2), 0.93), ((4, 5), 0.95)]);
        let groups = group_pairs(7, pairs);
        assert_eq!(groups, vec![(0.93, vec![0, 1, 2]), (0.95, vec![4, 5])]);
    }

    #[test]
    fn min_score_is_a_number_from_0_to_1() {
        assert_eq!(min_score_param(None).unwrap(), DEFAULT_MIN_SCORE);
        assert_eq!(min_score_param(Some(" 0.5")).unwrap(), 0.5);
        for bad in ["", "1.5", "-0.1", "high", "NaN"] {
            assert!(min_score_param(Some(bad)).is_err(), "{bad}");
        }
    }
}
