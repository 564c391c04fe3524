//! Duplicate parts (`GET /api/Duplicates`, this service's extension): groups of the caller's
//! company database files that are the same part, the same shape at the same size, whatever their
//! format or name (a STEP file and the STL exported from it, one model uploaded twice under two
//! names).
//!
//! Each database file with views is searched by its own views, as a search by that file would
//! rank ([`crate::search::rank_visually`], its first [`NEIGHBOURS`]); a pair is the same part when
//! its score is at least the minimum and, when both files are models, their sizes differ by at most
//! [`SAME_SIZE`] (a model and a picture are never one part; two pictures are compared by shape).
//! Pairs are joined into groups, strongest first; a group's score is the weakest pair that joined
//! it. The cost is one ranking a file: fine for an admin's occasional call on a library of
//! thousands, not for every page view. So a company of more than [`MAX_FILES`] such files is
//! refused with a sentence, one file's views are in memory at a time, and the service runs one
//! duplicates search at a time (another caller meanwhile gets 429 with `Retry-After`).

use std::collections::{BTreeMap, HashMap};

use partlens_api::duplicates::{DuplicateFile, DuplicateGroup, DuplicatesReply};
use partlens_engine::ViewDescriptor;

use super::error::ServiceError;
use super::part_size::{PartSize, blend, size_difference};
use super::search::rank_visually;
use super::state::AppState;
use crate::caller::Caller;
use partlens_store::StoreTx;
use partlens_store::model::{FileRecord, IndexState};

/// The lowest score of a pair of files taken for the same part when the caller does not say. On
/// the real-world corpus the parts in two formats (a STEP file and its STL) score 0.890 (the
/// 28BYJ-48 motor) to 0.995 against each other, and two different parts of the same size at most
/// 0.879 (two Voron hotend mounts), except the fan-saver mounts for the Dragon and the Revo, which
/// differ only inside (0.93): docs/PERFORMANCE.md.
pub const DEFAULT_MIN_SCORE: f32 = 0.885;

/// How many of a file's best matches are considered its possible duplicates.
pub const NEIGHBOURS: usize = 20;

/// The most database files with views one call compares: each is a ranking of its own (about
/// 20 ms at this size), so a call stays within minutes.
pub const MAX_FILES: usize = 10_000;

/// The largest size difference ([`size_difference`]: the mean log ratio of the sorted extents) of
/// two files of one part: 3 %, well under the step between two standard sizes (M8 to M10 is 0.2).
pub const SAME_SIZE: f32 = 0.03;

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

/// One database file as compared (its views are read when it is searched by).
struct Compared {
    record: FileRecord,
    size: Option<PartSize>,
}

/// The views of the database file `uid`, or `None` when it has none or they cannot be read back
/// (a search by such a file queues it to be indexed again).
pub(crate) fn views_of(
    tx: &mut dyn StoreTx,
    uid: &str,
) -> Result<Option<Vec<ViewDescriptor>>, ServiceError> {
    let Ok(views) = tx
        .views_of(uid)?
        .iter()
        .map(|bytes| ViewDescriptor::from_bytes(bytes))
        .collect::<Result<Vec<_>, _>>()
    else {
        return Ok(None);
    };
    Ok(Some(views).filter(|views| !views.is_empty()))
}

/// The duplicate groups of the caller's company, with pairs scoring at least `min_score`.
pub async fn find(
    state: &AppState,
    caller: &Caller,
    min_score: f32,
) -> Result<DuplicatesReply, ServiceError> {
    let Ok(permit) = state.duplicates_running.clone().try_acquire_owned() else {
        return Err(ServiceError::TooManyRequests {
            retry_after_secs: 30,
            detail: "another duplicates search is running on this service; try again when it \
                     has answered"
                .to_string(),
        });
    };
    let store = state.store.clone();
    let shared = state.clone();
    let company_id = caller.company_id.clone();
    tokio::task::spawn_blocking(move || {
        // Held until the work ends, also when the caller has gone.
        let _permit = permit;
        store.read_tx_blocking(|tx| {
            let visual = shared.visual.current(&mut *tx)?;
            let rank = |tx: &mut dyn StoreTx, views: &[ViewDescriptor]| {
                rank_visually(
                    tx,
                    &visual,
                    &shared.filter_scopes,
                    &company_id,
                    &[],
                    views,
                    NEIGHBOURS,
                )
                .map(|(ranked, _)| ranked)
            };
            find_with(tx, &company_id, min_score, MAX_FILES, rank)
        })
    })
    .await?
}

/// [`find`] with the ranking and the most files given: reads the company's indexed database files
/// (refused past `max_files`), ranks each by its own views with `rank`, and groups the pairs.
fn find_with(
    tx: &mut dyn StoreTx,
    company_id: &str,
    min_score: f32,
    max_files: usize,
    rank: impl Fn(&mut dyn StoreTx, &[ViewDescriptor]) -> Result<Vec<(String, f32)>, ServiceError>,
) -> Result<DuplicatesReply, ServiceError> {
    let uids: Vec<String> = tx
        .matching_database_files(company_id, &[])?
        .into_iter()
        .map(|candidate| candidate.uid)
        .collect();
    let mut compared: Vec<Compared> = Vec::new();
    for record in tx.find_files(company_id, &uids)? {
        if record.state != IndexState::Completed || record.is_search_input {
            continue;
        }
        if compared.len() == max_files {
            return Err(ServiceError::BadRequest(format!(
                "the company has more than {max_files} indexed database files, more than one \
                 duplicates search compares; search by a file to find its own duplicates"
            )));
        }
        let size = PartSize::of(&record.extracted_attributes, &record.extension);
        compared.push(Compared { record, size });
    }
    let at: HashMap<&str, usize> = compared
        .iter()
        .enumerate()
        .map(|(index, file)| (file.record.uid.as_str(), index))
        .collect();
    // The best score of each pair, whichever file was searched by.
    let mut pairs: BTreeMap<(usize, usize), f32> = BTreeMap::new();
    let mut searched = 0_u64;
    for (index, file) in compared.iter().enumerate() {
        // A file without views is in no ranking either: it is in no group.
        let Some(views) = views_of(tx, &file.record.uid)? else {
            continue;
        };
        searched += 1;
        for (uid, visual) in rank(tx, &views)? {
            let Some(&other) = at.get(uid.as_str()) else {
                continue;
            };
            if other == index {
                continue;
            }
            let Some(score) = same_part_score(visual, file.size, compared[other].size)
                .filter(|score| *score >= min_score)
            else {
                continue;
            };
            let key = (index.min(other), index.max(other));
            let best = pairs.entry(key).or_insert(score);
            *best = best.max(score);
        }
    }
    let groups = group_pairs(compared.len(), pairs);
    let mut reply_groups: Vec<DuplicateGroup> = groups
        .into_iter()
        .map(|(score, members)| DuplicateGroup {
            score: rounded(score),
            files: members
                .into_iter()
                .map(|index| {
                    let file = &compared[index];
                    DuplicateFile {
                        uid: file.record.uid.clone(),
                        file_name: file.record.stored_path.clone(),
                        display_name: file.record.display_name.clone(),
                        size_mm: file
                            .size
                            .map(|size| size.extents.map(f64::from).to_vec())
                            .unwrap_or_default(),
                    }
                })
                .collect(),
        })
        .collect();
    reply_groups.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.files[0].uid.cmp(&b.files[0].uid))
    });
    Ok(DuplicatesReply {
        min_score: rounded(min_score),
        files_compared: searched,
        groups: reply_groups,
    })
}

/// The score of two files ranked `visual` apart when they may be one part: models of sizes
/// within [`SAME_SIZE`] (the visual score blended with the difference), or two files without a
/// size; `None` for a model and a picture, or models of other sizes.
pub fn same_part_score(visual: f32, a: Option<PartSize>, b: Option<PartSize>) -> Option<f32> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let difference = size_difference(&a, &b);
            (difference <= SAME_SIZE).then(|| blend(visual, difference))
        }
        (None, None) => Some(visual),
        _ => None,
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
    use partlens_store::model::NewContent;

    /// Stores `count` indexed database files (without views) of the caller's company.
    async fn indexed_files(state: &AppState, caller: &Caller, count: usize) {
        for index in 0..count {
            let uid = format!("3f2504e0-4f89-41d3-9a0c-0305e82c33{index:02}");
            let content = NewContent {
                uid: uid.clone(),
                company_id: caller.company_id.clone(),
                owner_user_id: caller.user_id,
                is_search_input: false,
                stored_path: format!("part{index}.stl"),
                display_name: format!("part{index}.stl"),
                extension: ".stl".into(),
                size: 2000,
                state: IndexState::Completed,
                callback_param: None,
                text_only: false,
            };
            state
                .store
                .write_tx(move |tx| -> Result<i64, ServiceError> {
                    Ok(tx.upsert_file(&content, "2026-11-28T00:00:00Z")?)
                })
                .await
                .unwrap();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_company_past_the_most_files_is_refused_with_what_to_do_instead() {
        let dir = tempfile::tempdir().unwrap();
        let (state, caller) = crate::state::state_for_tests(dir.path()).await;
        indexed_files(&state, &caller, 3).await;
        let company_id = caller.company_id.clone();
        let (refused, answered) = state
            .store
            .read_tx(move |tx| -> Result<_, ServiceError> {
                let no_matches = |_: &mut dyn StoreTx, _: &[ViewDescriptor]| Ok(Vec::new());
                Ok((
                    find_with(tx, &company_id, DEFAULT_MIN_SCORE, 2, no_matches),
                    find_with(tx, &company_id, DEFAULT_MIN_SCORE, 3, no_matches),
                ))
            })
            .await
            .unwrap();
        match refused {
            Err(ServiceError::BadRequest(sentence)) => {
                assert!(sentence.contains("more than 2"), "{sentence}");
                assert!(sentence.contains("search by a file"), "{sentence}");
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        // Files without views are searched by nothing and grouped with nothing.
        let answered = answered.unwrap();
        assert_eq!(answered.files_compared, 0);
        assert!(answered.groups.is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_second_duplicates_search_while_one_runs_is_told_to_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let (state, caller) = crate::state::state_for_tests(dir.path()).await;
        let running = state
            .duplicates_running
            .clone()
            .try_acquire_owned()
            .unwrap();
        match find(&state, &caller, DEFAULT_MIN_SCORE).await {
            Err(ServiceError::TooManyRequests {
                retry_after_secs,
                detail,
            }) => {
                assert!(retry_after_secs > 0);
                assert!(detail.contains("another duplicates search"), "{detail}");
            }
            other => panic!("expected 429, got {other:?}"),
        }
        drop(running);
        let reply = find(&state, &caller, DEFAULT_MIN_SCORE).await.unwrap();
        assert!(reply.groups.is_empty());
        // The permit is given back when the search ends.
        assert_eq!(state.duplicates_running.available_permits(), 1);
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
