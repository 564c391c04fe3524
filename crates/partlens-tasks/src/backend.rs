//! The backend: takes [`Command`]s from the front end, runs them as tasks on the tokio runtime and
//! answers with [`Event`]s on a channel, each followed by a repaint request.
//!
//! This file holds what every task shares: the state (the session with its `ApiClient`, the job
//! list, one cancellation token per running job, the upload slots, the running searches, the image
//! loader and the commands parked by a 401), the plumbing (`lock`, `spawn`, `emit`) and the
//! dispatcher [`Backend::send`]. The work itself is in one file a concern, each adding to
//! `impl Backend`: [`super::session`] (connect, log in and out, 401s), [`super::jobs`] (uploads and
//! indexing), [`super::search`] (searches and the result list), [`super::records`] (records,
//! attributes, deletes), [`super::duplicates`] (duplicate parts), [`super::images`] (thumbnails
//! and large images), [`super::pmi`] (drawing data and feedback), [`super::models`] (3D models
//! for the preview) and [`super::sync`] (library syncs). Those files import this one; this one
//! imports none of them (only the plain data of `jobs/`, the image and model loaders of
//! `thumbnails` and `models`, and the sync state of `sync`).
//!
//! The search history's store is shared here too; [`super::history`] runs its commands.
//!
//! No UI toolkit here: the front end gives a repaint callback.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, RwLock, mpsc};

use tokio::runtime::Handle;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::command::Command;
use super::event::{Event, NoticeLevel, SessionInfo};
use super::file_picker::FilePicker;
use super::history::{HistoryStore, SharedHistory};
use super::jobs::job::{Job, JobId};
use super::jobs::job_store::JobStore;
use super::jobs::poll::PollPolicy;
use super::local_workspace::{LocalWorkspaceLauncher, RunningWorkspace, StoredContent};
use super::models::ModelLoader;
use super::samples::record::SampleLibrary;
use super::secrets::SecretStore;
use super::service_choice::ServiceChoice;
use super::sync::SyncTasks;
use super::thumbnails::ImageLoader;
use partlens_api::{ApiClient, Credentials};

/// Wakes the front end after an event (the app passes its context's `request_repaint`).
pub type RepaintFn = Arc<dyn Fn() + Send + Sync>;

/// How many uploads run at the same time.
pub const DEFAULT_UPLOAD_SLOTS: usize = 2;

/// What the backend is built from.
pub struct BackendParts {
    /// The tokio runtime every task runs on (built in `main`, or by a test).
    pub runtime: Handle,
    /// The app's data directory (the job list lives there).
    pub data_dir: PathBuf,
    /// Where "Remember me" keeps tokens.
    pub secrets: Arc<dyn SecretStore>,
    /// The file dialog.
    pub picker: Arc<dyn FilePicker>,
    /// Opens the local workspace.
    pub launcher: Arc<dyn LocalWorkspaceLauncher>,
    /// How many uploads run at the same time.
    pub upload_slots: usize,
}

/// The task layer's front door. Cheap to clone; every clone talks to the same state.
#[derive(Clone)]
pub struct Backend {
    pub(super) shared: Arc<Shared>,
}

/// State shared by the backend's tasks.
pub(super) struct Shared {
    pub(super) runtime: Handle,
    events: mpsc::Sender<Event>,
    repaint: RwLock<RepaintFn>,
    pub(super) secrets: Arc<dyn SecretStore>,
    pub(super) picker: Arc<dyn FilePicker>,
    pub(super) launcher: Arc<dyn LocalWorkspaceLauncher>,
    pub(super) job_store: JobStore,
    pub(super) upload_slots: Arc<Semaphore>,
    pub(super) state: Mutex<State>,
    /// Thumbnails and large images being fetched and decoded.
    pub(super) images: ImageLoader,
    /// 3D models being read for the preview.
    pub(super) models: ModelLoader,
    /// The cancellation token of each running search, by search id (own lock: searches start and end
    /// without touching the rest of the state).
    pub(super) searches: Mutex<HashMap<u64, CancellationToken>>,
    /// The cancellation token of each running duplicates request, by request (own lock).
    pub(super) duplicates: Mutex<HashMap<u64, CancellationToken>>,
    /// The search history (own lock, taken on blocking threads only).
    pub(super) history: SharedHistory,
    /// Library syncs: the running ones and those to carry on after a login (own locks).
    pub(super) syncs: SyncTasks,
}

/// A logged-in client and the login it came from.
#[derive(Clone)]
pub(super) struct Session {
    pub(super) client: ApiClient,
    pub(super) info: SessionInfo,
    /// Increases with every login: a 401 from an older login just runs the work again.
    pub(super) generation: u64,
}

/// Where the connection to the chosen service is.
pub(super) enum Connection {
    /// Nothing chosen yet.
    Idle,
    /// Opening the service (starting the local workspace).
    Connecting,
    /// Waiting for the user to log in.
    NeedsLogin,
    /// Logged in.
    Ready(Box<Session>),
}

/// The local workspace once opened: kept running while the app runs.
pub(super) struct LocalWorkspace {
    pub(super) client: ApiClient,
    pub(super) credentials: Credentials,
    pub(super) company: String,
    pub(super) service: Box<dyn RunningWorkspace>,
    pub(super) content: Arc<dyn StoredContent>,
    /// Its sample library, when it has one.
    pub(super) samples: Option<Arc<SampleLibrary>>,
}

/// A job that has a task running.
pub(super) struct RunningJob {
    pub(super) cancel: CancellationToken,
    pub(super) cancelled_by_user: bool,
}

/// The mutable state, behind one mutex that is never held across an await.
pub(super) struct State {
    pub(super) service: Option<ServiceChoice>,
    pub(super) connection: Connection,
    /// Increases with every login.
    pub(super) generation: u64,
    /// Increases with every `Connect`; an answer to an older one is dropped.
    pub(super) connect_seq: u64,
    /// Cancelled when the service changes or the app shuts down: running jobs stop without being
    /// marked cancelled, and resume when their service is used again.
    pub(super) session_cancel: CancellationToken,
    pub(super) jobs: Vec<Job>,
    pub(super) running: HashMap<JobId, RunningJob>,
    /// Work that met a 401, to run again after the login.
    pub(super) parked: Vec<Command>,
    /// True between `LoginRequired` (or an automatic re-login) and the next login.
    pub(super) login_pending: bool,
    pub(super) poll_policy: PollPolicy,
    pub(super) local: Option<LocalWorkspace>,
    /// The user of the last login, for prefilling the form and for `LogOut`.
    pub(super) last_user: Option<String>,
    /// Stops the sample library's addition while one runs (there is never a second).
    pub(super) samples_run: Option<CancellationToken>,
    /// Why the service does not answer, while it does not ([`super::reachability`]).
    pub(super) unreachable: Option<String>,
    /// Work that met the service away, to run again once it answers.
    pub(super) waiting_for_service: Vec<Command>,
}

impl State {
    /// The current session's client and generation, when logged in.
    pub(super) fn session(&self) -> Option<&Session> {
        match &self.connection {
            Connection::Ready(session) => Some(session),
            _ => None,
        }
    }

    /// True while the user is asked to log in.
    pub(super) fn needs_login(&self) -> bool {
        matches!(self.connection, Connection::NeedsLogin)
    }

    /// The key of the chosen service.
    pub(super) fn service_key(&self) -> Option<String> {
        self.service.as_ref().map(ServiceChoice::key)
    }

    /// The job with this id.
    pub(super) fn job_mut(&mut self, id: JobId) -> Option<&mut Job> {
        self.jobs.iter_mut().find(|job| job.id == id)
    }
}

impl Backend {
    /// Builds the backend and the channel its events arrive on. The saved job list is read at once
    /// (`Event::JobsRestored`); unfinished jobs resume when their service is logged in.
    pub fn new(parts: BackendParts) -> (Self, mpsc::Receiver<Event>) {
        let (events, receiver) = mpsc::channel();
        let job_store = JobStore::new(&parts.data_dir);
        let (jobs, load_problem) = match job_store.load() {
            Ok(jobs) => (jobs, None),
            Err(error) => (Vec::new(), Some(error)),
        };
        let (history, history_problem) = HistoryStore::open(&parts.data_dir);
        let history_snapshot = history.snapshot();
        let backend = Self {
            shared: Arc::new(Shared {
                runtime: parts.runtime,
                events,
                repaint: RwLock::new(Arc::new(|| {})),
                secrets: parts.secrets,
                picker: parts.picker,
                launcher: parts.launcher,
                job_store,
                upload_slots: Arc::new(Semaphore::new(parts.upload_slots.max(1))),
                images: ImageLoader::default(),
                models: ModelLoader::default(),
                searches: Mutex::new(HashMap::new()),
                duplicates: Mutex::new(HashMap::new()),
                history: Arc::new(Mutex::new(history)),
                syncs: SyncTasks::new(&parts.data_dir),
                state: Mutex::new(State {
                    service: None,
                    connection: Connection::Idle,
                    generation: 0,
                    connect_seq: 0,
                    session_cancel: CancellationToken::new(),
                    jobs: jobs.clone(),
                    running: HashMap::new(),
                    parked: Vec::new(),
                    login_pending: false,
                    poll_policy: PollPolicy::default(),
                    local: None,
                    last_user: None,
                    samples_run: None,
                    unreachable: None,
                    waiting_for_service: Vec::new(),
                }),
            }),
        };
        if let Some(error) = load_problem {
            let damaged = backend
                .shared
                .job_store
                .path()
                .with_extension("json.damaged");
            let kept = std::fs::rename(backend.shared.job_store.path(), &damaged).is_ok();
            backend.notice(
                NoticeLevel::Warning,
                if kept {
                    format!(
                        "{error}. It was set aside as {} and the app starts with an empty job list.",
                        damaged.display()
                    )
                } else {
                    format!("{error}. The app starts with an empty job list.")
                },
            );
        }
        backend.emit(Event::JobsRestored(jobs));
        if let Some(error) = history_problem {
            backend.notice(
                NoticeLevel::Warning,
                format!("{error}. It was set aside and the search history starts empty."),
            );
        }
        backend.emit(Event::HistoryChanged(history_snapshot));
        backend.restore_library_syncs();
        (backend, receiver)
    }

    /// Sets the callback that wakes the front end (called after every event).
    pub fn set_repaint(&self, repaint: RepaintFn) {
        if let Ok(mut slot) = self.shared.repaint.write() {
            *slot = repaint;
        }
    }

    /// Runs a command. Never blocks: the work happens in a task on the runtime.
    pub fn send(&self, command: Command) {
        tracing::debug!("command: {command}");
        match command {
            Command::Connect { service, user } => self.connect(service, user),
            Command::LogIn {
                service,
                user,
                password,
                remember,
            } => self.log_in(service, user, password, remember),
            Command::LogOut => self.log_out(),
            Command::PickFiles => {
                let backend = self.clone();
                let picker = self.shared.picker.clone();
                self.spawn(async move {
                    let paths = picker.pick_files().await;
                    backend.emit(Event::FilesPicked(paths));
                });
            }
            Command::Upload(specs) => self.add_jobs(specs),
            Command::CancelJob(id) => self.cancel_job(id),
            Command::RetryJob(id) => self.retry_job(id),
            Command::RemoveJob(id) => self.remove_job(id),
            Command::ClearFinishedJobs => self.clear_finished_jobs(),
            Command::SetPollPolicy(policy) => self.lock().poll_policy = policy,
            Command::ResumeJob(id) => self.start_job(id),
            Command::PickViews => {
                let backend = self.clone();
                let picker = self.shared.picker.clone();
                self.spawn(async move {
                    let paths = picker.pick_files().await;
                    backend.emit(Event::ViewsPicked(paths));
                });
            }
            Command::ExportCsv {
                suggested_name,
                csv,
            } => self.export_csv(suggested_name, csv),
            Command::ExportComparison {
                suggested_name,
                csv,
            } => self.export_comparison(suggested_name, csv),
            Command::ExportCsvTo { path, csv } => self.write_csv(path, csv, "The result list"),
            Command::ExportComparisonTo { path, csv } => {
                self.write_csv(path, csv, "The comparison");
            }
            Command::Search {
                id,
                request,
                keep_in_history,
            } => self.run_search(id, request, keep_in_history),
            Command::CancelSearch(id) => self.cancel_search(id),
            Command::RemoveSampleLibrary => self.remove_sample_library(),
            Command::CheckService => self.check_service(),
            Command::LoadImage(request) => self.load_image(request),
            Command::CancelImage(key) => {
                self.shared.images.cancel(&key);
            }
            Command::LoadModel(request) => self.load_model(request),
            Command::PickModelFile => {
                let backend = self.clone();
                let picker = self.shared.picker.clone();
                self.spawn(async move {
                    let path = picker.pick_model_file().await;
                    backend.emit(Event::ModelFilePicked(path));
                });
            }
            command @ (Command::LoadAttributeNames
            | Command::LoadCategories
            | Command::LoadAttributeValues(_)
            | Command::LoadRecord(_)
            | Command::LoadRelations(_)
            | Command::SaveAttributes { .. }
            | Command::ClearAttributes(_)
            | Command::DeleteFile(_)) => self.run_record_call(command),
            command
            @ (Command::LoadCallback | Command::SaveCallback(_) | Command::TestCallback) => {
                self.run_callback_command(command)
            }
            command @ (Command::LoadPmi(_) | Command::SendFeedback(_)) => {
                self.run_pmi_command(command);
            }
            command @ (Command::NameSearch { .. }
            | Command::RemoveSearch(_)
            | Command::ClearHistory) => self.run_history_command(command),
            Command::PickSyncFolder => self.pick_sync_folder(),
            Command::PickSyncCsv => self.pick_sync_csv(),
            Command::PreviewSync(setup) => self.preview_library_sync(setup),
            Command::StartSync(setup) => self.start_library_sync(setup),
            Command::PauseSync(key) => self.pause_library_sync(key),
            command @ Command::LoadLibraryPage { .. } => self.load_library_page(command),
            command @ Command::FindDuplicates { .. } => self.find_duplicates(command),
            Command::CancelDuplicates(request) => self.cancel_duplicates(request),
            command @ Command::LoadDuplicateRecords { .. } => self.load_duplicate_records(command),
        }
    }

    /// A copy of the job list (tests and the CLI read it; the app mirrors it from events).
    pub fn jobs(&self) -> Vec<Job> {
        self.lock().jobs.clone()
    }

    /// Stops every job task (their phases stay resumable on disk), the model read in progress
    /// (its worker) and the local service.
    pub async fn shutdown(&self) {
        self.shared.models.stop();
        let local = {
            let mut state = self.lock();
            state.session_cancel.cancel();
            state.connection = Connection::Idle;
            state.local.take()
        };
        if let Some(local) = local {
            local.service.shutdown().await;
        }
    }

    // ---- plumbing -------------------------------------------------------------------------------

    /// The state, locked (never across an await).
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in a task while holding the lock leaves the state as it was; carry on with it.
        self.shared
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs a task on the runtime.
    pub(super) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        self.shared.runtime.spawn(task);
    }

    /// Sends an event and wakes the front end.
    pub(super) fn emit(&self, event: Event) {
        // The receiver is gone only when the app is closing; nothing to tell then.
        let _ = self.shared.events.send(event);
        let repaint = self
            .shared
            .repaint
            .read()
            .map(|repaint| repaint.clone())
            .ok();
        if let Some(repaint) = repaint {
            repaint();
        }
    }

    /// Sends a notice (and logs it at its level).
    pub(super) fn notice(&self, level: NoticeLevel, message: impl Into<String>) {
        let message = message.into();
        match level {
            NoticeLevel::Info => tracing::info!("{message}"),
            NoticeLevel::Warning => tracing::warn!("{message}"),
            NoticeLevel::Error => tracing::error!("{message}"),
        }
        // While the service is away the banner says so once; what failed with it is only logged.
        if level != NoticeLevel::Info && self.service_is_away() {
            return;
        }
        self.emit(Event::Notice { level, message });
    }

    /// The session's client and generation, and a token cancelled with the session; when not logged
    /// in, the command is parked and runs after the next login.
    pub(super) fn client_or_park(
        &self,
        command: &Command,
    ) -> Option<(ApiClient, u64, CancellationToken)> {
        let mut state = self.lock();
        match state.session() {
            Some(session) => {
                let found = (
                    session.client.clone(),
                    session.generation,
                    state.session_cancel.child_token(),
                );
                Some(found)
            }
            None => {
                if !state.parked.contains(command) {
                    state.parked.push(command.clone());
                }
                None
            }
        }
    }
}
