//! The backend's library-sync commands: choosing the folder and the CSV, previewing, running,
//! pausing; runs the app left unfinished come back when it starts again and carry on after the
//! login to their service.
//!
//! One task a running sync; its progress goes to the front end as `Event::SyncUpdated` after every
//! file. A 401 parks the run until the next login (what went up is recorded, so it carries on
//! where it stopped); a change of service or closing the app stops it the same way, and it carries
//! on when its service is used again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio_util::sync::CancellationToken;

use super::engine::{SyncContext, SyncControl, preview_sync, run_sync};
use super::report::SyncStop;
use super::sync_run::{SyncPhase, SyncRun};
use super::sync_state::{RunStatus, SyncKey, SyncOrigin, list_records, sync_dir};
use super::{SyncError, SyncLimits, SyncSetup, absolute_folder, normalized_prefix};
use crate::backend::Backend;
use crate::command::Command;
use crate::event::{Event, NoticeLevel};
use crate::wording::{capitalised, clause};

/// The backend's sync state (part of its shared state).
#[derive(Debug)]
pub struct SyncTasks {
    /// Where the sync records are (`<data>/sync`).
    sync_dir: PathBuf,
    /// The pause token of each running sync.
    running: Mutex<HashMap<SyncKey, CancellationToken>>,
    /// Runs to carry on when their service (by key) is logged in.
    to_resume: Mutex<Vec<(String, SyncSetup)>>,
}

impl SyncTasks {
    /// The sync state of a backend whose data directory is `data_dir`.
    pub fn new(data_dir: &Path) -> Self {
        Self {
            sync_dir: sync_dir(data_dir),
            running: Mutex::default(),
            to_resume: Mutex::default(),
        }
    }

    fn running(&self) -> MutexGuard<'_, HashMap<SyncKey, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn to_resume(&self) -> MutexGuard<'_, Vec<(String, SyncSetup)>> {
        self.to_resume
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// A sync error as the sentence the user reads.
fn sentence(error: &SyncError) -> String {
    format!("{}.", capitalised(clause(&error.to_string())))
}

/// The key of `setup` on the service `service_key`.
fn key_of(service_key: &str, setup: &SyncSetup) -> Result<SyncKey, SyncError> {
    Ok(SyncKey::new(
        service_key,
        &absolute_folder(&setup.folder)?,
        &normalized_prefix(&setup.prefix)?,
    ))
}

impl Backend {
    fn sync_context(&self, service_key: String) -> SyncContext {
        SyncContext {
            sync_dir: self.shared.syncs.sync_dir.clone(),
            service_key,
            limits: SyncLimits::default(),
            origin: SyncOrigin::App,
            // The app's runs go one file after the other: a person works beside them.
            uploads_at_once: 1,
        }
    }

    /// Asks for the folder to sync; answers `Event::SyncFolderPicked`.
    pub(crate) fn pick_sync_folder(&self) {
        let backend = self.clone();
        let picker = self.shared.picker.clone();
        self.spawn(async move {
            let folder = picker.pick_folder().await;
            backend.emit(Event::SyncFolderPicked(folder));
        });
    }

    /// Asks for the attributes CSV; answers `Event::SyncCsvPicked`.
    pub(crate) fn pick_sync_csv(&self) {
        let backend = self.clone();
        let picker = self.shared.picker.clone();
        self.spawn(async move {
            let csv = picker.pick_csv().await;
            backend.emit(Event::SyncCsvPicked(csv));
        });
    }

    /// Reads what a run of `setup` would work on; answers `Event::SyncPreviewed`.
    pub(crate) fn preview_library_sync(&self, setup: SyncSetup) {
        let service_key = self.lock().service_key().unwrap_or_default();
        let context = self.sync_context(service_key);
        let backend = self.clone();
        self.spawn(async move {
            let preview = preview_sync(&setup, &context)
                .await
                .map_err(|error| sentence(&error));
            backend.emit(Event::SyncPreviewed { setup, preview });
        });
    }

    /// Runs a sync (or carries it on); a second start of a running sync is refused with a notice.
    pub(crate) fn start_library_sync(&self, setup: SyncSetup) {
        self.start_sync_run(setup, true);
    }

    fn start_sync_run(&self, setup: SyncSetup, announce_running: bool) {
        let Some(service_key) = self.lock().service_key() else {
            self.notice(
                NoticeLevel::Error,
                "Choose a service in Settings before syncing a folder.",
            );
            return;
        };
        let key = match key_of(&service_key, &setup) {
            Ok(key) => key,
            Err(error) => {
                self.emit(Event::SyncUpdated(SyncRun {
                    key: SyncKey(String::new()),
                    setup,
                    phase: SyncPhase::Failed(sentence(&error)),
                }));
                return;
            }
        };
        if self.shared.syncs.running().contains_key(&key) {
            if announce_running {
                self.notice(
                    NoticeLevel::Info,
                    "This folder is being synced already; its progress is in Jobs.",
                );
            }
            return;
        }
        let command = Command::StartSync(setup.clone());
        let Some((client, generation, stop)) = self.client_or_park(&command) else {
            self.emit(Event::SyncUpdated(SyncRun {
                key,
                setup,
                phase: SyncPhase::WaitingForLogin,
            }));
            return;
        };
        let pause = CancellationToken::new();
        self.shared
            .syncs
            .running()
            .insert(key.clone(), pause.clone());
        let context = self.sync_context(service_key.clone());
        let backend = self.clone();
        self.spawn(async move {
            let control = SyncControl { pause, stop };
            let reporter = backend.clone();
            let (report_key, report_setup) = (key.clone(), setup.clone());
            let report = move |progress: &super::SyncProgress| {
                reporter.emit(Event::SyncUpdated(SyncRun {
                    key: report_key.clone(),
                    setup: report_setup.clone(),
                    phase: SyncPhase::Running(progress.clone()),
                }));
            };
            let outcome = run_sync(&client, &setup, &context, &control, &report).await;
            backend.shared.syncs.running().remove(&key);
            let phase = match outcome {
                Err(error) => SyncPhase::Failed(sentence(&error)),
                Ok(summary) => match summary.stop.clone() {
                    None => {
                        backend.notice(
                            NoticeLevel::Info,
                            format!(
                                "The sync of {} finished: {}.",
                                setup.folder.display(),
                                summary.counts_text()
                            ),
                        );
                        SyncPhase::Finished(summary)
                    }
                    Some(SyncStop::Paused) => SyncPhase::Paused(Some(summary)),
                    Some(SyncStop::LoginNeeded) => {
                        backend.on_unauthorized(generation, Command::StartSync(setup.clone()));
                        SyncPhase::WaitingForLogin
                    }
                    Some(SyncStop::Stopped) => {
                        backend
                            .shared
                            .syncs
                            .to_resume()
                            .push((service_key, setup.clone()));
                        SyncPhase::Interrupted {
                            reason: "Stopped when the service changed; it carries on when that \
                                     service is used again."
                                .into(),
                            summary: Some(summary),
                        }
                    }
                    Some(SyncStop::ConnectionLost(reason)) => SyncPhase::Interrupted {
                        reason,
                        summary: Some(summary),
                    },
                },
            };
            backend.emit(Event::SyncUpdated(SyncRun { key, setup, phase }));
        });
    }

    /// Pauses a running sync (or one waiting for a login).
    pub(crate) fn pause_library_sync(&self, key: SyncKey) {
        if let Some(pause) = self.shared.syncs.running().get(&key) {
            pause.cancel();
            return;
        }
        let service_key = self.lock().service_key().unwrap_or_default();
        let parked: Vec<SyncSetup> = {
            let mut state = self.lock();
            let mut taken = Vec::new();
            state.parked.retain(|command| match command {
                Command::StartSync(setup)
                    if key_of(&service_key, setup).is_ok_and(|parked| parked == key) =>
                {
                    taken.push(setup.clone());
                    false
                }
                _ => true,
            });
            taken
        };
        for setup in parked {
            self.emit(Event::SyncUpdated(SyncRun {
                key: key.clone(),
                setup,
                phase: SyncPhase::Paused(None),
            }));
        }
    }

    /// Reads the sync records at start: runs this app left unfinished are shown, and those it did
    /// not pause carry on after the login to their service.
    pub(crate) fn restore_library_syncs(&self) {
        let backend = self.clone();
        let sync_dir = self.shared.syncs.sync_dir.clone();
        self.spawn(async move {
            for (key, record) in list_records(&sync_dir).await {
                if record.origin != SyncOrigin::App {
                    continue;
                }
                let phase = match record.status {
                    RunStatus::Finished => continue,
                    RunStatus::Paused => SyncPhase::Paused(record.last_summary.clone()),
                    RunStatus::Running | RunStatus::Interrupted => {
                        backend
                            .shared
                            .syncs
                            .to_resume()
                            .push((record.service.clone(), record.setup.clone()));
                        SyncPhase::Interrupted {
                            reason: "The app closed before the sync ended; it carries on after \
                                     the login to its service."
                                .into(),
                            summary: record.last_summary.clone(),
                        }
                    }
                };
                backend.emit(Event::SyncUpdated(SyncRun {
                    key,
                    setup: record.setup,
                    phase,
                }));
            }
            // The login may have come first.
            let service = {
                let state = backend.lock();
                state
                    .session()
                    .is_some()
                    .then(|| state.service_key())
                    .flatten()
            };
            if let Some(service) = service {
                backend.resume_library_syncs(&service);
            }
        });
    }

    /// Carries on the unfinished runs of the service `service_key` (after its login).
    pub(crate) fn resume_library_syncs(&self, service_key: &str) {
        let setups: Vec<SyncSetup> = {
            let mut to_resume = self.shared.syncs.to_resume();
            let mut taken = Vec::new();
            to_resume.retain(|(service, setup)| {
                if service == service_key {
                    taken.push(setup.clone());
                    false
                } else {
                    true
                }
            });
            taken
        };
        for setup in setups {
            self.start_sync_run(setup, false);
        }
    }
}
