//! Views searched by the input UID they got earlier: before such a search the service is asked
//! whether it still has each input (`GET /api/FileStatus`, no upload). One it no longer has (404,
//! deleted or never known to this service) or could not index (422) goes up again from where its
//! bytes are (the file, the history's copy, the sketch in memory), as if it were a new view; a file
//! of the company's library, which has no bytes here, cannot, and the search says so.
//!
//! Why ask first: a search by an unknown UID is not an error everywhere (the local service, like
//! the interface for an input not indexed yet, answers with no matches), so a search kept in the
//! history would otherwise come back empty instead of finding the part. The check costs one small
//! call per kept view; inputs still being indexed (204) count as present.

use tokio_util::sync::CancellationToken;

use super::search_flow::FileSearchError;
use super::view_search::{ViewSearchRequest, ViewSource};
use partlens_api::{ApiClient, FileStatus};

/// The request with the input UID of every view the service no longer has taken away (so it goes
/// up with the search), and the slots of those views in the bar's order.
pub async fn recheck_kept_inputs(
    client: &ApiClient,
    mut request: ViewSearchRequest,
    cancel: &CancellationToken,
) -> Result<(ViewSearchRequest, Vec<u64>), FileSearchError> {
    let mut gone = Vec::new();
    for view in &mut request.views {
        let Some(uid) = &view.input else {
            continue;
        };
        let status = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            status = client.file_status(uid) => status?,
        };
        let reason = match status {
            FileStatus::Unknown => "it is no longer in the library",
            FileStatus::Failed { .. } => "the service could not index it",
            FileStatus::InProgress | FileStatus::Completed { .. } => continue,
        };
        if let ViewSource::LibraryFile { name, .. } = &view.source {
            return Err(FileSearchError::LibraryFileUnusable {
                name: name.clone(),
                reason,
            });
        }
        tracing::info!(
            "search input {uid} is {} on the service: uploading {} again",
            status.name(),
            view.source.name()
        );
        view.input = None;
        gone.push(view.slot);
    }
    Ok((request, gone))
}
