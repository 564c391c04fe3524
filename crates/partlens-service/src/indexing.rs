//! Indexing: running the engine over an uploaded file and saving what it learned, either during the
//! upload call (synchronous, the default) or on a pool of workers fed by the queue in the store
//! (`indexAsync=true`).
//!
//! The engine runs on a blocking thread. The outcome is saved only if the file still has the revision
//! that was indexed (an overwrite or delete meanwhile wins). The visual index (see
//! [`super::visual`]) is changed inside the same write transaction as the record, so the two never
//! disagree about a file, and the store's journal of view changes is written in that transaction too.
//!
//! Models and drawings are read in worker processes ([`partlens_sandbox`]) with hard limits the
//! operating system enforces (wall clock, memory, CPU time, [`ReaderSettings`]): a file that hits
//! one, or crashes its worker, ends failed with the reason in words, and the service goes on.
//! Pictures are decoded here, within their pixel cap. Every read, either kind, holds a slot of the
//! fair [`ReaderPool`] (one a core by default): people before background work, companies in turn,
//! and a company over half the slots gives one up to another that waits (its read starts again
//! later). Stopping the service kills the workers; their jobs stay in the queue.
//!
//! What one analysis may produce is capped ([`ServiceLimits`]: text, PMI items and image pixels are
//! counted by the engine as it reads; the part of the search text an analysis adds is checked before
//! it is saved); past a cap the file fails (422) with the reason in words.
//!
//! A stored descriptor that cannot be read back (a damaged database page, a descriptor written by an
//! incompatible build) makes its file unindexed, not an error: the file is queued to be indexed again
//! from its stored bytes, with one warning in the log.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use partlens_api::encoding::file_extension;
use partlens_sandbox::{Sandbox, SandboxFailure};

use super::blobs::{BlobKey, Blobs};
use super::body::TempFile;
use super::config::ReaderSettings;
use super::disk::{Disk, ImageKind, write_private};
use super::error::ServiceError;
use super::failure_reason::FailureReason;
use super::input_analyses::{ContentKey, DEFAULT_KEPT_BYTES, InputAnalyses};
use super::limits::ServiceLimits;
use super::metrics::ReaderKills;
use super::pages::{pages_json, stored_pages};
use super::pairing::Pairer;
use super::pairing_queue::PairingQueue;
use super::reader_pool::{Asker, ReaderPool, ReaderSlot};
use super::upload_params::ZIP_EXTENSION;
use super::zip_reading::{add_entry_analysis, in_entry, interrupted_bundle, search_zip_entries};
use partlens_callbacks::events::record_event_of;
use partlens_store::StoreTx;
use partlens_store::model::ClaimedJob;
use partlens_store::model::callbacks::{EVENT_INDEXING_COMPLETED, EVENT_INDEXING_FAILED};
use partlens_store::model::{IndexState, IndexedContent, IndexingFailure};
use partlens_store::{Store, iso_now};
use partlens_visual::{ViewSearch, VisualKeeper};

/// How often an idle worker looks at the queue on PostgreSQL, where other nodes queue jobs and a
/// dead node's jobs become claimable without waking this node's workers.
const QUEUE_POLL: Duration = Duration::from_secs(2);

/// Runs the engine and keeps the queue moving.
#[derive(Clone)]
pub struct Indexer {
    store: Store,
    disk: Disk,
    blobs: Blobs,
    limits: Arc<ServiceLimits>,
    visual: VisualKeeper,
    wake: Arc<Notify>,
    stop: CancellationToken,
    readers: ReaderPool,
    /// `None` when no reader program was found: models and drawings then fail with that reason.
    sandbox: Option<Arc<Sandbox>>,
    /// Search inputs' analyses by content, so the same input uploaded again is not read again.
    input_analyses: Arc<InputAnalyses>,
    /// Reader workers killed at a limit (for `GET /metrics`).
    reader_kills: ReaderKills,
    /// Pairs a database file once it is indexed (candidate duplicates).
    pairer: Pairer,
    /// The indexed files waiting for their pairing (pairing_queue.rs).
    pairing: PairingQueue,
}

/// How the read of one claimed job ended, before anything is saved.
pub(crate) enum Read {
    /// The engine's outcome (an analysis, or why there is none).
    Done(Result<partlens_engine::Analysis, partlens_engine::EngineError>),
    /// The slot was wanted by another company or a search input: read again later.
    Preempted,
    /// The service is stopping.
    Stopped,
}

impl Indexer {
    /// An indexer over a store, data directory and blob store, analysing within `limits`, reading
    /// models and drawings as `reader` says.
    pub fn new(
        store: Store,
        disk: Disk,
        blobs: Blobs,
        visual: VisualKeeper,
        limits: ServiceLimits,
        reader: &ReaderSettings,
    ) -> Self {
        let program = reader
            .program
            .clone()
            .or_else(partlens_sandbox::default_program);
        if program.is_none() {
            tracing::warn!(
                "no reader program found (partlens-service or partlens): models and drawings will \
                 fail to index; set PARTLENS_READER_PROGRAM"
            );
        }
        Self {
            pairer: Pairer::new(store.clone(), visual.clone()),
            pairing: PairingQueue::new(),
            store,
            disk,
            blobs,
            limits: Arc::new(limits),
            visual,
            wake: Arc::new(Notify::new()),
            stop: CancellationToken::new(),
            readers: ReaderPool::new(reader.slots),
            sandbox: program.map(|program| Arc::new(Sandbox::new(program, reader.limits))),
            input_analyses: Arc::new(InputAnalyses::new(DEFAULT_KEPT_BYTES)),
            reader_kills: ReaderKills::default(),
        }
    }

    /// Reader workers killed at a limit since the start.
    pub fn reader_kills(&self) -> &ReaderKills {
        &self.reader_kills
    }

    /// The fair pool of reader slots.
    pub fn readers(&self) -> &ReaderPool {
        &self.readers
    }

    /// The visual index.
    pub fn visual(&self) -> &VisualKeeper {
        &self.visual
    }

    /// What pairs a database file with its candidate duplicates.
    pub fn pairer(&self) -> &Pairer {
        &self.pairer
    }

    /// The background task that pairs indexed files after their upload answered, while no search
    /// input is being read (pairing_queue.rs); until `stop`.
    pub fn pairing_task(&self, stop: CancellationToken) -> impl Future<Output = ()> + use<> {
        let readers = self.readers.clone();
        self.pairing.clone().run(
            pair_logged(self.pairer.clone()),
            move || readers.search_inputs_reading(),
            stop,
        )
    }

    /// Pairs the files of `company` still waiting for their pairing now, and waits for the one
    /// being paired: what a reader of the company's duplicates calls first.
    pub async fn settle_pairing(&self, company: &str) {
        self.pairing
            .settle(company, pair_logged(self.pairer.clone()))
            .await;
    }

    /// Loads the visual index (exact indexes from the stored views, graphs from their saved
    /// snapshots brought up to date), and puts work left unfinished by an earlier run back in the
    /// queue, with every database file whose stored views this engine cannot read: made by an
    /// earlier engine, whose descriptors mean something else, or damaged. Such a file is in progress
    /// until it is indexed again from its stored content (a search input is, when it is searched
    /// by). Returns (indexed files, queued jobs).
    pub async fn recover(&self) -> Result<(usize, usize), ServiceError> {
        let mut queued = self
            .store
            .write_tx(move |tx| -> Result<usize, ServiceError> {
                Ok(tx.requeue_unfinished_jobs(&iso_now())?)
            })
            .await?;
        let visual = self.visual.clone();
        let (count, damaged) =
            tokio::task::spawn_blocking(move || visual.recover_blocking()).await??;
        if !damaged.is_empty() {
            queued += self.requeue_damaged(damaged).await?;
        }
        Ok((count, queued))
    }

    /// Starts `count` workers; they stop at [`Indexer::stop`].
    pub fn start_workers(&self, count: usize) -> Vec<tokio::task::JoinHandle<()>> {
        (0..count)
            .map(|number| {
                let indexer = self.clone();
                tokio::spawn(async move { indexer.work(number).await })
            })
            .collect()
    }

    /// Queues files whose stored views could not be read back (`(uid, what was wrong)`) to be
    /// indexed again, takes them out of the visual index meanwhile, and wakes the workers.
    pub async fn reindex_damaged(
        &self,
        damaged: Vec<(String, String)>,
    ) -> Result<(), ServiceError> {
        self.requeue_damaged(damaged).await?;
        self.wake_workers();
        Ok(())
    }

    /// Queues files whose stored views could not be read back to be indexed again, in one write
    /// transaction, and takes them out of the visual index; returns how many were queued.
    async fn requeue_damaged(&self, damaged: Vec<(String, String)>) -> Result<usize, ServiceError> {
        let visual = self.visual.clone();
        self.store
            .write_tx(move |tx| -> Result<usize, ServiceError> {
                let now = iso_now();
                let mut queued = 0;
                for (uid, error) in &damaged {
                    let company = tx.find_any_file(uid)?.map(|record| record.company_id);
                    if requeue_damaged(tx, uid, error, &now)? {
                        queued += 1;
                        if let Some(company) = company {
                            visual.write()?.remove(&company, uid)?;
                        }
                    }
                }
                Ok(queued)
            })
            .await
    }

    /// Tells idle workers that a job was queued.
    pub fn wake_workers(&self) {
        self.wake.notify_waiters();
    }

    /// A job of `company` was queued: the workers are woken, and a read of a company over its
    /// share (or, for a search input, a background read) gives its slot up if every slot is taken.
    pub fn job_queued(&self, company: &str, search_input: bool) {
        self.readers.job_queued(company, search_input);
        self.wake_workers();
    }

    /// Stops the workers: they take no new job; one being indexed is dropped and stays in the queue.
    pub fn stop(&self) {
        self.stop.cancel();
    }

    async fn work(&self, number: usize) {
        loop {
            if self.stop.is_cancelled() {
                return;
            }
            // Registered before looking at the queue, so a job queued in between still wakes us.
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            // A slot first, then a job: the queue's order (search inputs, companies in turn) is
            // decided when a reader is free to start it.
            let slot = tokio::select! {
                _ = self.stop.cancelled() => return,
                slot = self.readers.acquire(Asker::Worker) => slot,
            };
            match self.store.queue_tx(|tx| tx.claim_next_job()).await {
                Ok(Some(job)) => {
                    slot.reading_for(&job.company_id, job.is_search_input);
                    match self.index_in_slot(job.clone(), &slot).await {
                        Ok(Some(state)) => {
                            tracing::info!(worker = number, uid = job.uid, ?state, "indexed")
                        }
                        Ok(None) => {}
                        Err(error) => {
                            tracing::error!(worker = number, uid = job.uid, %error, "indexing failed")
                        }
                    }
                }
                Ok(None) => {
                    drop(slot);
                    tokio::select! {
                        _ = self.stop.cancelled() => return,
                        _ = &mut woken => {}
                        // On PostgreSQL other nodes queue jobs too, and a dead node's job becomes
                        // claimable without anyone saying so: idle workers look again now and then.
                        _ = tokio::time::sleep(QUEUE_POLL), if self.store.shared_by_nodes() => {}
                    }
                }
                Err(error) => {
                    drop(slot);
                    tracing::error!(worker = number, %error, "cannot read the indexing queue");
                    tokio::select! {
                        _ = self.stop.cancelled() => return,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
            }
        }
    }

    /// Indexes one revision of a file while someone waits for it (a synchronous upload) and saves
    /// the outcome. Returns the state it ended in, or `None` when the file was deleted or overwritten
    /// meanwhile (nothing saved). A read preempted for another company waits for a slot again.
    ///
    /// When indexing itself fails (the stored bytes cannot be read, the outcome cannot be saved),
    /// the revision is marked failed, so that its status ends (422) instead of staying in progress.
    pub async fn index(&self, job: ClaimedJob) -> Result<Option<IndexState>, ServiceError> {
        let asker = Asker::Person {
            company: job.company_id.clone(),
            search_input: job.is_search_input,
        };
        let search_input = job.is_search_input;
        let asked = std::time::Instant::now();
        loop {
            let slot = self.readers.acquire(asker.clone()).await;
            let started = std::time::Instant::now();
            match self.read(&job, &slot).await {
                Ok(Read::Preempted) => continue,
                Ok(Read::Stopped) => {
                    return Err(ServiceError::Internal(
                        "the service is stopping; the file is indexed when it starts again".into(),
                    ));
                }
                Ok(Read::Done(analysis)) => {
                    drop(slot);
                    let read = started.elapsed();
                    let saved = self.save(job, Ok(analysis)).await;
                    // Where the time of an upload goes (docs/PERFORMANCE.md, "search by a model"):
                    // waiting for a slot (preempted reads included), the read, the save.
                    tracing::debug!(
                        search_input,
                        wait_ms = started.duration_since(asked).as_secs_f64() * 1000.0,
                        read_ms = read.as_secs_f64() * 1000.0,
                        save_ms = (started.elapsed() - read).as_secs_f64() * 1000.0,
                        "indexed while the uploader waits"
                    );
                    return saved;
                }
                Err(error) => {
                    drop(slot);
                    return self.save(job, Err(error)).await;
                }
            }
        }
    }

    /// Indexes a job a worker claimed, in the slot it holds; a preempted or stopped read puts the
    /// job back in the queue.
    async fn index_in_slot(
        &self,
        job: ClaimedJob,
        slot: &ReaderSlot,
    ) -> Result<Option<IndexState>, ServiceError> {
        match self.read(&job, slot).await {
            Ok(Read::Preempted | Read::Stopped) => {
                self.store
                    .queue_tx(move |tx| tx.return_job_to_queue(&job))
                    .await?;
                Ok(None)
            }
            Ok(Read::Done(analysis)) => self.save(job, Ok(analysis)).await,
            Err(error) => self.save(job, Err(error)).await,
        }
    }

    /// Saves what a read gave; a failure of indexing itself marks the revision failed.
    async fn save(
        &self,
        job: ClaimedJob,
        read: Result<Result<partlens_engine::Analysis, partlens_engine::EngineError>, ServiceError>,
    ) -> Result<Option<IndexState>, ServiceError> {
        let outcome = match read {
            Ok(analysis) => {
                let indexer = self.clone();
                let claimed = job.clone();
                match tokio::task::spawn_blocking(move || indexer.save_blocking(&claimed, analysis))
                    .await
                {
                    Ok(outcome) => outcome,
                    Err(error) => Err(error.into()),
                }
            }
            Err(error) => Err(error),
        };
        self.visual.spawn_due_work();
        if matches!(outcome, Ok(Some(IndexState::Completed)))
            && !job.is_search_input
            && !job.text_only
        {
            self.pairing
                .enqueue_or_pair(&job.company_id, &job.uid, pair_logged(self.pairer.clone()))
                .await;
        }
        if outcome.is_err() {
            let gave_up = self
                .store
                .write_tx(move |tx| -> Result<(), partlens_store::StoreError> {
                    if tx.save_indexing(&job.uid, job.revision, None, &iso_now())? {
                        record_event_of(tx, &job.uid, EVENT_INDEXING_FAILED)?;
                    }
                    Ok(())
                })
                .await;
            if let Err(error) = gave_up {
                tracing::error!(%error, "a file whose indexing failed could not be marked failed");
            }
        }
        outcome
    }

    /// Reads the stored bytes of `job` and analyses them: a model or drawing in a worker process,
    /// a picture here.
    async fn read(&self, job: &ClaimedJob, slot: &ReaderSlot) -> Result<Read, ServiceError> {
        let missing = || {
            Read::Done(Err(partlens_engine::EngineError::Undecodable {
                extension: job.extension.clone(),
                reason: "the stored content is missing".into(),
            }))
        };
        let bytes = match self.blobs.read(BlobKey::Content(&job.uid)).await? {
            Some(bytes) => bytes,
            // Deleted meanwhile (then nothing is saved), or lost: a failed file either way.
            None => return Ok(missing()),
        };
        // A text-only read is never kept for, nor answered from, the search inputs' analyses.
        if !job.is_search_input || job.text_only {
            return self.analyze(job, slot, bytes).await;
        }
        // A search input whose content was analysed for the company before is not read again.
        let (company, extension) = (job.company_id.clone(), job.extension.clone());
        let (bytes, key) = tokio::task::spawn_blocking(move || {
            let key = ContentKey::of(&company, &extension, &bytes);
            (bytes, key)
        })
        .await?;
        if let Some(analysis) = self.input_analyses.find(&key) {
            return Ok(Read::Done(Ok(analysis)));
        }
        let read = self.analyze(job, slot, bytes).await?;
        if let Read::Done(Ok(analysis)) = &read {
            self.input_analyses.keep(key, analysis);
        }
        Ok(read)
    }

    /// Analyses the bytes of `job`: a model or drawing in a worker process, a picture here; a
    /// `.zip` search input as the views of the files it holds, and a database `.zip` (a bundle,
    /// whose upload indexes it) as a failed, interrupted upload (zip_upload.rs).
    async fn analyze(
        &self,
        job: &ClaimedJob,
        slot: &ReaderSlot,
        bytes: Vec<u8>,
    ) -> Result<Read, ServiceError> {
        if job.extension.eq_ignore_ascii_case(ZIP_EXTENSION) {
            if !job.is_search_input {
                // A bundle is indexed by its upload; its job reaches a worker only when the
                // service stopped meanwhile.
                return Ok(Read::Done(Err(interrupted_bundle())));
            }
            let archive = TempFile::new(self.disk.temp_path());
            return self.analyze_search_zip(job, slot, bytes, archive).await;
        }
        self.analyze_file(job, slot, bytes).await
    }

    /// Reads a `.zip` search input as the views of one part: each of its files analysed as that
    /// file would be, in archive order (zip_reading.rs). A file that cannot be read fails the
    /// input with its reason; a preempted or stopped read is passed on.
    async fn analyze_search_zip(
        &self,
        job: &ClaimedJob,
        slot: &ReaderSlot,
        bytes: Vec<u8>,
        archive: TempFile,
    ) -> Result<Read, ServiceError> {
        let entries = match search_zip_entries(bytes, archive).await? {
            Ok(entries) => entries,
            Err(error) => return Ok(Read::Done(Err(error))),
        };
        let mut merged = partlens_engine::Analysis::default();
        for entry in entries {
            let entry_job = ClaimedJob {
                extension: file_extension(&entry.name),
                ..job.clone()
            };
            match self.analyze_file(&entry_job, slot, entry.bytes()?).await? {
                Read::Done(Ok(analysis)) => add_entry_analysis(&mut merged, analysis),
                Read::Done(Err(error)) => return Ok(Read::Done(Err(in_entry(&entry.name, error)))),
                other => return Ok(other),
            }
        }
        Ok(Read::Done(Ok(merged)))
    }

    /// The components of the STEP assembly `bytes` of `company` (assembly_components.rs), read in
    /// a worker within a reader slot: `None` for a file without a product tree, else the tree
    /// and each product's file; the reader's refusal, or why the worker gave none (over a limit
    /// when the worker hit its time or memory limit).
    pub(crate) async fn read_components(
        &self,
        company: &str,
        bytes: Vec<u8>,
    ) -> Result<
        Result<Option<partlens_sandbox::AssemblyComponents>, partlens_sandbox::ComponentsRefusal>,
        ServiceError,
    > {
        let refusal =
            |reason: String, over_limit| partlens_sandbox::ComponentsRefusal { reason, over_limit };
        let Some(sandbox) = self.sandbox.clone() else {
            return Ok(Err(refusal("no reader program was found".into(), false)));
        };
        let asker = Asker::Person {
            company: company.to_owned(),
            search_input: false,
        };
        loop {
            let slot = self.readers.acquire(asker.clone()).await;
            let (stop, preempted) = (self.stop.clone(), slot.preempted().clone());
            let (sandbox, bytes) = (sandbox.clone(), bytes.clone());
            let read = tokio::task::spawn_blocking(move || {
                sandbox.components(bytes, &|| stop.is_cancelled() || preempted.is_cancelled())
            })
            .await?;
            match read {
                Ok(read) => return Ok(read),
                Err(SandboxFailure::Cancelled) if self.stop.is_cancelled() => {
                    return Err(ServiceError::Internal("the service is stopping".into()));
                }
                Err(SandboxFailure::Cancelled) => continue,
                Err(failure) => {
                    self.reader_kills.count(&failure);
                    let over_limit = matches!(
                        failure,
                        SandboxFailure::TimeLimit(_)
                            | SandboxFailure::CpuLimit(_)
                            | SandboxFailure::MemoryLimit(_)
                    );
                    return Ok(Err(refusal(failure.to_string(), over_limit)));
                }
            }
        }
    }

    /// Analyses the bytes of `job` as one file of its extension.
    pub(crate) async fn analyze_file(
        &self,
        job: &ClaimedJob,
        slot: &ReaderSlot,
        bytes: Vec<u8>,
    ) -> Result<Read, ServiceError> {
        let extension = job.extension.to_ascii_lowercase();
        let limits = self.limits.clone();
        // A search input is analysed for what its search uses (no large image, a model's views
        // on every core: docs/PERFORMANCE.md, "search by a model").
        let purpose = if job.is_search_input {
            partlens_engine::Purpose::SearchInput
        } else {
            partlens_engine::Purpose::DatabaseFile
        };
        let text_only = job.text_only;
        if !read_in_worker(&extension) {
            let analysis = tokio::task::spawn_blocking(move || {
                // A panic in a decoder is a failed file, not a dead worker.
                std::panic::catch_unwind(|| {
                    let extraction = &limits.extraction;
                    if text_only {
                        partlens_engine::analyze_text_only(&extension, &bytes, extraction)
                    } else {
                        partlens_engine::analyze_for(purpose, &extension, &bytes, extraction)
                    }
                    .and_then(|analysis| within_limits(&extension, analysis, &limits))
                })
                .unwrap_or_else(|_| {
                    Err(partlens_engine::EngineError::Undecodable {
                        extension: extension.clone(),
                        reason: "the decoder failed".into(),
                    })
                })
            })
            .await?;
            return Ok(Read::Done(analysis));
        }
        let Some(sandbox) = self.sandbox.clone() else {
            return Ok(Read::Done(Err(partlens_engine::EngineError::Undecodable {
                extension,
                reason: "no reader program was found to read it in (set PARTLENS_READER_PROGRAM)"
                    .into(),
            })));
        };
        let stop = self.stop.clone();
        let preempted = slot.preempted().clone();
        let kills = self.reader_kills.clone();
        let read = tokio::task::spawn_blocking(move || {
            let cancelled = || stop.is_cancelled() || preempted.is_cancelled();
            let read = if text_only {
                sandbox.analyze_text_only(&extension, bytes, &limits.extraction, &cancelled)
            } else {
                sandbox.analyze(purpose, &extension, bytes, &limits.extraction, &cancelled)
            };
            match read {
                Ok(analysis) => Read::Done(
                    analysis.and_then(|analysis| within_limits(&extension, analysis, &limits)),
                ),
                Err(SandboxFailure::Cancelled) if stop.is_cancelled() => Read::Stopped,
                Err(SandboxFailure::Cancelled) => Read::Preempted,
                Err(failure) => {
                    kills.count(&failure);
                    Read::Done(Err(failure_as_engine_error(&extension, failure)))
                }
            }
        })
        .await?;
        if let Read::Done(Err(error)) = &read {
            tracing::info!(uid = job.uid, %error, "read in a worker: no analysis");
        }
        Ok(read)
    }

    fn save_blocking(
        &self,
        job: &ClaimedJob,
        analysis: Result<partlens_engine::Analysis, partlens_engine::EngineError>,
    ) -> Result<Option<IndexState>, ServiceError> {
        let (analysis, failure) = match analysis {
            Ok(analysis) => (Some(analysis), None),
            Err(error) => {
                tracing::info!(uid = job.uid, %error, "content cannot be indexed");
                (None, Some(indexing_failure(&error)))
            }
        };
        // Images are written aside first and moved into place only if this revision is still the
        // file's, so a slow run over older content never replaces newer images.
        let set_aside = |bytes: Option<&Vec<u8>>| -> Result<Option<TempFile>, ServiceError> {
            let Some(bytes) = bytes else { return Ok(None) };
            let temp = TempFile::new(self.disk.temp_path());
            write_private(temp.path(), bytes)?;
            Ok(Some(temp))
        };
        let thumbnail = set_aside(analysis.as_ref().and_then(|a| a.thumbnail_jpeg.as_ref()))?;
        let large = set_aside(analysis.as_ref().and_then(|a| a.large_png.as_ref()))?;
        // The pictures of pages 2 and later (page 1's are the file's own, above).
        let mut page_images = Vec::new();
        for page in analysis
            .iter()
            .flat_map(|a| &a.pages)
            .filter(|p| p.number > 1)
        {
            for (kind, bytes) in [
                (ImageKind::Thumbnail, page.thumbnail_jpeg.as_ref()),
                (ImageKind::Large, page.large_png.as_ref()),
            ] {
                if let Some(image) = set_aside(bytes)? {
                    page_images.push((page.number, kind, image));
                }
            }
        }
        let content = analysis.as_ref().map(|analysis| IndexedContent {
            views: analysis
                .views
                .iter()
                .map(partlens_engine::ViewDescriptor::to_bytes)
                .collect(),
            text: analysis.text.clone(),
            extracted_attributes: analysis.extracted_attributes.clone(),
            pmi_json: serde_json::to_string(&analysis.pmi_pages).unwrap_or_else(|_| "[]".into()),
            has_thumbnail: thumbnail.is_some(),
            has_large_image: large.is_some(),
            pages_json: pages_json(&stored_pages(analysis)),
        });
        let blobs = self.blobs.clone();
        let visual = self.visual.clone();
        self.store.write_tx_blocking(|tx| {
            let saved = match &failure {
                Some(failure) => tx.save_failed_indexing(&job.uid, job.revision, failure)?,
                None => tx.save_indexing(&job.uid, job.revision, content.as_ref(), &iso_now())?,
            };
            if !saved {
                return Ok(None);
            }
            // Its views changed: its candidate duplicates are found again (pairing.rs).
            tx.forget_pairs(&job.uid)?;
            for (kind, image) in [(ImageKind::Thumbnail, thumbnail), (ImageKind::Large, large)] {
                let key = BlobKey::Image(&job.uid, kind);
                match image {
                    Some(image) => blobs.persist_blocking(key, image)?,
                    None => blobs.remove_blocking(key)?,
                }
            }
            blobs.remove_page_images_blocking(&job.uid)?;
            for (page, kind, image) in page_images {
                blobs.persist_blocking(BlobKey::PageImage(&job.uid, page, kind), image)?;
            }
            let Some(record) = tx.find_any_file(&job.uid)? else {
                return Ok(None);
            };
            // The callback's event, committed with the outcome (partlens_callbacks::events).
            let event = if analysis.is_some() {
                EVENT_INDEXING_COMPLETED
            } else {
                EVENT_INDEXING_FAILED
            };
            partlens_callbacks::events::record_file_event(tx, &record, event)?;
            // A search input is never in the index: the index is not locked for it (a ranking
            // under way holds it for reading, and this transaction keeps every writer waiting).
            if !record.is_search_input {
                let mut library = visual.write()?;
                match &analysis {
                    Some(analysis) => {
                        library.insert(&record.company_id, &job.uid, &analysis.views)?;
                    }
                    None => library.remove(&record.company_id, &job.uid)?,
                }
            }
            Ok(Some(if analysis.is_some() {
                IndexState::Completed
            } else {
                IndexState::Failed
            }))
        })
    }
}

/// Pairs a database file, just indexed, with its candidate duplicates (pairing.rs), logging how
/// long it took. Never fails the file: a failure is logged, and the backfill pairs it at the next
/// start.
fn pair_logged(pairer: Pairer) -> impl Fn(&str) + Clone + Send + 'static {
    move |uid: &str| {
        let started = std::time::Instant::now();
        if let Err(error) = pairer.pair_blocking(uid) {
            tracing::warn!(uid, %error, "not paired with its duplicates; paired at the next start");
        }
        // What pairing costs a file (docs/PERFORMANCE.md, "The bulk load").
        tracing::debug!(
            uid,
            pair_ms = started.elapsed().as_secs_f64() * 1000.0,
            "paired with its candidate duplicates"
        );
    }
}

/// True for the formats read in a worker process: models and drawings (their readers are large,
/// partly native, and can loop or allocate without bound on hostile or merely difficult files),
/// and pictures in a build that reads raster drawings by OCR (the OCR program then runs as the
/// worker's child, under its limits).
fn read_in_worker(extension: &str) -> bool {
    partlens_geometry::is_model_extension(extension)
        || partlens_engine::drawing::is_drawing_extension(extension)
        || (partlens_engine::drawing::READS_RASTER_TEXT
            && partlens_engine::is_image_extension(extension))
}

/// A worker that gave no answer, as the engine's refusal the record keeps: a limit is "over a
/// limit", a crash "cannot decode"; the sentence says which and what to do.
fn failure_as_engine_error(
    extension: &str,
    failure: SandboxFailure,
) -> partlens_engine::EngineError {
    let reason = failure.to_string();
    match failure {
        SandboxFailure::TimeLimit(_)
        | SandboxFailure::CpuLimit(_)
        | SandboxFailure::MemoryLimit(_) => partlens_engine::EngineError::OverLimit {
            extension: extension.to_owned(),
            reason,
        },
        SandboxFailure::Crashed { .. }
        | SandboxFailure::OtherBuild { .. }
        | SandboxFailure::Cancelled
        | SandboxFailure::CannotStart(_) => partlens_engine::EngineError::Undecodable {
            extension: extension.to_owned(),
            reason,
        },
    }
}

/// Checks what an analysis produced against the caps no reader counted itself (every format):
/// extracted text, PMI items and the search text the analysis adds.
fn within_limits(
    extension: &str,
    analysis: partlens_engine::Analysis,
    limits: &ServiceLimits,
) -> Result<partlens_engine::Analysis, partlens_engine::EngineError> {
    let over = |reason: String| partlens_engine::EngineError::OverLimit {
        extension: extension.to_owned(),
        reason,
    };
    let text_limit = limits.extraction.max_text_bytes;
    if analysis.text.len() > text_limit {
        return Err(over(format!(
            "it holds more than {text_limit} bytes of text (the limit of one file)"
        )));
    }
    let items: usize = analysis.pmi_pages.iter().map(|page| page.items.len()).sum();
    if items > limits.extraction.max_pmi_items {
        return Err(over(format!(
            "it holds {items} PMI items; at most {} are kept for one file",
            limits.extraction.max_pmi_items
        )));
    }
    let search_text = analysis.text.len()
        + analysis
            .extracted_attributes
            .iter()
            .map(|attribute| attribute.len() + 1)
            .sum::<usize>();
    if search_text > limits.max_search_text_bytes {
        return Err(over(format!(
            "its text and extracted attributes come to {search_text} bytes; at most {} are \
             searched for one file",
            limits.max_search_text_bytes
        )));
    }
    Ok(analysis)
}

/// Marks a completed file whose stored views are damaged as queued again (its views dropped) and
/// logs it; true when it was requeued (a file in another state is left alone: it is already being
/// indexed or failed).
fn requeue_damaged(
    tx: &mut dyn StoreTx,
    uid: &str,
    error: &str,
    now: &str,
) -> Result<bool, ServiceError> {
    let completed = tx
        .find_any_file(uid)?
        .is_some_and(|record| record.state == IndexState::Completed);
    if !completed {
        return Ok(false);
    }
    tracing::warn!(
        uid,
        error,
        "stored views cannot be read (an earlier engine's, or damaged); the file is indexed again"
    );
    tx.requeue_for_indexing(uid, now)?;
    Ok(true)
}

/// What is saved of a file the engine could not analyse: the reason in words, and the words of a
/// model whose shape could not be read (so it stays findable by them).
fn indexing_failure(error: &partlens_engine::EngineError) -> IndexingFailure {
    let (text, extracted_attributes) = match error {
        partlens_engine::EngineError::ShapeUnreadable {
            text,
            extracted_attributes,
            ..
        } => (text.clone(), extracted_attributes.clone()),
        _ => (String::new(), Vec::new()),
    };
    IndexingFailure {
        reason: FailureReason::from(error).as_str().to_owned(),
        text,
        extracted_attributes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use partlens_store::model::NewContent;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_that_cannot_be_indexed_ends_failed_not_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let (state, caller) = crate::state::state_for_tests(dir.path()).await;
        let uid = "3f2504e0-4f89-41d3-9a0c-0305e82c3301".to_owned();
        let content = NewContent {
            uid: uid.clone(),
            company_id: caller.company_id.clone(),
            owner_user_id: caller.user_id,
            is_search_input: true,
            stored_path: format!("{uid}.png"),
            display_name: format!("{uid}.png"),
            extension: ".png".into(),
            size: 2000,
            state: IndexState::Queued,
            callback_param: None,
            text_only: false,
        };
        let revision = state
            .store
            .write_tx(move |tx| -> Result<i64, ServiceError> {
                let revision = tx.upsert_file(&content, &iso_now())?;
                tx.enqueue_job(&content.uid, &iso_now())?;
                Ok(revision)
            })
            .await
            .unwrap();
        // The stored bytes cannot be read (a folder stands where they should be).
        let content = state
            .blobs
            .local_path(crate::blobs::BlobKey::Content(&uid))
            .unwrap();
        std::fs::create_dir_all(content.join("held")).unwrap();
        let job = state
            .store
            .queue_tx(|tx| -> Result<_, ServiceError> { Ok(tx.claim_next_job()?) })
            .await
            .unwrap()
            .unwrap();
        assert_eq!(job.revision, revision);
        assert!(state.indexer.index(job).await.is_err());
        let (record, queued) = state
            .store
            .read_tx(move |tx| -> Result<_, ServiceError> {
                let queued: u64 = tx
                    .queue_depths()?
                    .iter()
                    .map(|depth| depth.queued + depth.in_progress)
                    .sum();
                Ok((tx.find_any_file(&uid)?, queued))
            })
            .await
            .unwrap();
        let record = record.unwrap();
        assert_eq!(record.state, IndexState::Failed);
        assert_eq!(
            record.failure_reason.as_deref(),
            Some("the service failed while indexing the file")
        );
        assert_eq!(queued, 0);
    }
}
