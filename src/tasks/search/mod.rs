//! The backend's work for the search place: searches (with their uploads and indexing waits), company
//! attribute names and values for completion, file records, saving and clearing attributes, deleting
//! files, images for thumbnails and the detail view, and saving the result list as CSV.
//!
//! Reads that meet a 401 are parked and run again after the login (like jobs). Changes (save, clear,
//! delete) are never repeated behind the user's back: a 401 answers with the failure, so the
//! attribute editor keeps its draft, and asks for the login; the record is reloaded after it.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use tokio_util::sync::CancellationToken;

use super::backend::Backend;
use super::command::Command;
use super::event::{Event, NoticeLevel};
use super::search_flow::FileSearchError;
use super::thumbnails::{ImageLoader, ImageRequest};
use super::view_search::{ViewSearchRequest, run_view_search};
use super::wording::clause;
use crate::api::{ApiClient, ApiError, Attribute, FileMap, FileRef, FileUid, GetFileRequest};

/// Searches in flight and the image loader, shared by the backend's tasks.
#[derive(Default)]
pub(super) struct SearchTasks {
    images: ImageLoader,
    running: Mutex<HashMap<u64, CancellationToken>>,
}

impl SearchTasks {
    fn running(&self) -> MutexGuard<'_, HashMap<u64, CancellationToken>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A failed search in words: what happened and what to do.
pub fn search_failure_message(error: &FileSearchError) -> String {
    match error {
        FileSearchError::Cancelled => "The search was cancelled.".to_owned(),
        FileSearchError::IndexingFailed { .. } | FileSearchError::IndexingTimedOut { .. } => {
            let text = error.to_string();
            let mut chars = text.chars();
            match chars.next() {
                Some(first) => format!("{}{}.", first.to_uppercase(), clause(chars.as_str())),
                None => text,
            }
        }
        FileSearchError::Api(api) => match api {
            ApiError::Network(detail) => format!(
                "The service could not be reached ({}). Check the connection, then search again.",
                clause(detail)
            ),
            ApiError::BadRequest { message, .. } => format!(
                "The service refused the search: {}. Check the views and filters.",
                clause(message)
            ),
            ApiError::Server { status, .. } => format!(
                "The service failed while searching (HTTP {status}). Try again in a moment."
            ),
            ApiError::File { path, message } => format!(
                "A view could not be read ({path}: {}). Remove it or add it again.",
                clause(message)
            ),
            ApiError::Unauthorized => {
                "The session has ended. Log in again, then search again.".to_owned()
            }
            other => format!("The search failed: {}.", clause(&other.to_string())),
        },
    }
}

impl Backend {
    /// Runs one of the search place's commands.
    pub(super) fn run_search_command(&self, command: Command) {
        match command {
            Command::Search { id, request } => self.run_search(id, request),
            Command::CancelSearch(id) => {
                if let Some(cancel) = self.shared.searches.running().remove(&id) {
                    cancel.cancel();
                }
            }
            Command::LoadImage(request) => self.load_image(request),
            Command::CancelImage(key) => {
                self.shared.searches.images.cancel(&key);
            }
            command => self.run_call(command),
        }
    }

    /// The session's client and generation; when not logged in, the command is parked and runs after
    /// the next login.
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

    fn run_search(&self, id: u64, request: ViewSearchRequest) {
        let command = Command::Search {
            id,
            request: request.clone(),
        };
        let Some((client, generation, cancel)) = self.client_or_park(&command) else {
            return;
        };
        let policy = self.lock().poll_policy.clone();
        self.shared.searches.running().insert(id, cancel.clone());
        let backend = self.clone();
        self.spawn(async move {
            let reporter = backend.clone();
            let outcome = run_view_search(&client, &request, &policy, &cancel, move |progress| {
                reporter.emit(Event::SearchProgress { id, progress });
            })
            .await;
            backend.shared.searches.running().remove(&id);
            match outcome {
                Ok(outcome) => backend.emit(Event::SearchFinished {
                    id,
                    input_uids: outcome.input_uids,
                    result: outcome.result,
                }),
                Err(FileSearchError::Api(ApiError::Unauthorized)) => {
                    backend.on_unauthorized(generation, command);
                }
                Err(error) => {
                    tracing::info!("search {id} failed: {error}");
                    backend.emit(Event::SearchFailed {
                        id,
                        message: search_failure_message(&error),
                    });
                }
            }
        });
    }

    fn load_image(&self, request: ImageRequest) {
        // Local views load without a session; URLs wait for none either (a card shown before a
        // login would be a stale one) and fail, to be asked for again by the next search.
        let client = self.lock().session().map(|session| session.client.clone());
        let backend = self.clone();
        self.shared.searches.images.request(
            &self.shared.runtime,
            client.as_ref(),
            request,
            move |outcome| match outcome.result {
                Ok(image) => backend.emit(Event::ImageLoaded(image)),
                Err(error) => backend.emit(Event::ImageFailed {
                    key: outcome.key,
                    message: error.to_string(),
                }),
            },
        );
    }

    /// The one-call commands: names, values, records, attribute changes, deletes.
    fn run_call(&self, command: Command) {
        let Some((client, generation, _)) = self.client_or_park(&command) else {
            return;
        };
        let backend = self.clone();
        self.spawn(async move {
            match command.clone() {
                Command::LoadAttributeNames => match client.company_attributes().await {
                    Ok(attributes) => backend.emit(Event::AttributeNames(
                        attributes
                            .into_iter()
                            .map(|attribute| attribute.name)
                            .collect(),
                    )),
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    Err(error) => backend.notice(
                        NoticeLevel::Warning,
                        format!(
                            "The attribute names could not be loaded, so filters are not \
                             completed: {}.",
                            clause(&error.to_string())
                        ),
                    ),
                },
                Command::LoadAttributeValues(name) => match client.attribute_values(&name).await {
                    Ok(values) => backend.emit(Event::AttributeValues { name, values }),
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    Err(error) => {
                        tracing::info!("values of {name} not loaded: {error}");
                    }
                },
                Command::LoadRecord(uid) => match load_record(&client, &uid).await {
                    Ok(record) => backend.emit(Event::RecordLoaded { uid, record }),
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    Err(error) => backend.emit(Event::RecordFailed { uid, error }),
                },
                Command::SaveAttributes {
                    uid,
                    attributes,
                    delete_existing,
                } => {
                    let saved = client
                        .set_attributes(&FileRef::Uid(uid.clone()), &attributes, delete_existing)
                        .await;
                    backend
                        .after_attribute_change(&client, generation, uid, saved, attributes)
                        .await;
                }
                Command::ClearAttributes(uid) => {
                    let cleared = client.clear_attributes(&uid).await;
                    backend
                        .after_attribute_change(&client, generation, uid, cleared, Vec::new())
                        .await;
                }
                Command::DeleteFile(uid) => match client.delete_file(&uid, None).await {
                    Ok(()) => backend.emit(Event::FileDeleted(uid)),
                    Err(error) => {
                        let unauthorized = error == ApiError::Unauthorized;
                        backend.emit(Event::DeleteFailed {
                            uid: uid.clone(),
                            error,
                        });
                        if unauthorized {
                            backend.on_unauthorized(generation, Command::LoadRecord(uid));
                        }
                    }
                },
                other => tracing::debug!("not a call: {other}"),
            }
        });
    }

    /// After a save or clear: reload the record so the editor starts from what the service has.
    async fn after_attribute_change(
        &self,
        client: &ApiClient,
        generation: u64,
        uid: FileUid,
        outcome: Result<bool, ApiError>,
        sent: Vec<Attribute>,
    ) {
        let outcome = match outcome {
            Ok(true) => Ok(()),
            Ok(false) => Err(ApiError::Server {
                status: 200,
                message: "the service answered false".into(),
            }),
            Err(error) => Err(error),
        };
        match outcome {
            Ok(()) => {
                let (attributes, record) = match load_record(client, &uid).await {
                    Ok(record) => {
                        let attributes = serde_json::from_value::<FileMap>(record.clone())
                            .map(|map| map.parsed_attributes())
                            .unwrap_or(sent);
                        (attributes, Some(record))
                    }
                    Err(error) => {
                        tracing::info!("reloading {uid} after saving: {error}");
                        (sent, None)
                    }
                };
                self.emit(Event::AttributesSaved {
                    uid,
                    attributes,
                    record,
                });
            }
            Err(error) => {
                let unauthorized = error == ApiError::Unauthorized;
                self.emit(Event::AttributesSaveFailed {
                    uid: uid.clone(),
                    error,
                });
                if unauthorized {
                    self.on_unauthorized(generation, Command::LoadRecord(uid));
                }
            }
        }
    }

    /// Asks where to save the CSV text and writes it there; a notice says where, or why not.
    pub(super) fn export_csv(&self, suggested_name: String, csv: String) {
        let backend = self.clone();
        let picker = self.shared.picker.clone();
        self.spawn(async move {
            let Some(path) = picker.save_file(suggested_name).await else {
                return;
            };
            match super::atomic_write::write_atomically(&path, csv.as_bytes()).await {
                Ok(()) => backend.notice(
                    NoticeLevel::Info,
                    format!("The result list was saved to {}.", path.display()),
                ),
                Err(error) => backend.notice(
                    NoticeLevel::Error,
                    format!(
                        "The result list could not be saved to {}: {error}. Choose another folder.",
                        path.display()
                    ),
                ),
            }
        });
    }
}

async fn load_record(client: &ApiClient, uid: &FileUid) -> Result<serde_json::Value, ApiError> {
    client
        .get_file_json(&GetFileRequest::new(FileRef::Uid(uid.clone())))
        .await
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
        assert_eq!(
            search_failure_message(&FileSearchError::Cancelled),
            "The search was cancelled."
        );
    }
}
