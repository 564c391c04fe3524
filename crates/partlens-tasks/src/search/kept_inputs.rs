//! Views searched by the input UID they got earlier: before such a search the service is asked
//! whether it still has each input (`GET /api/FileStatus`, no upload). One it no longer has (404,
//! deleted or never known to this service) or could not index (422) is uploaded again from where
//! its bytes are (the file, the history's copy, the sketch in memory), as if it were a new view.
//!
//! Why ask first: a search by an unknown UID is not an error everywhere (the local service, like
//! the interface for an input not indexed yet, answers with no matches), so a search kept in the
//! history would otherwise come back empty instead of finding the part. The check costs one small
//! call per kept view; inputs still being indexed (204) count as present.

use tokio_util::sync::CancellationToken;

use super::search_flow::FileSearchError;
use super::view_search::{KeptInput, ViewSearchRequest};
use partlens_api::{ApiClient, FileStatus, FileUid};

/// The request with every kept input the service no longer has moved to the uploads (after the
/// views already to upload, in the order they were kept), and the UIDs of those inputs in that
/// order.
pub async fn recheck_kept_inputs(
    client: &ApiClient,
    mut request: ViewSearchRequest,
    cancel: &CancellationToken,
) -> Result<(ViewSearchRequest, Vec<FileUid>), FileSearchError> {
    let mut gone = Vec::new();
    let mut still_there = Vec::with_capacity(request.kept.len());
    for kept in std::mem::take(&mut request.kept) {
        let status = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            status = client.file_status(&kept.uid) => status?,
        };
        if matches!(status, FileStatus::Unknown | FileStatus::Failed { .. }) {
            tracing::info!(
                "search input {} is {} on the service: uploading {} again",
                kept.uid,
                status.name(),
                kept.source.name()
            );
            gone.push(kept);
        } else {
            still_there.push(kept);
        }
    }
    request.kept = still_there;
    request
        .filter
        .file_uids
        .retain(|uid| !gone.iter().any(|kept| kept.uid == *uid));
    let gone_uids = gone.iter().map(|kept| kept.uid.clone()).collect();
    request
        .uploads
        .extend(gone.into_iter().map(|kept: KeptInput| kept.source));
    Ok((request, gone_uids))
}
