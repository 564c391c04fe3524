//! Duplicate parts for the app's Duplicates place: `GET /api/Duplicates` (this project's service
//! only), then the record of every file found, so each can be shown with its thumbnail and compared
//! (the groups carry UIDs, names and sizes, not the image links, whose tokens come with a record).
//!
//! One call compares every file of the company and may take a while: the app shows what is
//! happening (`Event::DuplicatesProgress`) and may stop waiting (`Command::CancelDuplicates`; the
//! service finishes its comparison on its own). A 401 parks the command until the next login, as
//! for the other reads; any other failure is answered with the error, so the place can say what to
//! do next.

use std::collections::HashMap;
use std::sync::{MutexGuard, PoisonError};

use futures_util::StreamExt as _;
use tokio_util::sync::CancellationToken;

pub mod parts;

pub use self::parts::{DuplicatePartFile, DuplicatePartGroup, DuplicateParts};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::Event;
use partlens_api::duplicates::DuplicatesReply;
use partlens_api::{ApiClient, ApiError, FileMap, FileRef, GetFileRequest};

/// Records asked for at once after the groups came in.
const RECORDS_AT_ONCE: usize = 4;

impl Backend {
    /// Runs [`Command::FindDuplicates`].
    pub(super) fn find_duplicates(&self, command: Command) {
        let Command::FindDuplicates { request, min_score } = &command else {
            return;
        };
        let (request, min_score) = (*request, *min_score);
        let Some((client, generation, cancel)) = self.client_or_park(&command) else {
            return;
        };
        self.running_duplicates().insert(request, cancel.clone());
        let backend = self.clone();
        self.spawn(async move {
            let work = find(&backend, &client, request, min_score);
            let outcome = tokio::select! {
                outcome = work => Some(outcome),
                () = cancel.cancelled() => None,
            };
            backend.running_duplicates().remove(&request);
            match outcome {
                // Cancelled: the place already says so.
                None => {}
                Some(Ok(parts)) => backend.emit(Event::DuplicatesFound { request, parts }),
                Some(Err(ApiError::Unauthorized)) => backend.on_unauthorized(generation, command),
                Some(Err(error)) => backend.emit(Event::DuplicatesFailed { request, error }),
            }
        });
    }

    /// Runs [`Command::CancelDuplicates`].
    pub(super) fn cancel_duplicates(&self, request: u64) {
        if let Some(cancel) = self.running_duplicates().remove(&request) {
            cancel.cancel();
        }
    }

    /// The cancellation tokens of the running duplicate searches, locked.
    fn running_duplicates(&self) -> MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.shared
            .duplicates
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Asks for the groups, then the records of their files (a few at a time), saying how far it is.
async fn find(
    backend: &Backend,
    client: &ApiClient,
    request: u64,
    min_score: Option<f64>,
) -> Result<DuplicateParts, ApiError> {
    backend.emit(Event::DuplicatesProgress {
        request,
        detail: "The service is comparing every file of your company with the others…".into(),
    });
    let reply: DuplicatesReply = client.duplicates(min_score).await?;
    let total: usize = reply.groups.iter().map(|group| group.files.len()).sum();
    let mut groups = Vec::with_capacity(reply.groups.len());
    let mut loaded = 0;
    for group in reply.groups {
        let mut records = futures_util::stream::iter(group.files)
            .map(|file| async move {
                let record = load_record(client, &file.uid).await;
                (file, record)
            })
            .buffered(RECORDS_AT_ONCE);
        let mut files = Vec::new();
        while let Some((file, record)) = records.next().await {
            let record = match record {
                Ok(record) => Some(record),
                Err(ApiError::Unauthorized) => return Err(ApiError::Unauthorized),
                Err(error) => {
                    tracing::info!(
                        "the record of duplicate {} was not loaded: {error}",
                        file.uid
                    );
                    None
                }
            };
            files.push(DuplicatePartFile { file, record });
            loaded += 1;
            backend.emit(Event::DuplicatesProgress {
                request,
                detail: format!("Loading the files found ({loaded} of {total})…"),
            });
        }
        groups.push(DuplicatePartGroup {
            score: group.score,
            files,
        });
    }
    Ok(DuplicateParts {
        min_score: reply.min_score,
        files_compared: reply.files_compared,
        groups,
    })
}

/// The record of one file of a group.
async fn load_record(client: &ApiClient, uid: &str) -> Result<FileMap, ApiError> {
    let uid = partlens_api::FileUid::from_reply(uid);
    client
        .get_file(&GetFileRequest::new(FileRef::Uid(uid)))
        .await
}
