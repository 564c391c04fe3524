//! Reading a model for the 3D preview, as the backend does it: find the file's bytes on this
//! computer (the local workspace's store, or the file an upload job sent, unless it changed since),
//! read it in a reader worker process (waited for on a blocking thread), one read at a time, and
//! answer `ModelLoaded` or `ModelUnavailable`. Also the settings of those workers.

use std::path::PathBuf;
use std::sync::Arc;

use super::{
    DISPLAY_TRIANGLES, ModelFileError, ModelRequest, ModelSource, ReaderLimits, Sandbox,
    read_preview,
};
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
        let stopping = self.shared.models.stopping.clone();
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
                    // The settings of the moment the read starts.
                    let sandbox = backend.shared.models.sandbox();
                    let read = tokio::task::spawn_blocking(move || {
                        let Some(sandbox) = sandbox else {
                            return Err(ModelFileError::NoReader);
                        };
                        if stopping.is_cancelled() {
                            return Err(partlens_sandbox::SandboxFailure::Cancelled.into());
                        }
                        read_preview(
                            &sandbox,
                            &found.path,
                            &found.extension,
                            &name,
                            &found.origin,
                            DISPLAY_TRIANGLES,
                            &|| stopping.is_cancelled(),
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

    /// Reads the preview's models with `sandbox` from now on: in workers of its program, within its
    /// limits. By default the program is the one [`partlens_sandbox::default_program`] finds (the
    /// app itself), with [`ReaderLimits::default`]. A read already started keeps its settings.
    pub fn set_preview_sandbox(&self, sandbox: Sandbox) {
        *self.shared.models.sandbox_slot() = Some(sandbox);
    }

    /// Reads the preview's models within `limits` from now on, in the same program; without a
    /// reader program it changes nothing (the preview keeps saying there is none).
    pub fn set_preview_limits(&self, limits: ReaderLimits) {
        let mut slot = self.shared.models.sandbox_slot();
        if let Some(sandbox) = slot.as_ref() {
            *slot = Some(Sandbox::new(sandbox.program(), limits));
        }
    }

    /// The program and limits the preview reads models with; `None` when no reader program was
    /// found.
    pub fn preview_sandbox(&self) -> Option<Sandbox> {
        self.shared.models.sandbox()
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

    /// A sandbox whose program does not exist: any read that gets as far as a worker fails.
    fn no_worker() -> Sandbox {
        Sandbox::new("/nonexistent/partlens-reader", ReaderLimits::default())
    }

    /// The reader program of this build (`partlens-service` or `partlens` in `target/debug`),
    /// `None` (the test is skipped) when it has not been built, except on CI.
    fn reader_program() -> Option<PathBuf> {
        let program = partlens_sandbox::default_program();
        if program.is_none() {
            assert!(
                std::env::var_os("CI").is_none(),
                "no reader program: build partlens-service first"
            );
            eprintln!("skipped: no reader program (cargo build -p partlens-service)");
        }
        program
    }

    #[test]
    fn files_the_readers_do_not_take_are_refused_before_a_worker_starts() {
        let dir = tempfile::tempdir().unwrap();
        // Over the size limit: refused before it is read (a sparse file takes no disk).
        let huge = dir.path().join("huge.stl");
        std::fs::File::create(&huge)
            .unwrap()
            .set_len(partlens_geometry::MAX_MODEL_BYTES as u64 + 1)
            .unwrap();
        let read = |path: &Path, extension: &str| {
            read_preview(&no_worker(), path, extension, "it", "here", 100, &|| false)
        };
        assert!(matches!(
            read(&huge, ".stl"),
            Err(ModelFileError::Geometry(GeometryError::TooLarge { .. }))
        ));
        assert!(matches!(
            read(&huge, ".png"),
            Err(ModelFileError::NotAModel { .. })
        ));
        assert!(matches!(
            read(&dir.path().join("missing.stl"), ".stl"),
            Err(ModelFileError::Unreadable { .. })
        ));
        // A model the checks let through goes to the worker, which is not there.
        let error = read(&sample_model(), ".stl").err().unwrap();
        assert!(
            matches!(
                error,
                ModelFileError::Reader(partlens_sandbox::SandboxFailure::CannotStart(_))
            ),
            "{error:?}"
        );
        assert!(
            error.to_string().contains("/nonexistent/partlens-reader"),
            "{error}"
        );
    }

    #[test]
    fn a_model_is_read_in_a_worker_and_prepared_with_the_whole_meshs_measurements() {
        let Some(program) = reader_program() else {
            return;
        };
        let sandbox = Sandbox::new(program, ReaderLimits::default());
        let preview = read_preview(
            &sandbox,
            &sample_model(),
            ".STL",
            "washer.stl",
            "here",
            100,
            &|| false,
        )
        .unwrap();
        assert!(preview.mesh.triangles.len() <= 100);
        assert!(preview.is_reduced());
        assert_eq!(preview.normals.len(), preview.mesh.triangles.len());
        assert_eq!(preview.name, "washer.stl");
        let whole =
            partlens_geometry::read_mesh(".stl", &std::fs::read(sample_model()).unwrap()).unwrap();
        assert_eq!(
            Some(preview.measurements.clone()),
            partlens_geometry::MeshMeasurements::of(&whole)
        );
        assert!(preview.measurements.volume.is_some());

        // The reader's refusal comes back in its words.
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("garbage.stl");
        std::fs::write(&garbage, b"solid nothing\nfacet normal oops\n").unwrap();
        let refused = read_preview(&sandbox, &garbage, ".stl", "g", "here", 100, &|| false);
        assert!(
            matches!(&refused, Err(ModelFileError::Refused(words)) if !words.is_empty()),
            "{refused:?}"
        );
        // A cancelled read stops its worker.
        let cancelled = read_preview(&sandbox, &sample_model(), ".stl", "w", "here", 100, &|| {
            true
        });
        assert_eq!(
            cancelled.err(),
            Some(ModelFileError::Reader(
                partlens_sandbox::SandboxFailure::Cancelled
            ))
        );
    }

    /// AS1 read in a worker and reduced far below its size: every placed component is still
    /// there with triangles of its own, known by its name (the nut eight times), the parts in
    /// order inside the reduced mesh.
    #[test]
    fn a_reduced_assembly_keeps_every_placed_component() {
        let Some(program) = reader_program() else {
            return;
        };
        let Some(as1) =
            partlens_testkit::realworld::corpus_file("step/pythonocc_core__as1_pe_203.stp")
        else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("as1.stp");
        std::fs::write(&path, as1).unwrap();
        let sandbox = Sandbox::new(program, ReaderLimits::default());
        let budget = 1_000;
        let preview = read_preview(&sandbox, &path, ".stp", "as1.stp", "here", budget, &|| {
            false
        })
        .unwrap();
        assert!(preview.is_reduced(), "{preview:?}");
        assert!(preview.mesh.triangles.len() <= budget, "{preview:?}");
        assert_eq!(
            partlens_geometry::assembly::check_mesh_parts(
                &preview.parts,
                preview.mesh.triangles.len()
            ),
            Ok(())
        );
        // 27 instances below the top; the subassemblies' have no geometry of their own.
        assert_eq!(preview.parts.len(), 27);
        let holders: std::collections::HashSet<u32> = preview
            .parts
            .iter()
            .filter_map(|part| part.parent)
            .collect();
        for (index, part) in preview.parts.iter().enumerate() {
            assert!(
                holders.contains(&(index as u32)) || !part.triangles.is_empty(),
                "{} lost its triangles",
                part.name
            );
        }
        let nuts = preview.parts.iter().filter(|part| part.name == "NUT");
        assert_eq!(nuts.count(), 8);
        let nut_triangles: u32 = preview
            .component_triangles("NUT")
            .iter()
            .map(|range| range.end - range.start)
            .sum();
        assert!(nut_triangles >= 8, "{nut_triangles}");
    }

    /// A backend with no service, its events, and a reader "program" that starts and then only
    /// sleeps (after leaving `started` behind), like a reader lost in a file.
    #[cfg(unix)]
    fn backend_with_a_stuck_reader(
        runtime: &tokio::runtime::Runtime,
        dir: &Path,
        limits: ReaderLimits,
    ) -> (Backend, std::sync::mpsc::Receiver<Event>, PathBuf) {
        use std::os::unix::fs::PermissionsExt as _;
        let started = dir.join("started");
        let program = dir.join("stuck-reader");
        std::fs::write(
            &program,
            format!(
                "#!/bin/sh\necho started > '{}'\nexec sleep 30\n",
                started.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (backend, events) = Backend::new(crate::backend::BackendParts {
            runtime: runtime.handle().clone(),
            data_dir: dir.join("data"),
            secrets: Arc::new(crate::secrets::MemoryStore::new()),
            picker: Arc::new(crate::file_picker::PreparedFilePicker::default()),
            launcher: Arc::new(crate::local_workspace::NoLocalWorkspace("none here".into())),
            upload_slots: 2,
        });
        backend.set_preview_sandbox(Sandbox::new(program, limits));
        (backend, events, started)
    }

    /// The reason of the next `ModelUnavailable` (fails on `ModelLoaded` or after 10 s).
    fn unavailable_reason(events: &std::sync::mpsc::Receiver<Event>) -> String {
        loop {
            match events
                .recv_timeout(std::time::Duration::from_secs(10))
                .expect("an answer within 10 s")
            {
                Event::ModelUnavailable { reason, .. } => return reason,
                Event::ModelLoaded { .. } => panic!("a stuck reader answered"),
                _ => {}
            }
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_read_past_its_time_limit_says_so_and_the_next_one_runs() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let limits = ReaderLimits {
            time: std::time::Duration::from_millis(300),
            ..ReaderLimits::default()
        };
        let (backend, events, _) = backend_with_a_stuck_reader(&runtime, dir.path(), limits);
        assert_eq!(backend.preview_sandbox().map(|s| s.limits()), Some(limits));
        let started = std::time::Instant::now();
        backend.send(crate::Command::LoadModel(ModelRequest::local_file(
            sample_model(),
        )));
        let reason = unavailable_reason(&events);
        assert!(
            reason.starts_with(
                "The model could not be shown: reading it took longer than the \
                 reader's time limit of 300 ms"
            ),
            "{reason}"
        );
        assert!(started.elapsed() >= limits.time);
        // The permit was given back: the next read runs (and meets the same limit).
        backend.set_preview_limits(ReaderLimits {
            time: std::time::Duration::from_millis(200),
            ..limits
        });
        backend.send(crate::Command::LoadModel(ModelRequest::local_file(
            sample_model(),
        )));
        let reason = unavailable_reason(&events);
        assert!(reason.contains("time limit of 200 ms"), "{reason}");
        runtime.block_on(backend.shutdown());
    }

    #[cfg(unix)]
    #[test]
    fn shutting_down_stops_the_read_in_progress() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (backend, events, started) =
            backend_with_a_stuck_reader(&runtime, dir.path(), ReaderLimits::default());
        let request = ModelRequest::local_file(sample_model());
        backend.send(crate::Command::LoadModel(request.clone()));
        let waiting = std::time::Instant::now();
        while !started.exists() {
            assert!(
                waiting.elapsed() < std::time::Duration::from_secs(10),
                "the reader never started"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(backend.shared.models.is_in_flight(&request.key));
        let stopping = std::time::Instant::now();
        runtime.block_on(backend.shutdown());
        let reason = unavailable_reason(&events);
        assert!(reason.contains("the read was cancelled"), "{reason}");
        // Well before the 60 s limit (the worker is polled every few milliseconds).
        assert!(
            stopping.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            stopping.elapsed()
        );
    }

    #[test]
    fn without_a_reader_program_the_preview_says_so() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (backend, events) = Backend::new(crate::backend::BackendParts {
            runtime: runtime.handle().clone(),
            data_dir: dir.path().to_path_buf(),
            secrets: Arc::new(crate::secrets::MemoryStore::new()),
            picker: Arc::new(crate::file_picker::PreparedFilePicker::default()),
            launcher: Arc::new(crate::local_workspace::NoLocalWorkspace("none here".into())),
            upload_slots: 2,
        });
        *backend.shared.models.sandbox_slot() = None;
        backend.set_preview_limits(ReaderLimits::default());
        assert_eq!(backend.preview_sandbox(), None);
        backend.send(crate::Command::LoadModel(ModelRequest::local_file(
            sample_model(),
        )));
        let reason = unavailable_reason(&events);
        assert!(
            reason.contains("no reader program was found")
                && reason.contains(partlens_sandbox::READER_PROGRAM_VARIABLE),
            "{reason}"
        );
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
