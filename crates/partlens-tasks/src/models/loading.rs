//! Reading a model for the 3D preview, as the backend does it: find the file's bytes on this
//! computer (the local workspace's store, or the file an upload job sent, unless it changed since),
//! read it on a blocking thread, one read at a time, and answer `ModelLoaded` or `ModelUnavailable`.

use std::path::PathBuf;
use std::sync::Arc;

use super::{DISPLAY_TRIANGLES, ModelRequest, ModelSource, read_preview};
use crate::backend::Backend;
use crate::event::Event;
use crate::local_workspace::StoredContent;
use crate::service_choice::ServiceChoice;
use partlens_api::encoding::file_extension;

/// Where this computer may have a service file's bytes: the local workspace's store, and the files
/// upload jobs sent with the size they had.
struct ModelPlaces {
    stored: Option<Arc<dyn StoredContent>>,
    uploaded: Vec<(PathBuf, u64)>,
}

/// A model file found on this computer.
struct FoundFile {
    path: PathBuf,
    extension: String,
    origin: String,
}

impl Backend {
    /// Reads a model for the preview; answers `ModelLoaded` or `ModelUnavailable`.
    pub(crate) fn load_model(&self, request: ModelRequest) {
        if !self.shared.models.keys().insert(request.key.clone()) {
            return;
        }
        let ModelPlaces { stored, uploaded } = self.model_places(&request.source);
        let backend = self.clone();
        let reads = self.shared.models.reads.clone();
        self.spawn(async move {
            let key = request.key.clone();
            let event = match find_model_file(&request.source, stored, uploaded).await {
                Err(reason) => Event::ModelUnavailable {
                    key: key.clone(),
                    reason,
                },
                Ok(found) => {
                    let name = match &request.source {
                        ModelSource::StoredFile { file_name, .. } => last_component(file_name),
                        ModelSource::LocalFile(path) => last_component(&path.to_string_lossy()),
                    };
                    // Closed semaphores never happen here; without a permit the read still runs.
                    let _permit = reads.acquire_owned().await.ok();
                    let read = tokio::task::spawn_blocking(move || {
                        read_preview(
                            &found.path,
                            &found.extension,
                            &name,
                            &found.origin,
                            DISPLAY_TRIANGLES,
                        )
                    })
                    .await;
                    match read {
                        Ok(Ok(preview)) => Event::ModelLoaded {
                            key: key.clone(),
                            preview: Arc::new(preview),
                        },
                        Ok(Err(error)) => Event::ModelUnavailable {
                            key: key.clone(),
                            reason: format!("The model could not be shown: {error}."),
                        },
                        Err(error) => Event::ModelUnavailable {
                            key: key.clone(),
                            reason: format!("Reading the model stopped: {error}."),
                        },
                    }
                }
            };
            backend.shared.models.keys().remove(&key);
            backend.emit(event);
        });
    }

    /// Where this computer may have a service file's bytes: the local workspace's store (when it is
    /// the service in use) and the files upload jobs of this service sent, with their sizes.
    fn model_places(&self, source: &ModelSource) -> ModelPlaces {
        let ModelSource::StoredFile { uid, .. } = source else {
            return ModelPlaces {
                stored: None,
                uploaded: Vec::new(),
            };
        };
        let state = self.lock();
        let stored = match (&state.service, &state.local) {
            (Some(ServiceChoice::LocalWorkspace), Some(local)) => Some(local.content.clone()),
            _ => None,
        };
        let service_key = state.service_key();
        let canonical = uid.canonical();
        let uploaded = state
            .jobs
            .iter()
            .filter(|job| Some(&job.service) == service_key.as_ref())
            .filter(|job| {
                job.uid
                    .as_ref()
                    .is_some_and(|job_uid| job_uid.canonical() == canonical)
            })
            .map(|job| (job.path.clone(), job.size))
            .collect();
        ModelPlaces { stored, uploaded }
    }
}

/// Finds the bytes of the model `source` names on this computer, or says why there are none.
async fn find_model_file(
    source: &ModelSource,
    stored: Option<Arc<dyn StoredContent>>,
    uploaded: Vec<(PathBuf, u64)>,
) -> Result<FoundFile, String> {
    let (uid, file_name, known_paths) = match source {
        ModelSource::LocalFile(path) => {
            return Ok(FoundFile {
                extension: file_extension(&path.to_string_lossy()),
                origin: path.display().to_string(),
                path: path.clone(),
            });
        }
        ModelSource::StoredFile {
            uid,
            file_name,
            known_paths,
        } => (uid, file_name, known_paths),
    };
    let extension = file_extension(file_name);
    if !partlens_geometry::is_model_extension(&extension) {
        return Err(format!(
            "{} files are not read as 3D models by this version of partlens; the picture the \
             service rendered is shown instead.",
            if extension.is_empty() {
                "Extension-less".to_owned()
            } else {
                extension.trim_start_matches('.').to_uppercase()
            }
        ));
    }
    if let Some(stored) = stored
        && let Some(file) = stored.stored_file(uid).await
    {
        return Ok(FoundFile {
            path: file.path,
            extension: file.extension,
            origin: "the local workspace".to_owned(),
        });
    }
    for (path, size) in uploaded {
        let unchanged = tokio::fs::metadata(&path)
            .await
            .is_ok_and(|metadata| metadata.is_file() && metadata.len() == size);
        if unchanged {
            return Ok(FoundFile {
                origin: path.display().to_string(),
                path,
                extension: extension.clone(),
            });
        }
    }
    for path in known_paths {
        if tokio::fs::metadata(path)
            .await
            .is_ok_and(|metadata| metadata.is_file())
        {
            return Ok(FoundFile {
                origin: path.display().to_string(),
                path: path.clone(),
                extension: extension.clone(),
            });
        }
    }
    Err(format!(
        "The service does not send a file's content, and this computer has no copy of {}: it \
         was not uploaded from here. Use \"Open model file…\" to show a copy you have.",
        last_component(file_name)
    ))
}

/// The last part of a stored path or file path (`Samples/models/gear.stl` → `gear.stl`).
fn last_component(path: &str) -> String {
    path.rsplit(['/', '\\'])
        .next()
        .filter(|name| !name.is_empty())
        .unwrap_or(path)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    use partlens_api::FileUid;

    use crate::models::{ModelFileError, is_model_file_name, model_key_of_file};
    use partlens_geometry::GeometryError;

    fn sample_model() -> PathBuf {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("assets/samples/models/washer.stl")
    }

    fn stored(known: Vec<PathBuf>) -> ModelSource {
        ModelSource::StoredFile {
            uid: FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
            file_name: "Parts/washer.stl".into(),
            known_paths: known,
        }
    }

    #[tokio::test]
    async fn a_file_is_found_where_it_was_uploaded_from_unless_it_changed_since() {
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("washer.stl");
        std::fs::copy(sample_model(), &copy).unwrap();
        let size = std::fs::metadata(&copy).unwrap().len();
        let found = find_model_file(&stored(Vec::new()), None, vec![(copy.clone(), size)])
            .await
            .unwrap();
        assert_eq!(found.path, copy);
        assert_eq!(found.extension, ".stl");
        // Changed since the upload: not taken for the service's file.
        let changed = find_model_file(&stored(Vec::new()), None, vec![(copy.clone(), size + 1)])
            .await
            .err()
            .unwrap();
        assert!(
            changed.contains("this computer has no copy of washer.stl"),
            "{changed}"
        );
        // A view the query bar searched by.
        let known = find_model_file(&stored(vec![copy.clone()]), None, Vec::new())
            .await
            .unwrap();
        assert_eq!(known.path, copy);
    }

    #[tokio::test]
    async fn a_format_the_readers_do_not_take_is_named() {
        let source = ModelSource::StoredFile {
            uid: FileUid::from_reply("3f2504e0-4f89-41d3-9a0c-0305e82c3301"),
            file_name: "Parts/housing.sldprt".into(),
            known_paths: Vec::new(),
        };
        let reason = find_model_file(&source, None, Vec::new())
            .await
            .err()
            .unwrap();
        assert!(
            reason.starts_with("SLDPRT files are not read as 3D models"),
            "{reason}"
        );
    }

    #[test]
    fn a_model_is_read_and_prepared_within_the_limits() {
        let preview = read_preview(&sample_model(), ".stl", "washer.stl", "here", 100).unwrap();
        assert!(preview.mesh.triangles.len() <= 100);
        assert!(preview.is_reduced());
        assert!(preview.measurements.volume.is_some());
        // Over the size limit: refused before it is read (a sparse file takes no disk).
        let dir = tempfile::tempdir().unwrap();
        let huge = dir.path().join("huge.stl");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(partlens_geometry::MAX_MODEL_BYTES as u64 + 1)
            .unwrap();
        assert!(matches!(
            read_preview(&huge, ".stl", "huge.stl", "here", 100),
            Err(ModelFileError::Geometry(GeometryError::TooLarge { .. }))
        ));
        assert!(matches!(
            read_preview(&huge, ".png", "huge.png", "here", 100),
            Err(ModelFileError::NotAModel { .. })
        ));
        let missing = dir.path().join("missing.stl");
        assert!(matches!(
            read_preview(&missing, ".stl", "missing.stl", "here", 100),
            Err(ModelFileError::Unreadable { .. })
        ));
    }

    #[test]
    fn keys_and_names() {
        let uid = FileUid::from_reply("3F2504E0-4F89-41D3-9A0C-0305E82C3301");
        assert_eq!(
            model_key_of_file(&uid),
            "model:file:3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        );
        assert!(is_model_file_name("Samples/models/gear.STL"));
        assert!(!is_model_file_name("Samples/gear.png"));
        assert_eq!(last_component("Samples/models/gear.stl"), "gear.stl");
        assert_eq!(last_component("C:\\parts\\a.obj"), "a.obj");
    }
}
