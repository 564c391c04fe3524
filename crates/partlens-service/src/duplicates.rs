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
//! thousands, not for every page view.

use std::collections::{BTreeMap, HashMap};

use rusqlite::Connection;

use partlens_api::duplicates::{DuplicateFile, DuplicateGroup, DuplicatesReply};
use partlens_engine::ViewDescriptor;

use super::error::ServiceError;
use super::part_size::{PartSize, blend, size_difference};
use super::search::rank_visually;
use super::state::AppState;
use super::store::accounts::Caller;
use super::store::files::{self, IndexState};
use super::store::search;

/// The lowest score of a pair of files taken for the same part when the caller does not say. On
/// the real-world corpus the parts in two formats (a STEP file and its STL) score 0.890 (the
/// 28BYJ-48 motor) to 0.995 against each other, and two different parts of the same size at most
/// 0.879 (two Voron hotend mounts), except the fan-saver mounts for the Dragon and the Revo, which
/// differ only inside (0.93): docs/PERFORMANCE.md.
pub const DEFAULT_MIN_SCORE: f32 = 0.885;

/// How many of a file's best matches are considered its possible duplicates.
pub const NEIGHBOURS: usize = 20;

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

/// One database file as compared.
struct Compared {
    record: files::FileRecord,
    views: Vec<ViewDescriptor>,
    size: Option<PartSize>,
}

/// The duplicate groups of the caller's company, with pairs scoring at least `min_score`.
pub async fn find(
    state: &AppState,
    caller: &Caller,
    min_score: f32,
) -> Result<DuplicatesReply, ServiceError> {
    let store = state.store.clone();
    let shared = state.clone();
    let company_id = caller.company_id.clone();
    tokio::task::spawn_blocking(move || {
        store.read_blocking(|connection| {
            let visual = shared.indexer.visual().read()?;
            let rank = |views: &[ViewDescriptor]| {
                rank_visually(
                    connection,
                    &visual,
                    &shared.filter_scopes,
                    &company_id,
                    &[],
                    views,
                    NEIGHBOURS,
                )
                .map(|(ranked, _)| ranked)
            };
            find_with(connection, &company_id, min_score, rank)
        })
    })
    .await?
}

/// [`find`] with the ranking given: reads the company's indexed database files with views, ranks
/// each by its own views with `rank`, and groups the pairs.
fn find_with(
    connection: &Connection,
    company_id: &str,
    min_score: f32,
    rank: impl Fn(&[ViewDescriptor]) -> Result<Vec<(String, f32)>, ServiceError>,
) -> Result<DuplicatesReply, ServiceError> {
    let uids: Vec<String> = search::matching_database_files(connection, company_id, &[])?
        .into_iter()
        .map(|candidate| candidate.uid)
        .collect();
    let mut compared: Vec<Compared> = Vec::new();
    for record in files::find_many(connection, company_id, &uids)? {
        if record.state != IndexState::Completed || record.is_search_input {
            continue;
        }
        // A file whose stored views cannot be read back is left out here; a search by it queues
        // it to be indexed again.
        let Ok(views) = files::views_of(connection, &record.uid)?
            .iter()
            .map(|bytes| ViewDescriptor::from_bytes(bytes))
            .collect::<Result<Vec<_>, _>>()
        else {
            continue;
        };
        if views.is_empty() {
            continue;
        }
        let size = PartSize::of(&record.extracted_attributes, &record.extension);
        compared.push(Compared {
            record,
            views,
            size,
        });
    }
    let at: HashMap<&str, usize> = compared
        .iter()
        .enumerate()
        .map(|(index, file)| (file.record.uid.as_str(), index))
        .collect();
    // The best score of each pair, whichever file was searched by.
    let mut pairs: BTreeMap<(usize, usize), f32> = BTreeMap::new();
    for (index, file) in compared.iter().enumerate() {
        for (uid, visual) in rank(&file.views)? {
            let Some(&other) = at.get(uid.as_str()) else {
                continue;
            };
            if other == index {
                continue;
            }
            let score = match (&file.size, &compared[other].size) {
                (Some(a), Some(b)) => {
                    let difference = size_difference(a, b);
                    if difference > SAME_SIZE {
                        continue;
                    }
                    blend(visual, difference)
                }
                (None, None) => visual,
                _ => continue,
            };
            if score < min_score {
                continue;
            }
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
        files_compared: compared.len() as u64,
        groups: reply_groups,
    })
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
