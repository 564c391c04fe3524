//! Searching from the app: the backend's search commands (run a search with its uploads and indexing
//! waits, cancel it), saving the result list as CSV, and the search workflows themselves:
//! [`search_flow`] (by files, shared with the CLI), [`view_search`] (by the query bar's views) and
//! [`kept_inputs`] (views searched by an earlier UID: uploaded again when the service lost them).
//!
//! A search that meets a 401 is parked and runs again after the login (like jobs).

pub mod kept_inputs;
pub mod search_flow;
pub mod view_search;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{MutexGuard, PoisonError};

use tokio_util::sync::CancellationToken;

use self::kept_inputs::recheck_kept_inputs;
use self::search_flow::FileSearchError;
use self::view_search::{
    ViewSearchOutcome, ViewSearchProgress, ViewSearchRequest, run_view_search,
};
use super::backend::Backend;
use super::command::Command;
use super::event::{Event, NoticeLevel};
use super::reachability::is_unreachable;
use super::wording::{Attempt, capitalised, clause, explain};
use partlens_api::ApiError;

/// A failed search in words: what happened and what to do.
pub fn search_failure_message(error: &FileSearchError) -> String {
    match error {
        FileSearchError::Cancelled => "The search was cancelled.".to_owned(),
        FileSearchError::IndexingFailed { .. }
        | FileSearchError::IndexingRefused { .. }
        | FileSearchError::IndexingTimedOut { .. }
        | FileSearchError::LibraryFileUnusable { .. } => {
            format!("{}.", capitalised(clause(&error.to_string())))
        }
        FileSearchError::Api(api) => explain(api, Attempt::Search),
    }
}

impl Backend {
    /// Runs a search; answers `SearchInputsGone` when kept inputs go up again, `SearchProgress`,
    /// then `SearchFinished` or `SearchFailed`. A finished search is kept in the history when
    /// `keep_in_history` (then `HistoryChanged`).
    pub(crate) fn run_search(&self, id: u64, request: ViewSearchRequest, keep_in_history: bool) {
        let command = Command::Search {
            id,
            request: request.clone(),
            keep_in_history,
        };
        let Some((client, generation, cancel)) = self.client_or_park(&command) else {
            return;
        };
        let policy = self.lock().poll_policy.for_search();
        self.running_searches().insert(id, cancel.clone());
        let backend = self.clone();
        self.spawn(async move {
            let reporter = backend.clone();
            let outcome = async {
                let (request, gone) = recheck_kept_inputs(&client, request, &cancel).await?;
                if !gone.is_empty() {
                    reporter.emit(Event::SearchInputsGone { id, slots: gone });
                }
                let reporter = reporter.clone();
                run_view_search(&client, request, &policy, &cancel, move |progress| {
                    reporter.emit(Event::SearchProgress { id, progress });
                })
                .await
            }
            .await;
            backend.running_searches().remove(&id);
            match outcome {
                Ok(outcome) => backend.search_finished(id, outcome, keep_in_history),
                Err(FileSearchError::Api(ApiError::Unauthorized)) => {
                    backend.on_unauthorized(generation, command);
                }
                Err(FileSearchError::Api(error)) if is_unreachable(&error) => {
                    backend.emit(Event::SearchProgress {
                        id,
                        progress: ViewSearchProgress::WaitingForService,
                    });
                    backend.wait_for_service(command);
                }
                Err(error) => {
                    tracing::info!("search {id} failed: {error}");
                    backend.emit(Event::SearchFailed {
                        id,
                        message: search_failure_message(&error),
                        transient: error.is_transient(),
                    });
                }
            }
        });
    }

    /// Tells the front end the answer of search `id` and keeps the search in the history.
    fn search_finished(&self, id: u64, outcome: ViewSearchOutcome, keep_in_history: bool) {
        let inputs = outcome.inputs();
        let total_results = u64::try_from(outcome.result.total_results).unwrap_or(0);
        self.emit(Event::SearchFinished {
            id,
            inputs,
            result: outcome.result,
        });
        if keep_in_history {
            self.record_finished_search(&outcome.request, outcome.downloaded, total_results);
        }
    }

    /// Stops the search with this id.
    pub(crate) fn cancel_search(&self, id: u64) {
        if let Some(cancel) = self.running_searches().remove(&id) {
            cancel.cancel();
        }
        // One waiting for the service does not run when it is back.
        self.lock().waiting_for_service.retain(
            |command| !matches!(command, Command::Search { id: waiting, .. } if *waiting == id),
        );
    }

    /// The cancellation tokens of the running searches, locked.
    fn running_searches(&self) -> MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.shared
            .searches
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Asks where to save the CSV text and writes it there; a notice says where, or why not.
    pub(crate) fn export_csv(&self, suggested_name: String, csv: String) {
        self.save_csv(suggested_name, csv, "The result list");
    }

    /// Asks where to save a comparison's CSV text and writes it there, like [`Self::export_csv`].
    pub(crate) fn export_comparison(&self, suggested_name: String, csv: String) {
        self.save_csv(suggested_name, csv, "The comparison");
    }

    /// Asks where to save `csv` and writes it there atomically; the notice names `what` was saved.
    fn save_csv(&self, suggested_name: String, csv: String, what: &'static str) {
        let backend = self.clone();
        let picker = self.shared.picker.clone();
        self.spawn(async move {
            let Some(path) = picker.save_file(suggested_name).await else {
                return;
            };
            backend.write_csv_now(&path, &csv, what).await;
        });
    }

    /// Writes `csv` atomically to `path`, chosen already (the app's own file browser); the notice
    /// names `what` was saved.
    pub(crate) fn write_csv(&self, path: PathBuf, csv: String, what: &'static str) {
        let backend = self.clone();
        self.spawn(async move { backend.write_csv_now(&path, &csv, what).await });
    }

    /// Writes the CSV and says where, or why not.
    async fn write_csv_now(&self, path: &Path, csv: &str, what: &'static str) {
        match crate::atomic_write::write_atomically(path, csv.as_bytes()).await {
            Ok(()) => self.notice(
                NoticeLevel::Info,
                format!("{what} was saved to {}.", path.display()),
            ),
            Err(error) => self.notice(
                NoticeLevel::Error,
                format!(
                    "{what} could not be saved to {}: {error}. Choose another folder.",
                    path.display()
                ),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_failures_say_what_to_do() {
        let network = search_failure_message(&FileSearchError::Api(ApiError::Network(
            "connection refused".into(),
        )));
        assert!(network.contains("Check the connection"), "{network}");
        let indexing = search_failure_message(&FileSearchError::IndexingFailed {
            view: 1,
            name: "side.jpg".into(),
            state: "failed",
        });
        assert!(
            indexing.starts_with("View 2 (side.jpg) could not be indexed"),
            "{indexing}"
        );
        assert!(indexing.ends_with("try another file."), "{indexing}");
        let refused = FileSearchError::IndexingRefused {
            view: 0,
            name: "empty.png".into(),
            reason: "the picture could not be decoded".into(),
        };
        assert_eq!(
            search_failure_message(&refused),
            "View 1 (empty.png) could not be indexed: the picture could not be decoded; try \
             another file."
        );
        assert!(!refused.is_transient());
        assert!(
            FileSearchError::Api(ApiError::Network("connection refused".into())).is_transient()
        );
        assert_eq!(
            search_failure_message(&FileSearchError::Cancelled),
            "The search was cancelled."
        );
    }
}
