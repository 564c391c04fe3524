//! Duplicate parts for the app's Duplicates place: `GET /api/Duplicates` (this project's service
//! only), answered at once with the groups; then, as the place asks for them, the records of the
//! files it shows (`Command::LoadDuplicateRecords`), so each can be shown with its thumbnail and
//! compared (the groups carry UIDs, names and sizes, not the image links, whose tokens come with a
//! record). At 4,609 groups (9,000-odd files, a 100,000-file library) loading every record before
//! answering took thousands of calls; now the place shows the groups at once and asks for the
//! records of the files on or near the screen.
//!
//! The call may take a while on a large library: the app shows what is happening
//! (`Event::DuplicatesProgress`) and may stop waiting (`Command::CancelDuplicates`; the service
//! finishes on its own). A 401 parks either command until the next login, as for the other reads;
//! any other failure of the groups is answered with the error, so the place can say what to do
//! next, and a record that could not be loaded is answered as none.

use std::collections::HashMap;
use std::sync::{MutexGuard, PoisonError};

use futures_util::StreamExt as _;
use tokio_util::sync::CancellationToken;

pub mod parts;

pub use self::parts::{DuplicatePartFile, DuplicatePartGroup, DuplicateParts, DuplicateRecord};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::Event;
use partlens_api::duplicates::DuplicatesReply;
use partlens_api::{ApiClient, ApiError, FileRef, FileUid, GetFileRequest};

/// Records asked for at once by one `Command::LoadDuplicateRecords`.
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

    /// Runs [`Command::LoadDuplicateRecords`].
    pub(super) fn load_duplicate_records(&self, command: Command) {
        let Command::LoadDuplicateRecords { request, uids } = &command else {
            return;
        };
        let (request, uids) = (*request, uids.clone());
        let Some((client, generation, _)) = self.client_or_park(&command) else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            match load_records(&client, uids).await {
                Ok(records) => backend.emit(Event::DuplicateRecordsLoaded { request, records }),
                // The only error that stops them all.
                Err(_unauthorized) => backend.on_unauthorized(generation, command),
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

/// Asks for the groups (the service reads its stored pairs: a quarter of a second at 100,000
/// files); the records are loaded later, for the files the place shows.
async fn find(
    backend: &Backend,
    client: &ApiClient,
    request: u64,
    min_score: Option<f64>,
) -> Result<DuplicateParts, ApiError> {
    backend.emit(Event::DuplicatesProgress {
        request,
        detail: "The service is gathering the files of your company that are the same part…".into(),
    });
    let reply: DuplicatesReply = client.duplicates(min_score).await?;
    let groups = reply
        .groups
        .into_iter()
        .map(|group| DuplicatePartGroup {
            score: group.score,
            files: group
                .files
                .into_iter()
                .map(|file| DuplicatePartFile { file, record: None })
                .collect(),
        })
        .collect();
    Ok(DuplicateParts {
        min_score: reply.min_score,
        files_compared: reply.files_compared,
        groups,
    })
}

/// The records of `uids`, [`RECORDS_AT_ONCE`] calls at a time, in order; a file whose record
/// could not be loaded has none (its card says so), a 401 stops them all.
async fn load_records(
    client: &ApiClient,
    uids: Vec<FileUid>,
) -> Result<Vec<DuplicateRecord>, ApiError> {
    let mut loaded = futures_util::stream::iter(uids)
        .map(|uid| async move {
            let record = client
                .get_file(&GetFileRequest::new(FileRef::Uid(uid.clone())))
                .await;
            (uid, record)
        })
        .buffered(RECORDS_AT_ONCE);
    let mut records = Vec::new();
    while let Some((uid, record)) = loaded.next().await {
        let record = match record {
            Ok(record) => Some(record),
            Err(ApiError::Unauthorized) => return Err(ApiError::Unauthorized),
            Err(error) => {
                tracing::info!("the record of duplicate {uid} was not loaded: {error}");
                None
            }
        };
        records.push(DuplicateRecord { uid, record });
    }
    Ok(records)
}
