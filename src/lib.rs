//! partlens: desktop client, command-line client and local implementation of the File Indexing and
//! Search Service.
//!
//! Layers (see DESIGN.md): `ui → tasks → api`, `cli → tasks → api`, `service → api` (the shared wire
//! types and encodings), `service → geometry`. Nothing but the `partlens` binary uses `ui`;
//! `geometry` (meshes and model readers) is a leaf that uses nothing else in the crate.

pub mod api;
pub mod cli;
pub mod desktop;
pub mod geometry;
pub mod service;
pub mod tasks;
pub mod ui;
pub mod workspace;
