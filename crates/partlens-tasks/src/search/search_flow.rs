//! Searching by files: the workflow that both the app and the CLI use.
//!
//! The workflow is chosen in one place, [`Workflow::choose`]: views that share an extension go up
//! in one `PUT /api/Search`; mixed formats (or an explicit two-step, or asynchronous indexing)
//! upload each view as a search input, wait until every input is indexed, then run
//! `GET /api/Search` by their UIDs. No search is sent for an input that is not indexed yet.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::jobs::poll::{PollPolicy, WaitOutcome, wait_for_indexing};
use partlens_api::search::shared_extension;
use partlens_api::{
    ApiClient, ApiError, Decoded, FileStatus, FileUid, ProgressFn, SearchFilter, SearchRequest,
    SearchResult, UploadRequest, UploadSource,
};

/// What the caller asks of a file search's workflow; [`Workflow::choose`] turns it and the views
/// into the workflow that runs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileSearchOptions {
    /// Upload each view first and search by UIDs even when one call would do.
    pub two_step: bool,
    /// Index the uploaded views asynchronously and poll until each is done (implies two-step).
    pub index_async: bool,
    /// When the views cannot go up in one call (their formats differ), index them asynchronously
    /// and poll, so that each view's indexing can be shown while it runs (the app does).
    pub poll_when_mixed: bool,
    /// Further search parameters the interface leaves open (`maxResults`, `sizeFirst`,
    /// `ignoreMirrored`: [`partlens_api::SearchOptions::params`]), sent with the search call
    /// whichever the workflow.
    pub search_params: Vec<(String, String)>,
}

/// How the views of one file search go up, chosen once ([`Workflow::choose`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workflow {
    /// Every view in one `PUT /api/Search`, indexed during the call.
    SingleCall,
    /// Each view uploaded as a search input, then one `GET /api/Search` by their UIDs.
    TwoStep {
        /// `indexAsync=true` and polling until each input is indexed, or indexed during its upload.
        index_async: bool,
    },
}

impl Workflow {
    /// The workflow for these views: one call when they share an extension and the options ask
    /// for nothing else, otherwise two-step (asynchronous when asked, or when the formats differ
    /// and `poll_when_mixed`).
    pub fn choose(views: &[UploadSource], options: &FileSearchOptions) -> Self {
        if options.two_step || options.index_async {
            return Self::TwoStep {
                index_async: options.index_async,
            };
        }
        if shared_extension(views).is_ok() {
            Self::SingleCall
        } else {
            Self::TwoStep {
                index_async: options.poll_when_mixed,
            }
        }
    }
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

/// The answer of a file search: the input UID each view got (kept so later text or filter changes
/// search again without uploading) and the result, parsed and as the service sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct FileSearchOutcome {
    /// The search-input UIDs of the views given, one a view, in their order (not the inputs the
    /// filter already named).
    pub view_uids: Vec<FileUid>,
    /// The result.
    pub result: SearchResult,
    /// The result as the service sent it.
    pub result_json: serde_json::Value,
}

impl FileSearchOutcome {
    /// The outcome of a search whose views got `view_uids`, from the decoded reply.
    pub fn new(view_uids: Vec<FileUid>, reply: Decoded<SearchResult>) -> Self {
        Self {
            view_uids,
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
    /// A file of the company's library searched by its own UID that the service no longer has
    /// or could not index: there is nothing to upload in its place.
    #[error("{name} cannot be searched by: {reason}; search by another file")]
    LibraryFileUnusable {
        /// Its name.
        name: String,
        /// Why, in words ("it is no longer in the library").
        reason: &'static str,
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
            Self::IndexingFailed { .. }
            | Self::IndexingRefused { .. }
            | Self::LibraryFileUnusable { .. }
            | Self::Cancelled => false,
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

/// Runs a search by views (1 to 10 files) plus `filter`'s text and attribute terms and the inputs
/// it already names, in the workflow [`Workflow::choose`] picks.
pub async fn run_file_search(
    client: &ApiClient,
    views: &[UploadSource],
    filter: SearchFilter,
    options: &FileSearchOptions,
    poll_policy: &PollPolicy,
    cancel: &CancellationToken,
    progress: impl Fn(FileSearchProgress) + Send + Sync + Clone + 'static,
) -> Result<FileSearchOutcome, FileSearchError> {
    check_view_count(views)?;
    match Workflow::choose(views, options) {
        Workflow::SingleCall => {
            single_call(client, views, (filter, options), cancel, progress).await
        }
        Workflow::TwoStep { index_async } => {
            let view_uids = upload_each(
                client,
                views,
                index_async,
                poll_policy,
                cancel,
                progress.clone(),
            )
            .await?;
            progress(FileSearchProgress::Searching);
            let mut request = SearchRequest::new(filter.with_uids(view_uids.clone()));
            request.extra_params = options.search_params.clone();
            let reply = tokio::select! {
                _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
                reply = client.search_decoded(&request) => reply?,
            };
            Ok(FileSearchOutcome::new(view_uids, reply))
        }
    }
}

/// Refuses no view and more than a search takes, before anything is sent.
fn check_view_count(views: &[UploadSource]) -> Result<(), FileSearchError> {
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
    Ok(())
}

/// One `PUT /api/Search`: the service indexes the views during the call, so its answer needs no
/// polling. The views' UIDs close its `InputFileUID` list. The service answers a view it could not
/// index with no views of it rather than an error (docs/ARCHITECTURE.md, "No search for an input
/// that failed to index"): only when the answer holds no result at all is each new input's status
/// asked, so that a view the service could not read says so instead of looking like a search
/// without matches.
async fn single_call(
    client: &ApiClient,
    views: &[UploadSource],
    (filter, options): (SearchFilter, &FileSearchOptions),
    cancel: &CancellationToken,
    progress: impl Fn(FileSearchProgress),
) -> Result<FileSearchOutcome, FileSearchError> {
    progress(FileSearchProgress::Searching);
    let Decoded {
        value: result,
        json: result_json,
    } = tokio::select! {
        _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
        reply = client.search_with_files_and_params_decoded(views, &filter, &options.search_params) => reply?,
    };
    let input_uids = result.input_uids();
    let Some(earlier) = input_uids.len().checked_sub(views.len()) else {
        return Err(ApiError::Decode(format!(
            "the service answered {} input UIDs for a search by {} views",
            input_uids.len(),
            views.len()
        ))
        .into());
    };
    let view_uids = input_uids[earlier..].to_vec();
    if result.results.is_empty() {
        for (view, uid) in view_uids.iter().enumerate() {
            let state = tokio::select! {
                _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
                state = client.file_status(uid) => state?,
            };
            if matches!(state, FileStatus::Failed { .. } | FileStatus::Unknown) {
                return Err(FileSearchError::indexing_failed(
                    view,
                    views[view].file_name(),
                    &state,
                ));
            }
        }
    }
    Ok(FileSearchOutcome {
        view_uids,
        result,
        result_json,
    })
}

/// Uploads each view as a search input and waits until it is indexed (a synchronous upload is
/// indexed when it returns, so its first poll answers at once; the poll still tells a failed
/// indexing): no search is sent for an input that is not indexed. Returns the views' UIDs.
async fn upload_each(
    client: &ApiClient,
    views: &[UploadSource],
    index_async: bool,
    poll_policy: &PollPolicy,
    cancel: &CancellationToken,
    progress: impl Fn(FileSearchProgress) + Send + Sync + Clone + 'static,
) -> Result<Vec<FileUid>, FileSearchError> {
    let mut view_uids = Vec::with_capacity(views.len());
    for (view, source) in views.iter().enumerate() {
        let mut request = UploadRequest::search_input(source.clone());
        request.index_async = index_async;
        let size = source.size().await?;
        let report = progress.clone();
        let on_bytes: ProgressFn = std::sync::Arc::new(move |sent, total| {
            report(FileSearchProgress::Uploading { view, sent, total });
        });
        let outcome = tokio::select! {
            _ = cancel.cancelled() => return Err(FileSearchError::Cancelled),
            outcome = client.upload(&request, Some(on_bytes)) => outcome?,
        };
        let report = progress.clone();
        let waited = wait_for_indexing(
            client,
            &outcome.uid,
            size,
            poll_policy,
            cancel,
            move |_, waited| report(FileSearchProgress::Indexing { view, waited }),
        )
        .await?;
        match waited {
            WaitOutcome::Finished(FileStatus::Completed { .. }) => view_uids.push(outcome.uid),
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
    Ok(view_uids)
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
    fn the_workflow_is_one_call_for_one_extension_unless_told_otherwise() {
        let same = [view("a.png"), view("b.PNG")];
        let mixed = [view("a.png"), view("b.jpg")];
        let default = FileSearchOptions::default();
        assert_eq!(Workflow::choose(&same, &default), Workflow::SingleCall);
        assert_eq!(
            Workflow::choose(&mixed, &default),
            Workflow::TwoStep { index_async: false }
        );
        let app = FileSearchOptions {
            poll_when_mixed: true,
            ..FileSearchOptions::default()
        };
        assert_eq!(Workflow::choose(&same, &app), Workflow::SingleCall);
        assert_eq!(
            Workflow::choose(&mixed, &app),
            Workflow::TwoStep { index_async: true }
        );
        let two_step = FileSearchOptions {
            two_step: true,
            ..FileSearchOptions::default()
        };
        assert_eq!(
            Workflow::choose(&same, &two_step),
            Workflow::TwoStep { index_async: false }
        );
        let asynchronous = FileSearchOptions {
            index_async: true,
            ..FileSearchOptions::default()
        };
        assert_eq!(
            Workflow::choose(&same, &asynchronous),
            Workflow::TwoStep { index_async: true }
        );
    }
}
