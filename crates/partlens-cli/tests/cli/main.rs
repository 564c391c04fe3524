//! The command line's integration tests, one binary: `partlens-cli` run as a script runs it, against
//! the strict wire server and the real service, and its library sync (killed for real in
//! `sync_kills.rs`).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod against_service;
mod commands;
mod support;
mod sync;
mod sync_kills;
