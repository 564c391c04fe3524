//! Running upload jobs: wait for an upload slot, stream the file up with progress, then poll its
//! indexing until it is done, failed or gone. Every change of phase is saved to the job list on disk
//! and sent to the front end.
//!
//! A job's task stops when its cancellation token fires: by the user (the job ends `Cancelled`) or
//! because the service changed or the app is closing (the job keeps a resumable phase). A 401 parks
//! the job until the next login.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use tokio_util::sync::CancellationToken;

use super::job::{Job, JobId, JobPhase, JobRole, ResumeStep, UploadSpec};
use super::poll::{PollPolicy, WaitOutcome, wait_for_indexing};
use crate::backend::{Backend, RunningJob};
use crate::command::Command;
use crate::event::{Event, NoticeLevel};
use crate::reachability::is_unreachable;
use crate::wording::{Attempt, clause, explain};
use partlens_api::{
    ApiClient, ApiError, FileStatus, FileUid, ProgressFn, UploadRequest, UploadSource,
};

/// How a job's task ended.
#[derive(Debug)]
enum JobEnd {
    /// Indexed.
    Done { uid: FileUid, indexed_at: String },
    /// Failed, with the reason in words.
    Failed(String),
    /// The token fired (by the user, or the service changed).
    Stopped,
    /// The service wants a new login.
    Unauthorized,
    /// The service does not answer: the job waits for it.
    ServiceAway,
}

impl Backend {
    /// Adds one job a spec and starts them.
    pub(crate) fn add_jobs(&self, specs: Vec<UploadSpec>) {
        let (added, service_missing) = {
            let mut state = self.lock();
            match state.service_key() {
                Some(key) => {
                    let added: Vec<Job> = specs
                        .into_iter()
                        .map(|spec| Job::new(spec, key.clone()))
                        .collect();
                    state.jobs.extend(added.iter().cloned());
                    self.save_jobs(&state.jobs);
                    (added, false)
                }
                None => (Vec::new(), true),
            }
        };
        if service_missing {
            self.notice(
                NoticeLevel::Error,
                "Choose a service in Settings before uploading.",
            );
            return;
        }
        for job in added {
            let id = job.id;
            self.emit(Event::JobUpdated(job));
            self.start_job(id);
        }
    }

    /// Starts a task for an unfinished job of the current service (parks it when not logged in).
    pub(crate) fn start_job(&self, id: JobId) {
        let (start, changed) = {
            let mut state = self.lock();
            let Some(job) = state.jobs.iter().find(|job| job.id == id) else {
                return;
            };
            if state.running.contains_key(&id)
                || job.resume_step() == ResumeStep::Nothing
                || state.service_key().as_deref() != Some(job.service.as_str())
            {
                return;
            }
            let session = state
                .session()
                .map(|session| (session.client.clone(), session.generation));
            // Waiting for the user to log in (not while the service is still opening).
            let waiting_for_login = session.is_none() && state.needs_login();
            let start = match session {
                Some((client, generation)) => {
                    let cancel = state.session_cancel.child_token();
                    state.running.insert(
                        id,
                        RunningJob {
                            cancel: cancel.clone(),
                            cancelled_by_user: false,
                        },
                    );
                    Some((client, generation, cancel, state.poll_policy.clone()))
                }
                None => {
                    // Not logged in (yet): the job runs after the next login.
                    if !state.parked.contains(&Command::ResumeJob(id)) {
                        state.parked.push(Command::ResumeJob(id));
                    }
                    None
                }
            };
            let changed = state.job_mut(id).and_then(|job| {
                (job.waiting_for_login != waiting_for_login).then(|| {
                    job.waiting_for_login = waiting_for_login;
                    job.clone()
                })
            });
            (start, changed)
        };
        if let Some(job) = changed {
            self.emit(Event::JobUpdated(job));
        }
        let Some((client, generation, cancel, policy)) = start else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            let end = backend.drive_job(id, &client, &cancel, &policy).await;
            backend.end_job(id, generation, end);
        });
    }

    /// Uploads (unless the file is already up) and polls.
    async fn drive_job(
        &self,
        id: JobId,
        client: &ApiClient,
        cancel: &CancellationToken,
        policy: &PollPolicy,
    ) -> JobEnd {
        let Some(job) = self.job(id) else {
            return JobEnd::Stopped;
        };
        let (uid, size) = match job.resume_step() {
            ResumeStep::Nothing => return JobEnd::Stopped,
            ResumeStep::Poll => match job.uid.clone() {
                Some(uid) => (uid, job.size),
                None => return JobEnd::Failed("The upload left no file UID; retry.".into()),
            },
            ResumeStep::Upload => match self.upload(&job, client, cancel).await {
                Ok(uploaded) => uploaded,
                Err(end) => return end,
            },
        };
        let waited = wait_for_indexing(client, &uid, size, policy, cancel, |_, _| {}).await;
        match waited {
            Ok(WaitOutcome::Finished(FileStatus::Completed { indexed_at })) => {
                JobEnd::Done { uid, indexed_at }
            }
            Ok(WaitOutcome::Finished(FileStatus::Failed { reason })) => {
                JobEnd::Failed(indexing_failed_sentence(reason.as_deref()))
            }
            Ok(WaitOutcome::Finished(FileStatus::Unknown)) => JobEnd::Failed(
                "The service no longer has this file (it was deleted). Retry to upload it again."
                    .into(),
            ),
            Ok(WaitOutcome::Finished(FileStatus::InProgress))
            | Ok(WaitOutcome::TimedOut { .. }) => JobEnd::Failed(format!(
                "The file was still being indexed after {}. The service may be busy; retry \
                     later to upload it again.",
                describe_duration(policy.deadline_for(size))
            )),
            Ok(WaitOutcome::Cancelled) => JobEnd::Stopped,
            Err(ApiError::Unauthorized) => JobEnd::Unauthorized,
            Err(error) if is_unreachable(&error) => JobEnd::ServiceAway,
            Err(error) => JobEnd::Failed(format!(
                "Checking the indexing failed: {error}. Retry to upload the file again."
            )),
        }
    }

    /// Waits for a slot and uploads; returns the UID and the size.
    async fn upload(
        &self,
        job: &Job,
        client: &ApiClient,
        cancel: &CancellationToken,
    ) -> Result<(FileUid, u64), JobEnd> {
        let slots = self.shared.upload_slots.clone();
        let _slot = tokio::select! {
            _ = cancel.cancelled() => return Err(JobEnd::Stopped),
            slot = slots.acquire_owned() => slot.map_err(|_| JobEnd::Stopped)?,
        };
        let size = match tokio::fs::metadata(&job.path).await {
            Ok(meta) if meta.is_file() => meta.len(),
            Ok(_) => {
                return Err(JobEnd::Failed(format!(
                    "{} is not a file; remove this job.",
                    job.path.display()
                )));
            }
            Err(error) => {
                return Err(JobEnd::Failed(format!(
                    "{} cannot be read ({error}). Put the file back or remove this job.",
                    job.path.display()
                )));
            }
        };
        self.update_job(job.id, |job| {
            job.size = size;
            job.uid = None;
            job.waiting_for_login = false;
            job.phase = JobPhase::Uploading {
                sent: 0,
                total: size,
            };
        });
        let mut request = UploadRequest::search_input(UploadSource::Path(job.path.clone()));
        request.role = job.role.upload_role();
        request.category_id = job.role.category_id();
        request.index_assembly_components = job.role.index_components().then_some(true);
        // The interface indexes database files as they upload; indexAsync is for search inputs.
        request.index_async = job.index_async && matches!(job.role, JobRole::SearchInput);
        let reporter = self.clone();
        let id = job.id;
        let progress: ProgressFn =
            Arc::new(move |sent, total| reporter.upload_progress(id, sent, total));
        let uploaded = tokio::select! {
            _ = cancel.cancelled() => return Err(JobEnd::Stopped),
            uploaded = client.upload(&request, Some(progress)) => uploaded,
        };
        match uploaded {
            Ok(outcome) => {
                let uid = outcome.uid;
                self.update_job(job.id, |job| {
                    job.uid = Some(uid.clone());
                    job.phase = JobPhase::Indexing { since: Utc::now() };
                });
                Ok((uid, size))
            }
            Err(ApiError::Unauthorized) => Err(JobEnd::Unauthorized),
            Err(error) if is_unreachable(&error) => Err(JobEnd::ServiceAway),
            Err(error) => Err(JobEnd::Failed(explain(&error, Attempt::Upload))),
        }
    }

    /// Records upload progress; the front end hears of it when the percentage changes.
    fn upload_progress(&self, id: JobId, sent: u64, total: u64) {
        let changed = {
            let mut state = self.lock();
            let Some(job) = state.job_mut(id) else {
                return;
            };
            let before = job.phase.upload_percent();
            job.phase = JobPhase::Uploading { sent, total };
            (before != job.phase.upload_percent()).then(|| job.clone())
        };
        if let Some(job) = changed {
            self.emit(Event::JobUpdated(job));
        }
    }

    /// Settles a job after its task ended.
    fn end_job(&self, id: JobId, generation: u64, end: JobEnd) {
        let (job, park, wait) = {
            let mut state = self.lock();
            let cancelled_by_user = state
                .running
                .remove(&id)
                .is_some_and(|running| running.cancelled_by_user);
            let Some(job) = state.job_mut(id) else {
                return;
            };
            let mut park = false;
            let mut wait = false;
            job.waiting_for_service = false;
            match end {
                JobEnd::Done { uid, indexed_at } => {
                    job.phase = JobPhase::Done { uid, indexed_at };
                    job.waiting_for_login = false;
                }
                JobEnd::Failed(reason) => {
                    tracing::info!("job {} ({}) failed: {reason}", job.id, job.file_name());
                    job.phase = JobPhase::Failed { reason };
                    job.waiting_for_login = false;
                }
                JobEnd::Stopped if cancelled_by_user => {
                    job.phase = JobPhase::Cancelled;
                    job.waiting_for_login = false;
                }
                JobEnd::Stopped => {
                    // Interrupted by a change of service or the app closing: resumable as it is.
                    if matches!(job.phase, JobPhase::Uploading { .. }) {
                        job.phase = JobPhase::Queued;
                    }
                }
                JobEnd::Unauthorized => {
                    if matches!(job.phase, JobPhase::Uploading { .. }) {
                        job.phase = JobPhase::Queued;
                    }
                    job.waiting_for_login = true;
                    park = true;
                }
                JobEnd::ServiceAway => {
                    // Kept as it is: uploaded again, or its indexing asked again, once it answers.
                    if matches!(job.phase, JobPhase::Uploading { .. }) {
                        job.phase = JobPhase::Queued;
                    }
                    job.waiting_for_service = true;
                    wait = true;
                }
            }
            let job = job.clone();
            self.save_jobs(&state.jobs);
            (job, park, wait)
        };
        let cancelled_search_input =
            matches!(job.phase, JobPhase::Cancelled) && matches!(job.role, JobRole::SearchInput);
        self.emit(Event::JobUpdated(job.clone()));
        if park {
            self.on_unauthorized(generation, Command::ResumeJob(id));
        }
        if wait {
            self.wait_for_service(Command::ResumeJob(id));
        }
        if cancelled_search_input && let Some(uid) = job.uid {
            self.delete_cancelled_input(uid);
        }
    }

    /// A cancelled search input is of no use on the service: delete it (best effort).
    fn delete_cancelled_input(&self, uid: FileUid) {
        let client = self.lock().session().map(|session| session.client.clone());
        if let Some(client) = client {
            self.spawn(async move {
                if let Err(error) = client.delete_file(&uid, None).await {
                    tracing::debug!("deleting cancelled search input {uid}: {error}");
                }
            });
        }
    }

    /// Stops a job at the user's request; it ends `Cancelled`.
    pub(crate) fn cancel_job(&self, id: JobId) {
        let updated = {
            let mut state = self.lock();
            if let Some(running) = state.running.get_mut(&id) {
                running.cancelled_by_user = true;
                running.cancel.cancel();
                None
            } else {
                state
                    .parked
                    .retain(|command| command != &Command::ResumeJob(id));
                let job = state.job_mut(id).filter(|job| !job.phase.is_finished());
                let job = job.map(|job| {
                    job.phase = JobPhase::Cancelled;
                    job.waiting_for_login = false;
                    job.clone()
                });
                if job.is_some() {
                    self.save_jobs(&state.jobs);
                }
                job
            }
        };
        if let Some(job) = updated {
            self.emit(Event::JobUpdated(job));
        }
    }

    /// Starts a failed or cancelled job again (the file is uploaded again).
    pub(crate) fn retry_job(&self, id: JobId) {
        let retried = {
            let mut state = self.lock();
            let running = state.running.contains_key(&id);
            let Some(job) = state.job_mut(id) else {
                return;
            };
            if running || !matches!(job.phase, JobPhase::Failed { .. } | JobPhase::Cancelled) {
                return;
            }
            // A retried job stays with its service: it runs now if that service is in use, else
            // when it is used again.
            job.phase = JobPhase::Queued;
            job.uid = None;
            job.waiting_for_login = false;
            job.created = Utc::now();
            let job = job.clone();
            self.save_jobs(&state.jobs);
            job
        };
        self.emit(Event::JobUpdated(retried));
        self.start_job(id);
    }

    /// Takes a finished job off the list.
    pub(crate) fn remove_job(&self, id: JobId) {
        let removed = {
            let mut state = self.lock();
            if state.running.contains_key(&id) {
                return;
            }
            let before = state.jobs.len();
            // Only finished jobs leave the list; an unfinished one is cancelled first.
            state
                .jobs
                .retain(|job| job.id != id || !job.phase.is_finished());
            state
                .parked
                .retain(|command| command != &Command::ResumeJob(id));
            let removed = state.jobs.len() != before;
            if removed {
                self.save_jobs(&state.jobs);
            }
            removed
        };
        if removed {
            self.emit(Event::JobRemoved(id));
        }
    }

    /// Takes every finished job off the list.
    pub(crate) fn clear_finished_jobs(&self) {
        let removed: Vec<JobId> = {
            let mut state = self.lock();
            let removed: Vec<JobId> = state
                .jobs
                .iter()
                .filter(|job| job.phase.is_finished())
                .map(|job| job.id)
                .collect();
            state.jobs.retain(|job| !job.phase.is_finished());
            if !removed.is_empty() {
                self.save_jobs(&state.jobs);
            }
            removed
        };
        for id in removed {
            self.emit(Event::JobRemoved(id));
        }
    }

    fn job(&self, id: JobId) -> Option<Job> {
        self.lock().jobs.iter().find(|job| job.id == id).cloned()
    }

    /// Changes a job, saves the list when the phase changed kind, and tells the front end.
    fn update_job(&self, id: JobId, change: impl FnOnce(&mut Job)) {
        let updated = {
            let mut state = self.lock();
            let Some(job) = state.job_mut(id) else {
                return;
            };
            let before = job.phase.clone();
            change(job);
            let job = job.clone();
            if before.differs_in_kind(&job.phase) {
                self.save_jobs(&state.jobs);
            }
            job
        };
        self.emit(Event::JobUpdated(updated));
    }

    /// Writes the job list (called with the state locked, so writes happen in order).
    pub(crate) fn save_jobs(&self, jobs: &[Job]) {
        if let Err(error) = self.shared.job_store.save(jobs) {
            tracing::warn!("{error}");
        }
    }
}

/// "2 min", "45 s".
/// What a job says when the service reports its file failed to index, with the service's reason
/// (a sentence of its own, whose full stop is not doubled) when it gave one.
fn indexing_failed_sentence(reason: Option<&str>) -> String {
    match reason.map(clause).filter(|reason| !reason.is_empty()) {
        Some(reason) => format!(
            "The service could not index this file: {reason}. Check that the file opens, fix or \
             replace it, then retry."
        ),
        None => "The service could not index this file (it reported the indexing failed). Check \
                 that the file opens, fix or replace it, then retry."
            .into(),
    }
}

fn describe_duration(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 120 {
        format!("{} min", seconds / 60)
    } else {
        format!("{seconds} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BackendParts;
    use crate::file_picker::PreparedFilePicker;
    use crate::jobs::job_store::JobStore;
    use crate::local_workspace::NoLocalWorkspace;
    use crate::secrets::MemoryStore;
    use crate::service_choice::ServiceChoice;
    use std::sync::mpsc::Receiver;

    #[test]
    fn a_failure_reason_that_ends_its_sentence_is_not_given_a_second_full_stop() {
        let said = indexing_failed_sentence(Some("Invalid PNG signature."));
        assert_eq!(
            said,
            "The service could not index this file: Invalid PNG signature. Check that the file \
             opens, fix or replace it, then retry."
        );
        assert!(!indexing_failed_sentence(Some(" ")).contains(": ."));
    }

    /// A backend on a remote service that nobody has logged in to.
    fn logged_out_backend(
        runtime: &tokio::runtime::Runtime,
        data_dir: &std::path::Path,
    ) -> (Backend, Receiver<Event>) {
        let (backend, events) = Backend::new(BackendParts {
            runtime: runtime.handle().clone(),
            data_dir: data_dir.to_path_buf(),
            secrets: Arc::new(MemoryStore::new()),
            picker: Arc::new(PreparedFilePicker::default()),
            launcher: Arc::new(NoLocalWorkspace("none here".into())),
            upload_slots: 2,
        });
        backend.send(Command::Connect {
            service: ServiceChoice::remote("http://127.0.0.1:9", "partlens"),
            user: None,
        });
        (backend, events)
    }

    fn next_event(events: &Receiver<Event>, wanted: impl Fn(&Event) -> bool) -> Event {
        loop {
            let event = events
                .recv_timeout(Duration::from_secs(10))
                .expect("an event within 10 s");
            if wanted(&event) {
                return event;
            }
        }
    }

    fn spec(name: &str) -> UploadSpec {
        UploadSpec {
            path: format!("/nowhere/{name}").into(),
            role: JobRole::SearchInput,
            index_async: true,
        }
    }

    #[test]
    fn uploads_wait_for_the_login_and_a_waiting_job_can_be_cancelled_and_removed() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (backend, events) = logged_out_backend(&runtime, dir.path());
        next_event(&events, |event| {
            matches!(event, Event::LoginRequired { .. })
        });

        backend.send(Command::Upload(vec![spec("a.png"), spec("b.png")]));
        let jobs = backend.jobs();
        assert_eq!(jobs.len(), 2);
        assert!(jobs.iter().all(|job| job.phase == JobPhase::Queued));
        assert_eq!(
            JobStore::new(dir.path()).load().unwrap().len(),
            2,
            "saved at once"
        );

        backend.send(Command::CancelJob(jobs[0].id));
        assert_eq!(backend.jobs()[0].phase, JobPhase::Cancelled);
        backend.send(Command::RemoveJob(jobs[1].id));
        assert_eq!(backend.jobs().len(), 2, "an unfinished job is not removed");
        backend.send(Command::ClearFinishedJobs);
        let left = JobStore::new(dir.path()).load().unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].id, jobs[1].id);
    }

    #[test]
    fn saved_jobs_come_back_when_the_backend_starts_again() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (backend, _events) = logged_out_backend(&runtime, dir.path());
        backend.send(Command::Upload(vec![spec("a.png")]));
        drop(backend);

        let (_backend, events) = logged_out_backend(&runtime, dir.path());
        let Event::JobsRestored(jobs) =
            next_event(&events, |event| matches!(event, Event::JobsRestored(_)))
        else {
            unreachable!()
        };
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].file_name(), "a.png");
        assert_eq!(jobs[0].service, "http://127.0.0.1:9");
    }

    #[test]
    fn a_damaged_job_list_is_set_aside_with_a_notice() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(JobStore::new(dir.path()).path(), "{broken").unwrap();
        let (_backend, events) = logged_out_backend(&runtime, dir.path());
        let Event::Notice { message, .. } =
            next_event(&events, |event| matches!(event, Event::Notice { .. }))
        else {
            unreachable!()
        };
        assert!(message.contains("set aside"), "{message}");
        assert!(dir.path().join("jobs.json.damaged").exists());
    }

    #[test]
    fn durations_read_in_seconds_or_minutes() {
        assert_eq!(describe_duration(Duration::from_secs(45)), "45 s");
        assert_eq!(describe_duration(Duration::from_secs(600)), "10 min");
    }
}
