//! Which results of a search by a model are its mirror image (issue 49: "a left and a right bracket
//! are the same part mirrored"). The engine's pose makes a mirrored copy score as the part itself;
//! every view of a model carries its handedness (`partlens_engine::mesh::Handedness`), so a result
//! is the mirror image of the model searched by when its shape matches (its visual score, before
//! the size ranking, is at least [`MIRRORED_FROM`]) and both models are clearly handed, of
//! opposite hands. A search result that is says so (`Mirrored: true`); `ignoreMirrored=true`
//! leaves such results out. Mirrored is a flag, never a term of a score: the ranking is unchanged.
//!
//! Cost: nothing unless the model searched by is clearly handed (most parts, with a mirror plane,
//! are not); then one stored view (one row by primary key) for each ranked result at or above
//! [`MIRRORED_FROM`].

use std::collections::HashSet;

use super::error::ServiceError;
use partlens_engine::{ViewDescriptor, facts_of};
use partlens_store::StoreTx;
use partlens_visual::Ranked;

/// A result whose visual score is at least this has the shape of the model searched by, so a
/// result of the opposite hand is its mirror image. The corpus's twins (a STEP file and its STL)
/// score 0.91–0.995 against each other and the sizes of one part 0.9–0.99; unrelated shapes
/// 0.73–0.85 (`part_size.rs`). A mirrored copy of a part scores as the part itself.
pub const MIRRORED_FROM: f32 = 0.9;

/// The UIDs among `ranked` (visual scores, before the size ranking) that are mirror images of the
/// file `query_views` show (see the module doc). A result whose stored view cannot be read is not
/// said to be mirrored (the search still answers; such a file is indexed again when searched by).
pub fn mirror_images(
    tx: &mut dyn StoreTx,
    query_views: &[ViewDescriptor],
    ranked: &Ranked,
) -> Result<HashSet<String>, ServiceError> {
    let query = facts_of(query_views);
    let mut mirrored = HashSet::new();
    if !query.handedness().is_handed() {
        return Ok(mirrored);
    }
    for (uid, _) in ranked.iter().filter(|(_, score)| *score >= MIRRORED_FROM) {
        let Some(bytes) = tx.first_view_of(uid)? else {
            continue;
        };
        if let Ok(view) = ViewDescriptor::from_bytes(&bytes)
            && query.mirrors(view.facts())
        {
            mirrored.insert(uid.clone());
        }
    }
    Ok(mirrored)
}
