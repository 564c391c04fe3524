//! Test support shared by the integration tests of the workspace's crates (a dev-dependency only,
//! never part of a program): [`service`], the service on 127.0.0.1:0 over a temporary data folder,
//! logged-in sessions speaking raw HTTP, test images and waiting with a deadline; [`wire`], the strict
//! wire-checking server the client's and the command line's tests talk to; [`sync`], the fixtures of
//! the library-sync tests; [`realworld`], the real-world corpus read as the service reads it;
//! [`library`], a large company library written straight into a store.

// Test code: a failed set-up step should panic and fail the test that called it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod library;
pub mod postgres;
pub mod realworld;
pub mod service;
pub mod sync;
pub mod wire;

use std::path::PathBuf;

/// The program `name` of this build (`partlens`, `partlens-cli`, `partlens-service`): beside the
/// test binary's own folder (`target/debug` holds the programs, `target/debug/deps` the tests).
/// `cargo test --workspace` builds every program; a test run with `-p CRATE` builds only that
/// crate's, so another crate's program may need `cargo build -p ITS_CRATE` first.
pub fn program(name: &str) -> PathBuf {
    let test_binary = std::env::current_exe().unwrap();
    let profile_dir = test_binary
        .parent()
        .and_then(std::path::Path::parent)
        .unwrap();
    let program = profile_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        program.exists(),
        "{} is not built: run `cargo test --workspace` (or build its crate first)",
        program.display()
    );
    program
}
