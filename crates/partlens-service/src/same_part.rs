//! What makes two files candidates for one part, for the duplicates kept when files are indexed
//! ([`crate::pairing`]) and the components named after the company's parts
//! ([`crate::same_part_links`]): a file's best [`NEIGHBOURS`] by its own views, and the size rule
//! ([`same_part_score`]: two models within [`SAME_SIZE`] of each other, or two files without a
//! size).

use partlens_engine::ViewDescriptor;
use partlens_store::StoreTx;

use super::error::ServiceError;
use super::part_size::{PartSize, blend, size_difference};

/// How many of a file's best matches are considered its possible duplicates.
pub const NEIGHBOURS: usize = 20;

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
