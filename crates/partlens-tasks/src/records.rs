//! The backend's calls about one file: its record, its assembly relations, its attributes (save, add, clear), deleting it,
//! and the company's attribute names and values that complete the query bar's filters.
//!
//! Reads that meet a 401 are parked and run again after the login (like jobs). Changes (save, clear,
//! delete) are never repeated behind the user's back: a 401 answers with the failure, so the
//! attribute editor keeps its draft, and asks for the login; the record is reloaded after it.

use super::backend::Backend;
use super::command::Command;
use super::event::{Event, NoticeLevel};
use super::wording::clause;
use partlens_api::{
    ApiClient, ApiError, Attribute, FileRecord, FileRef, FileUid, GetFileRequest, WalkLimits,
};

impl Backend {
    /// Runs one of the one-call commands: names, values, records, attribute changes, deletes.
    pub(super) fn run_record_call(&self, command: Command) {
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
                Command::LoadCategories => match client.company_categories().await {
                    Ok(categories) => backend.emit(Event::Categories(Some(categories))),
                    Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                    Err(error) => {
                        // Another service has no list: the form asks for the number instead.
                        tracing::info!("categories not loaded: {error}");
                        backend.emit(Event::Categories(None));
                    }
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
                Command::LoadRelations(uid) => {
                    let file = FileRef::Uid(uid.clone());
                    match client.relation_trees(&file, WalkLimits::default()).await {
                        Err(ApiError::Unauthorized) => backend.on_unauthorized(generation, command),
                        walked => {
                            let (components, used_in) = match walked {
                                Ok((components, used_in)) => (Ok(components), Ok(used_in)),
                                Err(error) => (Err(error.clone()), Err(error)),
                            };
                            backend.emit(Event::RelationsLoaded {
                                uid,
                                components,
                                used_in,
                            });
                        }
                    }
                }
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
                    Ok(record) => (record.value.parsed_attributes(), Some(record)),
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
}

/// Loads a file's record, decoded once, with the JSON the detail view shows.
async fn load_record(client: &ApiClient, uid: &FileUid) -> Result<FileRecord, ApiError> {
    client
        .get_file_decoded(&GetFileRequest::new(FileRef::Uid(uid.clone())))
        .await
}
