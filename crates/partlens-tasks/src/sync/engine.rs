//! The sync itself, shared by the app and the command line: [`preview_sync`] shows what a run would
//! work on (no network), [`run_sync`] carries it out against the service and answers with a
//! [`SyncSummary`]. See the module doc of [`super`] for what a run does and what its record keeps.
//!
//! A run stops between two files (or during an upload) when paused or stopped through its
//! [`SyncControl`], when the connection drops and at a 401; the summary then says why
//! ([`SyncSummary::stop`]) and the record keeps everything done so far. Other failures (a file the
//! service refuses, a file that cannot be read) are listed in the summary and the run goes on.

use std::collections::BTreeMap;
use std::path::PathBuf;

use futures_util::StreamExt as _;
use futures_util::stream::FuturesUnordered;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::attribute_csv::{CsvPreview, CsvTable, LISTED_PROBLEMS, MatchedAttributes, read_csv};
use super::report::{SyncFailure, SyncProgress, SyncStage, SyncStop, SyncSummary};
use super::scan::{FolderScan, ScannedFile, scan_folder, sha1_of_file};
use super::sync_state::{
    PendingUpload, RunStatus, SyncKey, SyncOrigin, SyncRecord, SyncStore, SyncedFile, load_record,
};
use super::{SyncError, SyncLimits, SyncSetup, absolute_folder, normalized_prefix, stored_path};
use crate::wording::{Attempt, explain};
use partlens_api::{
    ApiClient, ApiError, Attribute, FileRef, FileStatus, FileUid, GetFileRequest, UploadOutcome,
    UploadRequest, UploadSource,
};

/// The most uploads one run keeps on their way at once ([`SyncContext::uploads_at_once`]).
pub const MAX_UPLOADS_AT_ONCE: usize = 16;

/// Where a sync runs: its records, the service it talks to, its limits, who starts it.
#[derive(Clone, Debug)]
pub struct SyncContext {
    /// The folder of the sync records (`<data>/sync`).
    pub sync_dir: PathBuf,
    /// The key of the service (see `ServiceChoice::key`).
    pub service_key: String,
    /// The bounds of what is read.
    pub limits: SyncLimits,
    /// Who starts runs in this context.
    pub origin: SyncOrigin,
    /// Uploads on their way at once (1: one file after the other; at most
    /// [`MAX_UPLOADS_AT_ONCE`]): the service indexes a database file during its upload, so `N`
    /// keeps up to `N` of its reader cores busy. Files are still checked in path order; uploads
    /// may finish in another.
    pub uploads_at_once: usize,
}

/// How a run is told to stop.
#[derive(Clone, Debug, Default)]
pub struct SyncControl {
    /// The user paused the run: it carries on when the user says.
    pub pause: CancellationToken,
    /// The program closes or the service changes: the run carries on at the next start.
    pub stop: CancellationToken,
}

impl SyncControl {
    /// Why the run must stop now, if it must.
    fn stop_now(&self) -> Option<SyncStop> {
        if self.pause.is_cancelled() {
            Some(SyncStop::Paused)
        } else if self.stop.is_cancelled() {
            Some(SyncStop::Stopped)
        } else {
            None
        }
    }

    /// Resolves when the run is paused or stopped.
    async fn stopped(&self) -> SyncStop {
        tokio::select! {
            _ = self.pause.cancelled() => SyncStop::Paused,
            _ = self.stop.cancelled() => SyncStop::Stopped,
        }
    }
}

/// How the record remembers a run that stopped this way.
fn record_status(stop: &SyncStop) -> RunStatus {
    match stop {
        SyncStop::Paused => RunStatus::Paused,
        SyncStop::Stopped => RunStatus::Running,
        SyncStop::ConnectionLost(_) | SyncStop::LoginNeeded => RunStatus::Interrupted,
    }
}

/// What a run would work on, read before anything is sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyncPreview {
    /// The setup as it would run: absolute folder, normalised prefix, every CSV column named.
    pub setup: SyncSetup,
    /// The sync's key.
    pub key: SyncKey,
    /// Part files in the folder.
    pub files: usize,
    /// Files the sync record does not know (they go up).
    pub new_files: usize,
    /// Files the record knows (they go up again only when their content changed).
    pub known_files: usize,
    /// Files the record knows that left the folder (the first [`LISTED_PROBLEMS`]).
    pub removed: Vec<String>,
    /// How many files the record knows that left the folder.
    pub removed_count: usize,
    /// Files that are not part files.
    pub ignored: usize,
    /// Where the first file would be stored (`Library/a.png`).
    pub example_stored_path: Option<String>,
    /// The CSV as it maps onto the folder.
    pub csv: Option<CsvPreview>,
    /// CSV files at the top of the folder (offered as the attributes CSV).
    pub csv_files: Vec<PathBuf>,
    /// True when no run of this sync has recorded anything yet.
    pub first_run: bool,
}

/// The folder, the CSV and the setup, read and checked.
struct Prepared {
    setup: SyncSetup,
    key: SyncKey,
    scan: FolderScan,
    csv: Option<(
        CsvTable,
        super::attribute_csv::ResolvedMapping,
        MatchedAttributes,
    )>,
}

async fn prepare(setup: &SyncSetup, context: &SyncContext) -> Result<Prepared, SyncError> {
    let prefix = normalized_prefix(&setup.prefix)?;
    let folder = absolute_folder(&setup.folder)?;
    let key = SyncKey::new(&context.service_key, &folder, &prefix);
    let mut mapping = setup.attributes.clone();
    if let Some(mapping) = mapping.as_mut() {
        if mapping.csv.as_os_str().is_empty() {
            return Err(SyncError::Setup("choose the attributes CSV".into()));
        }
        mapping.csv = std::path::absolute(&mapping.csv).unwrap_or_else(|_| mapping.csv.clone());
    }
    let limits = context.limits.clone();
    let scan_folder_path = folder.clone();
    let (scan, csv) = tokio::task::spawn_blocking(move || {
        let scan = scan_folder(
            &scan_folder_path,
            mapping.as_ref().map(|mapping| mapping.csv.as_path()),
            &limits,
        )?;
        let csv = match mapping {
            Some(mapping) => {
                let table = read_csv(&mapping.csv, &limits)?;
                let resolved = table.resolve(&mapping)?;
                let matched = table.match_files(&resolved, &scan.files);
                Some((table, resolved, matched))
            }
            None => None,
        };
        Ok::<_, SyncError>((scan, csv))
    })
    .await
    .map_err(|error| SyncError::Folder {
        path: folder.display().to_string(),
        message: format!("the scan stopped: {error}"),
    })??;
    let attributes = csv
        .as_ref()
        .map(|(table, resolved, _)| resolved.explicit(table, &table.path));
    Ok(Prepared {
        setup: SyncSetup {
            folder,
            prefix,
            attributes,
            delete_removed: setup.delete_removed,
        },
        key,
        scan,
        csv,
    })
}

/// What a run of `setup` would work on: the folder's files against the sync record, and the CSV's
/// columns and first rows. Sends nothing.
pub async fn preview_sync(
    setup: &SyncSetup,
    context: &SyncContext,
) -> Result<SyncPreview, SyncError> {
    let prepared = prepare(setup, context).await?;
    let record = load_record(&context.sync_dir, &prepared.key).await?;
    let known = record
        .as_ref()
        .map(|record| &record.files)
        .cloned()
        .unwrap_or_default();
    let files = &prepared.scan.files;
    let known_files = files
        .iter()
        .filter(|file| known.contains_key(&file.relative))
        .count();
    let removed = removed_paths(&known, files);
    Ok(SyncPreview {
        key: prepared.key.clone(),
        files: files.len(),
        new_files: files.len() - known_files,
        known_files,
        removed_count: removed.len(),
        removed: removed.into_iter().take(LISTED_PROBLEMS).collect(),
        ignored: prepared.scan.ignored.len(),
        example_stored_path: files
            .first()
            .map(|file| stored_path(&prepared.setup.prefix, &file.relative)),
        csv: prepared
            .csv
            .as_ref()
            .map(|(table, resolved, _)| table.preview(resolved, files)),
        csv_files: prepared.scan.csv_files.clone(),
        first_run: record.is_none_or(|record| record.files.is_empty()),
        setup: prepared.setup,
    })
}

/// The recorded files that are no longer in the folder.
fn removed_paths(known: &BTreeMap<String, SyncedFile>, files: &[ScannedFile]) -> Vec<String> {
    let present: std::collections::HashSet<&str> =
        files.iter().map(|file| file.relative.as_str()).collect();
    known
        .keys()
        .filter(|path| !present.contains(path.as_str()))
        .cloned()
        .collect()
}

/// Why a file step ended the run.
enum Halt {
    Stop(SyncStop),
    Error(SyncError),
}

impl From<SyncError> for Halt {
    fn from(error: SyncError) -> Self {
        Self::Error(error)
    }
}

/// A failed call: either the run stops (connection, login) or the file fails with a sentence.
fn classify(error: &ApiError, attempt: Attempt) -> Result<String, SyncStop> {
    match error {
        ApiError::Unauthorized => Err(SyncStop::LoginNeeded),
        ApiError::Network(_) => Err(SyncStop::ConnectionLost(explain(error, Attempt::Sync))),
        other => Ok(explain(other, attempt)),
    }
}

/// True when two stored paths name the same file as far as a client can tell.
fn same_stored_path(a: &str, b: &str) -> bool {
    a.replace('\\', "/").trim_matches('/').to_lowercase()
        == b.replace('\\', "/").trim_matches('/').to_lowercase()
}

/// A run in progress.
struct Runner<'a> {
    client: &'a ApiClient,
    store: SyncStore,
    control: &'a SyncControl,
    prefix: String,
    summary: SyncSummary,
    progress: SyncProgress,
    report: &'a (dyn Fn(&SyncProgress) + Send + Sync),
    /// At most this many uploads on their way.
    uploads_at_once: usize,
    /// The uploads on their way, each with what the run recorded before it went.
    in_flight: FuturesUnordered<InFlight>,
}

/// An upload's own task, so it goes on while the run checks the next files; aborted when the run
/// drops it (a pause or a stop abandons the uploads on their way, as with one).
struct InFlight(tokio::task::JoinHandle<(Sending, Result<UploadOutcome, ApiError>)>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl std::future::Future for InFlight {
    type Output = Result<(Sending, Result<UploadOutcome, ApiError>), tokio::task::JoinError>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        context: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(context)
    }
}

/// An upload on its way: what the run needs when its answer comes.
struct Sending {
    /// The file's path in the folder.
    relative: String,
    /// Where it is stored.
    stored: String,
    /// The SHA-1 of what went up.
    hash: String,
    /// True when its UID was chosen for this upload (see [`PendingUpload::new_uid`]).
    new_uid: bool,
    /// The attributes sent with it.
    wanted: Option<Vec<String>>,
}

/// Syncs `setup`'s folder to the service of `client` (see the module doc). `report` hears where the
/// run is after every file. Fails before anything is sent when the setup, the folder, the CSV or
/// the record cannot be used; afterwards the summary says what happened to each file.
pub async fn run_sync(
    client: &ApiClient,
    setup: &SyncSetup,
    context: &SyncContext,
    control: &SyncControl,
    report: &(dyn Fn(&SyncProgress) + Send + Sync),
) -> Result<SyncSummary, SyncError> {
    report(&SyncProgress::default());
    let prepared = prepare(setup, context).await?;
    let mut store = SyncStore::open(&context.sync_dir, &prepared.key, || {
        SyncRecord::new(&context.service_key, prepared.setup.clone(), context.origin)
    })
    .await?;
    {
        let record = store.record_mut();
        record.setup = prepared.setup.clone();
        record.service = context.service_key.clone();
        record.origin = context.origin;
        record.status = RunStatus::Running;
    }
    store.save().await?;

    let mut warnings = Vec::new();
    let mut wanted_attributes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some((_, resolved, matched)) = &prepared.csv {
        warnings.extend(resolved.warnings.iter().cloned());
        warnings.extend(matched.warnings.iter().cloned());
        if !matched.unmatched_rows.is_empty() {
            let listed: Vec<&str> = matched
                .unmatched_rows
                .iter()
                .take(LISTED_PROBLEMS)
                .map(String::as_str)
                .collect();
            let count = matched.unmatched_rows.len();
            warnings.push(format!(
                "{} of the CSV {} no file of the folder: {}{}.",
                if count == 1 {
                    "1 row".to_owned()
                } else {
                    format!("{count} rows")
                },
                if count == 1 { "names" } else { "name" },
                listed.join(", "),
                if matched.unmatched_rows.len() > listed.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        for (path, attributes) in &matched.by_path {
            wanted_attributes.insert(
                path.clone(),
                attributes.iter().map(Attribute::to_string).collect(),
            );
        }
    }
    // Borrowed, not copied: a folder of 100,000 files is the largest thing a run holds.
    let files = &prepared.scan.files;
    let mut runner = Runner {
        client,
        store,
        control,
        prefix: prepared.setup.prefix.clone(),
        summary: SyncSummary {
            folder: prepared.setup.folder.display().to_string(),
            prefix: prepared.setup.prefix.clone(),
            files: files.len(),
            ignored: prepared.scan.ignored.clone(),
            warnings,
            ..SyncSummary::default()
        },
        progress: SyncProgress {
            stage: SyncStage::Checking,
            files: files.len(),
            ..SyncProgress::default()
        },
        report,
        uploads_at_once: context.uploads_at_once.clamp(1, MAX_UPLOADS_AT_ONCE),
        in_flight: FuturesUnordered::new(),
    };
    (runner.report)(&runner.progress);

    let mut outcome = runner.settle_pending().await;
    if outcome.is_ok() {
        outcome = runner.sync_files(files, &wanted_attributes).await;
    }
    if outcome.is_ok() {
        outcome = runner
            .handle_removed(files, prepared.setup.delete_removed)
            .await;
    }
    match outcome {
        Ok(()) => {}
        Err(Halt::Stop(stop)) => {
            runner.summary.interrupted = Some(stop.sentence());
            runner.summary.stop = Some(stop);
        }
        Err(Halt::Error(error)) => return Err(error),
    }
    runner.finish().await
}

impl Runner<'_> {
    fn stored(&self, relative: &str) -> String {
        stored_path(&self.prefix, relative)
    }

    fn fail(&mut self, path: &str, reason: String) {
        tracing::info!("sync of {path} failed: {reason}");
        self.summary.failed.push(SyncFailure {
            path: path.to_owned(),
            reason,
        });
        self.progress.failed += 1;
    }

    fn check_control(&self) -> Result<(), Halt> {
        match self.control.stop_now() {
            Some(stop) => Err(Halt::Stop(stop)),
            None => Ok(()),
        }
    }

    /// Uploads an interrupted run left unanswered: a new file found on the service under its UID
    /// went through (recorded, not uploaded again); a changed file cannot be told apart, so it is
    /// marked for uploading again (in place, same UID).
    async fn settle_pending(&mut self) -> Result<(), Halt> {
        let pending: Vec<(String, PendingUpload)> = self
            .store
            .record()
            .pending
            .iter()
            .map(|(path, upload)| (path.clone(), upload.clone()))
            .collect();
        for (path, upload) in pending {
            self.check_control()?;
            if !upload.new_uid {
                self.store
                    .done(
                        &path,
                        SyncedFile {
                            hash: String::new(),
                            uid: upload.uid,
                            attributes: upload.attributes,
                        },
                    )
                    .await?;
                continue;
            }
            let request = GetFileRequest::new(FileRef::Uid(upload.uid.clone()));
            let found = tokio::select! {
                stop = self.control.stopped() => return Err(Halt::Stop(stop)),
                found = self.client.get_file(&request) => found,
            };
            match found {
                Ok(record) if same_stored_path(&record.file_name, &self.stored(&path)) => {
                    self.store
                        .done(
                            &path,
                            SyncedFile {
                                hash: upload.hash,
                                uid: upload.uid,
                                attributes: upload.attributes,
                            },
                        )
                        .await?;
                    self.summary.confirmed.push(path);
                }
                Ok(_) | Err(ApiError::NotFound { .. }) => self.store.dropped(&path).await?,
                Err(error) => {
                    if let Err(stop) = classify(&error, Attempt::Sync) {
                        return Err(Halt::Stop(stop));
                    }
                    tracing::warn!("checking the interrupted upload of {path}: {error}");
                }
            }
        }
        Ok(())
    }

    async fn sync_files(
        &mut self,
        files: &[ScannedFile],
        wanted_attributes: &BTreeMap<String, Vec<String>>,
    ) -> Result<(), Halt> {
        for file in files {
            self.check_control()?;
            self.progress.current = Some(file.relative.clone());
            (self.report)(&self.progress);
            // A file without a CSV row (or a sync without a CSV) is not given attributes: the
            // service keeps what it has.
            let wanted = wanted_attributes.get(&file.relative).cloned();
            self.sync_file(file, wanted).await?;
            self.progress.checked += 1;
            self.progress.current = None;
            (self.report)(&self.progress);
        }
        self.wait_for_uploads(0).await
    }

    /// Takes the answers of the uploads on their way until at most `keep` are left. A pause or a
    /// stop abandons the rest: their intents stay recorded and the next run settles them.
    async fn wait_for_uploads(&mut self, keep: usize) -> Result<(), Halt> {
        while self.in_flight.len() > keep {
            let next = tokio::select! {
                stop = self.control.stopped() => return Err(Halt::Stop(stop)),
                next = self.in_flight.next() => next,
            };
            match next {
                Some(Ok((sending, uploaded))) => self.finish_upload(sending, uploaded).await?,
                // The task panicked: its intent stays recorded for the next run to settle.
                Some(Err(error)) => tracing::warn!("an upload of the sync stopped: {error}"),
                None => break,
            }
        }
        Ok(())
    }

    async fn sync_file(
        &mut self,
        file: &ScannedFile,
        wanted: Option<Vec<String>>,
    ) -> Result<(), Halt> {
        let path = file.path.clone();
        let hashed = tokio::select! {
            stop = self.control.stopped() => return Err(Halt::Stop(stop)),
            hashed = tokio::task::spawn_blocking(move || sha1_of_file(&path)) => hashed,
        };
        let hash = match hashed {
            Ok(Ok(hash)) => hash,
            Ok(Err(error)) => {
                self.fail(
                    &file.relative,
                    format!(
                        "{} cannot be read ({error}). Put the file back and sync again.",
                        file.path.display()
                    ),
                );
                return Ok(());
            }
            Err(error) => {
                self.fail(&file.relative, format!("reading it stopped: {error}"));
                return Ok(());
            }
        };
        let known = self.store.record().files.get(&file.relative).cloned();
        if let Some(known) = &known
            && known.hash == hash
        {
            let Some(wanted) = wanted.filter(|wanted| known.attributes.as_ref() != Some(wanted))
            else {
                // A file found up already this run counts once, as confirmed.
                if !self.summary.confirmed.contains(&file.relative) {
                    self.summary.unchanged += 1;
                    self.progress.unchanged += 1;
                }
                return Ok(());
            };
            if self
                .update_attributes(file, known, &hash, wanted.clone())
                .await?
            {
                return Ok(());
            }
            // The service no longer has the file: it goes up as a new one.
            return self.upload(file, None, hash, Some(wanted)).await;
        }
        self.upload(file, known.map(|known| known.uid), hash, wanted)
            .await
    }

    /// Sends a file's new CSV attributes; false when the service no longer has the file.
    async fn update_attributes(
        &mut self,
        file: &ScannedFile,
        known: &SyncedFile,
        hash: &str,
        wanted: Vec<String>,
    ) -> Result<bool, Halt> {
        let attributes: Vec<Attribute> = wanted
            .iter()
            .filter_map(|text| Attribute::parse(text).ok())
            .collect();
        let target = FileRef::Uid(known.uid.clone());
        let sent = tokio::select! {
            stop = self.control.stopped() => return Err(Halt::Stop(stop)),
            sent = self.client.set_attributes(&target, &attributes, true) => sent,
        };
        match sent {
            Ok(true) => {
                self.store
                    .done(
                        &file.relative,
                        SyncedFile {
                            hash: hash.to_owned(),
                            uid: known.uid.clone(),
                            attributes: Some(wanted),
                        },
                    )
                    .await?;
                self.summary.attributes_updated.push(file.relative.clone());
                Ok(true)
            }
            Ok(false) => {
                self.fail(
                    &file.relative,
                    "The service did not take the new attributes (it answered false). Sync again \
                     later."
                        .into(),
                );
                Ok(true)
            }
            Err(ApiError::NotFound { .. }) => Ok(false),
            Err(error) => match classify(&error, Attempt::SaveAttributes) {
                Ok(reason) => {
                    self.fail(&file.relative, reason);
                    Ok(true)
                }
                Err(stop) => Err(Halt::Stop(stop)),
            },
        }
    }

    /// The UID a new file goes up with: that of the file already at its stored path (it is
    /// replaced in place), else a new one chosen here.
    async fn uid_for_new_file(&mut self, stored: &str) -> Result<Option<(FileUid, bool)>, Halt> {
        let request = GetFileRequest::new(FileRef::Name(stored.to_owned()));
        let found = tokio::select! {
            stop = self.control.stopped() => return Err(Halt::Stop(stop)),
            found = self.client.get_file(&request) => found,
        };
        match found {
            Ok(record) if !record.uid.is_empty() => Ok(Some((record.file_uid(), false))),
            Ok(_) | Err(ApiError::NotFound { .. }) => Ok(Some((FileUid::new_random(), true))),
            Err(error) => match classify(&error, Attempt::Sync) {
                Err(stop) => Err(Halt::Stop(stop)),
                Ok(_) => {
                    // The lookup is only a courtesy; the upload replaces the file at the path
                    // either way.
                    tracing::info!("looking up {stored}: {error}");
                    Ok(None)
                }
            },
        }
    }

    /// Uploads a file: `known_uid` is its UID from the record (a changed file), `None` for a file
    /// new to the record.
    async fn upload(
        &mut self,
        file: &ScannedFile,
        known_uid: Option<FileUid>,
        hash: String,
        wanted: Option<Vec<String>>,
    ) -> Result<(), Halt> {
        let stored = self.stored(&file.relative);
        let attributes: Vec<Attribute> = wanted
            .iter()
            .flatten()
            .filter_map(|text| Attribute::parse(text).ok())
            .collect();
        let mut request = UploadRequest::database(
            UploadSource::Path(file.path.clone()),
            stored.clone(),
            attributes,
        );
        request.overwrite_file = Some(true);
        if let Err(error) = request.validate(file.size) {
            self.fail(&file.relative, explain(&error, Attempt::Sync));
            return Ok(());
        }
        let (uid, new_uid) = match known_uid {
            Some(uid) => (uid, false),
            None => match self.uid_for_new_file(&stored).await? {
                Some((uid, new_uid)) => {
                    request.uid = Some(uid.clone());
                    (uid, new_uid)
                }
                None => (FileUid::new_random(), false),
            },
        };
        self.store
            .pending(
                &file.relative,
                PendingUpload {
                    hash: hash.clone(),
                    uid: uid.clone(),
                    new_uid,
                    attributes: wanted.clone(),
                },
            )
            .await?;
        let sending = Sending {
            relative: file.relative.clone(),
            stored,
            hash,
            new_uid,
            wanted,
        };
        let client = self.client.clone();
        self.in_flight.push(InFlight(tokio::spawn(async move {
            let uploaded = client.upload(&request, None).await;
            (sending, uploaded)
        })));
        self.wait_for_uploads(self.uploads_at_once - 1).await
    }

    /// Records what became of an upload once its answer came.
    async fn finish_upload(
        &mut self,
        sending: Sending,
        uploaded: Result<UploadOutcome, ApiError>,
    ) -> Result<(), Halt> {
        let Sending {
            relative,
            stored,
            hash,
            new_uid,
            wanted,
        } = sending;
        let uid = match uploaded {
            Ok(outcome) => outcome.uid,
            Err(error) => {
                let reason = classify(&error, Attempt::Sync).map_err(Halt::Stop)?;
                // A refusal stored nothing; after a 5xx the file may or may not be up, so the
                // intent stays for the next run to settle.
                if !matches!(error, ApiError::Server { .. }) {
                    self.store.dropped(&relative).await?;
                }
                self.fail(&relative, reason);
                return Ok(());
            }
        };
        if wanted.as_ref().is_some_and(Vec::is_empty) && !new_uid {
            // The CSV gives this file no attributes, and the file it replaced may have had some.
            if let Err(error) = self
                .client
                .set_attributes(&FileRef::Uid(uid.clone()), &[], true)
                .await
            {
                tracing::info!("clearing the attributes of {stored}: {error}");
            }
        }
        self.store
            .done(
                &relative,
                SyncedFile {
                    hash,
                    uid: uid.clone(),
                    attributes: wanted,
                },
            )
            .await?;
        self.summary.uploaded.push(relative.clone());
        self.progress.uploaded += 1;
        (self.report)(&self.progress);
        // A database file is indexed as it uploads; content the service cannot read still gets
        // its UID, which deserves a word.
        if let Ok(FileStatus::Failed { .. }) = self.client.file_status(&uid).await {
            self.fail(
                &relative,
                "It went up, but the service could not index it (it reported the indexing \
                 failed). Check that the file opens; it goes up again when it changes."
                    .into(),
            );
        }
        Ok(())
    }

    /// Reports the recorded files that left the folder, and deletes them when asked to.
    async fn handle_removed(&mut self, files: &[ScannedFile], delete: bool) -> Result<(), Halt> {
        let removed = removed_paths(&self.store.record().files, files);
        if removed.is_empty() {
            return Ok(());
        }
        if !delete {
            self.summary.removed = removed;
            return Ok(());
        }
        if files.is_empty() {
            self.summary.warnings.push(
                "The folder has no part files, so nothing was deleted from the service (an \
                 unplugged drive looks like this). Delete the files on the service yourself if \
                 the folder really is empty."
                    .into(),
            );
            self.summary.removed = removed;
            return Ok(());
        }
        self.progress.stage = SyncStage::Removing;
        for path in removed {
            self.check_control()?;
            self.progress.current = Some(path.clone());
            (self.report)(&self.progress);
            let Some(uid) = self
                .store
                .record()
                .files
                .get(&path)
                .map(|file| file.uid.clone())
            else {
                continue;
            };
            let deleted = tokio::select! {
                stop = self.control.stopped() => return Err(Halt::Stop(stop)),
                deleted = self.client.delete_file(&uid, None) => deleted,
            };
            match deleted {
                Ok(()) | Err(ApiError::NotFound { .. }) => {
                    self.store.removed(&path).await?;
                    self.summary.deleted.push(path);
                }
                Err(error) => match classify(&error, Attempt::DeleteFile) {
                    Ok(reason) => {
                        self.fail(&path, reason);
                        self.summary.removed.push(path);
                    }
                    Err(stop) => return Err(Halt::Stop(stop)),
                },
            }
        }
        self.progress.current = None;
        Ok(())
    }

    /// Writes the record whole with the run's status and summary.
    async fn finish(mut self) -> Result<SyncSummary, SyncError> {
        let status = self
            .summary
            .stop
            .as_ref()
            .map_or(RunStatus::Finished, record_status);
        let record = self.store.record_mut();
        record.status = status;
        record.last_summary = Some(self.summary.clone());
        self.store.save().await?;
        (self.report)(&self.progress);
        Ok(self.summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stops_read_as_sentences_and_map_to_record_states() {
        assert!(SyncStop::Paused.sentence().starts_with("Paused"));
        assert_eq!(record_status(&SyncStop::Paused), RunStatus::Paused);
        assert_eq!(record_status(&SyncStop::Stopped), RunStatus::Running);
        assert_eq!(
            record_status(&SyncStop::LoginNeeded),
            RunStatus::Interrupted
        );
        let lost = SyncStop::ConnectionLost("The service could not be reached.".into());
        assert!(
            lost.sentence().contains("carries on"),
            "{}",
            lost.sentence()
        );
    }

    #[test]
    fn counts_leave_out_zeros() {
        let summary = SyncSummary {
            uploaded: vec!["a.png".into()],
            unchanged: 3,
            ..SyncSummary::default()
        };
        assert_eq!(summary.counts_text(), "1 uploaded, 3 unchanged");
        assert_eq!(SyncSummary::default().counts_text(), "no part files");
    }

    #[test]
    fn stored_paths_compare_loosely() {
        assert!(same_stored_path("Library/a.png", "library\\A.png"));
        assert!(!same_stored_path("Library/a.png", "Library/b.png"));
    }
}
