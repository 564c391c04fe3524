//! The session: which service the backend talks to and who is logged in there. Connecting (the local
//! workspace, started and logged in without a prompt, or a remote service with a remembered token),
//! logging in and out, remembering tokens in the keyring, and what a 401 does: the failed work is
//! parked, a login is asked for (or, for the local workspace, done again by itself), and the parked
//! work runs after it.
//!
//! The state these methods change (`Connection`, `Session`, the parked commands) lives in
//! [`super::backend`].

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::backend::{Backend, Connection, LocalWorkspace, Session, State};
use super::command::Command;
use super::event::{Event, NoticeLevel, SessionInfo};
use super::jobs::job::JobId;
use super::local_workspace::WorkspaceProgressFn;
use super::secrets::{SecretError, SecretStore};
use super::service_choice::ServiceChoice;
use super::wording::{Attempt, clause, explain};
use partlens_api::{ApiClient, Credentials};

impl Backend {
    /// Switches to `service` (or re-announces it when it is already the current one).
    pub(super) fn connect(&self, service: ServiceChoice, user: Option<String>) {
        let seq = {
            let mut state = self.lock();
            if state.service.as_ref() == Some(&service) {
                match &state.connection {
                    Connection::Ready(session) => {
                        let info = session.info.clone();
                        drop(state);
                        self.emit(Event::LoggedIn(info));
                        return;
                    }
                    // Already on its way: a second start would race the first.
                    Connection::Connecting => return,
                    Connection::Idle | Connection::NeedsLogin => {}
                }
            }
            self.switch_service(&mut state, &service);
            state.connect_seq += 1;
            state.connection = Connection::Connecting;
            state.connect_seq
        };
        match service {
            ServiceChoice::LocalWorkspace => self.open_local_workspace(seq),
            ServiceChoice::Remote { .. } => self.open_remote(service, user, seq),
        }
    }

    /// Makes `service` the current one; jobs of the previous service stop (without being marked
    /// cancelled) and resume when it is used again. Work parked for the previous service is
    /// dropped; work asked for before any service was chosen (the app connects after its first
    /// frame) runs after this one's login.
    fn switch_service(&self, state: &mut State, service: &ServiceChoice) {
        if state.service.as_ref() != Some(service) {
            state.session_cancel.cancel();
            state.session_cancel = CancellationToken::new();
            if state.service.is_some() {
                state.parked.clear();
            }
            state.login_pending = false;
            // The old session belongs to the old service.
            state.connection = Connection::Idle;
            state.service = Some(service.clone());
        }
    }

    fn open_local_workspace(&self, seq: u64) {
        // An already running local workspace is used again.
        let reuse = {
            let state = self.lock();
            state.local.as_ref().map(|local| {
                (
                    local.client.clone(),
                    local.credentials.clone(),
                    local.company.clone(),
                )
            })
        };
        if let Some((client, credentials, company)) = reuse {
            self.finish_login(seq, client, credentials.username, Some(company));
            // An addition that stopped when another service was chosen carries on.
            self.resume_sample_library(Vec::new());
            return;
        }
        self.emit(Event::Connecting {
            detail: "Starting the local workspace…".into(),
        });
        let backend = self.clone();
        let launcher = self.shared.launcher.clone();
        self.spawn(async move {
            let reporter = backend.clone();
            let progress: WorkspaceProgressFn = Arc::new(move |detail: String| {
                reporter.emit(Event::Connecting { detail });
            });
            match launcher.open(progress).await {
                Ok(opened) => {
                    let user = opened.credentials.username.clone();
                    let company = opened.company.clone();
                    let client = opened.client.clone();
                    let samples = opened.samples.map(Arc::new);
                    let adding = samples.as_ref().is_some_and(|samples| {
                        samples.read_record().state == crate::samples::record::SampleState::Adding
                    });
                    backend.lock().local = Some(LocalWorkspace {
                        client: opened.client,
                        credentials: opened.credentials,
                        company: opened.company,
                        service: opened.service,
                        content: opened.content,
                        samples,
                    });
                    // Work asked for before the login (views given with `--search`) runs over
                    // the whole new library, after the samples.
                    let waiting = if adding {
                        // Before the login's event, so the front end never sees the login
                        // without the work that follows it.
                        backend.emit(Event::WorkspaceActivity {
                            detail: Some("Getting the new workspace ready…".into()),
                        });
                        std::mem::take(&mut backend.lock().parked)
                    } else {
                        Vec::new()
                    };
                    backend.finish_login(seq, client, user, Some(company));
                    backend.resume_sample_library(waiting);
                }
                Err(error) => {
                    let current = {
                        let mut state = backend.lock();
                        let current = state.connect_seq == seq;
                        if current {
                            state.connection = Connection::Idle;
                        }
                        current
                    };
                    if current {
                        tracing::error!("local workspace: {error}");
                        backend.emit(Event::ConnectFailed {
                            message: format!(
                                "The local workspace could not be opened: {}. Check that the data \
                                 folder is writable, or connect to a remote service in Settings.",
                                clause(&error.0)
                            ),
                        });
                    }
                }
            }
        });
    }

    fn open_remote(&self, service: ServiceChoice, user: Option<String>, seq: u64) {
        let ServiceChoice::Remote { address, .. } = &service else {
            return;
        };
        let client = match ApiClient::new(address) {
            Ok(client) => client,
            Err(error) => {
                self.ask_for_login(&service, user, Some(error.to_string()));
                return;
            }
        };
        let Some(user) = user.filter(|user| !user.trim().is_empty()) else {
            self.ask_for_login(&service, None, None);
            return;
        };
        let backend = self.clone();
        let secrets = self.shared.secrets.clone();
        self.spawn(async move {
            let key = service.key();
            let lookup_user = user.clone();
            let remembered =
                with_secrets(secrets, move |secrets| secrets.load(&key, &lookup_user)).await;
            match remembered {
                Ok(Some(token)) => {
                    let client = client.with_token(Some(partlens_api::AccessToken::new(token)));
                    backend.finish_login(seq, client, user, None);
                }
                Ok(None) => backend.ask_for_login(&service, Some(user), None),
                Err(error) => {
                    tracing::info!("no remembered token: {error}");
                    backend.ask_for_login(&service, Some(user), None);
                }
            }
        });
    }

    fn ask_for_login(&self, service: &ServiceChoice, user: Option<String>, reason: Option<String>) {
        {
            let mut state = self.lock();
            if state.service.as_ref() != Some(service) {
                return;
            }
            state.connection = Connection::NeedsLogin;
            state.login_pending = true;
        }
        self.emit(Event::LoginRequired {
            service: service.clone(),
            user,
            reason,
        });
    }

    /// Logs in to a remote service with a user name and password (the local workspace logs in by
    /// itself); the token is remembered in the keyring when asked.
    pub(super) fn log_in(
        &self,
        service: ServiceChoice,
        user: String,
        password: String,
        remember: bool,
    ) {
        let ServiceChoice::Remote { address, client_id } = &service else {
            self.connect(service, None);
            return;
        };
        let seq = {
            let mut state = self.lock();
            self.switch_service(&mut state, &service);
            if !matches!(state.connection, Connection::Ready(_)) {
                state.connection = Connection::NeedsLogin;
            }
            state.connect_seq += 1;
            state.connect_seq
        };
        let mut client = match ApiClient::new(address) {
            Ok(client) => client,
            Err(error) => {
                self.emit(Event::LoginFailed {
                    message: format!("{error}. Check the service address."),
                });
                return;
            }
        };
        let credentials = Credentials {
            client_id: client_id.clone(),
            username: user.trim().to_owned(),
            password,
        };
        let backend = self.clone();
        self.spawn(async move {
            match client.login(&credentials).await {
                Ok(_) => {
                    let user = credentials.username.clone();
                    backend
                        .remember_token(&service, &user, &client, remember)
                        .await;
                    backend.finish_login(seq, client, user, None);
                }
                Err(error) => {
                    tracing::info!("login refused: {error}");
                    backend.emit(Event::LoginFailed {
                        message: explain(&error, Attempt::LogIn),
                    });
                }
            }
        });
    }

    /// Keeps (or forgets) the token in the keyring; says so when the system has none.
    async fn remember_token(
        &self,
        service: &ServiceChoice,
        user: &str,
        client: &ApiClient,
        remember: bool,
    ) {
        let secrets = self.shared.secrets.clone();
        let key = service.key();
        let user = user.to_owned();
        let token = client.token().map(|token| token.secret().to_owned());
        let outcome = with_secrets(secrets, move |secrets| match (remember, token) {
            (true, Some(token)) => secrets.save(&key, &user, &token),
            _ => secrets.delete(&key, &user),
        })
        .await;
        match (remember, outcome) {
            (_, Ok(())) => {}
            (true, Err(SecretError::Unavailable(detail))) => {
                tracing::info!("keyring unavailable: {detail}");
                self.notice(
                    NoticeLevel::Warning,
                    "This system has no keyring: you will stay logged in until you quit.",
                );
            }
            (true, Err(error)) => self.notice(
                NoticeLevel::Warning,
                format!("The login could not be remembered ({error}); you will stay logged in until you quit."),
            ),
            (false, Err(error)) => tracing::debug!("forgetting a token: {error}"),
        }
    }

    /// Installs a logged-in client as the session, tells the front end, runs the parked work and
    /// resumes the unfinished jobs of this service.
    fn finish_login(&self, seq: u64, client: ApiClient, user: String, company: Option<String>) {
        let client = client.with_watch(Some(self.reachability_watch()));
        let (info, parked, resume) = {
            let mut state = self.lock();
            if state.connect_seq != seq {
                return;
            }
            let Some(service) = state.service.clone() else {
                return;
            };
            state.generation += 1;
            let info = SessionInfo {
                service: service.clone(),
                address: client.base_url().as_str().trim_end_matches('/').to_owned(),
                user: user.clone(),
                company,
            };
            state.connection = Connection::Ready(Box::new(Session {
                client,
                info: info.clone(),
                generation: state.generation,
            }));
            state.login_pending = false;
            state.last_user = Some(user);
            let parked = std::mem::take(&mut state.parked);
            let key = service.key();
            let resume: Vec<JobId> = state
                .jobs
                .iter()
                .filter(|job| job.service == key && !state.running.contains_key(&job.id))
                .filter(|job| !job.phase.is_finished())
                .filter(|job| {
                    !parked
                        .iter()
                        .any(|command| command == &Command::ResumeJob(job.id))
                })
                .map(|job| job.id)
                .collect();
            (info, parked, resume)
        };
        let service_key = info.service.key();
        self.emit(Event::LoggedIn(info));
        for command in parked {
            self.send(command);
        }
        for id in resume {
            self.start_job(id);
        }
        self.resume_library_syncs(&service_key);
    }

    /// Ends the session of a remote service and forgets its remembered token.
    pub(super) fn log_out(&self) {
        let (service, user) = {
            let mut state = self.lock();
            let Some(service) = state.service.clone() else {
                return;
            };
            if service.is_local() {
                // The local workspace has no password to ask for; logging out means nothing there.
                return;
            }
            state.session_cancel.cancel();
            state.session_cancel = CancellationToken::new();
            state.connection = Connection::NeedsLogin;
            state.login_pending = true;
            (service, state.last_user.clone())
        };
        if let Some(user) = user.clone() {
            let secrets = self.shared.secrets.clone();
            let key = service.key();
            self.spawn(async move {
                let outcome =
                    with_secrets(secrets, move |secrets| secrets.delete(&key, &user)).await;
                if let Err(error) = outcome {
                    tracing::debug!("forgetting a token: {error}");
                }
            });
        }
        self.emit(Event::LoggedOut);
        self.emit(Event::LoginRequired {
            service,
            user,
            reason: None,
        });
    }

    /// Parks `command`, which met a 401 under the login `generation`, and gets a new login: by
    /// itself for the local workspace, by asking the user otherwise.
    pub(super) fn on_unauthorized(&self, generation: u64, command: Command) {
        enum Next {
            RunAgain(Command),
            Wait,
            AskUser(ServiceChoice, Option<String>),
            LogInLocally(ApiClient, Credentials, Option<String>, u64),
        }
        let next = {
            let mut state = self.lock();
            let current = state.session().map(|session| session.generation);
            if current.is_some_and(|current| current != generation) {
                // A newer login exists already.
                Next::RunAgain(command)
            } else {
                state.parked.push(command);
                if state.login_pending {
                    Next::Wait
                } else {
                    state.login_pending = true;
                    match (state.service.clone(), state.local.as_ref()) {
                        (Some(ServiceChoice::LocalWorkspace), Some(local)) => {
                            let client = local.client.clone();
                            let credentials = local.credentials.clone();
                            let company = Some(local.company.clone());
                            Next::LogInLocally(client, credentials, company, state.connect_seq)
                        }
                        (Some(service), _) => {
                            state.connection = Connection::NeedsLogin;
                            Next::AskUser(service, state.last_user.clone())
                        }
                        (None, _) => Next::Wait,
                    }
                }
            }
        };
        match next {
            Next::RunAgain(command) => self.send(command),
            Next::Wait => {}
            Next::AskUser(service, user) => self.emit(Event::LoginRequired {
                service,
                user,
                reason: Some(
                    "Your session has ended. Log in again to carry on; what you were doing \
                     continues after the login."
                        .into(),
                ),
            }),
            Next::LogInLocally(mut client, credentials, company, seq) => {
                let backend = self.clone();
                self.spawn(async move {
                    match client.login(&credentials).await {
                        Ok(_) => {
                            if let Some(local) = backend.lock().local.as_mut() {
                                local.client = client.clone();
                            }
                            backend.finish_login(seq, client, credentials.username, company);
                        }
                        Err(error) => {
                            backend.lock().login_pending = false;
                            backend.emit(Event::ConnectFailed {
                                message: format!(
                                    "The local workspace refused its own login: {error}. Restart \
                                     the app; if it persists, delete local-account.json in the \
                                     workspace folder."
                                ),
                            });
                        }
                    }
                });
            }
        }
    }
}

/// How long a keyring call may take: a D-Bus activation that never answers must not hold up a login.
const KEYRING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Runs a keyring call on the blocking pool (the stores block), giving up after
/// [`KEYRING_TIMEOUT`] as if there were no keyring.
async fn with_secrets<T: Send + 'static>(
    secrets: Arc<dyn SecretStore>,
    call: impl FnOnce(&dyn SecretStore) -> Result<T, SecretError> + Send + 'static,
) -> Result<T, SecretError> {
    let task = tokio::task::spawn_blocking(move || call(secrets.as_ref()));
    match tokio::time::timeout(KEYRING_TIMEOUT, task).await {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(error)) => Err(SecretError::Failed(error.to_string())),
        Err(_) => Err(SecretError::Unavailable(format!(
            "the keyring did not answer within {} s",
            KEYRING_TIMEOUT.as_secs()
        ))),
    }
}
