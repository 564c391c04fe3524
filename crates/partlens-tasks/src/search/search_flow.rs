//! Searching by files: the workflow that both the app and the CLI use.
//!
//! Views that share an extension go up in one `PUT /api/Search`. Mixed formats (or an explicit
//! two-step, or asynchronous indexing) upload each view as a search input, wait until every input is
//! indexed, then run `GET /api/Search` by their UIDs. No search is sent for an input that is not
//! indexed yet.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::jobs::poll::{PollPolicy, WaitOutcome, wait_for_indexing};
use partlens_api::search::shared_extension;
use partlens_api::{
    ApiClient, ApiError, Decoded, FileStatus, FileUid, ProgressFn, SearchFilter, SearchRequest,
    SearchResult, UploadRequest, UploadSource,
};

/// How the views of a file search go up.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSearchOptions {
    /// Upload each view first and search by UIDs even when one call would do.
    pub two_step: bool,
    /// Index the uploaded views asynchronously and poll until each is done (implies two-step).
    pub index_async: bool,
}

/// Where a file search is.
#[derive(Clone, Debug, PartialEq)]
pub enum FileSearchProgress {
    /// View `view` (0-based) is going up: `sent` of `total` bytes.
    Uploading {
        /// Index of the view.
        view: usize,
        /// Bytes sent so far.
        sent: u64,
        /// Size of the view.
        total: u64,
    },
    /// View `view` is uploaded and being indexed.
    Indexing {
        /// Index of the view.
        view: usize,
        /// Time waited so far.
        waited: Duration,
    },
    /// Every input is ready; the search is running.
    Searching,
}

/// The answer of a file search: the input UIDs (kept so later text or filter changes search again
/// without uploading) and the result, parsed and as the service sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSearchOutcome {
    /// The search-input UIDs, one per view.
    pub input_uids: Vec<FileUid>,
    /// The result.
    pub result: SearchResult,
    /// The result as the service sent it.
    pub result_json: serde_json::Value,
}

impl FileSearchOutcome {
    /// The outcome of a search by these inputs, from the decoded reply.
    pub fn new(input_uids: Vec<FileUid>, reply: Decoded<SearchResult>) -> Self {
        Self {
            input_uids,
            result: reply.value,
            result_json: reply.json,
        }
    }
}

/// An error of the file-search workflow.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FileSearchError {
    /// A call to the service failed.
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A view could not be indexed (422) or vanished (404).
    #[error("view {} ({name}) could not be indexed: the service reported it {state}; try another file", view + 1)]
    IndexingFailed {
        /// Index of the view.
        view: usize,
        /// Its file name.
        name: String,
        /// The terminal state's name.
        state: &'static str,
    },
    /// A view could not be indexed, and the service said why (422 with `X-Failure-Reason`).
    #[error("view {} ({name}) could not be indexed: {reason}; try another file", view + 1)]
    IndexingRefused {
        /// Index of the view.
        view: usize,
        /// Its file name.
        name: String,
        /// The service's reason, in its words.
        reason: String,
    },
    /// A view was still being indexed when the deadline passed.
    #[error("view {} ({name}) was still being indexed after {}s; try again later", view + 1, waited.as_secs())]
    IndexingTimedOut {
        /// Index of the view.
        view: usize,
        /// Its file name.
        name: String,
        /// How long was waited.
        waited: Duration,
    },
    /// The caller cancelled.
    #[error("the search was cancelled")]
    Cancelled,
}

impl FileSearchError {
    /// True when running the same search again later may succeed: network trouble, a 5xx, a view
    /// still being indexed. A view the service could not read fails again.
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Api(error) => error.is_transient(),
            Self::IndexingTimedOut { .. } => true,
            Self::IndexingFailed { .. } | Self::IndexingRefused { .. } | Self::Cancelled => false,
        }
    }

    /// The error for view `view` (`name`) that ended indexing in `state` (failed or unknown): with
    /// the service's reason when it gave one.
    fn indexing_failed(view: usize, name: String, state: &FileStatus) -> Self {
        match state {
            FileStatus::Failed {
                reason: Some(reason),
            } if !reason.trim().is_empty() => Self::IndexingRefused {
                view,
                name,
                reason: reason.trim().trim_end_matches('.').to_owned(),
            },
            _ => Self::IndexingFailed {
                view,
                name,
                state: state.name(),
            },
        }
    }
}

/// True when the views can go up in one `PUT /api/Search` under these options.
pub fn uses_single_call(views: &[UploadSource], options: &FileSearchOptions) -> bool {
    !options.two_step && !options.index_async && shared_extension(views).is_ok()
}

/// Runs a search by views (1 to 10 files) plus `filter`'s text and attribute terms.
pub async fn run_file_search(
    client: &ApiClient,
    views: &[UploadSource],
    filter: SearchFilter,
    options: &FileSearchOptions,
    poll_policy: &PollPolicy,
    cancel: &CancellationToken,
    progress: impl Fn(FileSearchProgress) + Send + Sync + Clone + 'static,
) -> Result<FileSearchOutcome, FileSearchError> {
    if views.is_empty() {
        return Err(ApiError::InvalidInput("give at least one view to search by".into()).into());
    }
    if views.len() > partlens_api::limits::MAX_SEARCH_FILES {
        return Err(ApiError::InvalidInput(format!(
            "{} views given; one search takes at most {}",
            views.len(),
            partlens_api::limits::MAX_SEARCH_FILES
        ))
        .into());
    }
    if uses_single_call(views, options) {
        progress(FileSearchProgress::Searching);
        let Decoded {
            value: result,
            json: result_json,
        } = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            reply = client.search_with_files_decoded(views, &filter) => reply?,
        };
        // The new inputs close the InputFileUID list; a view the service could not index would
        // otherwise look like a search without matches.
        let input_uids = result.input_uids();
        let new_inputs = input_uids.len().saturating_sub(views.len());
        for (view, uid) in input_uids.iter().skip(new_inputs).enumerate() {
            let state = client.file_status(uid).await?;
            if matches!(state, FileStatus::Failed { .. } | FileStatus::Unknown) {
                return Err(FileSearchError::indexing_failed(
                    view,
                    views[view].file_name(),
                    &state,
                ));
            }
        }
        return Ok(FileSearchOutcome {
            input_uids,
            result,
            result_json,
        });
    }

    let mut input_uids = Vec::with_capacity(views.len());
    for (view, source) in views.iter().enumerate() {
        let mut request = UploadRequest::search_input(source.clone());
        request.index_async = options.index_async;
        let size = source.size().await?;
        let report = progress.clone();
        let on_bytes: ProgressFn = std::sync::Arc::new(move |sent, total| {
            report(FileSearchProgress::Uploading { view, sent, total });
        });
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            outcome = client.upload(&request, Some(on_bytes)) => outcome?,
        };
        // A synchronous upload is indexed when it returns, so the first poll answers at once; it still
        // tells whether indexing failed, and no search is sent for an input that is not indexed.
        {
            let report = progress.clone();
            let waited = wait_for_indexing(
                client,
                &outcome.uid,
                size,
                poll_policy,
                cancel,
                move |_, waited| {
                    report(FileSearchProgress::Indexing { view, waited });
                },
            )
            .await?;
            match waited {
                WaitOutcome::Finished(FileStatus::Completed { .. }) => {}
                WaitOutcome::Finished(state) => {
                    return Err(FileSearchError::indexing_failed(
                        view,
                        source.file_name(),
                        &state,
                    ));
                }
                WaitOutcome::TimedOut { waited } => {
                    return Err(FileSearchError::IndexingTimedOut {
                        view,
                        name: source.file_name(),
                        waited,
                    });
                }
                WaitOutcome::Cancelled => return Err(FileSearchError::Cancelled),
            }
        }
        input_uids.push(outcome.uid);
    }

    progress(FileSearchProgress::Searching);
    let request = SearchRequest::new(filter.with_uids(input_uids.clone()));
    let reply = tokio::select! {
        _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
        reply = client.search_decoded(&request) => reply?,
    };
    Ok(FileSearchOutcome::new(input_uids, reply))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(name: &str) -> UploadSource {
        UploadSource::Bytes {
            name: name.into(),
            bytes: bytes::Bytes::from_static(b"x"),
        }
    }

    #[test]
    fn one_extension_goes_in_one_call_unless_told_otherwise() {
        let same = [view("a.png"), view("b.png")];
        let mixed = [view("a.png"), view("b.jpg")];
        assert!(uses_single_call(&same, &FileSearchOptions::default()));
        assert!(!uses_single_call(&mixed, &FileSearchOptions::default()));
        assert!(!uses_single_call(
            &same,
            &FileSearchOptions {
                two_step: true,
                index_async: false
            }
        ));
        assert!(!uses_single_call(
            &same,
            &FileSearchOptions {
                two_step: false,
                index_async: true
            }
        ));
    }
}
