//! How a local service is set up: its data directory, address, limits, worker count and token
//! lifetimes.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use super::visual::VisualSettings;

/// The address the service binds when none is given: loopback only, port 8480.
pub const DEFAULT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 8480);

/// The largest request body accepted by default (512 MiB).
pub const DEFAULT_MAX_BODY_BYTES: u64 = 512 * 1024 * 1024;

/// How a [`crate::service::RunningService`] is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceConfig {
    /// Where the database, the uploaded files and the rendered images live (created if missing).
    pub data_dir: PathBuf,
    /// The address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// The largest request body accepted; a bigger one gets 413 without being read whole.
    pub max_body_bytes: u64,
    /// How many background workers index asynchronous uploads. 0 queues jobs and never runs them
    /// (tests use it to keep jobs queued).
    pub index_workers: usize,
    /// How long a bearer token from `POST /api/Token` stays valid.
    pub token_lifetime: Duration,
    /// How long the token inside an image URL stays valid.
    pub image_token_lifetime: Duration,
    /// The visual index: from how many views a company is searched through an approximate graph,
    /// how graphs are built, searched and saved.
    pub visual: VisualSettings,
    /// How often the visual index is looked after in the background (graphs due are built, graphs
    /// with enough changes saved).
    pub visual_maintenance_interval: Duration,
}

impl ServiceConfig {
    /// The defaults for a data directory: 127.0.0.1:8480, 512 MiB bodies, 2 workers, 12 h tokens,
    /// 15 min image tokens, approximate visual search from 50,000 views a company, maintenance every
    /// 30 s.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            addr: DEFAULT_ADDR,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            index_workers: 2,
            token_lifetime: Duration::from_secs(12 * 60 * 60),
            image_token_lifetime: Duration::from_secs(15 * 60),
            visual: VisualSettings::default(),
            visual_maintenance_interval: Duration::from_secs(30),
        }
    }
}
