//! How a local service is set up: its data directory, address, public address, limits, worker
//! count and token lifetimes.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use partlens_sandbox::ReaderLimits;

use super::blobs::BlobLocation;
use super::limits::ServiceLimits;
use super::metrics::MetricsExposure;
use partlens_store::DatabaseUrl;
use partlens_visual::VisualSettings;

/// The address the service binds when none is given: loopback only, port 8480.
pub const DEFAULT_ADDR: SocketAddr =
    SocketAddr::new(std::net::IpAddr::V4(Ipv4Addr::LOCALHOST), 8480);

/// The largest request body accepted by default (512 MiB).
pub const DEFAULT_MAX_BODY_BYTES: u64 = 512 * 1024 * 1024;

/// How a [`crate::RunningService`] is set up.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceConfig {
    /// Where the database, the uploaded files and the rendered images live (created if missing).
    pub data_dir: PathBuf,
    /// A PostgreSQL database to keep records, accounts and the queue in instead of the SQLite file
    /// under `data_dir` (which then holds the files, images and caches). `None`: SQLite.
    pub database: Option<DatabaseUrl>,
    /// Where stored files and rendered images live: the data directory (the default), a folder of
    /// their own, or an S3-compatible bucket (`--blobs`).
    pub blobs: BlobLocation,
    /// The address to bind; port 0 picks a free port.
    pub addr: SocketAddr,
    /// The origin clients reach the service at (`https://parts.example.com`, or with a path
    /// prefix behind a proxy): image links in records and results are built on it. `None`: the
    /// bound address (`http://127.0.0.1:PORT`; loopback when bound to every interface). The
    /// request's `Host` header is never used, so a client cannot make the service hand out links
    /// to another host.
    pub public_url: Option<String>,
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
    /// The protective limits (expansion caps, login throttling, connection timeouts, expiry).
    pub limits: ServiceLimits,
    /// How models and drawings are read: in worker processes, with hard limits.
    pub reader: ReaderSettings,
    /// Whether `GET /metrics` is served: by default only on a loopback address (see
    /// [`MetricsExposure`]).
    pub metrics: MetricsExposure,
    /// How callbacks are sent: private addresses allowed or not (`--allow-private-callbacks`),
    /// retries, time limits (see `partlens_callbacks::sender`).
    pub callbacks: partlens_callbacks::SenderSettings,
}

/// How models and drawings are read: each in a worker process (`PROGRAM read-worker`) with limits
/// the operating system enforces; pictures are decoded in the service, within their pixel cap.
#[derive(Clone, Debug, PartialEq)]
pub struct ReaderSettings {
    /// Wall-clock, memory and CPU-time limits of one read.
    pub limits: ReaderLimits,
    /// The program run as a worker. `None`: [`partlens_sandbox::default_program`] (this program
    /// when it hosts workers, as `partlens-service` and the app do).
    pub program: Option<PathBuf>,
    /// How many files are read at once, pictures included (the fair pool's slots).
    pub slots: usize,
}

impl Default for ReaderSettings {
    /// The default limits, this program, one slot a core.
    fn default() -> Self {
        Self {
            limits: ReaderLimits::default(),
            program: None,
            slots: std::thread::available_parallelism().map_or(2, |cores| cores.get()),
        }
    }
}

impl ServiceConfig {
    /// The defaults for a data directory: 127.0.0.1:8480, 512 MiB bodies, 2 workers, 12 h tokens,
    /// 15 min image tokens, the default [`ServiceLimits`] and [`ReaderSettings`], approximate visual search from 50,000
    /// views a company, maintenance every 30 s, metrics on a loopback address only.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            database: None,
            blobs: BlobLocation::DataDirectory,
            addr: DEFAULT_ADDR,
            public_url: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            index_workers: 2,
            token_lifetime: Duration::from_secs(12 * 60 * 60),
            image_token_lifetime: Duration::from_secs(15 * 60),
            visual: VisualSettings::default(),
            visual_maintenance_interval: Duration::from_secs(30),
            limits: ServiceLimits::default(),
            reader: ReaderSettings::default(),
            metrics: MetricsExposure::Auto,
            callbacks: partlens_callbacks::SenderSettings::default(),
        }
    }
}

/// The origin image links are built on: the configured public URL without a trailing `/`, else
/// `http://` and the bound address (`127.0.0.1` in place of an unspecified address).
pub fn public_origin(public_url: Option<&str>, bound: SocketAddr) -> String {
    if let Some(url) = public_url.map(str::trim).filter(|url| !url.is_empty()) {
        return url.trim_end_matches('/').to_owned();
    }
    let mut address = bound;
    if address.ip().is_unspecified() {
        address.set_ip(match address.ip() {
            std::net::IpAddr::V4(_) => std::net::IpAddr::V4(Ipv4Addr::LOCALHOST),
            std::net::IpAddr::V6(_) => std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        });
    }
    format!("http://{address}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_origin_is_the_configured_url_else_the_bound_address() {
        let bound: SocketAddr = "0.0.0.0:8480".parse().unwrap();
        assert_eq!(public_origin(None, bound), "http://127.0.0.1:8480");
        assert_eq!(
            public_origin(Some("https://parts.example.com/pl/"), bound),
            "https://parts.example.com/pl"
        );
        let v6: SocketAddr = "[::1]:9".parse().unwrap();
        assert_eq!(public_origin(Some(" "), v6), "http://[::1]:9");
    }
}
