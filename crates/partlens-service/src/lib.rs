//! The local service: a complete, persistent implementation of the File Indexing and Search Service
//! interface (HTTP routes, users and companies, indexing queue, search), used as the app's local
//! workspace and by the tests, over the store of `partlens_store` and the shared wire types of
//! `partlens_api`.
//!
//! Start one with [`RunningService::start`]; manage users and client ids with [`admin`].

pub mod admin;
pub mod assembly_components;
pub mod assembly_filter;
pub mod auth;
pub mod blobs;
pub mod body;
pub mod caller;
pub mod categories;
pub mod config;
pub mod connections;
pub mod derived_records;
pub mod disk;
pub mod duplicates;
pub mod error;
pub mod expiry;
pub mod failure_reason;
pub mod file_storing;
pub mod filter_scopes;
pub use partlens_pictures::links as image_links;
pub mod indexing;
pub mod input_analyses;
#[cfg(any(test, feature = "samples"))]
pub mod large_library;
pub mod library;
pub mod limits;
pub mod login_guard;
pub mod metrics;
pub mod migrate;
pub mod mirrored;
pub use partlens_pictures::pages;
pub mod pairing;
pub mod pairing_backfill;
pub mod pairing_queue;
pub mod params;
pub mod part_size;
pub mod reader_pool;
pub mod records;
pub mod routes;
pub mod same_part;
pub mod same_part_links;
pub mod search;
pub mod search_body;
pub mod search_request;
pub mod server;
pub mod state;
pub mod stored_files;
pub mod stored_path;
#[cfg(test)]
mod test_stores;
pub mod upload;
pub mod upload_params;
pub mod visual_ranking;
pub mod zip_reading;
pub mod zip_upload;

pub use config::{ReaderSettings, ServiceConfig};
pub use error::ServiceError;
pub use limits::ServiceLimits;
pub use partlens_sandbox::{ReaderLimits, run_if_requested as run_reader_worker_if_requested};
pub use server::RunningService;
pub use stored_files::{StoredFileContent, StoredFiles};
