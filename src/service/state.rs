//! What every handler shares: the configuration, the store, the data directory, the indexer and the
//! image-link signer.

use std::net::SocketAddr;
use std::sync::Arc;

use super::config::ServiceConfig;
use super::disk::Disk;
use super::image_links::ImageLinks;
use super::indexing::Indexer;
use super::store::Store;

/// The shared state of a running service.
pub struct ServiceState {
    /// How the service was set up.
    pub config: ServiceConfig,
    /// The address actually bound (the fallback origin of image URLs).
    pub local_addr: SocketAddr,
    /// Records, users, tokens, queue.
    pub store: Store,
    /// Files and images on disk.
    pub disk: Disk,
    /// Runs the engine, owns the visual index.
    pub indexer: Indexer,
    /// Signs the image URLs.
    pub image_links: ImageLinks,
}

/// The state as handlers receive it.
pub type AppState = Arc<ServiceState>;
