//! partlens: desktop client, command-line client and local implementation of the File Indexing and
//! Search Service.
//!
//! Layers (see DESIGN.md): `ui → tasks → api`, `cli → tasks → api`, `service → api` (the shared wire
//! types and encodings). Nothing but the `partlens` binary uses `ui`.

pub mod api;
pub mod cli;
pub mod desktop;
pub mod service;
pub mod tasks;
pub mod ui;
pub mod workspace;
