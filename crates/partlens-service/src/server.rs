//! Starting and stopping the service: open the store, rebuild the visual index, put unfinished jobs
//! back in the queue, bind, serve in a tokio task (within the connection limits of
//! `connections`), start the indexing workers, the callbacks' sender and the cleaner of expired
//! search inputs.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::blobs::Blobs;
use super::config::{ServiceConfig, public_origin};
use super::connections;
use super::disk::Disk;
use super::error::ServiceError;
use super::image_links::{ImageLinks, SECRET_NAME};
use super::indexing::Indexer;
use super::login_guard::LoginGuard;
use super::metrics::Metrics;
use super::routes;
use super::state::ServiceState;
use super::stored_files::StoredFiles;
use partlens_store::Store;
use partlens_visual::VisualKeeper;

/// How long a shutdown waits for requests in flight before it stops serving anyway: short enough
/// that SIGTERM ends the service within 5 s (reads in workers are killed at once).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// A service running in this process. Dropping it stops serving; [`RunningService::shutdown`] also
/// waits until it has stopped.
pub struct RunningService {
    addr: SocketAddr,
    stop: CancellationToken,
    indexer: Indexer,
    server: Option<tokio::task::JoinHandle<()>>,
    workers: Vec<tokio::task::JoinHandle<()>>,
    cleaner: Option<tokio::task::JoinHandle<()>>,
    stored_files: StoredFiles,
}

impl RunningService {
    /// Binds `config.addr`, opens (or creates) the store in `config.data_dir`, rebuilds the visual
    /// index, resumes queued jobs and serves in a tokio task.
    pub async fn start(config: ServiceConfig) -> Result<RunningService, ServiceError> {
        let store =
            Store::open_configured(config.data_dir.clone(), config.database.clone()).await?;
        // On PostgreSQL the data directory may be shared by nodes: each receives bodies in a
        // folder of its own, and only the folders of nodes gone are emptied.
        let (disk, live_nodes) = match store.node_id() {
            Some(node) => (
                Disk::for_node(&config.data_dir, node),
                store.read_tx(|tx| tx.known_nodes()).await?,
            ),
            None => (Disk::new(&config.data_dir), Vec::new()),
        };
        let folders = disk.clone();
        tokio::task::spawn_blocking(move || folders.create_folders(&live_nodes)).await??;
        let blobs = Blobs::open(&config.blobs, &config.data_dir).map_err(|error| {
            ServiceError::Io(std::io::Error::new(
                error.kind(),
                format!("the blob store ({:?}): {error}", config.blobs),
            ))
        })?;
        tracing::info!(blobs = blobs.describe(), "stored files and images");
        let secret = store
            .write_tx(|tx| tx.secret(SECRET_NAME, &mut ImageLinks::fresh_secret))
            .await?;
        let image_links = ImageLinks::new(secret, config.image_token_lifetime);
        let visual = VisualKeeper::new(store.clone(), &config.data_dir, config.visual);
        let indexer = Indexer::new(
            store.clone(),
            disk.clone(),
            blobs.clone(),
            visual.clone(),
            config.limits.clone(),
            &config.reader,
        );
        let (indexed, queued) = indexer.recover().await?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServiceError::Bind {
                addr: config.addr,
                source,
            })?;
        let addr = listener.local_addr()?;
        let mut workers = indexer.start_workers(config.index_workers);
        let stop = CancellationToken::new();
        let cleaner = Some(tokio::spawn(super::expiry::run_cleaner(
            store.clone(),
            blobs.clone(),
            config.limits.search_input_lifetime,
            config.limits.expiry_sweep_interval,
            stop.clone(),
        )));
        // Candidate duplicates of files indexed before pairing existed (pairing_backfill.rs).
        workers.push(tokio::spawn(super::pairing_backfill::run(
            indexer.pairer().clone(),
            store.clone(),
            indexer.readers().clone(),
            stop.clone(),
        )));
        // Files indexed meanwhile are paired once no search input is being read (pairing_queue.rs).
        workers.push(tokio::spawn(indexer.pairing_task(stop.clone())));
        let callback_attempts = partlens_callbacks::AttemptCounts::default();
        workers.push(tokio::spawn(partlens_callbacks::sender::run(
            partlens_callbacks::outbox::StoreOutbox(store.clone()),
            config.callbacks,
            callback_attempts.clone(),
            stop.clone(),
        )));
        let connection_limits = config.limits.connections.clone();
        let stored_files = StoredFiles::new(store.clone(), blobs.clone());
        let metrics = config
            .metrics
            .served_on(addr)
            .then(|| Arc::new(Metrics::new(indexer.reader_kills(), &callback_attempts)));
        let state = Arc::new(ServiceState {
            public_origin: public_origin(config.public_url.as_deref(), addr),
            filter_scopes: super::filter_scopes::FilterScopes::new(),
            login_guard: LoginGuard::new(config.limits.login.clone()),
            config,
            local_addr: addr,
            store,
            disk,
            blobs,
            indexer: indexer.clone(),
            visual,
            image_links,
            metrics,
        });
        workers.push(
            state
                .visual
                .spawn_maintenance(state.config.visual_maintenance_interval, stop.clone()),
        );
        let state_has_metrics = state.metrics.is_some();
        let app = routes::app(state);
        let server = tokio::spawn(connections::serve(
            listener,
            app,
            connection_limits,
            stop.clone(),
        ));
        tracing::info!(
            %addr,
            indexed,
            queued,
            metrics = state_has_metrics,
            "service started"
        );
        Ok(Self {
            addr,
            stop,
            indexer,
            server: Some(server),
            workers,
            cleaner,
            stored_files,
        })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the bytes of its stored files are (for the program that runs it, such as the app's
    /// local workspace).
    pub fn stored_files(&self) -> StoredFiles {
        self.stored_files.clone()
    }

    /// `http://HOST:PORT` of the service.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops serving (requests in flight may finish) and stops the workers; jobs not finished stay
    /// queued in the store and resume at the next start.
    pub async fn shutdown(mut self) {
        self.indexer.stop();
        self.stop.cancel();
        if let Some(mut server) = self.server.take()
            && tokio::time::timeout(SHUTDOWN_GRACE, &mut server)
                .await
                .is_err()
        {
            tracing::warn!("requests still running after the grace period; stopping anyway");
            server.abort();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.await;
        }
        if let Some(cleaner) = self.cleaner.take() {
            let _ = cleaner.await;
        }
        // Graphs with changes since their last save are saved, so the next start loads them whole.
        let visual = self.indexer.visual().clone();
        if let Err(error) = tokio::task::spawn_blocking(move || visual.save_all_blocking()).await {
            tracing::error!(%error, "saving the visual index at shutdown stopped unexpectedly");
        }
        tracing::info!(addr = %self.addr, "service stopped");
    }
}

impl Drop for RunningService {
    fn drop(&mut self) {
        self.indexer.stop();
        self.stop.cancel();
    }
}
