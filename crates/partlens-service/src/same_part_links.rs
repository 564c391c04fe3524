//! Where-used across the library: a model uploaded on its own that is the same part as a component
//! of an assembly (same shape at the same size, as the duplicates search decides:
//! [`crate::duplicates::same_part_score`] at [`DEFAULT_MIN_SCORE`]) names that component's
//! assemblies in its `AssemblyParents` too, each entry with the field
//! [`crate::records::SAME_PART_FIELD`] giving the component it equals.
//!
//! Decided when the record is read (`GET /api/File`), not stored: the record is searched by its
//! own views ([`NEIGHBOURS`](crate::same_part::NEIGHBOURS) best matches, as the duplicates search ranks a file), so a link
//! appears and goes with the files it rests on, whichever is uploaded, replaced or deleted first,
//! with nothing to keep in step. It costs one ranking a read of an indexed model's record (about
//! 20 ms at ten thousand files); pictures, drawings, search inputs and files not yet indexed are
//! not ranked. Parents that are `.zip` bundles are no assemblies and are left out.

use std::collections::HashSet;

use partlens_engine::ViewDescriptor;
use partlens_store::StoreTx;
use partlens_store::model::{FileRecord, IndexState, Relation};

use super::duplicates::DEFAULT_MIN_SCORE;
use super::error::ServiceError;
use super::part_size::PartSize;
use super::same_part::{rank_by_own_views, same_part_score, views_of};
use super::state::AppState;
use super::upload_params::ZIP_EXTENSION;

/// The assemblies that hold a file of the same part as `record` and are not among its own
/// parents (`own`): each relation as stored (its child the file of the same part) with the
/// assembly's record, by assembly UID then that file's UID.
pub fn same_part_parents(
    tx: &mut dyn StoreTx,
    state: &AppState,
    record: &FileRecord,
    own: &[(Relation, FileRecord)],
) -> Result<Vec<(Relation, FileRecord)>, ServiceError> {
    let indexed_model = record.state == IndexState::Completed
        && !record.is_search_input
        && partlens_geometry::is_model_extension(&record.extension);
    if !indexed_model {
        return Ok(Vec::new());
    }
    let Some(views) = views_of(tx, &record.uid)? else {
        return Ok(Vec::new());
    };
    let visual = state.visual.current(&mut *tx)?;
    let ranked = rank(tx, state, &visual, &record.company_id, &views)?;
    let size = PartSize::of(&record.extracted_attributes, &record.extension);
    let mut seen: HashSet<String> = own.iter().map(|(r, _)| r.parent_uid.clone()).collect();
    seen.insert(record.uid.clone());
    let others: Vec<String> = ranked
        .iter()
        .filter(|(uid, _)| *uid != record.uid)
        .map(|(uid, _)| uid.clone())
        .collect();
    let mut found = Vec::new();
    for other in tx.find_files(&record.company_id, &others)? {
        let Some(&(_, score)) = ranked.iter().find(|(uid, _)| *uid == other.uid) else {
            continue;
        };
        let other_size = PartSize::of(&other.extracted_attributes, &other.extension);
        if same_part_score(score, size, other_size).is_none_or(|s| s < DEFAULT_MIN_SCORE) {
            continue;
        }
        for relation in tx.parents_of(&other.uid)? {
            if seen.contains(&relation.parent_uid) {
                continue;
            }
            let Some(parent) = tx.find_file(&record.company_id, &relation.parent_uid)? else {
                continue;
            };
            if parent.extension.eq_ignore_ascii_case(ZIP_EXTENSION) {
                continue;
            }
            seen.insert(relation.parent_uid.clone());
            found.push((relation, parent));
        }
    }
    found.sort_by(|a, b| (&a.0.parent_uid, &a.0.child_uid).cmp(&(&b.0.parent_uid, &b.0.child_uid)));
    Ok(found)
}

/// The company's files ranked by `views`, as the duplicates search ranks one file.
fn rank(
    tx: &mut dyn StoreTx,
    state: &AppState,
    visual: &partlens_visual::VisualLibrary,
    company_id: &str,
    views: &[ViewDescriptor],
) -> Result<Vec<(String, f32)>, ServiceError> {
    rank_by_own_views(tx, visual, &state.filter_scopes, company_id, views)
}
