//! The local workspace's sample library, added once: after the workspace's login the parts not in
//! yet go up one at a time as company-database files, in the background, each written to the
//! record as soon as it is in ([`record`]), so a start that stopped carries on where it was. The
//! user's own work goes first: while one of their uploads or searches runs, no part goes up (one
//! already on its way finishes). Only one addition runs at a time, whatever the logins. Removing
//! it (Settings) stops the addition, writes *removed* first, then deletes every sample part by its
//! stored path; a removed library is never added again.

pub mod record;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use self::record::{SampleLibrary, SampleLibraryStatus, SampleRecord, SampleState};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::{Event, NoticeLevel};
use partlens_api::{ApiClient, ApiError, FileRef, GetFileRequest, UploadRequest, UploadSource};

/// How long one part's upload (and indexing) may take before it is left for the next start.
const PART_DEADLINE: Duration = Duration::from_secs(120);

/// How often a paused addition looks whether the user's work has ended.
const PAUSE_CHECK: Duration = Duration::from_millis(250);

impl Backend {
    /// After the local workspace's login: says where its sample library is and carries on adding
    /// it when it is not all in (or on removing it when a removal stopped); then sends `waiting`
    /// (work asked for before the first login, which runs over the whole library).
    pub(crate) fn resume_sample_library(&self, waiting: Vec<Command>) {
        let Some((library, client)) = self.sample_library_and_client() else {
            self.send_all(waiting);
            return;
        };
        let record = library.read_record();
        match record.state {
            SampleState::Adding => self.add_sample_library(library, client, waiting),
            SampleState::Removed if !record.added.is_empty() => {
                self.send_all(waiting);
                self.remove_sample_library();
            }
            SampleState::Added | SampleState::Removed => {
                self.emit(Event::SampleLibrary(library.status(&record, false)));
                self.send_all(waiting);
            }
        }
    }

    /// Removes the sample library: the addition stops, the record says *removed* (so it is never
    /// added again), then every sample part is deleted by its stored path.
    pub(crate) fn remove_sample_library(&self) {
        let Some((library, client)) = self.sample_library_and_client() else {
            self.notice(
                NoticeLevel::Warning,
                "Only the local workspace has a sample library to remove.",
            );
            return;
        };
        if let Some(adding) = self.lock().samples_run.take() {
            adding.cancel();
        }
        let backend = self.clone();
        self.spawn(async move {
            let mut record = library.read_record();
            record.state = SampleState::Removed;
            record.added = library
                .parts
                .iter()
                .map(|p| p.stored_path.clone())
                .collect();
            if let Err(error) = library.write_record(&record) {
                backend.notice(
                    NoticeLevel::Error,
                    format!(
                        "The sample library could not be removed: {error} ({}). Check that the \
                         data folder is writable.",
                        library.record_path.display()
                    ),
                );
                return;
            }
            backend.emit(Event::SampleLibrary(SampleLibraryStatus::Removing));
            backend.emit_activity(&SampleLibraryStatus::Removing);
            let removed = delete_parts(&client, &library).await;
            backend.emit(Event::WorkspaceActivity { detail: None });
            match removed {
                Ok(count) => {
                    record.added.clear();
                    if let Err(error) = library.write_record(&record) {
                        tracing::warn!("the sample record could not be written: {error}");
                    }
                    backend.emit(Event::SampleLibrary(SampleLibraryStatus::Removed));
                    backend.notice(
                        NoticeLevel::Info,
                        format!(
                            "The sample library was removed ({count} files). It is not added \
                             again."
                        ),
                    );
                }
                Err(error) => backend.notice(
                    NoticeLevel::Warning,
                    format!(
                        "The sample library was only partly removed ({}); the rest is removed \
                         at the next start.",
                        crate::wording::clause(&error.to_string())
                    ),
                ),
            }
        });
    }

    /// Adds the parts not in yet, unless an addition already runs (then only `waiting` is sent).
    fn add_sample_library(
        &self,
        library: Arc<SampleLibrary>,
        client: ApiClient,
        waiting: Vec<Command>,
    ) {
        let cancel = {
            let mut state = self.lock();
            if state.samples_run.is_some() {
                drop(state);
                self.send_all(waiting);
                return;
            }
            let cancel = state.session_cancel.child_token();
            state.samples_run = Some(cancel.clone());
            cancel
        };
        let backend = self.clone();
        self.spawn(async move {
            let finished = tokio::select! {
                () = backend.add_parts(&client, &library, &cancel) => true,
                () = cancel.cancelled() => false,
            };
            backend.lock().samples_run = None;
            backend.emit(Event::WorkspaceActivity { detail: None });
            if finished {
                backend.send_all(waiting);
            }
        });
    }

    /// Uploads the parts not in yet, one at a time, each after the user's own work.
    async fn add_parts(
        &self,
        client: &ApiClient,
        library: &SampleLibrary,
        cancel: &CancellationToken,
    ) {
        let mut record = library.read_record();
        let mut left_for_later = 0;
        for part in library.remaining(&record) {
            self.wait_for_users_work(library, &record, cancel).await;
            let status = library.status(&record, false);
            self.emit_activity(&status);
            self.emit(Event::SampleLibrary(status));
            let mut request = UploadRequest::database(
                UploadSource::Path(part.path.clone()),
                part.stored_path.clone(),
                part.attributes.clone(),
            );
            request.overwrite_file = Some(true);
            match tokio::time::timeout(PART_DEADLINE, client.upload(&request, None)).await {
                Ok(Ok(_)) => {
                    record.added.push(part.stored_path.clone());
                    if let Err(error) = library.write_record(&record) {
                        tracing::warn!("the sample record could not be written: {error}");
                    }
                }
                Ok(Err(error)) => {
                    tracing::warn!("sample {} not added: {error}", part.stored_path);
                    left_for_later += 1;
                }
                Err(_) => {
                    tracing::warn!("sample {} not added: it took too long", part.stored_path);
                    left_for_later += 1;
                }
            }
        }
        if left_for_later == 0 {
            record.state = SampleState::Added;
            if let Err(error) = library.write_record(&record) {
                tracing::warn!("the sample record could not be written: {error}");
            }
        }
        tracing::info!(
            "{} of {} sample parts are in ({left_for_later} left for the next start)",
            record.added.len(),
            library.parts.len()
        );
        self.emit(Event::SampleLibrary(library.status(&record, false)));
    }

    /// Returns once none of the user's uploads and searches runs, saying meanwhile that the
    /// addition is paused.
    async fn wait_for_users_work(
        &self,
        library: &SampleLibrary,
        record: &SampleRecord,
        cancel: &CancellationToken,
    ) {
        let mut said = false;
        while self.users_work_runs() {
            if !said {
                let status = library.status(record, true);
                self.emit_activity(&status);
                self.emit(Event::SampleLibrary(status));
                said = true;
            }
            tokio::select! {
                () = tokio::time::sleep(PAUSE_CHECK) => {}
                () = cancel.cancelled() => return,
            }
        }
    }

    /// True while an upload job or a search of the user runs.
    fn users_work_runs(&self) -> bool {
        let jobs = !self.lock().running.is_empty();
        jobs || !self
            .shared
            .searches
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .is_empty()
    }

    /// The banner's sentence for `status`.
    fn emit_activity(&self, status: &SampleLibraryStatus) {
        self.emit(Event::WorkspaceActivity {
            detail: status.activity(),
        });
    }

    /// The local workspace's sample library and a client of it, when the local workspace is the
    /// service in use and has one.
    fn sample_library_and_client(&self) -> Option<(Arc<SampleLibrary>, ApiClient)> {
        let state = self.lock();
        if !state
            .service
            .as_ref()
            .is_some_and(|service| service.is_local())
        {
            return None;
        }
        let local = state.local.as_ref()?;
        Some((local.samples.clone()?, local.client.clone()))
    }

    /// Sends each command.
    fn send_all(&self, commands: Vec<Command>) {
        for command in commands {
            self.send(command);
        }
    }
}

/// Deletes every part of the library that the service holds at its stored path; returns how many.
async fn delete_parts(client: &ApiClient, library: &SampleLibrary) -> Result<usize, ApiError> {
    let mut deleted = 0;
    for part in &library.parts {
        let request = GetFileRequest::new(FileRef::Name(part.stored_path.clone()));
        let uid = match client.get_file(&request).await {
            Ok(record) => record.file_uid(),
            Err(ApiError::NotFound { .. }) => continue,
            Err(error) => return Err(error),
        };
        match client.delete_file(&uid, None).await {
            Ok(()) => deleted += 1,
            Err(ApiError::NotFound { .. }) => {}
            Err(error) => return Err(error),
        }
    }
    Ok(deleted)
}
