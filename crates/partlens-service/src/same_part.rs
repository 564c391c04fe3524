//! What makes two files candidates for one part, for the duplicates kept when files are indexed
//! ([`crate::pairing`]) and the components named after the company's parts
//! ([`crate::same_part_links`]): a file's best [`NEIGHBOURS`] by its own views, and the size rule
//! ([`same_part_score`]: two models within [`SAME_SIZE`] of each other, or two files without a
//! size).

use std::collections::HashSet;

use partlens_engine::ViewDescriptor;
use partlens_engine::mesh::search_input_views_of_database_model;
use partlens_store::StoreTx;
use partlens_visual::{FileFilter, Ranked, StoreViews, ViewSearch, VisualLibrary};

use super::error::ServiceError;
use super::filter_scopes::FilterScopes;
use super::part_size::{PartSize, blend, size_difference};
use super::visual_ranking::rank_visually;

/// How many of a file's best matches are considered its possible duplicates.
pub const NEIGHBOURS: usize = 20;

/// How many times [`NEIGHBOURS`] files the first pass of [`rank_by_own_views`] finds.
pub const FIRST_PASS_FACTOR: usize = 3;

/// The company's files ranked by `views`, a database file's own views, best first, at most
/// [`NEIGHBOURS`]: the scores a search by all of them gives (the exact ranking's scores).
///
/// A model's 163 views (211 when flat) compared one to one with every other model's cost five
/// times what a search by the 33 views a model brings as a search input does (pairing one file was
/// 40 % of its time on the service in a bulk load, growing with the library). So for a model of the
/// current pipeline, the first pass ranks by those 33 views of it
/// ([`search_input_views_of_database_model`]: the directions a model searched by is seen from,
/// and its picture) for [`FIRST_PASS_FACTOR`] × [`NEIGHBOURS`] candidates, and the second ranks
/// those candidates alone by all its views. A candidate the first pass misses is one that is not
/// among the 60 best by 33 of the same views; the ones kept are scored exactly as before. Other
/// files (a picture, a drawing, an older model) are ranked by their views in one pass.
pub(crate) fn rank_by_own_views(
    tx: &mut dyn StoreTx,
    visual: &VisualLibrary,
    scopes: &FilterScopes,
    company_id: &str,
    views: &[ViewDescriptor],
) -> Result<Ranked, ServiceError> {
    let Some(positions) = search_input_views_of_database_model(views.len()) else {
        return rank_visually(tx, visual, scopes, company_id, &[], views, NEIGHBOURS)
            .map(|(ranked, _)| ranked);
    };
    let first_views: Vec<ViewDescriptor> = positions
        .iter()
        .filter_map(|&at| views.get(at).cloned())
        .collect();
    let (found, _) = rank_visually(
        &mut *tx,
        visual,
        scopes,
        company_id,
        &[],
        &first_views,
        NEIGHBOURS * FIRST_PASS_FACTOR,
    )?;
    let candidates: HashSet<String> = found.into_iter().map(|(uid, _)| uid).collect();
    let stored = StoreViews {
        tx: std::cell::RefCell::new(tx),
    };
    let (ranked, _) = visual.rank_and_count(
        company_id,
        views,
        FileFilter::Only(&candidates),
        NEIGHBOURS,
        &stored,
    )?;
    Ok(ranked)
}

/// The largest size difference ([`size_difference`]: the mean log ratio of the sorted extents) of
/// two files of one part: 3 %, well under the step between two standard sizes (M8 to M10 is 0.2).
pub const SAME_SIZE: f32 = 0.03;

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
