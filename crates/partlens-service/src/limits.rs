//! The service's protective limits in one place: what one file may expand into, what one search or
//! attribute write may hold, how logins are throttled, how connections are timed out and counted,
//! and how long search inputs are kept. (The interface's own limits — minimum upload size, files per
//! search, feedback lengths — are the spec's and live with the endpoints.)
//!
//! Every limit is a field of [`ServiceLimits`] (part of [`crate::ServiceConfig`]), so tests
//! can make them small; the defaults are what a served data directory gets. docs/OPERATIONS.md
//! ("Limits, and what a client gets past each") lists each with what a client gets past it.

use std::time::Duration;

use partlens_engine::ExtractionLimits;
use partlens_store::model::AttributeCaps;

/// All protective limits of one service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceLimits {
    /// What one analysis may produce or decode (text, PMI items, image pixels); past a cap the
    /// file's status is 422 with the reason.
    pub extraction: ExtractionLimits,
    /// Most bytes an analysis adds to a file's search text (extracted text and attributes); past it
    /// the analysis fails (422). Saved attributes add at most their own body limit besides.
    pub max_search_text_bytes: usize,
    /// Most attributes (distinct names with units) one file holds; a write or upload that would
    /// give it more is refused with 400 and changes nothing.
    pub max_attributes_per_file: usize,
    /// Most values one file's attributes hold together (a multi-valued attribute counts each);
    /// past it 400.
    pub max_values_per_file: usize,
    /// Most conditions one search holds: every word of a free-text part and every attribute term
    /// counts one (SQLite refuses an expression deeper than 1,000); past it 400.
    pub max_filter_conditions: usize,
    /// Most search-input UIDs one search names; past it 400.
    pub max_search_inputs: usize,
    /// Login throttling.
    pub login: LoginLimits,
    /// Connection timeouts and caps.
    pub connections: ConnectionLimits,
    /// How long a search input is kept after its upload; the cleaner then deletes it (its status
    /// becomes 404, as after a delete).
    pub search_input_lifetime: Duration,
    /// How often the cleaner looks for expired search inputs.
    pub expiry_sweep_interval: Duration,
}

/// Default [`ServiceLimits::max_search_text_bytes`]: 2 MiB.
pub const DEFAULT_MAX_SEARCH_TEXT_BYTES: usize = 2 * 1024 * 1024;
/// Default [`ServiceLimits::max_attributes_per_file`].
pub const DEFAULT_MAX_ATTRIBUTES_PER_FILE: usize = 1_000;
/// Default [`ServiceLimits::max_values_per_file`].
pub const DEFAULT_MAX_VALUES_PER_FILE: usize = 10_000;
/// Default [`ServiceLimits::max_filter_conditions`].
pub const DEFAULT_MAX_FILTER_CONDITIONS: usize = 400;
/// Default [`ServiceLimits::max_search_inputs`].
pub const DEFAULT_MAX_SEARCH_INPUTS: usize = 100;

impl Default for ServiceLimits {
    fn default() -> Self {
        Self {
            extraction: ExtractionLimits::default(),
            max_search_text_bytes: DEFAULT_MAX_SEARCH_TEXT_BYTES,
            max_attributes_per_file: DEFAULT_MAX_ATTRIBUTES_PER_FILE,
            max_values_per_file: DEFAULT_MAX_VALUES_PER_FILE,
            max_filter_conditions: DEFAULT_MAX_FILTER_CONDITIONS,
            max_search_inputs: DEFAULT_MAX_SEARCH_INPUTS,
            login: LoginLimits::default(),
            connections: ConnectionLimits::default(),
            search_input_lifetime: Duration::from_secs(24 * 60 * 60),
            expiry_sweep_interval: Duration::from_secs(10 * 60),
        }
    }
}

impl ServiceLimits {
    /// The attribute caps of one file.
    pub fn attribute_caps(&self) -> AttributeCaps {
        AttributeCaps {
            max_attributes: self.max_attributes_per_file,
            max_values: self.max_values_per_file,
        }
    }
}

/// How `POST /api/Token` is throttled. A password check costs an argon2 hash of ~19 MiB and tens of
/// milliseconds; without bounds, wrong passwords sent in parallel exhaust memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoginLimits {
    /// Password checks that run at once (others wait for a slot): one a core by default.
    pub concurrent_hashes: usize,
    /// Failed logins of one user name within [`LoginLimits::failure_window`] before further
    /// attempts for that name get 429 with `Retry-After`.
    pub max_failures_per_user: u32,
    /// Failed logins from one client address within the window before its attempts get 429.
    pub max_failures_per_address: u32,
    /// The window failures are counted in; it starts at the first failure.
    pub failure_window: Duration,
    /// Most user names and addresses whose failures are remembered at once; when full and nothing
    /// has expired, a name or address not yet known is refused (429) rather than remembered.
    pub max_tracked: usize,
    /// How long a refused (429) login waits before it is answered: a client that ignores
    /// `Retry-After` and asks again at once slows only itself (a tarpit), at the cost of a sleeping
    /// request, not of CPU.
    pub refusal_delay: Duration,
}

impl Default for LoginLimits {
    fn default() -> Self {
        Self {
            concurrent_hashes: std::thread::available_parallelism().map_or(2, |cores| cores.get()),
            max_failures_per_user: 10,
            max_failures_per_address: 30,
            failure_window: Duration::from_secs(60),
            max_tracked: 10_000,
            refusal_delay: Duration::from_secs(1),
        }
    }
}

/// How connections are timed out and counted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections served at once; past it a new connection gets `503` with `Retry-After: 1` and
    /// is closed.
    pub max_connections: usize,
    /// Connections one client address may hold at once; past it the same `503`.
    pub max_connections_per_address: usize,
    /// Longest wait for a request's whole header block, from when the service is ready for it (a
    /// new connection, or after the previous reply); then the connection is closed. It also ends
    /// HTTP/1 connections kept alive without a request.
    pub header_read_timeout: Duration,
    /// Longest wait for the next piece of a request body; a body that stalls longer is answered
    /// `408` and its connection closed.
    pub body_read_timeout: Duration,
    /// A connection on which nothing is read or written for this long while no request of it is
    /// being handled is closed (a reply the client does not read, an idle HTTP/2 connection).
    pub idle_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            max_connections_per_address: 256,
            header_read_timeout: Duration::from_secs(15),
            body_read_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(60),
        }
    }
}
