//! Test support shared by the integration tests of the workspace's crates (a dev-dependency only,
//! never part of a program): [`service`], the service on 127.0.0.1:0 over a temporary data folder,
//! logged-in sessions speaking raw HTTP, test images and waiting with a deadline; [`wire`], the strict
//! wire-checking server the client's and the command line's tests talk to; [`sync`], the fixtures of
//! the library-sync tests.

// Test code: a failed set-up step should panic and fail the test that called it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod service;
pub mod sync;
pub mod wire;
