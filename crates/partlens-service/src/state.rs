//! What every handler shares: the configuration, the store, the data directory, the indexer, the
//! image-link signer with the public origin, the login throttle, and the metrics.

use std::net::SocketAddr;
use std::sync::Arc;

use super::blobs::Blobs;
use super::config::ServiceConfig;
use super::disk::Disk;
use super::filter_scopes::FilterScopes;
use super::image_links::ImageLinks;
use super::indexing::Indexer;
use super::login_guard::LoginGuard;
use super::metrics::Metrics;
use partlens_store::Store;
use partlens_visual::VisualKeeper;

/// The shared state of a running service.
pub struct ServiceState {
    /// How the service was set up.
    pub config: ServiceConfig,
    /// The address actually bound.
    pub local_addr: SocketAddr,
    /// The origin image URLs are built on (the configured public URL, else the bound address).
    pub public_origin: String,
    /// Records, users, tokens, queue.
    pub store: Store,
    /// Where bodies being received are written (`tmp/`).
    pub disk: Disk,
    /// Stored files and rendered images.
    pub blobs: Blobs,
    /// Runs the engine; writes the visual index as files are indexed.
    pub indexer: Indexer,
    /// The visual index, for reading (searches, duplicates); the indexer writes through the same
    /// keeper.
    pub visual: VisualKeeper,
    /// Signs the image URLs.
    pub image_links: ImageLinks,
    /// Throttles password checks.
    pub login_guard: LoginGuard,
    /// Metadata filters of graph searches, resolved and kept.
    pub filter_scopes: FilterScopes,
    /// The Prometheus metrics, when `GET /metrics` is served (see [`crate::metrics`]).
    pub metrics: Option<Arc<Metrics>>,
}

/// The state as handlers receive it.
pub type AppState = Arc<ServiceState>;

/// A service state over `data_dir` for unit tests: the store open, the folders made, no workers and
/// no HTTP, and a caller (a non-admin of company `Acme`).
#[cfg(test)]
pub(crate) async fn state_for_tests(
    data_dir: &std::path::Path,
) -> (AppState, crate::caller::Caller) {
    let store = Store::open(data_dir.to_path_buf()).await.unwrap();
    state_over_store_for_tests(store, data_dir).await
}

/// [`state_for_tests`] over a store already open (either engine).
#[cfg(test)]
pub(crate) async fn state_over_store_for_tests(
    store: Store,
    data_dir: &std::path::Path,
) -> (AppState, crate::caller::Caller) {
    let disk = Disk::new(data_dir);
    disk.create_folders(&[]).unwrap();
    let blobs = Blobs::open(&super::blobs::BlobLocation::DataDirectory, data_dir).unwrap();
    let company_id = store
        .write_tx(|tx| -> Result<String, crate::ServiceError> { Ok(tx.ensure_company("Acme")?) })
        .await
        .unwrap();
    let config = ServiceConfig::new(data_dir);
    let visual = partlens_visual::VisualKeeper::new(store.clone(), data_dir, config.visual);
    let indexer = Indexer::new(
        store.clone(),
        disk.clone(),
        blobs.clone(),
        visual.clone(),
        config.limits.clone(),
        &config.reader,
    );
    let state = Arc::new(ServiceState {
        local_addr: config.addr,
        public_origin: super::config::public_origin(None, config.addr),
        filter_scopes: super::filter_scopes::FilterScopes::new(),
        login_guard: LoginGuard::new(config.limits.login.clone()),
        config,
        store,
        disk,
        blobs,
        indexer,
        visual,
        image_links: ImageLinks::new(b"test".to_vec(), std::time::Duration::from_secs(60)),
        metrics: None,
    });
    let caller = crate::caller::Caller(partlens_store::model::Caller {
        user_id: 1,
        company_id,
        admin: false,
        credential_stamp: String::new(),
    });
    (state, caller)
}
