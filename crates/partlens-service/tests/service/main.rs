//! The service's integration tests, one binary: every endpoint over HTTP on 127.0.0.1:0, abuse
//! limits, faults, the lifecycle of the `partlens-service` program, CAD uploads, the visual index.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse;
mod assemblies;
mod blob_store;
mod cad;
mod callbacks;
mod drawings_realworld;
mod duplicates;
mod duplicates_realworld;
mod endpoints;
mod faults;
mod library;
mod lifecycle;
mod metrics;
mod migrate;
mod mirrored_size;
mod pages;
mod postgres_store;
mod postgres_text;
mod postgres_vectors;
mod realworld;
mod sandbox;
mod size_filter;
mod stored_files;
mod upload_params;
mod visual_index;
mod zip_upload;
