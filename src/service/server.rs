//! Starting and stopping the service: open the store, rebuild the visual index, put unfinished jobs
//! back in the queue, bind, serve in a tokio task, start the indexing workers.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::config::ServiceConfig;
use super::disk::Disk;
use super::error::ServiceError;
use super::image_links::{ImageLinks, SECRET_NAME};
use super::indexing::Indexer;
use super::routes;
use super::state::ServiceState;
use super::store::{Store, accounts};
use super::visual::VisualKeeper;

/// How long a shutdown waits for requests in flight before it stops serving anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// A service running in this process. Dropping it stops serving; [`RunningService::shutdown`] also
/// waits until it has stopped.
pub struct RunningService {
    addr: SocketAddr,
    stop: CancellationToken,
    indexer: Indexer,
    server: Option<tokio::task::JoinHandle<()>>,
    workers: Vec<tokio::task::JoinHandle<()>>,
}

impl RunningService {
    /// Binds `config.addr`, opens (or creates) the store in `config.data_dir`, rebuilds the visual
    /// index, resumes queued jobs and serves in a tokio task.
    pub async fn start(config: ServiceConfig) -> Result<RunningService, ServiceError> {
        let disk = Disk::new(&config.data_dir);
        let folders = disk.clone();
        tokio::task::spawn_blocking(move || folders.create_folders()).await??;
        let store = Store::open(config.data_dir.clone()).await?;
        let secret = store
            .write(|connection| accounts::secret(connection, SECRET_NAME, ImageLinks::fresh_secret))
            .await?;
        let image_links = ImageLinks::new(secret, config.image_token_lifetime);
        let visual = VisualKeeper::new(store.clone(), &config.data_dir, config.visual);
        let indexer = Indexer::new(store.clone(), disk.clone(), visual.clone());
        let (indexed, queued) = indexer.recover().await?;
        let listener = tokio::net::TcpListener::bind(config.addr)
            .await
            .map_err(|source| ServiceError::Bind {
                addr: config.addr,
                source,
            })?;
        let addr = listener.local_addr()?;
        let mut workers = indexer.start_workers(config.index_workers);
        let state = Arc::new(ServiceState {
            config,
            local_addr: addr,
            store,
            disk,
            indexer: indexer.clone(),
            image_links,
        });
        let stop = CancellationToken::new();
        workers.push(
            state
                .indexer
                .visual()
                .spawn_maintenance(state.config.visual_maintenance_interval, stop.clone()),
        );
        let app = axum::ServiceExt::<axum::extract::Request>::into_make_service(routes::app(state));
        let stopped = stop.clone();
        let server = tokio::spawn(async move {
            let serving =
                axum::serve(listener, app).with_graceful_shutdown(stopped.cancelled_owned());
            if let Err(error) = serving.await {
                tracing::error!(%error, "the service stopped serving");
            }
        });
        tracing::info!(%addr, indexed, queued, "service started");
        Ok(Self {
            addr,
            stop,
            indexer,
            server: Some(server),
            workers,
        })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.addr
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
