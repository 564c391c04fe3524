//! The store's integration tests, one binary: each behaviour of the traits checked on both
//! engines through the public API only, a SQLite database in a temporary folder and a PostgreSQL
//! database of the test server (`partlens_testkit::postgres`; without one the PostgreSQL half is
//! skipped with a message off CI, and fails under CI).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod accounts;
mod attributes;
mod callbacks;
mod files;
mod jobs;
mod library;
mod loaded_files;
mod pairs;
mod relations;
mod search;
mod support;
mod transactions;
mod transfer;
mod visual;
